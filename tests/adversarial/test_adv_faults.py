"""Faults: a kill during a write, a full disk, a broken or future `.hipport/state.json`, and builds that
flood the output, never exit, or leave children behind.

The promise checked everywhere: the person's file is the old bytes or the complete new bytes, never a
mix or a truncation; every refusal is one line; no child process outlives a cancelled run.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from adv_util import KERNEL, REDUCTION, hipport, no_traceback, one_line_error
from textual.worker import WorkerCancelled

from hipport.engine import fsutil
from hipport.engine.fsutil import WriteError, atomic_write
from hipport.engine.outputs import write_port
from hipport.engine.review import Decision, ReviewSession
from hipport.engine.review.state import StateError, load_state, state_path
from hipport.engine.toolchain.execute import run_plan
from hipport.engine.toolchain.plan import RunPlan, Step
from hipport.engine.toolchain.runner import Exited, OutputLine, stream

PY = sys.executable

# ------------------------------------------------------------------------------------ kill during a write

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from hipport.engine.outputs import write_port
    target, a, b = Path(sys.argv[1]), open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
    print("ready", flush=True)
    i = 0
    while True:  # what it replaces is kept every third write (the write policy: .prehip, then .prehip.N)
        write_port(target, a if i % 2 else b, in_place=True, keep_original=i % 3 == 0)
        i += 1
""")


