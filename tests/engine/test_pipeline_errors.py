"""One wording for a file the engine fails on (engine/pipeline/files.py): `hipport convert`/`scan`, `scan
--warp`, the app's review session and its background analysis say the same thing after the file's name,
and the other files go on."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.engine.api import settings, translate_options, warp_options, warp_scan
from hipport.engine.pipeline.files import FileError, Job, failure, port_file
from hipport.engine.project.analysis import _summarize
from hipport.engine.review import ReviewError, ReviewSession
from hipport.engine.translate import driver as translate_module

BUG = "RuntimeError: simulated engine bug"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "good.cu").write_text("void f() { cudaDeviceSynchronize(); }\n")
    (tmp_path / "bad.cu").write_text("void g() { cudaDeviceSynchronize(); }\n")
    real = translate_module.translate

    def flaky(source, *a, **k):  # type: ignore[no-untyped-def]
        if source.path is not None and source.path.name == "bad.cu":
            raise RuntimeError("simulated engine bug")
        return real(source, *a, **k)

    monkeypatch.setattr(translate_module, "translate", flaky)
    return tmp_path


def after_name(message: str, name: str) -> str:
    assert message.startswith(f"{name}: "), message
    return message[len(name) + 2:]


def test_every_path_words_an_engine_bug_the_same(tree: Path) -> None:
    cfg = settings([tree])
    options = translate_options(cfg, ast="off")
    said = {}

    converted = port_file(Job(str(tree / "bad.cu"), "bad.cu", options))
    said["convert"] = after_name(converted.error or "", str(tree / "bad.cu"))
    assert port_file(Job(str(tree / "good.cu"), "good.cu", options)).error is None

    scanned = {f.path: f for f in warp_scan([tree], cfg, options, findings=True).files}
    said["scan --warp"] = after_name(scanned["bad.cu"].error, "bad.cu")
    assert scanned["good.cu"].error == ""

    summary, keep = _summarize(str(tree), "bad.cu", options, warp_options(cfg))
    said["background analysis"] = after_name(summary.error or "", "bad.cu")
    assert not keep and _summarize(str(tree), "good.cu", options, warp_options(cfg))[0].error is None

    assert set(said.values()) == {str(failure("", RuntimeError("simulated engine bug")))[2:]}, said
    assert BUG in said["convert"]


def test_the_review_session_words_what_its_own_guards_miss_the_same(tree: Path) -> None:
    def broken_logical(source, translation):  # type: ignore[no-untyped-def]
        raise RuntimeError("simulated engine bug")

    session = ReviewSession.open(tree, autosave=False, logical=broken_logical)
    with pytest.raises(ReviewError) as raised:
        session.load("good.cu")
    assert str(raised.value) == str(failure("good.cu", RuntimeError("simulated engine bug")))
    assert session.entry("good.cu").error == str(raised.value)


def test_a_file_error_is_passed_on_as_it_is() -> None:
    error = FileError("k.cu: not read")
    assert failure("other name", error) is error
