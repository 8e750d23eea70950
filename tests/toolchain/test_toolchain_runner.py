"""The process runner on real child processes: streaming, exit codes, time limit, cancel."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from hipport.engine.toolchain.runner import Exited, OutputLine, RunnerError, run_sync, stream

PY = sys.executable


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for PID 1 to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


async def collect(argv: list[str], cwd: Path, **kw: object) -> tuple[list[OutputLine], Exited]:
    lines: list[OutputLine] = []
    exited = None
    async for item in stream(argv, cwd, **kw):  # type: ignore[arg-type]
        if isinstance(item, Exited):
            exited = item
        else:
            lines.append(item)
    assert exited is not None
    return lines, exited


async def test_lines_stream_before_the_process_ends(tmp_path: Path) -> None:
    code = "import sys,time\nprint('first', flush=True)\ntime.sleep(0.6)\nprint('second', flush=True)"
    start = time.monotonic()
    seen: list[tuple[float, str]] = []
    async for item in stream([PY, "-c", code], tmp_path):
        if isinstance(item, OutputLine):
            seen.append((time.monotonic() - start, item.text))
    assert [t for _, t in seen] == ["first", "second"]
    # the first line arrived while the child still slept (a gap, not an absolute time: CI may be loaded)
    assert seen[1][0] - seen[0][0] >= 0.5


async def test_stdout_and_stderr_are_told_apart_and_exit_code_kept(tmp_path: Path) -> None:
    code = "import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(3)"
    lines, exited = await collect([PY, "-c", code], tmp_path)
    assert OutputLine("out", "stdout") in lines and OutputLine("err", "stderr") in lines
    assert exited.code == 3 and not exited.ok and not exited.timed_out


async def test_env_and_cwd_are_the_childs(tmp_path: Path) -> None:
    env = {**os.environ, "HIPPORT_PROBE": "42"}
    lines, exited = await collect([PY, "-c", "import os; print(os.getcwd()); print(os.environ['HIPPORT_PROBE'])"],
                                  tmp_path, env=env)
    assert [ln.text for ln in lines] == [str(tmp_path.resolve()), "42"] and exited.ok


async def test_partial_last_line_crlf_and_invalid_utf8(tmp_path: Path) -> None:
    code = "import sys\nsys.stdout.buffer.write(b'a\\r\\nb\\xff\\nno newline')"
    lines, _ = await collect([PY, "-c", code], tmp_path)
    assert [ln.text for ln in lines] == ["a", "b\ufffd", "no newline"]


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    # the child starts a grandchild that would outlive it; the time limit must take both
    code = ("import subprocess,sys,time\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "print(p.pid, flush=True)\ntime.sleep(60)")
    start = time.monotonic()
    lines, exited = await collect([PY, "-c", code], tmp_path, timeout=1.0)
    assert exited.timed_out and not exited.ok
    assert time.monotonic() - start < 5
    grandchild = int(lines[0].text)
    await asyncio.sleep(0.2)
    assert not alive(grandchild)


async def test_cancel_kills_the_group_even_when_sigterm_is_ignored(tmp_path: Path) -> None:
    code = ("import signal,sys,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "import os\nprint(os.getpid(), flush=True)\ntime.sleep(60)")
    pid: list[int] = []

    async def consume() -> None:
        async for item in stream([PY, "-c", code], tmp_path):
            if isinstance(item, OutputLine):
                pid.append(int(item.text))

    task = asyncio.create_task(consume())
    while not pid:
        await asyncio.sleep(0.05)
    start = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - start < 6  # SIGTERM ignored, SIGKILL after the grace period
    assert not alive(pid[0])


async def test_breaking_out_early_and_closing_kills_the_child(tmp_path: Path) -> None:
    code = "import os,time\nprint(os.getpid(), flush=True)\ntime.sleep(60)"
    gen = stream([PY, "-c", code], tmp_path)
    first = await gen.__anext__()
    assert isinstance(first, OutputLine)
    await gen.aclose()
    assert not alive(int(first.text))


async def test_bad_argv_and_cwd_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="cannot start"):
        await collect(["/nonexistent/hipport-no-such-tool"], tmp_path)
    with pytest.raises(RunnerError, match="working directory"):
        await collect([PY, "-c", "pass"], tmp_path / "missing")
    with pytest.raises(RunnerError, match="list"):
        await collect("echo hi", tmp_path)  # type: ignore[arg-type]


async def test_killed_by_signal_reports_negative_code(tmp_path: Path) -> None:
    _, exited = await collect([PY, "-c", "import os,signal; os.kill(os.getpid(), signal.SIGKILL)"], tmp_path)
    assert exited.code == -9


def test_run_sync_streams_to_the_callback(tmp_path: Path) -> None:
    got: list[str] = []
    exited = run_sync([PY, "-c", "print('x'); print('y')"], tmp_path, on_line=lambda ln: got.append(ln.text))
    assert got == ["x", "y"] and exited.code == 0 and exited.seconds >= 0


def test_very_long_lines_are_split(tmp_path: Path) -> None:
    got: list[str] = []
    run_sync([PY, "-c", "print('z' * 200000)"], tmp_path, on_line=lambda ln: got.append(ln.text))
    assert "".join(got) == "z" * 200000 and max(len(g) for g in got) <= 64 * 1024
