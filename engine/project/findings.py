"""Every finding of a project in one list (the app's overview screen): by rule, then file and line,
with the person's decision and the fix tier; then the translation reports a person acts on, by kind.
Files are loaded through the session (cached)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..model import FixTier
from ..review.types import ReviewError

BY_HAND = "by hand"  # a report's "decision": a person ports it


@dataclass(frozen=True)
class FindingRow:
    rel: str
    finding_id: str
    rule: str
    severity: str
    line: int
    decision: str   # "pending" | "accepted" | "rejected" | "stale" | BY_HAND (a translation report)
    tier: str       # FixTier value
    message: str

    def text(self) -> str:
        """What a filter matches against."""
        return f"{self.rule} {self.rel}:{self.line} {self.severity} {self.decision} {self.tier} {self.message}"


def finding_rows(session: Any, rels: Iterable[str]) -> list[FindingRow]:
    rows: list[FindingRow] = []
    for rel in rels:
        try:
            fr = session.load(rel)
        except ReviewError:
            continue
        stale = session.stale_decisions(rel) if fr.stale else {}
        for f in fr.findings:
            g = fr.fix_groups.get(f.group)
            decision = "stale" if f.id in stale else str(session.decision(rel, f.id).value)
            rows.append(FindingRow(rel, f.id, f.rule, str(f.severity.value), f.line, decision,
                                   str((g.tier if g is not None else FixTier.SAFE).value), f.message))
        for r in fr.reports:  # what the translation left to a person: listed by kind, nothing to decide
            rows.append(FindingRow(rel, r.id, r.kind.value, "report", r.line, BY_HAND, "", r.message))
    rows.sort(key=lambda r: (r.rule, r.rel, r.line, r.finding_id))
    return rows


def matches(row: FindingRow, query: str) -> bool:
    """Every word of the query appears (case-insensitive) in the row."""
    hay = row.text().lower()
    return all(w in hay for w in query.lower().split())
