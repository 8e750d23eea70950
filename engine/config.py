"""Project configuration: `[tool.hipport]` in the project's pyproject.toml, else `.hipport.toml`.

Example (pyproject.toml; in .hipport.toml the same keys sit at top level, tables without `tool.hipport.`):

    [tool.hipport]
    output_mode = "sibling"        # "in-place" | "sibling" | "folder"
    output_folder = "hip"          # folder mode: the tree is mirrored under <root>/hip
    fix_style = "logical"          # "logical" (default) | "wave64" | "portable": see fix_style below
    rocm = "7.0"                   # or "7", [7, 0]
    archs = ["gfx942"]             # or "gfx942,gfx1100"; target-ID features allowed: "gfx90a:xnack-"
    launch_syntax = "chevron"      # "chevron" | "ggl"
    roc = false                    # translation options, as hipport convert's flags of the same name:
    experimental = false           #   roc, miopen, experimental, hip_data_types, include_dirs (-I),
    include_dirs = []              #   defines (-D), skip_inactive, amap, translate_comments,
    defines = []                   #   translate_strings and shims (default true), ast ("auto"|"on"|"off")
    theme = "hipport-dark"
    include = ["src/**"]           # globs of files to review (default: every CUDA/C++/Python file)
    exclude = ["third_party/**"]

    [tool.hipport.keymap]          # Textual binding id -> keys (App.set_keymap)
    "review.accept" = "y,a"

    [tool.hipport.run]             # read by the toolchain code (engine/toolchain/plan.py lists the keys)
    command = "make run"

Top-level keys may be written with `-` or `_`. Every table is checked when the settings are loaded, before
anything builds: unknown keys (named with the nearest known one) and bad values raise ConfigError, hipport's
one settings error, with one line that names the file and the key. The app's own names (binding ids of
`keymap`, `theme`) are checked by the app when it loads the settings (tui/app.py `check_settings`), with
the same error. The output location can never point outside the project root.

`Config` is hipport's one settings type: the app reads it from the project, and `hipport convert`/
`scan` read the same file (engine/api.py `settings`) and lay their command-line options over it with
`Config.replace`, so both are checked by the same rules (`_CHECKS`). api.translate_options and
api.warp_options turn it into the engine's option objects.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import shlex
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from .model import FixStyle

OutputMode = Literal["in-place", "sibling", "folder"]
OUTPUT_MODES: tuple[str, ...] = ("in-place", "sibling", "folder")
LAUNCH_SYNTAXES: tuple[str, ...] = ("chevron", "ggl")
# folders hipport itself owns or that must never receive output
RESERVED_FOLDERS = frozenset({".git", ".hipport"})


class ConfigError(Exception):
    """A configuration hipport will not use; the message is one line naming file and key."""


def unknown_name(where: str, what: str, name: str, known: Collection[str], spelled: str | None = None) -> ConfigError:
    """The error for a `name` the settings do not know, naming the nearest known one when there is one
    (`spelled`: the name as the known ones spell it, when that differs from the person's)."""
    near = difflib.get_close_matches(spelled or name, sorted(known), n=1, cutoff=0.6)
    hint = f"did you mean {near[0]!r}? " if near else ""
    return ConfigError(f"{where}: unknown {what} {name!r} ({hint}known: {', '.join(sorted(known))})")


@dataclass(frozen=True)
class Config:
    """Settings for one project. Frozen: derive changed copies with `config.replace(...)`."""

    output_mode: OutputMode = "sibling"  # sibling: gemm.cu -> gemm.hip, matmul_cuda.py -> matmul_hip.py
    output_folder: str = "hip"           # folder mode: mirror of the tree under root/<output_folder>
    # The style of a 64-wide rewrite when one is accepted (the app's `y`, convert --fix-style). Warp code
    # is ported as logical 32-lane warps unless a 64-wide rewrite of it is accepted (WAVE64.md).
    fix_style: FixStyle = FixStyle.WAVE64
    # `fix_style = "wave64"|"portable"` in the settings: convert also takes the SAFE 64-wide groups by
    # default (as --fix-style does); `"logical"` or unset: logical warps only
    wide_fixes: bool = False
    rocm: tuple[int, int] = (7, 0)
    archs: tuple[str, ...] = ("gfx942",)
    launch_syntax: str = "chevron"
    theme: str = "hipport-dark"
    keymap: dict[str, str] = field(default_factory=dict)  # binding id -> keys (Textual App.set_keymap)
    run: dict[str, object] = field(default_factory=dict)  # [tool.hipport.run], read by the toolchain code
    include: tuple[str, ...] = ()  # globs of files to review (default: all CUDA/C++/Python files)
    exclude: tuple[str, ...] = ()
    # translation options (hipify-clang's names; see translate.TranslateOptions)
    roc: bool = False
    miopen: bool = False
    experimental: bool = False
    hip_data_types: bool = False
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    skip_inactive: bool = False
    amap: bool = False
    translate_comments: bool = False
    translate_strings: bool = True
    shims: bool = True  # exact replacements for what the target ROCm lacks (engine/translate/shims.py)
    ast: str = "auto"
    origin: str | None = field(default=None, compare=False)  # file the settings came from, for messages

    def replace(self, *, where: str | None = None, **changes: Any) -> Config:
        """A copy with `changes` applied and validated (raises ConfigError naming `where`, by default
        the file the settings came from). The copy keeps this one's origin."""
        raw = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "origin"}
        if "fix_style" in changes:
            raw.pop("wide_fixes")  # follows the new fix_style
        raw.update(changes)
        cfg = _validate(raw, where or self.origin or "<settings>")
        return dataclasses.replace(cfg, origin=self.origin) if where else cfg


