"""Turn analyzer hits into Findings and FixGroups (union of linked keys), with shared preludes."""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..edits import Edit
from ..model import Finding, Fix, FixGroup, FixStyle, FixTier, Severity, Translation, Use
from ..source import Source
from .hits import Hit, Result
from .prelude import Needs, prelude_text
from .rules import RULES

PRELUDE_SYMBOLS = ("HIPPORT_WS", "lane_mask_t", "hipport_host_warp_size", "__syncwarp", "HIPPORT_CUDA_MIN_BLOCKS")


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


class _Spans:
    """Fast overlap test against the translation's edits."""

    def __init__(self, edits: Sequence[Edit]) -> None:
        self.edits = sorted(edits, key=lambda e: (e.start, e.end))
        self.starts = [e.start for e in self.edits]

    def conflicts(self, e: Edit) -> bool:
        # translation edits do not overlap each other, so their ends grow with their starts:
        # only the few edits starting before e.end and ending after e.start can touch it
        j = bisect.bisect_right(self.starts, e.end) - 1
        while j >= 0 and self.edits[j].end >= e.start:
            if self.edits[j].overlaps(e):
                return True
            j -= 1
        return False


def build_analysis(source: Source, results: list[Result], wave32: bool,
                   translation: Translation | None) -> tuple[list[Finding], list[FixGroup]]:
    spans = _Spans(translation.edits) if translation is not None else None
    uf = _UnionFind()
    where = source.path.name if source.path is not None else "line"
    raw: list[tuple[tuple[Any, ...], str, str]] = []  # finding's fields, union key, review reason
    for res, hits in root_causes(source.text, results, uf):
        h = hits[0]
        start = res.starts[h.anchor]
        end = res.ends[h.end_anchor if h.end_anchor is not None else h.anchor]
        line, col = source.line_col(start)
        rule = RULES[h.rule]
        fixes, note = _fixes(hits, wave32, spans)
        if wave32 and h.w64 is not None:
            note += " No wave64 fix: the target list includes a wave32 (gfx10/11/12) architecture."
        use_toks = sorted({x.anchor for x in hits[1:]} | {u for x in hits for u in x.uses} - {h.anchor})
        roles = {k: r for x in hits for k, r in x.use_roles.items()}
        uses = tuple(_use(source, res.starts[u], roles.get(u, "")) for u in use_toks)
        if len(hits) > 1:
            note += f" Same cause at {len(hits) - 1} more place{'s' if len(hits) > 2 else ''} in this function."
        # the Finding is made once its group is known (below): Finding's fields in order, less `group`
        f = (f"{h.rule}:{line}:{col}", h.rule, Severity(rule.severity), start, end, line, col,
             h.message + note, tuple(fixes), h.confidence, uses)
        review = next((x.review for x in hits if x.review), "")
        raw.append((f, uf.find(h.key), re.sub(r"\bat line (\d+)", rf"at {where}:\1", review) if review else ""))
    raw.sort(key=lambda r: (r[0][3], r[0][1]))  # (start, rule)
    # group ids: the first finding (in text order) of each union names the group
    names: dict[str, str] = {}
    members: dict[str, list[Finding]] = {}
    reviews: dict[str, str] = {}
    findings: list[Finding] = []
    for f, root, review in raw:
        root = uf.find(root)
        gid = names.setdefault(root, f"group:{f[0]}")
        g = Finding(*f[:8], gid, *f[8:])
        findings.append(g)
        members.setdefault(gid, []).append(g)
        if review and gid not in reviews:
            reviews[gid] = review
    needs = Needs()
    prelude_at: int | None = None
    for res in results:
        needs.merge(res.needs)
        if res.hits and res.prelude_at >= 0 and prelude_at is None:
            prelude_at = res.prelude_at
    groups = [_group(gid, fs, reviews, _shared(fs, needs, prelude_at, source.newline)) for gid, fs in members.items()]
    return findings, groups


def _fixes(hits: list[Hit], wave32: bool, spans: _Spans | None) -> tuple[list[Fix], str]:
    """The fixes of one root cause (its hits' edits together, per style), and a note on a style left out."""
    h = hits[0]
    fixes: list[Fix] = []
    note = ""
    for style in (FixStyle.WAVE64, FixStyle.PORTABLE):
        per = [x.w64 if style == FixStyle.WAVE64 else x.port for x in hits]
        summary = h.w64_summary if style == FixStyle.WAVE64 else h.port_summary
        if None in per or (style == FixStyle.WAVE64 and wave32):
            continue
        edits = [e for es in per if es is not None for e in es]
        if spans is not None and any(spans.conflicts(e) for e in edits):
            note = " No automatic fix: it would overlap a translated span."
            continue
        fixes.append(Fix(style, tuple(edits), summary))
    return fixes, note


