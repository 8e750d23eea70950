"""`AcrossProject`: the review keys that reach every file of the project, each through a worker:
`I` applies the finding's decision to every identical finding (same rule, same fix text) after a count
and a confirmation (`u` undoes all of them at once); `O` shows the overview of every finding. They
report to the screen with messages (review_messages.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from hipport.engine.model import FixTier
from hipport.engine.project.analysis import ProjectAnalysis
from hipport.engine.review import ReviewSession
from hipport.engine.review.identical import identical_groups
from hipport.engine.review.state import Decision

from .review_messages import Notice, ProjectChanged, ShowFinding

if TYPE_CHECKING:
    from hipport.engine.project.findings import FindingRow


class AcrossProject:
    def __init__(self, screen: Screen[Any], session: ReviewSession,
                 analysis: Callable[[], ProjectAnalysis | None]) -> None:
        self.screen = screen            # where messages go; its app shows the dialogs and runs the workers
        self.session = session
        self.analysis = analysis        # the app's background analysis (None: there is none)

    def _say(self, text: str, severity: str = "information") -> None:
        self.screen.post_message(Notice(text, severity))

    def _candidates(self, reports: bool = False) -> list[str]:
        """Files that may hold findings (and, with `reports`, translation reports a person acts on): loaded
        ones, and those the background analysis found some in (or has not reached yet)."""
        analysis = self.analysis()
        out = []
        for e in self.session.files():
            s = analysis.summary(e.rel) if analysis is not None else None
            if self.session.is_loaded(e.rel) or s is None or s.findings or (reports and s.unsupported):
                out.append(e.rel)
        return out

    # ---- one decision for every identical finding ---------------------------------------------
    def apply_identical(self, rel: str, fid: str) -> None:
        decision = self.session.decision(rel, fid)
        if decision == Decision.PENDING:
            self._say("Decide this finding first (y/n); I then applies that decision to the identical ones.",
                      "warning")
            return
        self._say("Looking for identical findings in the project …")
        self.screen.run_worker(lambda: self._find_identical(rel, fid, decision), thread=True, exclusive=True,
                               group="identical", exit_on_error=False)

    def _find_identical(self, rel: str, fid: str, decision: Decision) -> None:
        """In a worker thread (it may translate and analyse other files)."""
        targets = identical_groups(self.session, rel, fid, self._candidates())
        review = 0
        if decision == Decision.ACCEPTED:  # a REVIEW-tier fix is accepted one by one, with Y
            kept = []
            for other, gid in targets:
                g = self.session.load(other).fix_groups.get(gid)
                if g is not None and g.tier == FixTier.REVIEW:
                    review += 1
                else:
                    kept.append((other, gid))
            targets = kept
        self.screen.app.call_from_thread(self._confirm_identical, rel, fid, decision, targets, review)

    def _confirm_identical(self, rel: str, fid: str, decision: Decision, targets: list[tuple[str, str]],
                           review: int) -> None:
        f = self.session.load(rel).by_id[fid]
        verb = "accept" if decision == Decision.ACCEPTED else "reject"
        note = f" ({review} REVIEW-tier ones left for Y)" if review else ""
        if not targets:
            self._say(f"No other pending {f.rule} finding with the same fix in the project{note}.")
            return
        files = len({r for r, _ in targets})
        from .confirm import ConfirmScreen  # dialogs load on first use: a faster start

        def answer(yes: bool | None) -> None:
            if not yes:
                self._say("Nothing changed.")
                return
            message = f"{verb}ed {len(targets)} identical {f.rule} fix group(s) in {files} file(s)"
            try:
                change = self.session.decide_groups(targets, decision, message)
            except Exception as e:  # ReviewError: one line
                self._say(str(e), "error")
                return
            self.screen.post_message(ProjectChanged())
            self._say(f"{change.message}{note}; u undoes them all at once")

        self.screen.app.push_screen(ConfirmScreen(
            f"{verb.capitalize()} {len(targets)} more {f.rule} fix group(s) identical to this one (same rule, "
            f"same fix text) in {files} file(s)?{note}\nu undoes them all at once.", verb.capitalize(), "Cancel"),
            answer)

    # ---- the overview of every finding -----------------------------------------------------------
    def overview(self) -> None:
        self._say("Collecting every finding of the project …")
        self.screen.run_worker(self._collect_overview, thread=True, exclusive=True, group="overview",
                               exit_on_error=False)

    def _collect_overview(self) -> None:
        """In a worker thread (it may translate and analyse files not opened yet)."""
        from hipport.engine.project.findings import finding_rows

        rows = finding_rows(self.session, self._candidates(reports=True))
        analysis = self.analysis()
        note = ""
        if analysis is not None and not analysis.finished:
            note = f"  (analysis still running: {analysis.done}/{analysis.total} files; opened files are complete)"
        self.screen.app.call_from_thread(self._show_overview, rows, note)

    def _show_overview(self, rows: list[FindingRow], note: str) -> None:
        from hipport.engine.project.findings import BY_HAND

        from .overview import OverviewScreen

        reports = sum(1 for r in rows if r.decision == BY_HAND)
        # the header no longer says "Collecting every finding …" once they are shown
        self.screen.post_message(Notice(
            f"Overview: {len(rows) - reports} finding(s), {reports} report(s) to port by hand", toast=False))

        def chosen(target: tuple[str, str] | None) -> None:
            if target is not None:
                self.screen.post_message(ShowFinding(*target))

        self.screen.app.push_screen(OverviewScreen(rows, note), chosen)
