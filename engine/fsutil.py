"""Writing files without ever leaving a truncated one behind."""

from __future__ import annotations

import os
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


def _write_temp(folder: Path, name: str, data: bytes, mode: int | None) -> str:
    """A complete, fsynced temp file beside `name` holding `data`; returns its path."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".hipport-tmp", dir=folder)
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


def atomic_write(path: str | Path, data: bytes, *, backup_suffix: str | None = None,
                 sync_folder: bool = True) -> Path | None:
    """Write `data` to `path` atomically: temp file in the same folder, fsync, rename.

    A crash or kill at any moment leaves either the old file or the new one, never a mix.
    `sync_folder=False` leaves the folder's fsync (which makes the rename durable) to the caller:
    one `sync_folders()` after many writes into the same folders instead of one per file.
    With `backup_suffix` (e.g. ".prehip") the old file is first copied beside it, atomically too
    (a kill or a full disk during the copy never leaves a truncated backup).
    Keeps the original file's permission bits. Returns the backup path, if one was made.
    """
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    backup: Path | None = None
    mode: int | None = None
    try:
        if p.is_symlink():
            raise WriteError(f"{p}: is a symbolic link; not written (write its target explicitly)")
        if p.exists():
            mode = p.stat().st_mode & 0o7777
            # no write bit at all: the person marked it read-only (root would be allowed; we refuse)
            if not os.access(p, os.W_OK) or not mode & 0o222:
                raise WriteError(f"{p}: file is read-only; not written")
            if backup_suffix:
                backup = p.with_name(p.name + backup_suffix)
                if backup.is_symlink():
                    raise WriteError(f"{backup}: the backup path is a symbolic link; not written")
                old = p.read_bytes()
                btmp = _write_temp(folder, backup.name, old, mode)
                try:
                    shutil.copystat(p, btmp)
                    os.replace(btmp, backup)
                except BaseException:
                    _unlink(btmp)
                    raise
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
    return backup


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
