"""One app per project: `.hipport/app.lock`, held with flock for as long as the app runs.

Two apps on one project would each keep decisions in memory and save them over each other (the
session merges saves per file, so two people deciding in the same file would lose one side). The second
app therefore does not open; it says who holds the project. The kernel drops the lock when the holder
exits, however it exits, so a crash leaves no stale lock behind.

    with ProjectLock(root):      # raises LockHeld("... pid 1234 since 20:31 ...")
        app.run()
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from pathlib import Path
from types import TracebackType

from .review_state import ensure_state_dir

LOCK_NAME = "app.lock"


class LockHeld(Exception):
    """Another hipport app has this project open; the message says which (one line)."""


class ProjectLock:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.path = self.root / ".hipport" / LOCK_NAME
        self._fd: int | None = None
        self.note = ""  # why no lock is held (a read-only project): the app says it

    def acquire(self) -> None:
        try:
            ensure_state_dir(self.root)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:  # nothing can be saved here either; the session says so on the first save
            self.note = f"no app lock ({self.path}: {e.strerror or e})"
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 200).decode("utf-8", "replace").strip()
            os.close(fd)
            raise LockHeld(f"{self.root}: another hipport has this project open ({holder or 'unknown'}); "
                           "close it first (its decisions are saved as it goes)") from None
        os.ftruncate(fd, 0)
        info = f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%d %H:%M:%S')}"
        os.pwrite(fd, info.encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
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