def _shared(fs: list[Finding], needs: Needs, prelude_at: int | None, newline: str) -> list[Fix]:
    """The prelude insertions of a group, per style whose edits use a helper (or when shims are needed)."""
    shared: list[Fix] = []
    for style in (FixStyle.WAVE64, FixStyle.PORTABLE):
        edits = [e for f in fs if (fx := f.fix(style)) is not None for e in fx.edits]
        if not edits:
            continue
        helpers = any(sym in e.replacement for e in edits for sym in PRELUDE_SYMBOLS)
        if not helpers and not (needs.sync_shim or needs.syncwarp_shim):
            continue
        text = prelude_text(needs, style == FixStyle.PORTABLE, newline)
        if text and prelude_at is not None:
            shared.append(Fix(style, (Edit(prelude_at, prelude_at, text, "prelude"),),
                              "insert the warp-size helpers once, after the runtime include"))
    return shared


def _group(gid: str, fs: list[Finding], reviews: Mapping[str, str], shared: list[Fix]) -> FixGroup:
    """The fix group `gid` of findings fs: SAFE unless a review reason was given or nothing can be fixed."""
    rules = sorted({f.rule for f in fs})
    reason = ("these findings share lane ids, warp ids, masks or warp-size constants; accept them together "
              "(a partial fix can be worse than none): " + ", ".join(rules)) if len(fs) > 1 else \
        f"independent finding ({rules[0]})"
    tier = FixTier.REVIEW if gid in reviews else FixTier.SAFE
    review = reviews.get(gid, "")
    if not any(f.fixes for f in fs):
        tier, review = FixTier.REVIEW, review or "no automatic fix: a person has to decide"
    return FixGroup(gid, tuple(f.id for f in fs), reason, tuple(shared), tier, review)


def noop_edit(text: str, e: Edit) -> bool:
    """The edit leaves the text as it is (`1ull` replaced by `1ull`)."""
    return text[e.start:e.end] == e.replacement


def changing_hits(text: str, hits: list[Hit]) -> list[Hit]:
    """The guard on every warp fix, here where hits become findings (one place): an edit that leaves the
    text unchanged is dropped, a style whose edits all do so has no fix, and a hit that offered edits and
    has none left is not reported at all (a finding whose fix changes nothing claims a bug that is not
    there). Hits that never offered an edit (review-only findings) are kept."""
    out: list[Hit] = []
    for h in hits:
        styles = [h.w64, h.port]
        if all(not es or not any(noop_edit(text, e) for e in es) for es in styles):
            out.append(h)
            continue
        kept = [None if es is None else [e for e in es if not noop_edit(text, e)] or None for es in styles]
        if all(es is None for es in kept):
            continue
        out.append(dataclasses.replace(h, w64=kept[0], port=kept[1]))
    return out


def root_causes(text: str, results: list[Result], uf: _UnionFind | None = None) -> Iterator[tuple[Result, list[Hit]]]:
    """Each finding-to-be, in order: the result it comes from and the hits of its root cause (the first
    names it). Hits whose edits change nothing are dropped first (changing_hits); each result's links
    join fix groups before its hits are grouped. build_analysis makes a Finding of each; count_findings
    counts them (the background analysis needs only the number)."""
    uf = uf if uf is not None else _UnionFind()
    for res in results:
        live = changing_hits(text, res.hits)
        hit_keys = {h.key for h in live}
        for a, b in set(res.links):
            if a in hit_keys or b in hit_keys:
                uf.union(a, b)
        for hits in _root_causes(live, uf):
            yield res, hits


def count_findings(text: str, results: list[Result]) -> int:
    """len(build_analysis(...)[0]) without building the findings, their fixes and groups."""
    return sum(1 for _ in root_causes(text, results))


def _root_causes(hits: list[Hit], uf: _UnionFind) -> list[list[Hit]]:
    """Hits of one rule, one message and one fix group are one root cause (one finding listing its uses):
    fifty `0xffffffff` masks in one kernel are one finding, not fifty."""
    out: dict[tuple[str, str, str, str, str], list[Hit]] = {}
    for h in sorted(hits, key=lambda x: x.anchor):
        out.setdefault((h.rule, uf.find(h.key), h.message, h.w64_summary, h.port_summary), []).append(h)
    return list(out.values())


_NON_BLANK = re.compile(r"\S")
USE_TEXT = 100  # characters of a use's line shown with it


def _use(source: Source, offset: int, role: str = "") -> Use:
    """The use at `offset`, with the first USE_TEXT characters of its line, stripped. Costs the blanks
    that open the line, not its length: a line of 8,000 shuffles has 8,000 uses."""
    line, col = source.line_col(offset)
    text = source.text
    starts = source.line_starts  # a newline ends every line of line_starts; "\r" alone ends some too
    s = starts[line - 1]
    if s and text[s - 1] != "\n":
        s = text.rfind("\n", 0, offset) + 1
    e = starts[line] - 1 if line < len(starts) else len(text)
    if line < len(starts) and text[e] != "\n":
        e = text.find("\n", offset)
        e = e if e >= 0 else len(text)
    first = _NON_BLANK.search(text, s, e)
    if first is None:
        return Use(line, col, "", role)
    p = first.start()
    head = text[p:min(e, p + USE_TEXT)]
    # line.strip()[:USE_TEXT]: the head itself when the stripped line is at least that long
    if _NON_BLANK.search(text, p + USE_TEXT - 1, e) is None:
        head = head.rstrip()
    return Use(line, col, head, role)
