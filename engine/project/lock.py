"""One app per project: `.hipport/app.lock`, held with flock for as long as the app runs.

Two apps on one project would each keep decisions in memory and save them over each other (the
session merges saves per file, so two people deciding in the same file would lose one side). The second
app therefore does not open; it says who holds the project. The kernel drops the lock when the holder
exits, however it exits, so a crash leaves no stale lock behind.

    with ProjectLock(root):      # raises LockHeld("... pid 1234 since 20:31 ...")
        app.run()

The lock file is opened without following links (state_files.open_file): a repository that ships
`.hipport/app.lock` as a link to a file of the person's is refused, naming it, and the file is never
touched.

Writers of other `.hipport/` files outside the app (`hipport run`: baseline/*.json; the analysis cache)
take the same lock for the moment of their write (`state_write_lock`): in the app's own process, which
holds it already, that costs nothing; elsewhere it waits a little for another short writer and is
refused at once while an app has the project open (an app holds the lock for as long as it runs).
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from .. import state_files
from ..state_files import UnsafeStatePath

LOCK_NAME = "app.lock"
WRITE_WAIT = 5.0  # seconds a short writer waits for another short writer
_HELD: set[str] = set()  # projects (real paths) whose app lock this process holds


class LockHeld(Exception):
    """Another hipport app has this project open; the message says which (one line)."""


class ProjectLock:
    """`acquire` raises LockHeld (another app) or state_files.UnsafeStatePath (app.lock is a link or not
    a regular file); any other failure to open the lock is kept in `note` (a read-only project)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.path = self.root / ".hipport" / LOCK_NAME
        self._fd: int | None = None
        self.note = ""  # why no lock is held (a read-only project): the app says it

    def acquire(self) -> None:
        try:
            fd = state_files.open_file(self.root, LOCK_NAME, os.O_RDWR | os.O_CREAT)
        except UnsafeStatePath:
            raise
        except OSError as e:  # nothing can be saved here either; the session says so on the first save
            self.note = f"no app lock ({self.path}: {e.strerror or e})"
            return
        try:
            _flock(fd, self.root)  # waits only while a short writer (no holder line) has it
        except LockHeld:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        info = f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%d %H:%M:%S')}"
        os.pwrite(fd, info.encode(), 0)
        self._fd = fd
        _HELD.add(os.path.realpath(self.root))

    def release(self) -> None:
        if self._fd is not None:
            _HELD.discard(os.path.realpath(self.root))
            try:
                os.ftruncate(self._fd, 0)
            except OSError:
                pass
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> ProjectLock:
        self.acquire()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def _flock(fd: int, root: Path, wait: float = WRITE_WAIT) -> None:
    """Take the lock on `fd`. An app writes a holder line into the file and keeps the lock while it
    runs: refused at once. A short writer leaves the file empty: waited for, up to `wait` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            if holder or time.monotonic() >= deadline:
                raise LockHeld(f"{root}: another hipport has this project open ({holder or 'a write in progress'}); "
                               "close it first (its decisions are saved as it goes)") from None
            time.sleep(0.05)


@contextmanager
def state_write_lock(root: Path, wait: float = WRITE_WAIT) -> Iterator[None]:
    """Hold the project's app lock while reading and writing one `.hipport/` file (see the module's
    docstring). Raises LockHeld while an app (another process) has the project open; OSError/WriteError
    when `.hipport/` cannot be made (state_files.UnsafeStatePath when it, or app.lock, is a link)."""
    root = Path(root)
    if os.path.realpath(root) in _HELD:  # this process is the app: it holds the lock already
        yield
        return
    fd = state_files.open_file(root, LOCK_NAME, os.O_RDWR | os.O_CREAT)
    try:
        _flock(fd, root, wait)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
