"""Run a child process and stream its output line by line, without ever blocking the caller.

API (the app's run pane and `hipport run` both use it):

    @dataclass(frozen=True) class OutputLine: text: str; stream: str        # "stdout" | "stderr"
    @dataclass(frozen=True) class Exited: code, seconds, timed_out=False, cancelled=False

    async for item in stream(argv, cwd, env=None, timeout=None):
        ...   # OutputLine items as they arrive, then exactly one Exited

    run_sync(argv, cwd, env=None, timeout=None, on_line=print) -> Exited   # the same for the CLI

The child starts in its own session (start_new_session=True) so that cancelling the consuming task
(Textual's worker cancel, Ctrl-C in the CLI) or the time limit kills the WHOLE process group: make's
compiler children and a Python script's ninja build included. Kill is SIGTERM, then SIGKILL after a
grace period; the child is always reaped (no zombies). argv is a list, never a shell string.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# seconds between SIGTERM and SIGKILL
KILL_GRACE = 2.0
# longest line kept whole; longer lines are split (a runaway progress bar must not eat memory)
MAX_LINE = 64 * 1024


@dataclass(frozen=True)
class OutputLine:
    text: str
    stream: str  # "stdout" | "stderr"


@dataclass(frozen=True)
class Exited:
    code: int | None  # None when killed before an exit status was known; -N for signal N
    seconds: float
    timed_out: bool = False
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return self.code == 0 and not self.timed_out and not self.cancelled


class RunnerError(Exception):
    """The program could not be started (not found, not executable, bad cwd)."""


def _kill_group(proc: asyncio.subprocess.Process, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


async def _terminate(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, wait a little, then SIGKILL; always reap the child."""
    if proc.returncode is None:
        _kill_group(proc, signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), KILL_GRACE)
        except TimeoutError:
            pass
    # the leader may be gone while its children (same group) live on: kill the group regardless
    _kill_group(proc, signal.SIGKILL)
    if proc.returncode is None:
        await proc.wait()


async def _pump(reader: asyncio.StreamReader | None, name: str, queue: asyncio.Queue[OutputLine | None]) -> None:
    if reader is None:
        await queue.put(None)
        return
    pending = b""
    try:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                for i in range(0, max(len(raw), 1), MAX_LINE):
                    await queue.put(OutputLine(_decode(raw[i : i + MAX_LINE]), name))
            while len(pending) > MAX_LINE:
                await queue.put(OutputLine(_decode(pending[:MAX_LINE]), name))
                pending = pending[MAX_LINE:]
        if pending:
            await queue.put(OutputLine(_decode(pending), name))
    finally:
        await queue.put(None)


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").rstrip("\r")


async def stream(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> AsyncIterator[OutputLine | Exited]:
    """Yield the child's output lines as they come, then one `Exited`.

    `env` replaces the environment when given (pass `{**os.environ, ...}` to extend it). Cancelling
    the task that iterates, or closing the generator early, kills the process group."""
    if isinstance(argv, str) or not argv:
        raise RunnerError("argv must be a non-empty list of arguments, not a shell string")
    if not Path(cwd).is_dir():
        raise RunnerError(f"working directory does not exist: {cwd}")
    start = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=str(cwd),
            env=dict(env) if env is not None else None,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except (FileNotFoundError, PermissionError, NotADirectoryError) as e:
        raise RunnerError(f"cannot start {argv[0]}: {e.strerror or e}") from e

    queue: asyncio.Queue[OutputLine | None] = asyncio.Queue(maxsize=1024)
    pumps = [
        asyncio.create_task(_pump(proc.stdout, "stdout", queue)),
        asyncio.create_task(_pump(proc.stderr, "stderr", queue)),
    ]
    deadline = None if timeout is None else start + timeout
    open_streams = 2
    timed_out = False
    finished = False
    try:
        while open_streams:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                item = await asyncio.wait_for(queue.get(), wait)
            except TimeoutError:
                timed_out = True
                break
            if item is None:
                open_streams -= 1
                continue
            yield item
        if not timed_out:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                await asyncio.wait_for(proc.wait(), wait)
            except TimeoutError:
                timed_out = True
        if timed_out:
            await _terminate(proc)
        else:
            # the leader exited; stray children that kept no pipe open must not outlive the run
            _kill_group(proc, signal.SIGKILL)
        finished = True
        yield Exited(proc.returncode, time.monotonic() - start, timed_out=timed_out)
    finally:
        if not finished or proc.returncode is None:
            # cancelled (task cancel or generator closed early): shield so the kill completes
            await asyncio.shield(_terminate(proc))
        for p in pumps:
            p.cancel()
        for p in pumps:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await p


def run_sync(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    on_line: Callable[[OutputLine], None] | None = None,
) -> Exited:
    """Run to completion, passing each line to `on_line`; Ctrl-C kills the group and re-raises."""

    async def main() -> Exited:
        result: Exited | None = None
        async for item in stream(argv, cwd, env, timeout):
            if isinstance(item, Exited):
                result = item
            elif on_line is not None:
                on_line(item)
        assert result is not None
        return result

    return asyncio.run(main())


def capture(argv: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 5.0,
            cwd: str | os.PathLike[str] | None = None) -> tuple[int | None, str]:
    """(exit code, stdout) of a short tool call, in `cwd` (default: this process's); the whole process
    group is killed at the time limit (a plain subprocess.run would wait for grandchildren that keep the
    pipe open). Code None = killed."""
    import subprocess

    try:
        proc = subprocess.Popen(
            list(argv),
            env=dict(env) if env is not None else None,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as e:
        raise RunnerError(f"cannot start {argv[0]}: {e.strerror or e}") from e
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out.decode("utf-8", errors="replace")
    return proc.returncode, out.decode("utf-8", errors="replace")