def load_config(root: Path) -> Config:
    """Read the settings of the project at `root`.

    `[tool.hipport]` in root/pyproject.toml wins; without it, root/.hipport.toml is read (its keys at top
    level, or under `[tool.hipport]`). Neither present: defaults. Raises ConfigError (one line).
    """
    root = Path(root)
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = _read_toml(pyproject)
        table = data.get("tool", {}).get("hipport") if isinstance(data.get("tool"), dict) else None
        if table is not None:
            if not isinstance(table, dict):
                raise ConfigError(f"{pyproject}: [tool.hipport] must be a table")
            return _validate(table, f"{pyproject} [tool.hipport]")
    dotfile = root / ".hipport.toml"
    if dotfile.is_file():
        data = _read_toml(dotfile)
        tool = data.get("tool")
        if set(data) == {"tool"} and isinstance(tool, dict) and isinstance(tool.get("hipport"), dict):
            data = tool["hipport"]
        return _validate(data, str(dotfile))
    return Config()


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML ({e})") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read ({e.strerror or e})") from None


_ALIASES = {f.name.replace("_", "-"): f.name for f in fields(Config)}


def _validate(table: Mapping[str, Any], where: str) -> Config:
    values: dict[str, Any] = {}
    known = {f.name for f in fields(Config)} - {"origin"}
    for key, value in table.items():
        name = _ALIASES.get(key, key)
        if name not in known:
            raise unknown_name(where, "key", key, known, spelled=key.replace("-", "_"))
        if name in values:
            raise ConfigError(f"{where}: key {key!r} given twice")
        if name == "fix_style" and value == "logical":
            values.setdefault("wide_fixes", False)
            continue
        values[name] = check_run(value, where) if name == "run" else _CHECKS[name](value, f"{where}: {key}")
        if name == "fix_style" and "wide_fixes" not in table:
            values["wide_fixes"] = True
    cfg = Config(**values, origin=where)
    check_output_folder(cfg.output_folder, f"{where}: output_folder")
    return cfg


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string, not {type(value).__name__}")
    return value


def _choice(options: tuple[str, ...]) -> Any:
    def check(value: Any, what: str) -> str:
        s = _str(value, what)
        if s not in options:
            raise ConfigError(f"{what} must be one of {', '.join(options)}, not {s!r}")
        return s

    return check


def _fix_style(value: Any, what: str) -> FixStyle:
    s = _choice(("logical", *(x.value for x in FixStyle)))(value, what)
    return FixStyle(s)


