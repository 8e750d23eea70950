"""Worker processes end with the process that started them (issue 22, item 12).

`hipport convert` on a large tree ran fork-started workers, which inherit the write end of their own
task pipe: after a kill -9 of convert they waited for work forever (16 minutes and more). Both pools
(convert's and the app's background analysis) now come from engine/workers.py, whose forkserver
workers see an EOF when their parent dies, however it dies. A worker that dies itself costs its files
an error each, never a wait without end.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
from adv_util import KERNEL

PY = sys.executable


def tree(root: Path, files: int = 160, copies: int = 40) -> Path:
    for i in range(files):
        p = root / f"d{i % 4}" / f"k{i}.cu"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(KERNEL.replace("warp_sum", f"warp_sum_{i}") * copies)
    return root


def cpu(p: psutil.Process) -> float:
    try:
        return float(sum(p.cpu_times()[:2]))
    except psutil.NoSuchProcess:
        return 0.0


def is_worker(p: psutil.Process, top: int) -> bool:
    """A pool worker: not multiprocessing's fork server or resource tracker started by `top`."""
    try:
        return p.ppid() != top or "multiprocessing" not in " ".join(p.cmdline())
    except psutil.NoSuchProcess:
        return False


def descendants_once_working(proc: subprocess.Popen[bytes], at_least: int, timeout: float = 90) -> list[psutil.Process]:
    """proc's descendants, once `at_least` of them used some CPU (the workers got to work)."""
    me = psutil.Process(proc.pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "finished before its workers could be seen: make the tree larger"
        kids = me.children(recursive=True)
        if sum(1 for k in kids if is_worker(k, proc.pid) and cpu(k) > 0.05) >= at_least:
            return kids
        time.sleep(0.05)
    raise AssertionError("no busy worker processes seen")


def left_alive(procs: list[psutil.Process], timeout: float) -> list[str]:
    """Wait for procs to end; kill those still alive after `timeout` (no orphan outlives the test) and
    name them."""
    _gone, alive = psutil.wait_procs(procs, timeout=timeout)
    names = []
    for p in alive:
        try:
            names.append(f"{p.pid}: {' '.join(p.cmdline())[:100]}")
            p.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=10)
    return names


def test_convert_workers_end_after_kill_9_of_convert(tmp_path: Path) -> None:
    src = tree(tmp_path / "src")
    proc = subprocess.Popen([PY, "-m", "hipport.cli", "convert", "-j", "2", "-o", str(tmp_path / "out"),
                             str(src)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids = descendants_once_working(proc, at_least=2)
    proc.kill()
    proc.wait()
    alive = left_alive(kids, timeout=30)
    assert not alive, alive


APP_POOL = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    if __name__ == "__main__":
        from hipport.engine.project.analysis import ProjectAnalysis
        from hipport.engine.review import ReviewSession
        analysis = ProjectAnalysis(ReviewSession.open(Path(sys.argv[1])), workers=2, pool=True, use_cache=False)
        analysis.start()
        time.sleep(600)
""")


def test_app_analysis_workers_end_after_kill_9_of_the_app(tmp_path: Path) -> None:
    """The same mechanism for the app's pool (it had it already: this keeps it)."""
    src = tree(tmp_path / "src")
    script = tmp_path / "app_pool.py"
    script.write_text(APP_POOL)
    proc = subprocess.Popen([PY, str(script), str(src)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids = descendants_once_working(proc, at_least=2)
    proc.kill()
    proc.wait()
    alive = left_alive(kids, timeout=30)
    assert not alive, alive


def test_a_worker_that_dies_costs_errors_not_a_hang(tmp_path: Path) -> None:
    src = tree(tmp_path / "src")
    proc = subprocess.Popen([PY, "-m", "hipport.cli", "convert", "-j", "2", "-o", str(tmp_path / "out"),
                             str(src)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    kids = descendants_once_working(proc, at_least=2)
    workers = [k for k in kids if is_worker(k, proc.pid)]
    assert workers, kids
    max(workers, key=cpu).kill()  # dies under a task, as a crash in a native library would
    try:
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
        left_alive(kids, timeout=10)
    text = err.decode()
    assert proc.returncode == 1, text[-2000:]
    assert "worker process died (signal 9)" in text and "Traceback" not in text, text[-2000:]
