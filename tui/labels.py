"""The one place that maps engine states to what the app shows: symbols (readable without colour),
labels and colour names for file states, decisions, severities and fix tiers."""

from __future__ import annotations

import re

from hipport.engine.model import FixTier, ReportKind, Severity
from hipport.engine.project.analysis import ProjectState
from hipport.engine.review import Decision

# file list: one cell each, so the state reads without colour
STATE_SYMBOL: dict[ProjectState, str] = {
    ProjectState.NOT_ANALYSED: "…",
    ProjectState.NOTHING: " ",
    ProjectState.TRANSLATED: "·",
    ProjectState.FINDINGS: "!",
    ProjectState.UNSUPPORTED: "?",
    ProjectState.REVIEWED: "✓",
    ProjectState.WRITTEN: "✎",
    ProjectState.COMMITTED: "●",
    ProjectState.STALE: "~",
    ProjectState.ERROR: "✗",
}
# theme colour ($text-<name>) of each state
STATE_COLOUR: dict[ProjectState, str] = {
    ProjectState.FINDINGS: "warning",
    ProjectState.UNSUPPORTED: "warning",
    ProjectState.STALE: "error",
    ProjectState.ERROR: "error",
    ProjectState.REVIEWED: "success",
    ProjectState.WRITTEN: "success",
    ProjectState.COMMITTED: "primary",
}

# severity letter in the gutter and the panel; gutter component class; panel colour
SEVERITY_SYMBOL: dict[str, str] = {Severity.WRONG_RESULT: "W", Severity.COMPILE_ERROR: "C",
                                   Severity.PERFORMANCE: "P"}
SEVERITY_GUTTER_CLASS: dict[str, str] = {Severity.WRONG_RESULT: "diff--sev-wrong",
                                         Severity.COMPILE_ERROR: "diff--sev-compile",
                                         Severity.PERFORMANCE: "diff--sev-perf"}
SEVERITY_COLOUR: dict[str, str] = {Severity.WRONG_RESULT: "error", Severity.COMPILE_ERROR: "warning",
                                   Severity.PERFORMANCE: "secondary"}

# translation reports a person acts on (engine model.PERSON_KINDS): the gutter's letter, a word, the
# colour. A report has nothing to decide: its second gutter cell is REPORT_MARK
REPORT_SYMBOL: dict[str, str] = {ReportKind.UNSUPPORTED: "U", ReportKind.NEEDS_NEWER_ROCM: "R",
                                 ReportKind.MANUAL: "M", ReportKind.UNKNOWN: "X"}
REPORT_WORD: dict[str, str] = {ReportKind.UNSUPPORTED: "unsupported: no HIP equivalent",
                               ReportKind.NEEDS_NEWER_ROCM: "needs a newer ROCm than the target",
                               ReportKind.MANUAL: "manual: needs a person",
                               ReportKind.UNKNOWN: "unknown: looks like CUDA, in no table"}
REPORT_MARK = ("·", "diff--report", "to port by hand")

# decisions: (gutter symbol, gutter component class, word)
DECISION_MARK: dict[Decision, tuple[str, str, str]] = {
    Decision.PENDING: ("?", "diff--undecided", "undecided"),
    Decision.ACCEPTED: ("✓", "diff--accepted", "accepted"),
    Decision.REJECTED: ("✗", "diff--rejected", "rejected"),
}
STALE_MARK = ("~", "diff--stale", "stale")
HELD_MARK = ("!", "diff--stale", "accepted but NOT applied")  # accepted, its group held back


def decision_word(decision: Decision) -> str:
    return DECISION_MARK[decision][2]


def decision_symbol(word: str) -> str:
    """The symbol of a decision word as the panel shows it (also 'stale', 'accepted but ...')."""
    if word.startswith(HELD_MARK[2].split(" but")[0] + " but"):
        return HELD_MARK[0]
    if word == STALE_MARK[2]:
        return STALE_MARK[0]
    for symbol, _cls, w in DECISION_MARK.values():
        if w == word:
            return symbol
    return "?"


# fix tiers: a badge and its colour
TIER_BADGE: dict[FixTier, tuple[str, str]] = {
    FixTier.SAFE: ("safe", "success"),
    FixTier.REVIEW: ("REVIEW", "warning"),
}


_GROUP_ID = re.compile(r"\b(?:fix )?group group:([A-Z0-9]+-\d+):(\d+):\d+")
_GROUP_ID_BARE = re.compile(r"\bgroup:([A-Z0-9]+-\d+):(\d+):\d+")
_FINDING_ID = re.compile(r"\b([A-Z][A-Z0-9]*-\d+):(\d+):\d+(?:#\d+)?")


def plain_ids(message: str) -> str:
    """A message for a person: internal ids (`group:W64-07:189:30`, `W64-01:13:30`) said in words."""
    message = _GROUP_ID.sub(r"the \1 fix group at line \2", message)
    message = _GROUP_ID_BARE.sub(r"the \1 fix group at line \2", message)
    return _FINDING_ID.sub(r"\1 at line \2", message)