def parse_rocm(text: str) -> tuple[int, int]:
    """'7.0' -> (7, 0); '7' -> (7, 0); '6.4.1' -> (6, 4). Raises ValueError with a readable message."""
    parts = text.strip().split(".")
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"ROCm version {text!r} is not like 7.0") from None
    if not 1 <= len(nums) <= 3 or nums[0] < 1 or any(n < 0 for n in nums):
        raise ValueError(f"ROCm version {text!r} is not like 7.0")
    return (nums[0], nums[1] if len(nums) > 1 else 0)


def _rocm(value: Any, what: str) -> tuple[int, int]:
    if isinstance(value, str | float | int) and not isinstance(value, bool):
        try:
            return parse_rocm(str(value))
        except ValueError:
            pass
    elif isinstance(value, list | tuple) and len(value) == 2 and all(
        isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in value
    ):
        return int(value[0]), int(value[1])
    raise ConfigError(f"{what} must be a version like \"7.0\" or [7, 0], not {value!r}")


def _str_tuple(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(x, str) and x for x in value):
        raise ConfigError(f"{what} must be a list of non-empty strings")
    return tuple(value)


# an offload target: gfx name, then target-ID features (gfx90a:xnack-, gfx90a:sramecc+:xnack-)
_ARCH = re.compile(r"gfx[0-9a-f]{3,5}(:[a-z0-9_]+[+-])*")


def parse_archs(values: Any) -> tuple[str, ...]:
    """The one arch-list rule (config and command line): strings, each possibly comma-separated,
    lower-cased; every entry a gfx target. Raises ValueError naming the bad entry."""
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for raw in values:
        if not isinstance(raw, str):
            raise ValueError(f"{raw!r} is not a string")
        for a in raw.split(","):
            a = a.strip().lower()
            if not a:
                continue
            if not _ARCH.fullmatch(a):
                raise ValueError(f"{a!r} is not an AMD GPU architecture (e.g. gfx942, gfx90a, gfx1100)")
            out.append(a)
    if not out:
        raise ValueError("must name at least one architecture")
    return tuple(dict.fromkeys(out))


def _archs(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, str | list | tuple):
        raise ConfigError(f"{what} must be a list of non-empty strings")
    try:
        return parse_archs(value)
    except ValueError as e:
        raise ConfigError(f"{what}: {e}") from None


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{what} must be true or false, not {value!r}")
    return value


