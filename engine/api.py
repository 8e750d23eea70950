"""What the commands call: settings for a set of paths, engine options from settings, and the scans.

Commands (cli/commands/*) parse arguments, call these and print; they hold no engine loop of their
own. The app drives a ReviewSession (engine/review/session.py), which reads the same settings (config.Config)
and builds its options with the same two functions, so a project ports the same from `hipport
convert` and from the app. Conversion itself is engine/pipeline (pool.port_files -> files.port_file ->
pipeline.port -> compose.compose per file).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .config import Config, ConfigError, load_config
from .model import FixStyle
from .project.names import with_project_names
from .report import FileReport, report_dict, report_path, source_root
from .translate.options import TranslateOptions

if TYPE_CHECKING:
    from .warp import WarpOptions

VERSION = __version__  # the one version number (pyproject reads it from engine/__init__.py)
SCAN_SCHEMA = "hipport.scan/2"


class ApiError(Exception):
    """A request the engine cannot serve (no files under the paths, bad settings); one line."""


# ----------------------------------------------------------------------------------------- settings

def _found_settings(paths: Sequence[str | Path]) -> tuple[Path, Config] | None:
    """The folder whose settings apply to `paths` and those settings, each file read once (load_config):
    from the first path up to the top of its git work tree (or the filesystem root), the first folder
    with `.hipport.toml` or `[tool.hipport]` in its pyproject.toml. Raises ConfigError."""
    if not paths:
        return None
    p = Path(os.path.abspath(paths[0]))  # not resolve(): a symlink loop is the walk's to report
    folder = p if p.is_dir() else p.parent
    for d in (folder, *folder.parents):
        cfg = load_config(d)
        if cfg.origin is not None:  # read from a file of `d` (the defaults have none)
            return d, cfg
        if (d / ".git").exists():
            return None
    return None


def settings_root(paths: Sequence[str | Path]) -> Path | None:
    """The folder whose settings apply to `paths` (see _found_settings); None when there is none."""
    found = _found_settings(paths)
    return found[0] if found is not None else None


def settings(paths: Sequence[str | Path], overrides: Mapping[str, tuple[str, Any]] | None = None) -> Config:
    """The project's settings for `paths` with `overrides` laid over them: key -> (where the value
    came from, e.g. "--rocm"; value), None values skipped. Both are checked by config's rules; raises
    ConfigError (one line naming the file or the option)."""
    found = _found_settings(paths)
    cfg = found[1] if found is not None else Config()
    for key, (where, value) in (overrides or {}).items():
        if value is not None:
            cfg = cfg.replace(where=where, **{key: value})
    return cfg


def translate_options(cfg: Config, **extra: Any) -> TranslateOptions:
    """translate.TranslateOptions for `cfg` (`extra`: per-run fields, e.g. sibling_outputs)."""
    fields: dict[str, Any] = dict(
        rocm=cfg.rocm, launch_syntax=cfg.launch_syntax, roc=cfg.roc, miopen=cfg.miopen,
        experimental=cfg.experimental, hip_data_types=cfg.hip_data_types, include_dirs=cfg.include_dirs,
        defines=cfg.defines, skip_inactive=cfg.skip_inactive, amap=cfg.amap,
        translate_comments=cfg.translate_comments, translate_strings=cfg.translate_strings, shims=cfg.shims,
        ast=cfg.ast, archs=cfg.archs, output_mode=cfg.output_mode)
    fields.update(extra)
    return TranslateOptions(**fields)


def warp_options(cfg: Config) -> WarpOptions:
    from .warp import WarpOptions  # the rule catalog loads only when warp analysis is asked for

    return WarpOptions(rocm=cfg.rocm, archs=cfg.archs)


# ----------------------------------------------------------------------------------------- scans

def _walk(paths: Sequence[str | Path], skip: Sequence[str] = ()) -> list[Any]:
    from .walk import WalkError, walk

    try:
        items = walk(paths, skip=skip)
    except WalkError as e:
        raise ApiError(str(e)) from None
    if not items:
        raise ApiError("no CUDA, C++ or Python files under " + ", ".join(map(str, paths)))
    return items


@dataclass
class WarpScan:
    files: list[FileReport]
    errors: int
    fix_style: FixStyle
    root: Path | None = None  # what the files' paths are relative to (report.source_root)


def warp_scan(paths: Sequence[str | Path], cfg: Config, options: TranslateOptions, *, findings: bool) -> WarpScan:
    """Translation reports (and with `findings` the warp analysis) of every file under `paths`."""
    items = _walk(paths)
    options = with_project_names(options, [it.path for it in items])
    root = source_root(paths)
    wopts = warp_options(cfg)
    scanned = [_warp_scan_file(it.path, report_path(it.path, root), options, wopts, findings) for it in items]
    return WarpScan(scanned, sum(1 for f in scanned if f.error), cfg.fix_style, root)


def _warp_scan_file(path: Path, shown: str, options: TranslateOptions, wopts: WarpOptions,
                    findings: bool) -> FileReport:
    from .pipeline.files import FileError, guarded, read
    from .source import Source
    from .translate.driver import translate
    from .warp import analyze

    src = Source("")
    try:
        src = read(path)
        tr = guarded(shown, lambda: translate(src, options))
        an = guarded(shown, lambda: analyze(src, tr, wopts)) if findings else None
    except FileError as e:
        return FileReport(shown, src, error=str(e))
    return FileReport(shown, src, an, tr.reports)


def scan_document(paths: Sequence[str | Path], options: TranslateOptions, jobs: int | None = None) -> dict[str, Any]:
    """Translate (without writing) every file under `paths` and gather the scan document (JSON
    schema hipport.scan/2, docs/translate.md): reports and statistics per file, and totals. File paths
    are relative to report.source_root(paths), the repository root, as in SARIF."""
    from .mapping import load
    from .pipeline.files import Job, port_files

    items = _walk(paths)
    root = source_root(paths)
    options = with_project_names(options, [it.path for it in items])
    batch = [Job(str(it.path), it.rel, options, render=False) for it in items]
    files: list[dict[str, Any]] = []
    totals: dict[str, Any] = {"files": 0, "errors": 0, "lines": 0, "converted": 0, "unconverted": 0,
                              "reports": {}, "families": {}}
    modes: set[str] = set()
    for res in port_files(batch, jobs):
        entry: dict[str, Any] = {"path": report_path(res.path, root), "language": res.language, "error": res.error}
        totals["files"] += 1
        if res.error:
            totals["errors"] += 1
            files.append(entry)
            continue
        modes.add(res.mode)
        families = {k.split(".", 1)[1]: v for k, v in sorted(res.stats.items()) if k.startswith("family.")}
        converted = res.stats.get("converted", 0)
        unconverted = res.stats.get("unconverted", 0)
        lines = res.stats.get("lines", 0)
        by_kind: dict[str, int] = {}
        for r in res.reports:
            by_kind[r["kind"]] = by_kind.get(r["kind"], 0) + 1
        entry.update({
            "mode": res.mode,
            "stats": {
                "lines": lines,
                "changed_lines": res.changed_lines,
                "bytes": res.bytes_in,
                "replaced_bytes": res.replaced_bytes,
                "converted": converted,
                "unconverted": unconverted,
                "conversion_percent": round(100.0 * converted / (converted + unconverted), 1)
                if converted + unconverted else 100.0,
                "families": families,
                "edits": {k: res.stats.get(k, 0) for k in ("api", "include", "launch", "preproc")},
                "reports": by_kind,
            },
            "reports": res.reports,
        })
        files.append(entry)
        totals["lines"] += lines
        totals["converted"] += converted
        totals["unconverted"] += unconverted
        for k, v in by_kind.items():
            totals["reports"][k] = totals["reports"].get(k, 0) + v
        for k, v in families.items():
            totals["families"][k] = totals["families"].get(k, 0) + v
    return {
        "schema": SCAN_SCHEMA,
        "tool": {"name": "hipport", "version": VERSION},
        "rocm": ".".join(map(str, options.rocm)),
        "mode": "/".join(sorted(modes)) or "-",
        "mapping_commit": load().source_commit,
        "files": files,
        "totals": totals,
    }


__all__ = [
    "VERSION",
    "ApiError",
    "ConfigError",
    "WarpScan",
    "report_dict",
    "scan_document",
    "settings",
    "settings_root",
    "translate_options",
    "warp_options",
    "warp_scan",
]
