"""The writers of `.hipport/` outside the app (trust.json from `hipport run`, baseline/*.json from
`hipport run --baseline`) take the app's lock (`.hipport/app.lock`) for their write: refused while an
app holds the project in another process, free inside the app's own process, and two writers in two
processes never lose each other's update. Real processes, real flock."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hipport.engine.project_lock import LockHeld, ProjectLock, state_write_lock
from hipport.engine.toolchain.baseline import Baseline, Value
from hipport.engine.toolchain.detect import Detection, Gpu, RocmInstall
from hipport.engine.toolchain.plan import plan
from hipport.engine.toolchain.trust import remember, untrusted

MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100)
DET = Detection(amd_gpus=(MI300X,), rocm=RocmInstall(hip_version="7.0.0"))


def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "k.hip").write_text("int main() { return 0; }\n")
    return root


def trust_plan(root: Path, command: str):  # type: ignore[no-untyped-def]
    return plan(root, {"run": command}, detection=DET, env={})


def holder(root: Path, what: str, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the project: an app (ProjectLock) or a short writer (state_write_lock)."""
    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from hipport.engine.project_lock import ProjectLock, state_write_lock
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
    rp = trust_plan(root, "./build/k --fast")
    app = holder(root, "app", 30)
    try:
        t = time.monotonic()
        with pytest.raises(LockHeld, match=r"another hipport has this project open \(pid \d+"):
            remember(rp)
        assert time.monotonic() - t < 2  # an app holds it for as long as it runs: no waiting
        assert not (root / ".hipport" / "trust.json").exists()
        with pytest.raises(LockHeld):
            Baseline("./k", [Value("x", "1", 1.0)], "", 0).save(root / ".hipport" / "baseline" / "k.json")
        assert not (root / ".hipport" / "baseline" / "k.json").exists()
    finally:
        app.kill()
        app.wait()
    remember(rp)  # the app is gone: the kernel dropped its lock
    assert untrusted(rp) == []


def test_the_apps_own_process_writes_under_its_lock(tmp_path: Path) -> None:
    root = project(tmp_path)
    rp = trust_plan(root, "./build/k")
    with ProjectLock(root):  # as the app does; its run pane then remembers trust in the same process
        remember(rp)
        Baseline("./k", [Value("x", "1", 1.0)], "", 0).save(root / ".hipport" / "baseline" / "k.json")
    assert untrusted(rp) == []
    assert json.loads((root / ".hipport" / "baseline" / "k.json").read_text())["program"] == "./k"


def test_a_short_writer_is_waited_for(tmp_path: Path) -> None:
    root = project(tmp_path)
    rp = trust_plan(root, "./build/k")
    other = holder(root, "write", 0.6)
    try:
        t = time.monotonic()
        remember(rp)
        assert time.monotonic() - t >= 0.3  # waited for the other write, then wrote
    finally:
        other.wait()
    assert untrusted(rp) == []
    with state_write_lock(root):  # and it was let go
        pass


def test_two_processes_remembering_lose_nothing(tmp_path: Path) -> None:
    """Each process records 12 different command sets (a read-modify-write of trust.json each time);
    every one of the 24 is there at the end."""
    root = project(tmp_path)
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from hipport.engine.toolchain.detect import Detection, Gpu, RocmInstall
        from hipport.engine.toolchain.plan import plan
        from hipport.engine.toolchain.trust import remember
        det = Detection(amd_gpus=(Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100),),
                        rocm=RocmInstall(hip_version="7.0.0"))
        for i in range(12):
            remember(plan(Path({str(root)!r}), {{"run": f"./k --{{sys.argv[1]}}{{i}}"}}, detection=det, env={{}}))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, name]) for name in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    for name in ("a", "b"):
        for i in range(12):
            assert untrusted(trust_plan(root, f"./k --{name}{i}")) == [], f"{name}{i} was lost"
    assert not list((root / ".hipport").glob("*.tmp"))  # no fixed temp name left behind
