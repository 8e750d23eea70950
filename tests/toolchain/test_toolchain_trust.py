"""Trust before running what a project provides (engine/toolchain/trust.py): its Makefile or CMakeLists.txt
and the commands, arguments and interpreter of its [tool.hipport.run] run only once the person trusts
the project. Trust is kept in the person's state folder ($XDG_STATE_HOME, one per test: tests/conftest.py),
per project path and digest of what it covers; a change asks again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hipport.engine.config import Config, load_config
from hipport.engine.toolchain.detect import Detection, Gpu, RocmInstall
from hipport.engine.toolchain.plan import plan
from hipport.engine.toolchain.trust import describe, is_trusted, remember, request, store_dir, subject

MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100)
DET = Detection(amd_gpus=(MI300X,), rocm=RocmInstall(hip_version="7.0.0"))


def project(tmp_path: Path, run: str, name: str = "p") -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / "k.hip").write_text("int main() { return 0; }\n")
    (root / "pyproject.toml").write_text(f"[tool.hipport.run]\nrun = {json.dumps(run)}\n")
    return root


def ask(root: Path):  # type: ignore[no-untyped-def]
    settings = load_config(root)
    return request(plan(root, dict(settings.run), detection=DET, env={}, settings=settings), settings)


def test_config_commands_need_trust_once_and_again_when_they_change(tmp_path: Path) -> None:
    root = project(tmp_path, "./build/k --fast")
    req = ask(root)
    assert req is not None and req.reasons == ("[tool.hipport.run] run = './build/k --fast'",)
    text = "\n".join(describe(req))
    assert "run k: ./build/k --fast" in text and "hipcc" in text  # every step, as exact argv
    remember(req.subject)
    assert ask(root) is None
    (root / "pyproject.toml").write_text('[tool.hipport.run]\nrun = "./build/k --slow"\n')
    again = ask(root)
    assert again is not None and "--slow" in again.reasons[0]
    # hipport's own plan (its compile of the port, the program's launch) needs no trust
    (root / "pyproject.toml").unlink()
    assert ask(root) is None


def test_trust_is_per_project_path_and_kept_out_of_the_project(tmp_path: Path) -> None:
    a = project(tmp_path, "./build/k", "a")
    remember(ask(a).subject)  # type: ignore[union-attr]
    b = tmp_path / "b"
    shutil.copytree(a, b)  # the same files somewhere else: another project
    assert ask(b) is not None
    assert not list(a.rglob("trust*")) and not list(b.rglob("trust*"))
    records = list(store_dir().glob("*.json"))
    assert len(records) == 1 and json.loads(records[0].read_text())["project"] == str(a.resolve())
    assert store_dir().is_relative_to(Path(os.environ["XDG_STATE_HOME"]))


def test_a_relative_xdg_state_home_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert store_dir() == tmp_path / ".local" / "state" / "hipport" / "trust"


def test_the_digest_covers_build_files_and_config_but_not_build_output(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "mk").mkdir(parents=True)
    (root / "Makefile").write_text("include mk/rules.mk\nall:\n\ttrue\n")
    (root / "mk" / "rules.mk").write_text("X = 1\n")
    (root / "k.cu").write_text("// source\n")
    settings = Config(run={"args": ["1"]})
    s = subject(root, settings)
    assert s.files == ("Makefile", "mk/rules.mk")
    remember(s)
    (root / "build").mkdir()
    (root / "build" / "Makefile").write_text("generated\n")  # what a CMake build writes: not covered
    (root / "k.cu").write_text("// edited source\n")  # sources are not build scripts
    assert is_trusted(subject(root, settings))
    assert not is_trusted(subject(root, Config(run={"args": ["2"]})))  # the config's arguments
    assert not is_trusted(subject(root, Config(run={"args": ["1"]}, keymap={"run.start": "j"})))  # build keys
    (root / "mk" / "rules.mk").write_text("X = 2\n")  # an included makefile
    assert not is_trusted(subject(root, settings))


def test_two_processes_remembering_lose_nothing(tmp_path: Path) -> None:
    """Each process records 12 different versions of one project (a read-modify-write of its record
    each time); every one of the 24 is trusted at the end."""
    root = project(tmp_path, "./build/k")
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from hipport.engine.config import Config
        from hipport.engine.toolchain.trust import remember, subject
        for i in range(12):
            remember(subject(Path({str(root)!r}), Config(run={{"run": f"./k --{{sys.argv[1]}}{{i}}"}})))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, name]) for name in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    for name in ("a", "b"):
        for i in range(12):
            assert is_trusted(subject(root, Config(run={"run": f"./k --{name}{i}"}))), f"{name}{i} was lost"
    assert not list(store_dir().glob("*.hipport-tmp"))


def test_an_unwritable_state_folder_says_so_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport.engine.fsutil import WriteError

    blocker = tmp_path / "state"
    blocker.write_text("a file where the state folder should be\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
    root = project(tmp_path, "./build/k")
    with pytest.raises(WriteError) as e:
        remember(ask(root).subject)  # type: ignore[union-attr]
    assert "\n" not in str(e.value) and "trust" in str(e.value)


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_headless_run_needs_the_trust_flag(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "k.hip").write_text("int main() { return 0; }\n")
    (root / "pyproject.toml").write_text('[tool.hipport.run]\narch = "gfx90a"\ndefines = ["FAST=1"]\n')

    def hipport(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hipport.cli", "run", *args, str(root)], capture_output=True,
                              text=True, timeout=600, stdin=subprocess.DEVNULL)

    r = hipport("--json")
    report = json.loads(r.stdout)
    assert r.returncode == 2 and report["status"] == "not trusted"
    assert report["reasons"] == ["[tool.hipport.run] defines = ['FAST=1']"]
    assert "-DFAST=1" in r.stderr and "pass --trust" in r.stderr and not (root / "build" / "k").exists()
    r = hipport("--json", "--trust")
    report = json.loads(r.stdout)
    assert r.returncode == 0 and report["status"] == "built, not launched", r.stderr[-2000:]
    assert (root / "build" / "k").is_file() and not (root / ".hipport" / "trust.json").exists()
    # remembered: no flag needed the next time
    assert hipport("--json").returncode == 0
