"""One call from CUDA source to HIP text: translation, optional warp fixes, render."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .edits import Edit, apply_edits
from .model import Analysis, FixStyle, Translation
from .source import Source


@dataclass(frozen=True)
class PortResult:
    translation: Translation
    analysis: Analysis | None
    applied_findings: tuple[str, ...]
    text: str


def fix_edits(analysis: Analysis, rules: Collection[str] | None, style: FixStyle) -> tuple[list[Edit], list[str]]:
    """Edits of every finding whose rule is in `rules` (None = all), whole groups at a time."""
    chosen = [f for f in analysis.findings if rules is None or f.rule in rules]
    group_ids = {f.group for f in chosen}
    # a group is applied whole or not at all: pull in the group's other members
    chosen = [f for f in analysis.findings if f.group in group_ids]
    edits: list[Edit] = []
    applied: list[str] = []
    for f in chosen:
        fix = f.fix(style)
        if fix is None:
            continue
        edits.extend(fix.edits)
        applied.append(f.id)
    for g in analysis.groups:
        if g.id in group_ids:
            for shared in g.shared:
                if shared.style == style:
                    edits.extend(shared.edits)
    return dedupe(edits), applied


def dedupe(edits: list[Edit]) -> list[Edit]:
    """Drop exact duplicates (two findings may propose the same shared edit)."""
    seen: set[tuple[int, int, str]] = set()
    out: list[Edit] = []
    for e in edits:
        key = (e.start, e.end, e.replacement)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def port(
    source: Source,
    options: object | None = None,
    *,
    fixes: str | Collection[str] = "none",
    style: FixStyle = FixStyle.WAVE64,
    warp_options: object | None = None,
) -> PortResult:
    """Translate `source`; with fixes="all" or a set of rule ids, also apply those warp fixes."""
    from .translate import translate  # lazy: keeps `hipport --help` fast

    tr = translate(source, options)  # type: ignore[arg-type]
    analysis: Analysis | None = None
    edits = list(tr.edits)
    applied: list[str] = []
    if fixes != "none":
        from .warp import analyze

        analysis = analyze(source, tr, warp_options)  # type: ignore[arg-type]
        rules = None if fixes == "all" else set(fixes)
        extra, applied = fix_edits(analysis, rules, style)
        edits.extend(extra)
    return PortResult(tr, analysis, tuple(applied), apply_edits(source.text, edits))
