"""An engine bug on one file costs that file only: the others are written, the message is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.cli.main import main
from hipport.engine import pipeline


def test_one_failing_file_does_not_stop_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.cu").write_text("void f() { cudaDeviceSynchronize(); }\n")
    (src / "bad.cu").write_text("void g() { cudaDeviceSynchronize(); }\n")
    real = pipeline.port

    def flaky(source, *a, **k):  # type: ignore[no-untyped-def]
        if source.path is not None and source.path.name == "bad.cu":
            raise RuntimeError("simulated engine bug")
        return real(source, *a, **k)

    monkeypatch.setattr(pipeline, "port", flaky)
    rc = main(["convert", str(src), "-o", str(tmp_path / "out"), "-j", "1"])
    err = capsys.readouterr().err
    assert rc != 0
    assert "bad.cu: internal error (RuntimeError: simulated engine bug)" in err
    assert "Traceback" not in err
    assert "hipDeviceSynchronize" in (tmp_path / "out" / "good.cu").read_text()
    assert not (tmp_path / "out" / "bad.cu").exists()


def test_unexpected_error_in_a_command_is_one_line_unless_debugging(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from hipport.engine import walk

    def boom(*a, **k):  # type: ignore[no-untyped-def]
        raise RuntimeError("simulated walk bug")

    monkeypatch.setattr(walk, "walk", boom)
    (tmp_path / "a.cu").write_text("int x;\n")
    monkeypatch.delenv("HIPPORT_DEBUG", raising=False)
    assert main(["scan", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (RuntimeError: simulated walk bug)" in err
    monkeypatch.setenv("HIPPORT_DEBUG", "1")
    with pytest.raises(RuntimeError):
        main(["scan", str(tmp_path)])