def test_sigkill_at_random_moments_never_leaves_a_truncated_file(tmp_path: Path) -> None:
    """A child rewrites a 3 MB file in a loop through atomic_write; we SIGKILL it at random points.
    After every kill the file is exactly the original, version A or version B."""
    rng = random.Random(6)
    original = (KERNEL * 3000).encode()[: 3 << 20]
    a = original.replace(b"cuda", b"hip!")
    b = original.replace(b"float", b"doubl")
    pa, pb = tmp_path / "a.bin", tmp_path / "b.bin"
    pa.write_bytes(a)
    pb.write_bytes(b)
    allowed = {hashlib.sha256(x).hexdigest(): name for x, name in ((original, "original"), (a, "A"), (b, "B"))}
    target = tmp_path / "gemm.cu"
    seen: set[str] = set()
    for _ in range(12):
        target.write_bytes(original)
        proc = subprocess.Popen([PY, "-c", WRITER, str(target), str(pa), str(pb)], stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        data = target.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        assert digest in allowed, f"after SIGKILL the file is {len(data)} bytes of neither version"
        seen.add(allowed[digest])
        for backup in target.parent.glob("gemm.cu.prehip*"):  # every kept copy is whole
            assert hashlib.sha256(backup.read_bytes()).hexdigest() in allowed
            backup.unlink()
    assert seen & {"A", "B"}, "the writer never completed a write before being killed"
    # what a kill can leave is a hidden temp file, which no tree walk picks up as a source
    from hipport.engine.discover import discover

    assert list(discover(tmp_path)) == ["gemm.cu"]


def test_sigkill_during_cli_in_place_convert_of_a_tree(tmp_path: Path) -> None:
    """`hipport convert --in-place` over 300 files, killed mid-run: every file is either the untouched
    original or its complete translation (and its .prehip backup, when present, is the original)."""
    src = tmp_path / "tree"
    originals: dict[str, bytes] = {}
    for i in range(300):
        p = src / f"d{i % 7}" / f"k{i}.cu"
        p.parent.mkdir(parents=True, exist_ok=True)
        data = KERNEL.replace("warp_sum", f"warp_sum_{i}").encode() * 4
        p.write_bytes(data)
        originals[p.relative_to(src).as_posix()] = data
    reference = tmp_path / "ref"
    r = hipport("convert", "-o", str(reference), "-j", "1", str(src), cwd=tmp_path)
    assert r.rc == 0, r.err
    proc = subprocess.Popen([PY, "-m", "hipport.cli", "convert", "--in-place", "-j", "1", "."], cwd=src,
                            stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # kill once some files are done and others are not
        done = sum(1 for rel in originals if (src / rel).with_name(Path(rel).name + ".prehip").exists())
        if done >= 20:
            break
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    translated = untouched = 0
    for rel, data in originals.items():
        now = (src / rel).read_bytes()
        if now == data:
            untouched += 1
        else:
            assert now == (reference / rel).read_bytes(), rel
            assert (src / rel).with_name(Path(rel).name + ".prehip").read_bytes() == data
            translated += 1
    assert translated >= 1 and untouched >= 1, (translated, untouched)


# ------------------------------------------------------------------------------------ disk full


def _enospc_fdopen(real):  # type: ignore[no-untyped-def]
    class Full:
        def __init__(self, f) -> None:  # type: ignore[no-untyped-def]
            self.f = f

        def __enter__(self):  # type: ignore[no-untyped-def]
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def write(self, data: bytes) -> int:
            self.f.write(data[: len(data) // 2])  # half the bytes land, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return getattr(self.f, name)

    return lambda fd, *a, **k: Full(real(fd, *a, **k))


def test_disk_full_at_the_write_call_leaves_the_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "gemm.cu"
    f.write_bytes(KERNEL.encode())
    monkeypatch.setattr(fsutil.os, "fdopen", _enospc_fdopen(os.fdopen))
    with pytest.raises(WriteError) as e:
        atomic_write(f, b"new content " * 1000)
    msg = str(e.value)
    assert "No space left on device" in msg and "original left as it was" in msg and "\n" not in msg
    assert f.read_bytes() == KERNEL.encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gemm.cu"]  # temp file removed


def test_disk_full_while_writing_the_backup_leaves_no_partial_backup(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "gemm.cu"
    f.write_bytes(KERNEL.encode() * 50)
    monkeypatch.setattr(fsutil.os, "fdopen", _enospc_fdopen(os.fdopen))
    with pytest.raises(WriteError, match="No space left"):
        write_port(f, b"new", in_place=True)  # the original is kept first: that write hits the full disk
    assert f.read_bytes() == KERNEL.encode() * 50
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gemm.cu"]  # no half .prehip, no temp file


# Two independent fix groups that really break on a 64-lane wave: the reduction's 32-bit mask (a
# compile error from ROCm 7.0) and, in a second kernel, a ballot kept in 32 bits (drops lanes 32-63).
# KERNEL's `lane = threadIdx.x % 32` leaders are a consistent half of the wave and are rightly not
# flagged (docs/warp.md, roles), so KERNEL alone has one group only.
TWO_GROUPS = """\
#include <cuda_runtime.h>

""" + REDUCTION + """\
__global__ void count_positive(const float* a, int* out) {
    unsigned votes = __ballot_sync(0xffffffff, a[threadIdx.x] > 0.0f);
    if (threadIdx.x == 0) out[blockIdx.x] = __popc(votes);
}

int main() {
    float* d = nullptr;
    cudaMalloc(&d, 1024);
    k<<<1, 256>>>(d, d);
    count_positive<<<1, 64>>>(d, (int*)d);
    cudaDeviceSynchronize();
    cudaFree(d);
    return 0;
}
"""


def test_disk_full_during_a_review_write_keeps_code_and_decisions(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "k.cu").write_bytes(TWO_GROUPS.encode())
    s = ReviewSession.open(tmp_path)
    fr = s.load("k.cu")
    s.decide("k.cu", fr.findings[0].id, Decision.ACCEPTED)
    saved = state_path(tmp_path).read_bytes()
    monkeypatch.setattr(fsutil.os, "fdopen", _enospc_fdopen(os.fdopen))
    with pytest.raises(WriteError, match="No space left"):
        s.write("k.cu")
    # autosave hits the full disk too: the decision stays in memory and the message says it was not saved
    other = next(f for f in fr.findings if f.group != fr.findings[0].group)
    change = s.decide("k.cu", other.id, Decision.REJECTED)
    assert "not saved" in change.message and "No space left" in change.message and "\n" not in change.message
    monkeypatch.undo()
    assert (tmp_path / "k.cu").read_bytes() == TWO_GROUPS.encode()
    assert not (tmp_path / "k.hip").exists()
    assert state_path(tmp_path).read_bytes() == saved  # the last good state, whole
    assert not [p for p in tmp_path.rglob("*.hipport-tmp")]
    # space is back: the same session writes
    out = s.write("k.cu")
    assert out.read_bytes() != TWO_GROUPS.encode()
    assert load_state(tmp_path).files["k.cu"].decisions[other.id].decision == Decision.REJECTED


def test_disk_full_through_the_cli(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_bytes(KERNEL.encode())
    (tmp_path / "b.cu").write_bytes(KERNEL.encode())
    code = textwrap.dedent("""
        import errno, os, sys
        real = os.fdopen
        class Full:
            def __init__(self, f): self.f = f
            def __enter__(self): return self
            def __exit__(self, *e): self.f.close()
            def write(self, d): raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            def __getattr__(self, n): return getattr(self.f, n)
        os.fdopen = lambda fd, *a, **k: Full(real(fd, *a, **k))
        from hipport.cli.main import main
        sys.exit(main(sys.argv[1:]))
    """)
    p = subprocess.run([PY, "-c", code, "convert", "--in-place", "a.cu", "b.cu"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert "Traceback" not in p.stderr
    assert p.returncode == 1
    errs = [ln for ln in p.stderr.splitlines() if ln.startswith("hipport: ")]
    assert len(errs) == 2 and all("No space left on device" in ln for ln in errs), p.stderr
    for n in ("a.cu", "b.cu"):
        assert (tmp_path / n).read_bytes() == KERNEL.encode()


def _try_tmpfs(path: Path, size: str) -> bool:
    if os.geteuid() != 0:
        return False
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    return r.returncode == 0


def test_real_full_disk_on_a_small_tmpfs(tmp_path: Path) -> None:
    mnt = tmp_path / "small"
    if not _try_tmpfs(mnt, "256k"):
        pytest.skip("cannot mount a tmpfs here (needs root and mount permission)")
    try:
        big = (KERNEL * 300).encode()  # ~190 KB: the file fits, a second copy beside it does not
        f = mnt / "big.cu"
        f.write_bytes(big)
        r = hipport("convert", "--in-place", "big.cu", cwd=mnt)
        no_traceback(r)
        assert r.rc == 1 and "No space left on device" in r.err
        assert f.read_bytes() == big
        assert sorted(p.name for p in mnt.iterdir()) in (["big.cu"], ["big.cu", "big.cu.prehip"])
        for p in mnt.iterdir():
            if p.name != "big.cu":
                assert p.read_bytes() == big  # a backup, if one fit, is whole
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


# ------------------------------------------------------------------------------------ .hipport/state.json


BAD_STATES = {
    "not json": b"{\"version\": 1, \"files\": {",
    "binary": b"\x00\xff\xfe garbage",
    "newer version": json.dumps({"version": 99, "files": {}}).encode(),
    "wrong shape": json.dumps([1, 2, 3]).encode(),
    "bad entry": json.dumps({"version": 1, "files": {"k.cu": {"decisions": {"x": {"decision": "maybe"}}}}}).encode(),
    "empty file": b"",
}


@pytest.mark.parametrize("kind", sorted(BAD_STATES))
def test_bad_state_file_is_one_line_and_never_overwritten(tmp_path: Path, kind: str) -> None:
    (tmp_path / "k.cu").write_bytes(KERNEL.encode())
    sp = state_path(tmp_path)
    sp.parent.mkdir()
    sp.write_bytes(BAD_STATES[kind])
    with pytest.raises(StateError) as e:
        ReviewSession.open(tmp_path)
    assert "\n" not in str(e.value) and "state.json" in str(e.value)
    if kind == "newer version":
        assert "newer hipport" in str(e.value)
    assert sp.read_bytes() == BAD_STATES[kind]  # kept as it was
    # fresh=True keeps the bad file aside and starts over; the code is never touched
    s = ReviewSession.open(tmp_path, fresh=True)
    aside = list(sp.parent.glob("state.json.bad-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == BAD_STATES[kind]
    fr = s.load("k.cu")
    s.decide("k.cu", fr.findings[0].id, Decision.ACCEPTED)
    assert load_state(tmp_path).files["k.cu"].decisions
    assert (tmp_path / "k.cu").read_bytes() == KERNEL.encode()


@pytest.mark.parametrize("kind", ["not json", "newer version"])
def test_cli_open_with_a_bad_state_file_is_one_line(tmp_path: Path, kind: str) -> None:
    (tmp_path / "k.cu").write_bytes(KERNEL.encode())
    sp = state_path(tmp_path)
    sp.parent.mkdir()
    sp.write_bytes(BAD_STATES[kind])
    line = one_line_error(hipport("open", ".", cwd=tmp_path, timeout=60), "state.json")
    assert "--fresh" in line  # says how to start over
    assert sp.read_bytes() == BAD_STATES[kind] and (tmp_path / "k.cu").read_bytes() == KERNEL.encode()


# ------------------------------------------------------------------------------------ builds that misbehave


def _maxrss_mb_of(code: str, cwd: Path) -> tuple[float, str]:
    """Peak RSS of a fresh process running `code`: VmHWM, which belongs to the process image (ru_maxrss
    would carry over the RSS of the big test worker it was forked from)."""
    peak = ("\nhwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:')][0]"
            "\nprint('RSS', int(hwm.split()[1]) / 1024)")
    p = subprocess.run([PY, "-c", code + peak], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    rss = float(p.stdout.strip().splitlines()[-1].split()[1])
    return rss, p.stdout


FLOOD = ("import sys\nline = b'/tmp/x/gemm.hip:12:3: warning: spam spam spam spam spam spam spam spam spam "
         "spam spam' + b'.' * 930 + b'\\n'\nfor i in range(100_000): sys.stdout.buffer.write(line)\n"
         "sys.stdout.buffer.write(b'/tmp/x/gemm.hip:1:1: error: the real error\\n')\nsys.exit(1)")


def test_a_build_printing_100_mb_streams_in_bounded_memory(tmp_path: Path) -> None:
    """100 MB of compiler output (100,000 lines of 1 KB): streamed line by line; the runner's memory does
    not grow with it, and the CLI path (run_plan) keeps a bounded amount yet still finds the last error."""
    rss, out = _maxrss_mb_of(textwrap.dedent(f"""
        from pathlib import Path
        from hipport.engine.toolchain.runner import run_sync
        n = [0, 0]
        def on(line):
            n[0] += 1; n[1] += len(line.text) + 1
        e = run_sync([{PY!r}, "-c", {FLOOD!r}], Path("."), on_line=on)
        assert e.code == 1, e
        assert n[1] > 100_000_000, n
        print("lines", n[0])
    """), tmp_path)
    assert "lines 100001" in out
    assert rss < 200, f"runner peak RSS {rss:.0f} MB for 100 MB of output"
    rss2, out2 = _maxrss_mb_of(textwrap.dedent(f"""
        from pathlib import Path
        from hipport.engine.toolchain.plan import RunPlan, Step
        from hipport.engine.toolchain.execute import run_plan
        from hipport.engine.toolchain.detect import Detection
        plan = RunPlan("single-file", [Step("hipcc", [{PY!r}, "-c", {FLOOD!r}], Path("."), {{}}, "build", 120)],
                       False, "gfx942")
        rep = run_plan(plan, Detection(), monitor=False)
        assert rep.status == "build failed", rep.status
        assert any(d.message == "the real error" for d in rep.diagnostics), rep.diagnostics[-3:]
        print("kept", sum(len(o.lines) for o in rep.steps))
    """), tmp_path)
    assert rss2 < 250, f"run_plan peak RSS {rss2:.0f} MB for 100 MB of output"
    kept = int(out2.split("kept")[1].split()[0])
    assert kept <= 5_000, kept  # the first and last lines of each step, not 100 MB


def _descendants_file(tmp_path: Path) -> tuple[str, Path]:
    pids = tmp_path / "pids.txt"
    code = textwrap.dedent(f"""
        import os, signal, subprocess, sys, time
        kids = []
        # a child that ignores SIGTERM, a grandchild under it, and a shell pipeline
        kids.append(subprocess.Popen([sys.executable, "-c",
            "import signal, subprocess, sys, time\\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\\n"
            "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)'])\\n"
            "open({str(pids)!r}, 'a').write(str(g.pid) + '\\\\n')\\ntime.sleep(1000)"]))
        kids.append(subprocess.Popen(["sh", "-c", "sleep 1000 | cat"]))
        # a child that closes its pipes (like a daemon) but stays in the group
        kids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with open({str(pids)!r}, "a") as f:
            f.write("\\n".join(str(k.pid) for k in kids) + "\\n" + str(os.getpid()) + "\\n")
        print("spawned", flush=True)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(1000)
    """)
    return code, pids


def _wait_pids(pids: Path, n: int) -> list[int]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if pids.exists():
            got = [int(x) for x in pids.read_text().split()]
            if len(got) >= n:
                return got
        time.sleep(0.05)
    raise AssertionError("the build never started its children")


def _survivors(pids: list[int]) -> list[str]:
    out = []
    for pid in pids:
        try:
            p = psutil.Process(pid)
            out.append(f"{pid} {p.status()} {p.cmdline()[:3]}")
        except psutil.NoSuchProcess:
            pass
    # and no zombie children of ours
    out += [f"zombie {c.pid}" for c in psutil.Process().children(recursive=True) if c.status() == psutil.STATUS_ZOMBIE]
    return out


async def test_cancel_kills_every_descendant_and_leaves_no_zombie(tmp_path: Path) -> None:
    code, pids = _descendants_file(tmp_path)
    agen = stream([PY, "-c", code], tmp_path)

    async def consume() -> None:
        async for _ in agen:
            pass

    task = asyncio.create_task(consume())
    got = await asyncio.to_thread(_wait_pids, pids, 5)
    # the sh pipeline's sleep/cat are the shell's children: collect them too
    everyone = {p.pid for pid in got if psutil.pid_exists(pid) for p in [psutil.Process(pid),
                                                                        *psutil.Process(pid).children(True)]}
    t = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - t < 10
    await asyncio.sleep(0.2)
    assert _survivors(sorted(everyone)) == []


async def test_a_build_that_never_exits_is_stopped_at_its_time_limit(tmp_path: Path) -> None:
    code, pids = _descendants_file(tmp_path)
    t = time.monotonic()
    lines: list[OutputLine] = []
    exited: Exited | None = None
    async for item in stream([PY, "-c", code], tmp_path, timeout=3):
        if isinstance(item, Exited):
            exited = item
        else:
            lines.append(item)
    elapsed = time.monotonic() - t
    assert exited is not None and exited.timed_out and not exited.ok
    assert OutputLine("spawned", "stdout") in lines
    assert 3 <= elapsed < 12, elapsed
    await asyncio.sleep(0.2)
    assert _survivors([int(x) for x in pids.read_text().split()]) == []


def test_run_plan_time_limit_says_so_in_one_line(tmp_path: Path) -> None:
    from hipport.engine.toolchain.detect import Detection

    plan = RunPlan("single-file", [Step("hipcc gemm.hip", [PY, "-c", "import time; time.sleep(1000)"], tmp_path, {},
                                        "build", 1.5)], False, "gfx942")
    t = time.monotonic()
    rep = run_plan(plan, Detection(), monitor=False)
    assert time.monotonic() - t < 10
    assert rep.status == "build failed"
    assert rep.explanation is not None and "time limit" in rep.explanation and "\n" not in rep.explanation


def test_run_sync_interrupted_kills_the_group(tmp_path: Path) -> None:
    """Ctrl-C in `hipport run`: SIGINT to the CLI process kills the build's process group."""
    code, pids = _descendants_file(tmp_path)
    driver = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from hipport.engine.toolchain.runner import run_sync
        try:
            run_sync([{PY!r}, "-c", {code!r}], Path({str(tmp_path)!r}))
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    proc = subprocess.Popen([PY, "-c", driver], stdout=subprocess.PIPE, text=True)
    got = _wait_pids(pids, 5)
    everyone = {p.pid for pid in got if psutil.pid_exists(pid) for p in [psutil.Process(pid),
                                                                        *psutil.Process(pid).children(True)]}
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=20)
    assert "interrupted" in out
    time.sleep(0.2)
    assert _survivors(sorted(everyone)) == []


# ------------------------------------------------------------------------------------ the app's run pane


def _pane_app(finished: list[Any] | None = None):  # type: ignore[no-untyped-def]
    from textual.app import App, ComposeResult

    from hipport.tui.widgets.run_pane import RunPane

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield RunPane()

        def on_run_pane_finished(self, message: RunPane.Finished) -> None:
            if finished is not None:
                finished.append(message)

    return Host()


async def test_run_pane_keeps_up_with_a_flood_in_bounded_memory(tmp_path: Path) -> None:
    """50,000 lines: the pane batches them into the log (it wrote line by line: 20,000 lines took ~60 s),
    keeps a bounded tail for its Finished message, and still shows the last line."""
    from textual.widgets import RichLog

    from hipport.engine.toolchain.plan import Step, custom_plan
    from hipport.tui.widgets.run_pane import KEEP_OUTPUT, RunPane

    code = ("import sys\nfor i in range(50_000): sys.stdout.write(f'/tmp/g.hip:{i}:1: warning: line {i} ' + "
            "'.' * 60 + '\\n')\nprint('LAST LINE')")
    finished: list[RunPane.Finished] = []
    app = _pane_app(finished)
    async with app.run_test() as pilot:
        pane = app.query_one(RunPane)
        t, c = time.monotonic(), time.process_time()
        pane.start(custom_plan([Step("flood", [PY, "-c", code], tmp_path, None, "build", 120)]))
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        wall, cpu = time.monotonic() - t, time.process_time() - c
        log = pane.query_one("#run-log", RichLog)
        assert len(pane.output) <= KEEP_OUTPUT
        # the last line, then the engine's verdict: the first SHOWN_DIAGNOSTICS of the warnings
        assert any("LAST LINE" in s.text for s in log.lines[-60:])
        assert pane.diagnostics and pane.diagnostics[0].message.startswith("line ")
        assert cpu < 20, (cpu, wall)
    assert finished and finished[0].code == 0 and "LAST LINE" in finished[0].output.splitlines()


async def test_run_pane_stop_kills_every_descendant(tmp_path: Path) -> None:
    from hipport.engine.toolchain.plan import Step, custom_plan
    from hipport.tui.widgets.run_pane import RunPane

    code, pids = _descendants_file(tmp_path)
    app = _pane_app()
    async with app.run_test() as pilot:
        pane = app.query_one(RunPane)
        pane.start(custom_plan([Step("build", [PY, "-c", code], tmp_path, None, "build", 600)]))
        got = await asyncio.to_thread(_wait_pids, pids, 5)
        everyone = {p.pid for pid in got if psutil.pid_exists(pid) for p in [psutil.Process(pid),
                                                                            *psutil.Process(pid).children(True)]}
        assert pane.stop()
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.3)
        assert _survivors(sorted(everyone)) == []
        assert not pane.running


# ------------------------------------------------------------------------------------ the app, when a write fails


@pytest.mark.parametrize("fault", ["read-only", "disk full"])
async def test_the_app_survives_a_failed_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str) -> None:
    """Found: `w` on a read-only file (in-place mode) or on a full disk raised WriteError out of the key
    handler and the app died with a traceback. Now: one line in the status, the app and the decisions stay."""
    from hipport.engine.config import Config
    from hipport.tui.app import PortApp

    (tmp_path / "k.cu").write_bytes(KERNEL.encode())
    if fault == "read-only":
        (tmp_path / "k.cu").chmod(0o444)
    cfg = Config(output_mode="in-place")
    session = ReviewSession.open(tmp_path, cfg)
    app = PortApp(session, cfg)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        if fault == "disk full":
            monkeypatch.setattr(fsutil.os, "fdopen", _enospc_fdopen(os.fdopen))
        await pilot.press("w")
        await pilot.pause()
        assert app.is_running
        msg = app.screen.last_message  # type: ignore[attr-defined]
        assert ("read-only" in msg if fault == "read-only" else "No space left" in msg) and "\n" not in msg
        monkeypatch.undo()
        accepted = [f for f, r in load_state(tmp_path).files["k.cu"].decisions.items()
                    if r.decision == Decision.ACCEPTED]
        assert accepted  # the decision made before the failed write is saved
    assert (tmp_path / "k.cu").read_bytes() == KERNEL.encode()
