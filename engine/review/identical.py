"""Identical findings across a project: the same rule with the same fix text (the replaced text and
its replacement, in the chosen style). The app applies one decision to all of them as one undo step
(`ReviewSession.decide_groups`).

    targets = identical_groups(session, "a.cu", fid, rels)   # [(rel, group id)], not the group itself
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..model import FixStyle
from .state import Decision
from .types import FileReview, ReviewError

if TYPE_CHECKING:
    from .session import ReviewSession

FixKey = tuple[str, tuple[tuple[str, str], ...]]


def finding_key(fr: FileReview, fid: str, style: FixStyle) -> FixKey | None:
    """(rule, ((replaced text, replacement), ...)) of the finding's fix in `style`; None without a fix."""
    f = fr.by_id[fid]
    fix = f.fix(style)
    if fix is None or not fix.edits:
        return None
    text = fr.source.text
    return f.rule, tuple((text[e.start:e.end], e.replacement) for e in fix.edits)


def group_key(session: ReviewSession, fr: FileReview, gid: str) -> tuple[FixKey, ...] | None:
    keys = []
    for fid in fr.groups.get(gid, ()):
        k = finding_key(fr, fid, session.style(fr.rel, fid))
        if k is None:
            return None
        keys.append(k)
    return tuple(sorted(keys))


def identical_groups(session: ReviewSession, rel: str, fid: str, rels: Iterable[str],
                     only_pending: bool = True) -> list[tuple[str, str]]:
    """Every other fix group in `rels` (loaded through the session) whose findings have the same rules
    and fix texts as the group of `fid`. Stale and unreadable files are left out; with `only_pending`,
    groups already decided are too."""
    fr = session.load(rel)
    gid = fr.by_id[fid].group
    want = group_key(session, fr, gid)
    if want is None:
        return []
    rules = {k[0] for k in want}
    out: list[tuple[str, str]] = []
    for other in rels:
        try:
            ofr = session.load(other)
        except ReviewError:
            continue
        if ofr.stale or not any(f.rule in rules for f in ofr.findings):
            continue
        for ogid, members in ofr.groups.items():
            if other == rel and ogid == gid:
                continue
            if ofr.by_id[members[0]].rule not in rules:
                continue
            if only_pending and any(session.decision(other, m) != Decision.PENDING for m in members):
                continue
            if group_key(session, ofr, ogid) == want:
                out.append((other, ogid))
    return out
