"""Reports in text, JSON and SARIF 2.1.0: warp findings (W64-NN) and translation reports.

One `FileReport` per file: its Source, the warp `Analysis` (or None) and the translation's
`Report`s. Paths in JSON and SARIF are relative to the repository root (`source_root`: the git work tree
holding the scanned path, else the current folder), SARIF's `%SRCROOT%` as CodeQL writes it, so GitHub
code scanning places the results; text output shows them relative to the current folder. SARIF rules carry the catalog metadata and the whole help page (`help.markdown`, rendered
from the rules.toml the package ships); translation reports become rules `HIP-<kind>` with a one-line
help text. No `helpUri`: the project has no web address to point at, and a dead link is worse than none.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from . import __version__
from .messages import one_line
from .model import Analysis, Finding, FixStyle, FixTier, Report, ReportKind
from .source import Source

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
JSON_SCHEMA_ID = "hipport.warp/1"
SRCROOT = "%SRCROOT%"  # SARIF uriBaseId of the repository root, as CodeQL writes it (GitHub code scanning)

_LEVEL = {"wrong-result": "error", "compile-error": "error", "performance": "warning"}
_REPORT_LEVEL = {
    ReportKind.UNSUPPORTED: "error", ReportKind.NEEDS_NEWER_ROCM: "warning", ReportKind.DEPRECATED: "warning",
    ReportKind.UNKNOWN: "warning", ReportKind.MANUAL: "warning", ReportKind.PYTHON: "note",
    ReportKind.INFO: "note", ReportKind.NOT_EXACT: "warning",
}
_REPORT_TEXT = {
    ReportKind.UNSUPPORTED: "CUDA API with no HIP equivalent",
    ReportKind.NEEDS_NEWER_ROCM: "HIP equivalent needs a newer ROCm than the target",
    ReportKind.DEPRECATED: "translated, but deprecated or removed",
    ReportKind.UNKNOWN: "looks like a CUDA API but is in no mapping table",
    ReportKind.MANUAL: "needs a person (inline PTX, textures, ...)",
    ReportKind.PYTHON: "Python-side item (device strings, visibility variables, flags)",
    ReportKind.INFO: "information",
    ReportKind.NOT_EXACT: "not exact on 64-wide waves (lockstep waits, hardware registers, inline PTX)",
}


def source_root(paths: Sequence[str | os.PathLike[str]]) -> Path:
    """The folder every JSON and SARIF path is relative to: the top of the git work tree holding the first
    path (SARIF's %SRCROOT%, as CodeQL uses it, so GitHub code scanning places results); outside git, the
    current folder when the first path lies under it, else that path's folder. Not resolved: a symlinked
    path keeps its name."""
    from .project.root import git_top

    cwd = Path(os.getcwd())
    first = Path(os.path.abspath(paths[0])) if paths else cwd
    folder = first if first.is_dir() else first.parent
    top = git_top(folder)
    if top is not None:
        return top
    return cwd if folder == cwd or cwd in folder.parents else folder


def report_path(path: str | os.PathLike[str], root: Path) -> str:
    """`path` relative to `root` in posix form (the JSON/SARIF path); absolute when outside it."""
    full = os.path.abspath(path)
    rel = os.path.relpath(full, root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return PurePosixPath(Path(full)).as_posix()
    return PurePosixPath(Path(rel)).as_posix()


def shown_path(path: str, root: Path) -> str:
    """A report path as text output shows it, openable from the current folder: relative to it when the
    file lies under it, else absolute."""
    full = path if os.path.isabs(path) else os.path.join(root, path)
    rel = os.path.relpath(full)
    return full if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


@dataclass(frozen=True)
class FileReport:
    path: str                    # relative to source_root() (report_path); absolute outside it
    source: Source
    analysis: Analysis | None = None
    reports: tuple[Report, ...] = field(default=())
    error: str = ""              # a file that could not be read or analysed


def _rules() -> dict[str, Any]:
    from .warp.rules import RULES

    return RULES


def _tiers(analysis: Analysis) -> dict[str, tuple[str, str]]:
    """Fix group id -> (tier, tier_reason); a finding without a FixGroup is a SAFE group of one."""
    return {g.id: (g.tier.value, g.tier_reason) for g in analysis.groups}


def finding_dict(f: Finding, tier: tuple[str, str] = (FixTier.SAFE.value, "")) -> dict[str, Any]:
    return {
        "id": f.id, "rule": f.rule, "severity": f.severity.value, "line": f.line, "col": f.col,
        "start": f.start, "end": f.end, "message": f.message, "group": f.group, "confidence": f.confidence,
        "tier": tier[0], "tier_reason": tier[1],
        "uses": [{"line": u.line, "col": u.col, "role": u.role, "text": u.text} for u in f.uses],
        "fixes": {fx.style.value: {"summary": fx.summary,
                                   "edits": [{"start": e.start, "end": e.end, "replacement": e.replacement}
                                             for e in fx.edits]} for fx in f.fixes},
    }


def report_dict(r: Report) -> dict[str, Any]:
    return {"kind": r.kind.value, "name": r.name, "line": r.line, "col": r.col, "start": r.start, "end": r.end,
            "message": r.message, "hip_name": r.hip_name, "since": r.since}


def to_json(files: Sequence[FileReport]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    totals: dict[str, int] = {}
    for fr in files:
        entry: dict[str, Any] = {"path": fr.path}
        if fr.error:
            entry["error"] = fr.error
        if fr.analysis is not None:
            tiers = _tiers(fr.analysis)
            entry["findings"] = [finding_dict(f, tiers.get(f.group or f.id, (FixTier.SAFE.value, "")))
                                 for f in fr.analysis.findings]
            entry["groups"] = [{"id": g.id, "findings": list(g.finding_ids), "reason": g.reason,
                                "tier": g.tier.value, "tier_reason": g.tier_reason}
                               for g in fr.analysis.groups]
            for f in fr.analysis.findings:
                totals[f.rule] = totals.get(f.rule, 0) + 1
        entry["reports"] = [report_dict(r) for r in fr.reports]
        out.append(entry)
    return {"schema": JSON_SCHEMA_ID, "files": out, "totals": dict(sorted(totals.items()))}


def to_text(files: Sequence[FileReport], root: Path | None = None) -> str:
    """One line per finding and report; paths relative to the current folder when `root` (source_root)
    is given, else as they are."""
    rules = _rules()
    lines: list[str] = []
    n_find = n_rep = 0
    for fr in files:
        path = shown_path(fr.path, root) if root is not None else fr.path
        if fr.error:
            lines.append(one_line(f"{path}: error: {fr.error}"))
            continue
        items: list[tuple[int, int, str]] = []
        if fr.analysis is not None:
            tiers = _tiers(fr.analysis)
            for f in fr.analysis.findings:
                fixes = "/".join(fx.style.value for fx in f.fixes) or "manual"
                tier, why = tiers.get(f.group or f.id, (FixTier.SAFE.value, ""))
                items.append((f.line, f.col, f"{path}:{f.line}:{f.col}: {f.severity.value}: {f.rule} "
                              f"{rules[f.rule].title}: {f.message} [fix: {fixes}; group {f.group}"
                              + (f"; confidence {f.confidence}" if f.confidence != "high" else "")
                              + (f"; needs review: {why}" if tier == FixTier.REVIEW.value else "") + "]"))
                n_find += 1
        for r in fr.reports:
            items.append((r.line, r.col, f"{path}:{r.line}:{r.col}: {r.kind.value}: {r.message}"))
            n_rep += 1
        lines.extend(one_line(t) for _, _, t in sorted(items))
    lines.append(f"{n_find} warp finding(s), {n_rep} translation report(s) in {len(files)} file(s)")
    return "\n".join(lines) + "\n"


def _artifact(path: str) -> dict[str, str]:
    """A SARIF artifactLocation: repository-relative under %SRCROOT%, or an absolute file URI outside it."""
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": path, "uriBaseId": SRCROOT}


def _region(src: Source, start: int, end: int) -> dict[str, int]:
    sl, sc = src.line_col(start)
    el, ec = src.line_col(max(start, end))
    return {"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec, "charOffset": start,
            "charLength": max(0, end - start)}


def to_sarif(files: Sequence[FileReport], version: str = __version__,
             fix_style: FixStyle = FixStyle.PORTABLE) -> dict[str, Any]:
    rules = _rules()
    rule_ids: list[str] = []
    results: list[dict[str, Any]] = []
    used_reports: set[ReportKind] = set()
    for fr in files:
        if fr.analysis is not None:
            tiers = _tiers(fr.analysis)
            for f in fr.analysis.findings:
                tier, why = tiers.get(f.group or f.id, (FixTier.SAFE.value, ""))
                res: dict[str, Any] = {
                    "ruleId": f.rule,
                    "level": _LEVEL[f.severity.value],
                    "message": {"text": f.message},
                    "locations": [{"physicalLocation": {"artifactLocation": _artifact(fr.path),
                                                        "region": _region(fr.source, f.start, f.end)}}],
                    "partialFingerprints": {"hipportFindingId": f.id},
                    "properties": {"group": f.group, "confidence": f.confidence, "severity": f.severity.value,
                                   "tier": tier, "tierReason": why,
                                   "uses": [f"{u.line}:{u.col}" for u in f.uses]},
                }
                fx = f.fix(fix_style)
                if fx is not None and fx.edits:
                    res["fixes"] = [{
                        "description": {"text": f"{fix_style.value}: {fx.summary}"},
                        "artifactChanges": [{
                            "artifactLocation": _artifact(fr.path),
                            "replacements": [{"deletedRegion": _region(fr.source, e.start, e.end),
                                              "insertedContent": {"text": e.replacement}} for e in fx.edits],
                        }],
                    }]
                results.append(res)
        for r in fr.reports:
            used_reports.add(r.kind)
            results.append({
                "ruleId": f"HIP-{r.kind.value}",
                "level": _REPORT_LEVEL.get(r.kind, "warning"),
                "message": {"text": r.message},
                "locations": [{"physicalLocation": {"artifactLocation": _artifact(fr.path),
                                                    "region": _region(fr.source, r.start, r.end)}}],
                "properties": {"name": r.name, "hipName": r.hip_name, "since": r.since},
            })
    driver_rules: list[dict[str, Any]] = []
    for rid, rule in rules.items():
        rule_ids.append(rid)
        driver_rules.append({
            "id": rid,
            "name": "".join(w.capitalize() for w in rule.title.replace("*", "").replace("/", " ").split()
                            if w.isalnum()),
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.explanation},
            "help": {"text": rule.explanation, "markdown": rule.help_markdown},
            "defaultConfiguration": {"level": _LEVEL[rule.severity]},
            "properties": {"tags": ["warp-size", "wave64", rule.severity],
                           "precision": "medium" if rule.heuristic else "high"},
        })
    for kind in sorted(used_reports, key=lambda k: k.value):
        rule_ids.append(f"HIP-{kind.value}")
        driver_rules.append({
            "id": f"HIP-{kind.value}",
            "name": "Translation" + "".join(w.capitalize() for w in kind.value.split("-")),
            "shortDescription": {"text": _REPORT_TEXT[kind]},
            "help": {"text": _REPORT_TEXT[kind]},
            "defaultConfiguration": {"level": _REPORT_LEVEL.get(kind, "warning")},
        })
    index = {rid: i for i, rid in enumerate(rule_ids)}
    for res in results:
        res["ruleIndex"] = index[res["ruleId"]]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hipport", "version": version, "rules": driver_rules}},
            "artifacts": [{"location": _artifact(fr.path)} for fr in files],
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }


def render(files: Sequence[FileReport], fmt: str, version: str = __version__,
           fix_style: FixStyle = FixStyle.PORTABLE, root: Path | None = None) -> str:
    """`root`: the source_root the paths are relative to (text shows them relative to the current folder)."""
    if fmt == "text":
        return to_text(files, root)
    if fmt == "json":
        return json.dumps(to_json(files), indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(to_sarif(files, version, fix_style), indent=2) + "\n"
    raise ValueError(f"unknown format {fmt!r}")
