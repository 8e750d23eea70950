"""hipport's own files in a project, under `.hipport/` (app.lock, state.json, baseline/, cache/), opened
so that nothing a repository ships there can lead a write, or a read, out of the project.

A cloned repository can commit `.hipport/app.lock` as a symbolic link to any file of the person's, or
`.hipport/baseline` as a link to any folder: following either would let the repository choose a file
outside it for hipport to overwrite. So every path below the project root is opened one component at a
time, relative to its parent folder's descriptor and with O_NOFOLLOW. A link, a file where a folder
belongs, or anything but a regular file where a file belongs (a folder, a FIFO, a device, a file with
other hard links) is refused with one line naming it: never followed, never replaced. The project root
itself is the person's choice and may be reached through links.

Writes are atomic: a temp file made with O_EXCL in the same folder, fsynced, renamed by descriptor; a
kill leaves the old file or the new one.

API:
    ensure_dir(root) -> Path                      `.hipport/`, made with its .gitignore of `*`
    check_dir(root) -> Path                       `.hipport/`; UnsafeStatePath when it is a link/not a folder
    read(root, rel) -> bytes | None               None: absent
    write(root, rel, data) -> Path                atomic; folders on the way are made
    open_file(root, rel, flags) -> int            a descriptor of a regular file (the lock: O_RDWR | O_CREAT)
    rel_path(path) -> tuple[Path, str] | None     (root, rel) for a path inside some `.hipport/`
    UnsafeStatePath                               a fsutil.WriteError (one line, naming the path)
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

from .fsutil import WriteError

STATE_DIR = ".hipport"
GITIGNORE = b"# hipport's review state; not part of the project\n*\n"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeStatePath(WriteError):
    """A path under `.hipport/` that is a link or not what hipport keeps there; one line, naming it."""


def _unsafe(path: Path, what: str) -> UnsafeStatePath:
    return UnsafeStatePath(f"{path}: {what}; hipport reads and writes its own files only as real files and "
                           f"folders inside the project (remove it)")


def _parts(rel: str) -> list[str]:
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"not a path inside {STATE_DIR}/: {rel!r}")
    return parts


def _open_dir(root: Path, parts: list[str], create: bool) -> int:
    """A descriptor of root/parts..., each component opened without following a link."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    here = Path(root)
    try:
        for name in parts:
            here = here / name
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR):  # Linux says ENOTDIR for a link with O_DIRECTORY
                    linked = stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
                    raise _unsafe(here, "is a link" if linked else "is not a folder") from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_entry(dfd: int, name: str, path: Path) -> bool:
    """Whether `name` exists in the folder; UnsafeStatePath when it is not a regular file of one link."""
    try:
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(st.st_mode):
        raise _unsafe(path, "is a link")
    if not stat.S_ISREG(st.st_mode):
        raise _unsafe(path, "is not a regular file")
    if st.st_nlink > 1:
        raise _unsafe(path, "has other hard links")
    return True


def check_dir(root: Path) -> Path:
    """`.hipport/` of `root`, unchanged; UnsafeStatePath when it exists as a link or not as a folder."""
    d = Path(root) / STATE_DIR
    try:
        os.close(_open_dir(Path(root), [STATE_DIR], create=False))
    except FileNotFoundError:
        pass
    except UnsafeStatePath:
        raise
    except OSError as e:
        raise WriteError(f"{d}: cannot open ({e.strerror or e})") from None
    return d


def ensure_dir(root: Path) -> Path:
    """Make `.hipport/` (and its .gitignore of `*`, so git never sees hipport's bookkeeping)."""
    d = Path(root) / STATE_DIR
    try:
        dfd = _open_dir(Path(root), [STATE_DIR], create=True)
    except UnsafeStatePath:
        raise
    except OSError as e:
        raise WriteError(f"{d}: cannot create ({e.strerror or e})") from None
    try:
        try:
            present = os.stat(".gitignore", dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            present = None
        if present is None:
            _write_in(dfd, ".gitignore", GITIGNORE, d / ".gitignore")
    finally:
        os.close(dfd)
    return d


def _write_in(dfd: int, name: str, data: bytes, path: Path) -> None:
    _check_entry(dfd, name, path)
    tmp = f".{name}.{secrets.token_hex(6)}.hipport-tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dfd)
        with os.fdopen(fd, "wb") as f:  # as fsutil writes (and the disk-full tests fault it)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError as e:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
        raise WriteError(f"{path}: cannot write ({e.strerror or e})") from None
    try:
        os.fsync(dfd)  # the rename is durable
    except OSError:
        pass


def write(root: Path, rel: str, data: bytes) -> Path:
    """Write `.hipport/<rel>` atomically. Raises UnsafeStatePath / WriteError (one line)."""
    parts = _parts(rel)
    path = Path(root) / STATE_DIR / rel
    ensure_dir(root)
    try:
        dfd = _open_dir(Path(root), [STATE_DIR, *parts[:-1]], create=True)
    except UnsafeStatePath:
        raise
    except OSError as e:
        raise WriteError(f"{path.parent}: cannot create ({e.strerror or e})") from None
    try:
        _write_in(dfd, parts[-1], data, path)
    finally:
        os.close(dfd)
    return path


def read(root: Path, rel: str) -> bytes | None:
    """The bytes of `.hipport/<rel>`; None when it (or a folder on the way) is absent. Raises
    UnsafeStatePath for a link or a non-regular file, OSError when it cannot be read."""
    parts = _parts(rel)
    path = Path(root) / STATE_DIR / rel
    try:
        dfd = _open_dir(Path(root), [STATE_DIR, *parts[:-1]], create=False)
    except FileNotFoundError:
        return None
    try:
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
        except FileNotFoundError:
            return None
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise _unsafe(path, "is a link") from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise _unsafe(path, "is not a regular file")
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)
    finally:
        os.close(dfd)


def open_file(root: Path, rel: str, flags: int) -> int:
    """A descriptor of the regular file `.hipport/<rel>` (O_CREAT in `flags` makes it, mode 0644 less the
    umask). Raises UnsafeStatePath for a link, a non-regular file or one with other hard links; OSError
    when it cannot be opened."""
    parts = _parts(rel)
    path = Path(root) / STATE_DIR / rel
    if flags & os.O_CREAT:
        ensure_dir(root)
    dfd = _open_dir(Path(root), [STATE_DIR, *parts[:-1]], create=bool(flags & os.O_CREAT))
    try:
        try:
            fd = os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644, dir_fd=dfd)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise _unsafe(path, "is a link") from None
            if e.errno == errno.EISDIR:
                raise _unsafe(path, "is not a regular file") from None
            raise
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            os.close(fd)
            raise _unsafe(path, "is not a regular file" if not stat.S_ISREG(st.st_mode) else "has other hard links")
        os.set_blocking(fd, True)
        return fd
    finally:
        os.close(dfd)


def rel_path(path: Path) -> tuple[Path, str] | None:
    """(project root, path relative to its `.hipport/`) for a path inside a `.hipport/`, else None."""
    path = Path(path)
    for parent in path.parents:
        if parent.name == STATE_DIR:
            return parent.parent, path.relative_to(parent).as_posix()
    return None
