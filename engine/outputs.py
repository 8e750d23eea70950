"""Where the HIP result of a reviewed file goes (config.output_mode).

- "in-place": over the original file; the original is kept beside it as `<file>.prehip` first.
- "sibling":  beside it, named the way PyTorch's cpp_extension hipify names files, so build scripts that
  already know that convention keep working: `.cu` -> `.hip`, "cuda"/"CUDA" in the name -> "hip"/"HIP",
  and when the name would not change otherwise `_hip` is appended to the stem:
  gemm.cu -> gemm.hip, matmul_cuda.py -> matmul_hip.py, gemm.cuh -> gemm_hip.cuh, util.h -> util_hip.h.
- "folder":   the same relative path and name under <root>/<output_folder> (a mirror of the tree, so
  includes between files keep resolving; hipcc compiles `.cu` files as HIP).

Every output lies inside the project root, or ConfigError is raised.

One write policy for the app and `hipport convert`: a file is overwritten only after its original
bytes are kept as `<file>.prehip` beside it (hipify-clang's name; `original_copy`), written atomically.
The app's in-place mode, `convert --in-place` (unless --no-backup) and `convert -o/--suffix` over a
different existing file all keep it there.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from .config import Config, ConfigError, check_output_folder
from .fsutil import atomic_write, is_inside


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


def original_copy(path: Path) -> Path:
    """Where the original of a file about to be overwritten is kept: `<file>.prehip` beside it."""
    return path.with_name(path.name + BACKUP_SUFFIX)


def write_port(target: Path, data: bytes, *, in_place: bool, keep_original: bool = True,
               sync_folder: bool = True) -> Path | None:
    """Write a port by the write policy (atomically; the parent folder is made). Over its own source
    (`in_place`) the original is kept as `<file>.prehip` unless not `keep_original`. Elsewhere, a file
    already at `target` with other bytes (a hand port, an edited earlier output) is kept as
    `<file>.prehip`, and one with the same bytes is left alone (mtime kept). Returns the kept copy's
    path when an existing file was kept, else None. Raises fsutil.WriteError / OSError.
    `sync_folder=False`: the caller fsyncs the folders once at the end (fsutil.sync_folders)."""
    backup = BACKUP_SUFFIX if in_place and keep_original else None
    if not in_place and target.is_file() and not target.is_symlink():
        try:
            if target.read_bytes() == data:
                return None
        except OSError:
            pass
        backup = BACKUP_SUFFIX
    target.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(target, data, backup_suffix=backup, sync_folder=sync_folder)


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
