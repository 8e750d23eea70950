"""The writers of `.hipport/` outside the app (baseline/*.json from `hipport run --baseline`, the analysis
cache) take the app's lock (`.hipport/app.lock`) for their write: refused while an app holds the project
in another process, free inside the app's own process, and two writers in two processes never lose each
other's update. Real processes, real flock. (Trust is no `.hipport/` file: it is the person's, kept in
their state folder; tests/toolchain/test_toolchain_trust.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hipport.engine import analysis_cache
from hipport.engine.model import PERSON_KINDS
from hipport.engine.project.lock import LockHeld, ProjectLock, state_write_lock
from hipport.engine.toolchain.baseline import Baseline, Value
from hipport.engine.toolchain.baseline import load as load_baseline

# one cache entry as analysis_cache stores it: findings, edits, then the reports of each kind (a narrower
# tuple is dropped as another version's on load)
ENTRY = tuple(range(1, 3 + len(PERSON_KINDS)))


def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "k.hip").write_text("int main() { return 0; }\n")
    return root


def baseline(root: Path, name: str, value: str) -> Path:
    path = root / ".hipport" / "baseline" / f"{name}.json"
    Baseline("./k", [Value("x", value, float(value))], "", 0).save(path)
    return path


def holder(root: Path, what: str, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the project: an app (ProjectLock) or a short writer (state_write_lock)."""
    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from hipport.engine.project.lock import ProjectLock, state_write_lock
        lock = ProjectLock(Path({str(root)!r})) if {what!r} == "app" else state_write_lock(Path({str(root)!r}))
        with lock:
            print("held", flush=True)
            time.sleep({seconds})
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_writers_are_refused_while_an_app_holds_the_project(tmp_path: Path) -> None:
    root = project(tmp_path)
    app = holder(root, "app", 30)
    try:
        t = time.monotonic()
        with pytest.raises(LockHeld, match=r"another hipport has this project open \(pid \d+"):
            baseline(root, "k", "1")
        assert time.monotonic() - t < 2  # an app holds it for as long as it runs: no waiting
        assert not (root / ".hipport" / "baseline" / "k.json").exists()
        assert "another hipport has this project open" in (analysis_cache.save(root, {"a": ENTRY}) or "")
        assert analysis_cache.load(root) == {}
    finally:
        app.kill()
        app.wait()
    baseline(root, "k", "1")  # the app is gone: the kernel dropped its lock
    assert analysis_cache.save(root, {"a": ENTRY}) is None and analysis_cache.load(root) == {"a": ENTRY}


def test_the_apps_own_process_writes_under_its_lock(tmp_path: Path) -> None:
    root = project(tmp_path)
    with ProjectLock(root):  # as the app does; its run pane then records a baseline in the same process
        path = baseline(root, "k", "1")
        assert analysis_cache.save(root, {"a": ENTRY}) is None
    assert json.loads(path.read_text())["program"] == "./k"


def test_a_short_writer_is_waited_for(tmp_path: Path) -> None:
    root = project(tmp_path)
    other = holder(root, "write", 0.6)
    try:
        t = time.monotonic()
        baseline(root, "k", "1")
        assert time.monotonic() - t >= 0.3  # waited for the other write, then wrote
    finally:
        other.wait()
    with state_write_lock(root):  # and it was let go
        pass


def test_two_processes_writing_baselines_lose_nothing(tmp_path: Path) -> None:
    """Each process records 12 baselines; every one of the 24 is whole at the end, and no temp file is
    left behind."""
    root = project(tmp_path)
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from hipport.engine.toolchain.baseline import Baseline, Value
        for i in range(12):
            Baseline("./k", [Value("x", str(i), float(i))], "", 0).save(
                Path({str(root)!r}) / ".hipport" / "baseline" / f"{{sys.argv[1]}}{{i}}.json")
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, name]) for name in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    for name in ("a", "b"):
        for i in range(12):
            assert load_baseline(root / ".hipport" / "baseline" / f"{name}{i}.json").values[0].text == str(i)
    assert not list((root / ".hipport").rglob("*.hipport-tmp"))
