"""Where the HIP result of a reviewed file goes (config.output_mode).

- "in-place": over the original file; the original is kept beside it as `<file>.prehip` first.
- "sibling":  beside it, named the way PyTorch's cpp_extension hipify names files, so build scripts that
  already know that convention keep working: `.cu` -> `.hip`, "cuda"/"CUDA" in the name -> "hip"/"HIP",
  and when the name would not change otherwise `_hip` is appended to the stem:
  gemm.cu -> gemm.hip, matmul_cuda.py -> matmul_hip.py, gemm.cuh -> gemm_hip.cuh, util.h -> util_hip.h.
- "folder":   the same relative path and name under <root>/<output_folder> (a mirror of the tree, so
  includes between files keep resolving; hipcc compiles `.cu` files as HIP).

Every output lies inside the project root, or ConfigError is raised.

One write policy for the app and `hipport convert` (`write_port`): no content is ever lost. Before a
file is overwritten, what it holds is kept beside it, unless a kept copy already holds exactly those
bytes or they are hipport's own earlier output (the app knows what it wrote; the CLI does not). The
first kept copy is `<file>.prehip` (hipify-clang's name; `original_copy`) and is never replaced: it
holds the original. Content kept later, such as an edited output or an earlier conversion, goes to the
next free `<file>.prehip.1`, `<file>.prehip.2`, ... (`keep_beside`). A kept copy is created complete
and never over an existing file. The app's in-place mode, `convert --in-place` (unless --no-backup)
and `convert -o/--suffix` over an existing file all follow it.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from .config import Config, ConfigError, check_output_folder
from .fsutil import WriteError, atomic_write, create_file, is_inside, refuse_read_only


def _clean_str(rel: str) -> str:
    """clean_rel as a string (no PurePosixPath: the file list names 5,000 outputs at start)."""
    s = rel.replace("\\", "/")
    parts = [x for x in s.split("/") if x not in ("", ".")]
    if s.startswith("/") or not parts or ".." in parts:
        raise ConfigError(f"{rel!r} is not a path inside the project")
    return "/".join(parts)


def clean_rel(rel: str) -> PurePosixPath:
    """A project-relative path in posix form; ConfigError if absolute or climbing out with '..'."""
    return PurePosixPath(_clean_str(rel))


def _stem_suffix(name: str) -> tuple[str, str]:
    """PurePosixPath(name).stem/.suffix of one path component, without building a path."""
    i = name.rfind(".")
    if 0 < i < len(name) - 1:
        return name[:i], name[i:]
    return name, ""


def sibling_name(name: str) -> str:
    """gemm.cu -> gemm.hip, matmul_cuda.py -> matmul_hip.py, util.h -> util_hip.h."""
    last = name.rsplit("/", 1)[-1]
    if last in ("", "."):  # rare ('dir/', '.'): pathlib's own answer
        last = PurePosixPath(name).name
    stem, ext = _stem_suffix(last)
    new_ext = ".hip" if ext.lower() == ".cu" else ext
    new_stem = stem.replace("cuda", "hip").replace("CUDA", "HIP").replace("Cuda", "Hip")
    if new_stem + new_ext == name:
        new_stem += "_hip"
    return new_stem + new_ext


BACKUP_SUFFIX = ".prehip"
MAX_KEPT = 999  # <file>.prehip.1 ... .999: past that, a write that would need one more is refused


def original_copy(path: Path) -> Path:
    """Where the original of a file about to be overwritten is kept: `<file>.prehip` beside it."""
    return path.with_name(path.name + BACKUP_SUFFIX)


def kept_copy(path: Path, n: int) -> Path:
    """The n-th kept copy of `path`: `<file>.prehip` for 0, then `<file>.prehip.<n>`."""
    return original_copy(path) if n == 0 else path.with_name(f"{path.name}{BACKUP_SUFFIX}.{n}")


def kept_copies(path: Path) -> list[Path]:
    """The kept copies of `path` on disk, oldest first (up to the first number that is free)."""
    out: list[Path] = []
    for n in range(MAX_KEPT + 1):
        copy = kept_copy(path, n)
        if not os.path.lexists(copy):
            break
        out.append(copy)
    return out


def kept_copy_holding(path: Path, sha256: str) -> Path | None:
    """The kept copy of `path` whose bytes have this sha256, if there is one."""
    for copy in kept_copies(path):
        if not copy.is_symlink() and _sha256_of(copy) == sha256:
            return copy
    return None


def _sha256(data: bytes) -> str:
    import hashlib  # lazily: `hipport convert` to stdout never needs it

    return hashlib.sha256(data).hexdigest()


def _sha256_of(path: Path) -> str | None:
    try:
        return _sha256(path.read_bytes())
    except OSError:
        return None


def keep_beside(path: Path, data: bytes) -> Path | None:
    """Keep `data` (what `path` holds, or held) beside it, unless a kept copy already holds exactly these
    bytes: as `<file>.prehip` when there is none yet, else as the next free `<file>.prehip.N`. Never
    replaces a file. Returns the new copy, or None when nothing had to be kept. Raises WriteError (the
    caller then must not overwrite `path`)."""
    for n in range(MAX_KEPT + 1):
        copy = kept_copy(path, n)
        if copy.is_symlink():
            raise WriteError(f"{copy}: the path for keeping {path.name}'s content is a symbolic link; "
                             f"{path.name} not written")
        try:
            st = copy.stat()
        except FileNotFoundError:
            try:
                like = path if path.is_file() else None
                create_file(copy, data, like.stat().st_mode & 0o7777 if like else None, like)
            except FileExistsError:
                continue  # made meanwhile (another write): compare with it too
            except OSError as e:
                raise WriteError(f"{path}: its content could not be kept as {copy.name} "
                                 f"({e.strerror or e}); not written") from None
            return copy
        except OSError as e:
            raise WriteError(f"{copy}: cannot read ({e.strerror or e}); {path.name} not written") from None
        if st.st_size == len(data):
            try:
                if copy.read_bytes() == data:
                    return None
            except OSError as e:
                raise WriteError(f"{copy}: cannot read ({e.strerror or e}); {path.name} not written") from None
    raise WriteError(f"{path}: {MAX_KEPT} earlier versions are kept beside it already ({path.name}"
                     f"{BACKUP_SUFFIX}.*); remove the ones you do not need; not written")


def write_port(target: Path, data: bytes, *, in_place: bool, keep_original: bool = True,
               ours: str | None = None, sync_folder: bool = True) -> Path | None:
    """Write a port by the write policy (atomically; the parent folder is made). What `target` holds is
    kept first (`keep_beside`) unless it already is `data` (then nothing is written and the mtime is
    kept), its sha256 is `ours` (hipport's own earlier output, known to the app), or `in_place` and not
    `keep_original` (convert --in-place --no-backup). Returns the copy made, else None.
    Raises fsutil.WriteError / OSError. `sync_folder=False`: the caller fsyncs the folders once at the
    end (fsutil.sync_folders); the kept copy lies in the same folder."""
    kept: Path | None = None
    if target.is_file() and not target.is_symlink():  # a link is refused by atomic_write
        current = target.read_bytes()
        if current == data:
            return None
        refuse_read_only(target)  # before anything is kept: a refused write leaves no copy behind
        if (keep_original or not in_place) and (ours is None or _sha256(current) != ours):
            kept = keep_beside(target, current)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, data, sync_folder=sync_folder)
    return kept


def output_rel(config: Config, rel: str) -> str:
    """The output's path relative to the root, posix form."""
    r = _clean_str(rel)
    if config.output_mode == "in-place":
        return r
    if config.output_mode == "sibling":
        head, _, name = r.rpartition("/")
        return (head + "/" if head else "") + sibling_name(name)
    if config.output_mode == "folder":
        return check_output_folder(config.output_folder).as_posix() + "/" + r
    raise ConfigError(f"unknown output_mode {config.output_mode!r}")  # pragma: no cover - Config validates


def output_path(config: Config, root: Path, rel: str) -> Path:
    """Absolute path of the HIP result for `rel`; always inside `root` (ConfigError otherwise,
    e.g. when a symlinked folder on the way leads out of the project)."""
    root = Path(root)
    out = root / output_rel(config, rel)
    if not is_inside(out, root):
        raise ConfigError(f"output for {rel} would be {out}, outside the project root {root}")
    return out


def output_folder_rel(config: Config) -> str | None:
    """The folder that holds outputs in folder mode (to leave out of the tree walk), else None."""
    if config.output_mode != "folder":
        return None
    return check_output_folder(config.output_folder).as_posix()
