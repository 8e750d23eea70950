"""`U`: the other places of the finding's root cause (`Finding.uses`, merged by the engine: one finding
per root cause), listed in the finding panel; each entry puts the diff's cursor on its CUDA line."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..widgets.diff_view import DiffView
    from ..widgets.finding_panel import FindingPanel


class ReviewUses:
    """Mixed into ReviewScreen; uses its session, diff, panel and `say`."""

    if TYPE_CHECKING:
        from hipport.engine.review import ReviewSession

        session: ReviewSession
        rel: str | None
        current: str | None
        uses_open: str | None

        @property
        def diff(self) -> DiffView: ...
        @property
        def panel(self) -> FindingPanel: ...
        def say(self, message: str, severity: str = "information") -> None: ...
        def _need_finding(self) -> str | None: ...
        def refresh_panel(self) -> None: ...
        def _row_key(self, side: str, line: int) -> int | None: ...

    def action_toggle_uses(self) -> None:
        fid = self._need_finding()
        if fid is None or self.rel is None:
            return
        if self.uses_open == fid:
            self.close_uses()
            return
        f = self.session.load(self.rel).by_id[fid]
        if not f.uses:
            self.say("This finding has no other places of the same cause.")
            return
        self.uses_open = fid
        self.refresh_panel()
        uses = self.panel.uses_list
        uses.focus()
        self.panel.call_after_refresh(self.panel.scroll_to_widget, uses, animate=False)

    def close_uses(self) -> None:
        if self.uses_open is None:
            return
        self.uses_open = None
        self.refresh_panel()
        self.panel.scroll_home(animate=False)  # the finding's header (and its count) in view again
        self.diff.focus()

    def goto_use(self, line: int) -> None:
        """Put the diff's cursor on CUDA line `line` (unfolding it when folded)."""
        row = self._row_key("old", line)
        if row is None:
            self.say(f"Line {line} is not shown in this diff.", "warning")
            return
        self.diff.cursor = row