def _strs(value: Any, what: str) -> tuple[str, ...]:
    """A list of strings that may be empty (include_dirs, defines)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(x, str) and x.strip() for x in value):
        raise ConfigError(f"{what} must be a list of non-empty strings")
    return tuple(value)


def _keymap(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in value.items()
    ):
        raise ConfigError(f"{what} must be a table of binding id = \"keys\" strings")
    return dict(value)


def _theme(value: Any, what: str) -> str:
    s = _str(value, what)
    if not s.strip():
        raise ConfigError(f"{what} must not be empty")
    return s


_CHECKS: dict[str, Any] = {
    "output_mode": _choice(OUTPUT_MODES),
    "output_folder": _str,
    "fix_style": _fix_style,
    "wide_fixes": _bool,
    "rocm": _rocm,
    "archs": _archs,
    "launch_syntax": _choice(LAUNCH_SYNTAXES),
    "theme": _theme,
    "keymap": _keymap,
    "include": _str_tuple,
    "exclude": _str_tuple,
    "roc": _bool,
    "miopen": _bool,
    "experimental": _bool,
    "hip_data_types": _bool,
    "amap": _bool,
    "shims": _bool,
    "include_dirs": _strs,
    "defines": _strs,
    "skip_inactive": _bool,
    "translate_comments": _bool,
    "translate_strings": _bool,
    "ast": _choice(("auto", "on", "off")),
}


# ---------------------------------------------------------------------------------------- [tool.hipport.run]
# The toolchain reads this table (engine/toolchain/plan.py documents each key, baseline.py the comparison's);
# its keys and their types live here so that a typo is reported when the settings load, not when a build starts.


def _run_words(value: Any, what: str) -> Any:
    """A string (split like a shell) or a list of words (numbers are written as they read)."""
    if isinstance(value, str) or (isinstance(value, list | tuple) and all(
            isinstance(x, str | int | float) and not isinstance(x, bool) for x in value)):
        return value
    raise ConfigError(f"{what} must be a string or a list of strings, not {value!r}")


def _run_arch(value: Any, what: str) -> Any:
    words = _run_words(value, what)
    try:
        parse_archs(shlex.split(words) if isinstance(words, str) else [str(w) for w in words])
    except ValueError as e:
        raise ConfigError(f"{what}: not an AMD GPU target: {e}") from None
    return value


def _run_seconds(value: Any, what: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{what} must be a number of seconds, not {value!r}")
    return value


def _run_string(value: Any, what: str) -> Any:
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string, not {value!r}")
    return value


def _run_target(value: Any, what: str) -> Any:
    if Path(_run_string(value, what)).is_absolute() or ".." in Path(value).parts:
        raise ConfigError(f"{what} {value!r} must be a path inside the project (no '..')")
    return value


def _run_patterns(value: Any, what: str) -> Any:
    for pattern in [value] if isinstance(_run_words(value, what), str) else value:
        try:
            re.compile(str(pattern))
        except re.error as e:
            raise ConfigError(f"{what}: {pattern!r} is not a regular expression ({e})") from None
    return value


def _run_tolerance(value: Any, what: str) -> Any:
    if not isinstance(value, Mapping) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in value.values()):
        raise ConfigError(f"{what} must be a table of relative tolerances by dtype "
                          f"(e.g. {{fp32 = 1e-4, fp16 = 1e-2}}), not {value!r}")
    return value


_RUN_CHECKS: dict[str, Any] = {
    "arch": _run_arch,
    "target": _run_target,
    "args": _run_words,
    "run": _run_words,
    "command": _run_words,
    "make_args": _run_words,
    "cmake_args": _run_words,
    "defines": _run_words,
    "libs": _run_words,
    "python": _run_string,
    "build_timeout": _run_seconds,
    "run_timeout": _run_seconds,
    "no_blas": _bool,
    "outputs": _run_words,
    "baseline_ignore": _run_patterns,
    "dtype": _run_string,
    "output_dtype": _run_string,
    "tolerance": _run_tolerance,
}


def check_run(table: Any, where: str = "") -> dict[str, object]:
    """The `[tool.hipport.run]` table, checked key by key (ConfigError, one line); values are kept as given.
    `where`: the settings file, for the message (none for a table the caller made)."""
    prefix = f"{where}: " if where else ""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{prefix}run must be a table")
    for key, value in table.items():
        if key not in _RUN_CHECKS:
            raise unknown_name(f"{prefix}[tool.hipport.run]", "key", str(key), _RUN_CHECKS)
        _RUN_CHECKS[key](value, f"{prefix}[tool.hipport.run] {key}")
    return dict(table)


def check_output_folder(folder: str, what: str = "output_folder") -> PurePosixPath:
    """The output folder as a clean relative path; ConfigError if it could land outside the root."""
    if not folder or not folder.strip():
        raise ConfigError(f"{what} must not be empty")
    if "\\" in folder or "\x00" in folder:
        raise ConfigError(f"{what} {folder!r}: use '/' separators")
    p = PurePosixPath(folder)
    if p.is_absolute() or (len(folder) > 1 and folder[1] == ":"):
        raise ConfigError(f"{what} {folder!r} must be relative to the project root")
    parts = [x for x in p.parts if x not in ("", ".")]
    if not parts:
        raise ConfigError(f"{what} {folder!r} would be the project root itself; use output_mode = \"in-place\"")
    if ".." in parts:
        raise ConfigError(f"{what} {folder!r} must stay inside the project root (no '..')")
    if parts[0] in RESERVED_FOLDERS:
        raise ConfigError(f"{what} {folder!r} is reserved for git/hipport")
    return PurePosixPath(*parts)


__all__ = ["OUTPUT_MODES", "Config", "ConfigError", "OutputMode", "check_output_folder", "check_run", "load_config",
           "parse_archs", "parse_rocm", "unknown_name"]
