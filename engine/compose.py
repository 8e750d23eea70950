"""The one edit composer: a file's translation edits + its warp analysis + the chosen fixes -> the
final edits, the fix groups held back (with why) and the findings applied.

`hipport convert --fixes` (pipeline.port, through translate_batch) and the review session
(ReviewSession.result_edits, held, rows, write) both call `compose`, so the command line and the app
cannot build different files from the same decisions. The rules:

- A fix group is applied whole or not at all: a group with only some of its findings chosen is held.
- A group of tier REVIEW (model.FixTier) is applied only with `allow_review` (the command line's
  `--fixes-review`; in the app, accepting the group is the deliberate act); otherwise it is held and
  its `tier_reason` says why.
- A group whose edits overlap the translation or an already applied group is held, never raised:
  the later group (in text order) gives way. Both paths report the held groups.
- Overlapping translation edits are a translator bug: EditConflict.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .edits import Edit, EditConflict, find_conflict
from .model import Analysis, Finding, FixGroup, FixStyle, FixTier


@dataclass(frozen=True)
class Composed:
    edits: tuple[Edit, ...]                  # translation + applied fixes, no two overlapping
    applied: tuple[str, ...] = ()            # ids of the findings whose fix edits are in `edits`
    held: dict[str, str] = field(default_factory=dict)  # group id -> one-line reason it is not applied


def group_members(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Fix group id -> its findings, in the findings' order; a finding without a group is a group of one."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.group or f.id, []).append(f)
    return groups


def choose(analysis: Analysis, rules: Collection[str] | None, style: FixStyle) -> dict[str, FixStyle]:
    """The command line's choice: every finding of the given rules (None = all) in one style, pulled out
    to whole fix groups (a group is applied whole or not at all)."""
    groups = group_members(analysis.findings)
    wanted = {gid for gid, members in groups.items() if any(rules is None or f.rule in rules for f in members)}
    return {f.id: style for gid in wanted for f in groups[gid]}


def group_edits(members: Sequence[Finding], group: FixGroup | None, style: FixStyle) -> list[Edit]:
    """The edits one fix group brings in `style`: each member's fix, then the group's shared edits."""
    out: list[Edit] = []
    for f in members:
        fix = f.fix(style)
        if fix is not None:
            out.extend(fix.edits)
    for shared in group.shared if group is not None else ():
        if shared.style == style:
            out.extend(shared.edits)
    return out


def fix_edits(analysis: Analysis, rules: Collection[str] | None, style: FixStyle) -> tuple[list[Edit], list[str]]:
    """Every fix edit of `choose(analysis, rules, style)`, uncomposed (no translation, no conflict
    check): (deduplicated edits, ids of the findings with a fix). For checks of the analysis itself."""
    chosen = choose(analysis, rules, style)
    fix_groups = {g.id: g for g in analysis.groups}
    edits: list[Edit] = []
    for gid, members in group_members(f for f in analysis.findings if f.id in chosen).items():
        edits.extend(group_edits(members, fix_groups.get(gid), style))
    applied = [f.id for f in analysis.findings if f.id in chosen and f.fix(style) is not None]
    return dedupe(edits), applied


def dedupe(edits: Iterable[Edit]) -> list[Edit]:
    """Drop exact duplicates (two findings may propose the same shared edit)."""
    seen: set[tuple[int, int, str]] = set()
    out: list[Edit] = []
    for e in edits:
        key = (e.start, e.end, e.replacement)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def compose(translation_edits: Sequence[Edit], analysis: Analysis | None, chosen: Mapping[str, FixStyle],
            *, allow_review: bool) -> Composed:
    """The final edits of one file. `chosen` maps the ids of the accepted findings to their fix style
    (a group takes its first member's style). See the module docstring for what is held and why."""
    held: dict[str, str] = {}
    owner: dict[int, str] = {}  # id(edit) -> group that brought it
    edits: list[Edit] = list(translation_edits)
    added: list[str] = []  # groups whose edits were added, in text order
    if analysis is not None and chosen:
        fix_groups = {g.id: g for g in analysis.groups}
        for gid, members in group_members(analysis.findings).items():
            n = sum(1 for f in members if f.id in chosen)
            if not n:
                continue
            if n != len(members):
                held[gid] = f"only {n} of its {len(members)} findings are accepted"
                continue
            g = fix_groups.get(gid)
            if g is not None and g.tier == FixTier.REVIEW and not allow_review:
                held[gid] = "needs review" + (f": {g.tier_reason}" if g.tier_reason else "")
                continue
            added.append(gid)
            for e in group_edits(members, g, chosen[members[0].id]):
                owner.setdefault(id(e), gid)
                edits.append(e)
    edits = dedupe(edits)
    while (conflict := find_conflict(edits)) is not None:
        a, b = conflict
        ga, gb = owner.get(id(a)), owner.get(id(b))
        victim, other = (gb, ga) if gb is not None else (ga, gb)
        if victim is None:
            raise EditConflict(a, b)
        held[victim] = ("its fix overlaps the translation" if other is None
                        else f"its fix overlaps the accepted fix of group {other}")
        edits = [e for e in edits if owner.get(id(e)) != victim]
    applied_groups = {gid for gid in added if gid not in held}
    applied = tuple(f.id for f in (analysis.findings if analysis is not None else ())
                    if (f.group or f.id) in applied_groups and f.fix(chosen[f.id]) is not None)
    return Composed(tuple(edits), applied, held)
