"""Writing files without ever leaving a truncated one behind."""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path


class WriteError(Exception):
    """A write that did not happen; the original file is untouched. One-line message."""


def _umask() -> int:
    """The process umask, read without changing it (os.umask would, for every thread, for a moment)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


TEMP_SUFFIX = ".hipport-tmp"
# `.<name>.<pid of the writer>.<mkstemp's 8 characters>.hipport-tmp`: a kill during a write leaves one
_TEMP_NAME = re.compile(r"^\..*\.(\d+)\.[A-Za-z0-9_]{8}" + re.escape(TEMP_SUFFIX) + "$")
STALE_TEMP_S = 3600.0  # a temp file without a writer's pid in its name is left over once this old


def _write_temp(folder: Path, name: str, data: bytes, mode: int | None) -> str:
    """A complete, fsynced temp file beside `name` holding `data`; returns its path. Its name holds this
    process's id, so a later start can tell a leftover (remove_leftover_temps) from a write under way."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.{os.getpid()}.", suffix=TEMP_SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def refuse_read_only(p: Path, mode: int | None = None) -> None:
    """WriteError when the existing file `p` is read-only: no write bit at all means the person marked it
    so (root would be allowed to write; hipport refuses)."""
    if mode is None:
        mode = p.stat().st_mode & 0o7777
    if not os.access(p, os.W_OK) or not mode & 0o222:
        raise WriteError(f"{p}: file is read-only; not written")


def atomic_write(path: str | Path, data: bytes, *, sync_folder: bool = True) -> None:
    """Write `data` to `path` atomically: temp file in the same folder, fsync, rename.

    A crash or kill at any moment leaves either the old file or the new one, never a mix.
    `sync_folder=False` leaves the folder's fsync (which makes the rename durable) to the caller:
    one `sync_folders()` after many writes into the same folders instead of one per file.
    Keeps the original file's permission bits. What the file held is not kept here: a port's write
    goes through engine/outputs.write_port, which keeps it first (the one write policy).
    """
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    mode: int | None = None
    try:
        if p.is_symlink():
            raise WriteError(f"{p}: is a symbolic link; not written (write its target explicitly)")
        if p.exists():
            mode = p.stat().st_mode & 0o7777
            refuse_read_only(p, mode)
    except WriteError:
        raise
    except OSError as e:
        raise WriteError(f"{p}: cannot write ({e.strerror or e}); original left as it was") from None
    if mode is None:  # a new file: what open() would have made (mkstemp's temp files are 0600)
        mode = 0o666 & ~_umask()
    try:
        tmp = _write_temp(folder, p.name, data, mode)
    except OSError as e:
        raise WriteError(f"{p}: cannot write ({e.strerror or e}); original left as it was") from None
    try:
        os.replace(tmp, p)
    except OSError as e:
        _unlink(tmp)
        raise WriteError(f"{p}: cannot write ({e.strerror or e}); original left as it was") from None
    if sync_folder:
        sync_folders([folder])


def sync_folders(folders: Iterable[str | Path]) -> None:
    """fsync each folder once: the renames made in it are durable afterwards."""
    for folder in dict.fromkeys(str(f) for f in folders):
        try:
            dfd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass


def is_inside(path: str | Path, root: str | Path) -> bool:
    """True if `path` (symlinks resolved) lies inside `root` (resolved)."""
    try:
        Path(path).resolve().relative_to(Path(root).resolve())
        return True
    except (ValueError, RuntimeError, OSError):  # RuntimeError: a symlink loop (x.cu -> x.cu)
        return False


def first_link(path: str | Path, base: str | Path) -> Path | None:
    """The first of `base` itself and each path component below it down to `path` (which lies under
    `base`) that is a symbolic link; None when there is none. The folders above `base` are not looked at."""
    here = Path(base)
    if here.is_symlink():
        return here
    for part in Path(path).relative_to(base).parts:
        here = here / part
        if here.is_symlink():
            return here
    return None


def create_file(path: str | Path, data: bytes, mode: int | None = None, like: Path | None = None) -> None:
    """Create `path` holding `data`, complete or not at all, and never over an existing file (or link):
    FileExistsError then. A complete temp file is hard-linked to the name (link(2) fails on an existing
    name, so the check and the creation are one step). Where a file system has no hard links, the file
    is created exclusively and written in place. `mode`: permission bits (default: what open() makes);
    `like`: a file whose permission bits and times the new one takes (a kept copy: its original's)."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if mode is None:
        mode = 0o666 & ~_umask()
    tmp = _write_temp(folder, p.name, data, mode)
    try:
        if like is not None:
            try:
                shutil.copystat(like, tmp, follow_symlinks=False)
            except OSError:
                pass  # the times are a courtesy; the bytes are what is kept
        os.link(tmp, p, follow_symlinks=False)
        return
    except OSError as e:
        if isinstance(e, FileExistsError) or e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP,
                                                              errno.EMLINK, errno.EXDEV):
            raise
    finally:
        _unlink(tmp)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        _unlink(str(p))
        raise


def remove_leftover_temps(folders: Iterable[str | Path]) -> list[Path]:
    """Remove the temp files that writes killed midway left in these folders (their writer's process is
    gone, or, named without one, they are older than STALE_TEMP_S); returns them. A write of a live
    process (another hipport converting the same tree) keeps its temp file."""
    import time

    removed: list[Path] = []
    now = time.time()
    for folder in dict.fromkeys(str(f) for f in folders):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for e in entries:
            if not e.name.endswith(TEMP_SUFFIX) or not e.name.startswith("."):
                continue
            try:
                if not e.is_file(follow_symlinks=False):
                    continue
                m = _TEMP_NAME.match(e.name)
                if m is not None and _alive(int(m.group(1))):
                    continue
                if m is None and now - e.stat(follow_symlinks=False).st_mtime < STALE_TEMP_S:
                    continue
                os.unlink(e.path)
                removed.append(Path(e.path))
            except OSError:
                continue
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's live process
        return True
    return True
