"""The one edit composer: a file's translation edits + its warp analysis + the chosen fixes -> the
final edits, the fix groups held back (with why) and the findings applied.

`hipport convert --fixes` (pipeline.port, through pipeline.files.port_file) and the review session
(ReviewSession.result_edits, held, rows, write) both call `compose`, so the command line and the app
cannot build different files from the same decisions. The rules:

- A fix group is applied whole or not at all: a group with only some of its findings chosen is held.
- A group of tier REVIEW (model.FixTier) is applied only with `allow_review` (the command line's
  `--fixes-review`; in the app, accepting the group is the deliberate act); otherwise it is held and
  its `tier_reason` says why.
- A group whose edits overlap the translation or an already applied group is held, never raised:
  the later group (in text order) gives way. Both paths report the held groups.
- Overlapping translation edits are a translator bug: EditConflict.
- Logical warps (warp/logical.py) are the default port of all warp code: every rewrite of it is
  applied except in the functions an applied 64-wide group takes over (its region: the functions
  holding its findings and their uses, closed over calls between functions with warp code). A group
  whose region also holds another group's findings, or uses a macro whose warp code functions outside
  the region share, is held: a function is either logical or 64-wide, never half of each.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .edits import Edit, EditConflict, find_conflict
from .model import Analysis, Finding, FixGroup, FixStyle, FixTier, Severity

if TYPE_CHECKING:
    from .warp.logical import LogicalWarps


# Rules whose fix is right whatever the warp width (a same-address race after a shuffle reduction):
# the default port applies their SAFE groups too, and they take no function out of the logical port.
WIDTH_INDEPENDENT_RULES = frozenset({"W64-24"})


def width_independent(members: Sequence[Finding]) -> bool:
    return bool(members) and all(f.rule in WIDTH_INDEPENDENT_RULES for f in members)


def regionless(members: Sequence[Finding], logical: LogicalWarps | None = None) -> bool:
    """A group that takes no function out of the logical port: right at any width, or performance notes
    outside function bodies (`__launch_bounds__` on a declaration). A performance edit inside a body
    (`k += 32` -> `k += 64`) changes what the code computes: it is a 64-wide rewrite like any other."""
    if width_independent(members):
        return True
    if not performance_only(members):
        return False
    if logical is None:
        return True
    return all((fs := logical.function_at(f.start)) is None or f.start < fs.start for f in members)


def performance_only(members: Sequence[Finding]) -> bool:
    """A group of performance notes (W64-12, W64-19): never applied by `--fixes all`, never joined to a
    correctness group."""
    return bool(members) and all(f.severity == Severity.PERFORMANCE for f in members)


@dataclass(frozen=True)
class Composed:
    edits: tuple[Edit, ...]                  # translation + applied fixes, no two overlapping
    applied: tuple[str, ...] = ()            # ids of the findings whose fix edits are in `edits`
    held: dict[str, str] = field(default_factory=dict)  # group id -> one-line reason it is not applied
    wide_groups: tuple[str, ...] = ()        # fix groups applied as 64-wide rewrites
    logical_rewrites: int = 0                # logical-warp rewrites applied (helpers not counted)


def group_members(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Fix group id -> its findings, in the findings' order; a finding without a group is a group of one."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.group or f.id, []).append(f)
    return groups


def choose(analysis: Analysis, rules: Collection[str] | None, style: FixStyle) -> dict[str, FixStyle]:
    """The command line's choice: every finding of the given rules (None = all but the performance
    notes, which change code only when named) in one style, pulled out to whole fix groups (a group is
    applied whole or not at all)."""
    groups = group_members(analysis.findings)
    wanted = {gid for gid, members in groups.items()
              if any(f.rule in rules for f in members) if rules is not None} if rules is not None else {
        gid for gid, members in groups.items() if not performance_only(members)}
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
            *, allow_review: bool, logical: LogicalWarps | None = None) -> Composed:
    """The final edits of one file. `chosen` maps the ids of the accepted findings to their fix style
    (a group takes its first member's style); `logical`: the file's logical-warp port, applied outside
    the accepted groups' functions. See the module docstring for what is held and why."""
    held: dict[str, str] = {}
    owner: dict[int, str] = {}  # id(edit) -> group that brought it
    brought: dict[tuple[int, int, str], set[str]] = {}  # an edit's span and text -> every group that brings it
    group_edit_lists: dict[str, list[Edit]] = {}
    added: list[str] = []  # groups whose edits were added, in text order
    members_of = group_members(analysis.findings) if analysis is not None else {}
    if analysis is not None and chosen:
        fix_groups = {g.id: g for g in analysis.groups}
        for gid, members in members_of.items():
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
            group_edit_lists[gid] = group_edits(members, g, chosen[members[0].id])
    skip_functions: set[tuple[int, int]] = set()
    skip_macros: set[str] = set()
    # a group with no rewrite in its style (a wave32 target takes no wave64 fix) stays logical
    added = [g for g in added if group_edit_lists[g]]
    wide = [g for g in added if not regionless(members_of[g], logical)]
    if logical is not None and analysis is not None and wide:
        regions = _Regions(logical, analysis, members_of)
        kept_wide, why = regions.settle(wide)
        held.update(why)
        added = [g for g in added if g in kept_wide or g not in wide]
        skip_functions, skip_macros = regions.functions_of(kept_wide), regions.macros_of(kept_wide)
    logical_edits = logical.edits(skip_functions, skip_macros) if logical is not None else []
    taken = {(e.start, e.end) for e in logical_edits if e.start != e.end}
    # a token the logical port renames (cudaGetDeviceProperties -> hipport_...) is not also translated
    edits: list[Edit] = [e for e in translation_edits if (e.start, e.end) not in taken]
    for e in logical_edits:
        owner.setdefault(id(e), "logical-warp")
        edits.append(e)
    for gid in added:
        for e in group_edit_lists[gid]:
            if width_independent(members_of[gid]) and "warpSize" in e.replacement and not _wide_at(e, skip_functions):
                # right at any width, written into a logical-warp function: its warp is 32 lanes there
                e = Edit(e.start, e.end, re.sub(r"\bwarpSize\b", "32", e.replacement), e.rule, e.note)
            owner.setdefault(id(e), gid)
            brought.setdefault((e.start, e.end, e.replacement), set()).add(gid)
            edits.append(e)
    edits = dedupe(edits)
    while (conflict := find_conflict(edits)) is not None:
        a, b = conflict
        ga, gb = owner.get(id(a)), owner.get(id(b))
        victim, other = (gb, ga) if gb not in (None, "logical-warp") else (ga, gb)
        if victim is None or victim == "logical-warp":
            raise EditConflict(a, b)
        held[victim] = ("its fix overlaps the translation" if other is None
                        else "its fix overlaps the logical-warp port" if other == "logical-warp"
                        else f"its fix overlaps the accepted fix of group {other}")
        edits = [e for e in edits if owner.get(id(e)) != victim
                 or brought.get((e.start, e.end, e.replacement), set()) - {victim} - set(held)]
        for e in edits:  # an edit the victim shared with a group still applied is that group's now
            if owner.get(id(e)) == victim:
                owner[id(e)] = next(iter(brought[(e.start, e.end, e.replacement)] - {victim} - set(held)))
    applied_groups = {gid for gid in added if gid not in held}
    applied = tuple(f.id for f in (analysis.findings if analysis is not None else ())
                    if (f.group or f.id) in applied_groups and f.fix(chosen[f.id]) is not None)
    kept = len(logical.kept(skip_functions, skip_macros)) if logical is not None else 0
    return Composed(tuple(edits), applied, held,
                    tuple(g for g in added if g in applied_groups and not regionless(members_of[g], logical)), kept)


def _wide_at(e: Edit, wide_functions: Collection[tuple[int, int]]) -> bool:
    return any(a <= e.start < b for a, b in wide_functions)


class _Regions:
    """Which functions and macros an applied 64-wide group takes out of the logical-warp port."""

    def __init__(self, logical: LogicalWarps, analysis: Analysis, members_of: Mapping[str, list[Finding]]) -> None:
        self.logical = logical
        self.members_of = members_of
        text = analysis.source.text
        starts = analysis.source.line_starts  # the lines the findings and their uses were counted in
        self.offsets: dict[str, list[int]] = {}
        self.defines: dict[str, set[str]] = {}  # group -> macros whose #define line holds one of its findings
        for gid, members in members_of.items():
            where = [f.start for f in members]
            for f in members:
                where.extend(starts[u.line - 1] + u.col - 1 for u in f.uses if 0 < u.line <= len(starts))
                line = text[starts[f.line - 1]:text.find("\n", f.start)] if 0 < f.line <= len(starts) else ""
                m = re.match(r"\s*#\s*define\s+(\w+)", line)
                if m:
                    self.defines.setdefault(gid, set()).add(m.group(1))
            self.offsets[gid] = where
        warp_names = {f.name for f in logical.functions if any(
            r.function == (f.start, f.end) for r in logical.rewrites)}
        self.warp_functions = [f for f in logical.functions if f.name in warp_names]
        self.macro_rewrites = {r.macro for r in logical.rewrites if r.macro}
        self._region: dict[str, frozenset[tuple[int, int]]] = {}

    def region(self, gid: str) -> frozenset[tuple[int, int]]:
        """The group's functions, closed over calls to and from functions with warp code."""
        got = self._region.get(gid)
        if got is not None:
            return got
        spans = {(f.start, f.end) for o in self.offsets.get(gid, ()) if (f := self.logical.function_at(o))}
        macros = self.defines.get(gid, set())
        spans |= {(f.start, f.end) for f in self.logical.functions if f.macros & macros}
        names = {f.name for f in self.logical.functions if (f.start, f.end) in spans}
        changed = True
        while changed:
            changed = False
            for f in self.warp_functions:
                if (f.start, f.end) in spans:
                    continue
                if f.name in names or f.calls & names:
                    spans.add((f.start, f.end))
                    names.add(f.name)
                    changed = True
            for f in self.logical.functions:
                if (f.start, f.end) in spans:
                    new = {g.name for g in self.warp_functions if g.name in f.calls} - names
                    if new:
                        names |= new
                        changed = True
        got = frozenset(spans)
        self._region[gid] = got
        return got

    def settle(self, added: list[str]) -> tuple[list[str], dict[str, str]]:
        """The applied groups that can take their regions whole, and why the others are held."""
        held: dict[str, str] = {}
        current = list(added)
        while True:
            taken = set().union(*(self.region(g) for g in current)) if current else set()
            bad: dict[str, str] = {}
            for gid in current:
                region = self.region(gid)
                for other, where in self.offsets.items():
                    # a performance note left undecided does not hold a correctness group back
                    if other in current or other == gid or width_independent(self.members_of[other]) \
                            or performance_only(self.members_of[other]):
                        continue
                    if any(self.inside(o, region) for o in where):
                        bad[gid] = (f"its functions also hold group {other}, which stays a logical warp: "
                                    "accept that group as well")
                        break
                if gid in bad:
                    continue
                for m in self.macros_used(region):
                    users = [f for f in self.logical.functions if m in f.macros]
                    if any((f.start, f.end) not in taken for f in users):
                        bad[gid] = (f"it uses macro {m}, whose warp code functions outside its region share as "
                                    "logical warps")
                        break
            if not bad:
                return current, held
            held.update(bad)
            current = [g for g in current if g not in bad]

    def other_file(self, gid: str) -> str:
        """Why the group's code meets warp code of another file ("" when it does not): a kernel it
        launches is defined elsewhere, or a kernel of its region is launched elsewhere."""
        region = self.region(gid)
        inside = [f for f in self.logical.functions if (f.start, f.end) in region]
        defined = {f.name for f in self.logical.functions}
        launched = set().union(*(f.launches for f in self.logical.functions))
        elsewhere = sorted({k for f in inside for k in f.launches} - defined)
        if elsewhere:
            return (f"it sizes the launch of {elsewhere[0]}, a kernel of another file: accept it together with that "
                    "kernel's warp groups there")
        foreign = sorted(f.name for f in inside if f.kernel and f.name not in launched)
        if foreign:
            return (f"kernel {foreign[0]} is launched from another file: accept it together with the groups that "
                    "size its launch there")
        return ""

    def inside(self, offset: int, region: frozenset[tuple[int, int]]) -> bool:
        return any(a <= offset < b for a, b in region)

    def macros_used(self, region: Collection[tuple[int, int]]) -> set[str]:
        used: set[str] = set()
        for f in self.logical.functions:
            if (f.start, f.end) in region:
                used |= f.macros & self.macro_rewrites
        return used

    def functions_of(self, groups: Iterable[str]) -> set[tuple[int, int]]:
        out: set[tuple[int, int]] = set()
        for g in groups:
            out |= self.region(g)
        return out

    def macros_of(self, groups: Iterable[str]) -> set[str]:
        return self.macros_used(self.functions_of(groups))


def connected_groups(analysis: Analysis, logical: LogicalWarps | None) -> Analysis:
    """The analysis with fix groups merged where their code is connected: groups whose regions (see
    _Regions) share a function, or whose functions use one macro with warp code, become one group, so
    each offered 64-wide rewrite is a whole connected piece of warp code (a function is either logical
    or 64-wide). The merged group keeps the first group's id and takes the lower tier."""
    members_of = group_members(analysis.findings)
    if logical is None or not members_of:
        return analysis
    regions = _Regions(logical, analysis, members_of)
    ids = list(members_of)
    parent = {g: g for g in ids}

    def find(g: str) -> str:
        while parent[g] != g:
            parent[g] = parent[parent[g]]
            g = parent[g]
        return g

    reach = {g: (regions.region(g), regions.macros_used(regions.region(g))) for g in ids}
    # performance notes stay groups of their own (offered on their own, never dragged in by a correctness
    # group); one inside a logical function is then held until that function is 64-wide (settle)
    joinable = [g for g in ids if not width_independent(members_of[g]) and not performance_only(members_of[g])]
    for i, a in enumerate(joinable):
        for b in joinable[i + 1:]:
            (ra, ma), (rb, mb) = reach[a], reach[b]
            if ra & rb or ma & mb or any(regions.inside(o, rb) for o in regions.offsets.get(a, ())) \
                    or any(regions.inside(o, ra) for o in regions.offsets.get(b, ())):
                parent[find(b)] = find(a)
    root_of = {g: find(g) for g in ids}
    import dataclasses

    by_id = {g.id: g for g in analysis.groups}
    retiered = False
    own_warp_size = re.search(r"^\s*#\s*define\s+warpSize\b", analysis.source.text, re.M) is not None
    for gid in ids:  # a group whose code meets another file's warp code is offered for review only
        why = regions.other_file(gid) if not regionless(members_of[gid], logical) else ""
        if not why and own_warp_size and not regionless(members_of[gid], logical):
            why = ("the program defines warpSize itself (#define warpSize): a 64-wide rewrite cannot know what "
                   "each use of it means")
        g = by_id.get(gid) or FixGroup(gid, tuple(f.id for f in members_of[gid]), "")
        if why and g.tier == FixTier.SAFE:
            by_id[gid] = dataclasses.replace(g, tier=FixTier.REVIEW, tier_reason=why)
            retiered = True
    if len(set(root_of.values())) == len(ids) and not retiered:
        return analysis
    merged: dict[str, FixGroup] = {}
    for gid in ids:
        root = root_of[gid]
        g = by_id.get(gid) or FixGroup(gid, tuple(f.id for f in members_of[gid]), "")
        if root not in merged:
            merged[root] = dataclasses.replace(g, id=root)
            continue
        m = merged[root]
        review = FixTier.REVIEW in (m.tier, g.tier)
        merged[root] = dataclasses.replace(
            m, finding_ids=m.finding_ids + g.finding_ids,
            reason=m.reason if g.reason in m.reason else f"{m.reason}; {g.reason}",
            shared=m.shared + tuple(s for s in g.shared if s not in m.shared),
            tier=FixTier.REVIEW if review else FixTier.SAFE,
            tier_reason="; ".join(dict.fromkeys(x for x in (*m.tier_reason.split("; "), g.tier_reason) if x)))
    findings = tuple(f if root_of[f.group or f.id] == (f.group or f.id)
                     else dataclasses.replace(f, group=root_of[f.group or f.id]) for f in analysis.findings)
    return dataclasses.replace(analysis, findings=findings, groups=tuple(merged.values()))
