"""Helpers of the review screen that hold no screen state: the gutter marks of a file's findings,
rule texts from the engine's catalog, the current branch."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hipport.engine.review import Decision, ReviewSession

from ..labels import (
    DECISION_MARK,
    HELD_MARK,
    REPORT_MARK,
    REPORT_SYMBOL,
    SEVERITY_GUTTER_CLASS,
    SEVERITY_SYMBOL,
    STALE_MARK,
)
from ..widgets.diff_view import Mark


class GutterMarks(Mapping[str, Mark]):
    """The gutter mark of each finding, computed when a visible row asks (a 10,000-line file has
    thousands of findings; a key press must not look up every decision)."""

    def __init__(self, session: ReviewSession, rel: str, by_id: Mapping[str, Any],
                 stale: Mapping[str, Decision] | None, held: Mapping[str, str] | None = None,
                 reports: Mapping[str, Any] | None = None) -> None:
        self.session = session
        self.rel = rel
        self.by_id = by_id
        self.stale = stale
        self.held = held or {}
        self.reports = reports or {}  # report id -> engine ReportItem
        self._memo: dict[str, Mark] = {}

    def __getitem__(self, fid: str) -> Mark:
        mark = self._memo.get(fid)
        if mark is not None:
            return mark
        report = self.reports.get(fid)
        if report is not None:  # a translation report: its kind's letter, nothing to decide
            mark = Mark(REPORT_SYMBOL.get(report.kind, "?"), REPORT_MARK[1], REPORT_MARK[0], REPORT_MARK[1])
            self._memo[fid] = mark
            return mark
        f = self.by_id[fid]
        sev = str(f.severity.value)
        if self.stale is not None:
            decision, cls, _ = STALE_MARK if fid in self.stale else DECISION_MARK[Decision.PENDING]
        else:
            choice = self.session.decision(self.rel, fid)
            if choice == Decision.ACCEPTED and f.group in self.held:
                decision, cls, _ = HELD_MARK  # accepted, but its group is held back: not applied
            else:
                decision, cls, _ = DECISION_MARK[choice]
        mark = Mark(SEVERITY_SYMBOL.get(sev, "?"), SEVERITY_GUTTER_CLASS.get(sev, "diff--sev-perf"), decision, cls)
        self._memo[fid] = mark
        return mark

    def __iter__(self) -> Iterator[str]:
        yield from self.by_id
        yield from self.reports

    def __len__(self) -> int:
        return len(self.by_id) + len(self.reports)


def rule_text(rule_id: str) -> tuple[str, str]:
    """(title, explanation) of a warp rule from the engine's catalog; ("", "") for an unknown id."""
    from hipport.engine.warp.rules import RULES

    rule = RULES.get(rule_id)
    return (rule.title, rule.explanation) if rule is not None else ("", "")


def rule_help(rule_id: str) -> str:
    """The rule's help page (Markdown) from the engine's catalog; "" when there is none."""
    from hipport.engine.warp.rules import RULES

    rule = RULES.get(rule_id)
    return rule.help_markdown if rule is not None else ""


def branch_name(root: Path) -> str:
    """The current branch, "detached", or "no git" (not a repository, or git cannot read it)."""
    from hipport.engine.vcs import repo_state

    try:
        state = repo_state(root, files=False)
    except Exception:  # no git executable, an unreadable repository: the header says so, the app goes on
        return "no git"
    if state.branch:
        return state.branch
    return "detached" if state.detached else "no git"
