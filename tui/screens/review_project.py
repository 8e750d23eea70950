"""The review screen's whole-project parts: the file list and header from the project view (session
entries merged with the background analysis), updated row by row, and the layout by terminal width
(stacked diff and a short footer in narrow terminals). Mixed into ReviewScreen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.widgets import Static

from hipport.engine.project.analysis import FileView, ProjectView, file_view, project_view

from ..labels import STATE_COLOUR, STATE_SYMBOL
from ..widgets.file_list import FileItem
from ..widgets.review_footer import ReviewFooter
from .review_support import branch_name

if TYPE_CHECKING:
    from hipport.engine.review import ReviewSession

    from ..widgets.diff_view import DiffView
    from ..widgets.file_list import FileList

STACK_BELOW = 120  # columns: below this the diff is stacked (CUDA line above HIP line)


def file_item(row: FileView) -> FileItem:
    counts = f"{row.decided}/{row.findings}" if row.findings else ""
    if row.unsupported:
        counts += f" {row.unsupported}?"
    return FileItem(row.rel, row.state.value, STATE_SYMBOL[row.state], counts.strip(),
                    STATE_COLOUR.get(row.state, "muted"))


class ProjectPanes:
    if TYPE_CHECKING:
        session: ReviewSession
        rel: str | None
        app: Any
        branch: str | None
        last_message: str
        stacked_choice: bool | None
        _analysis_seen: int
        _analysis_timer: Any
        _rows: dict[str, FileView]
        _dirty_rows: set[str]
        _items_built: bool

        @property
        def diff(self) -> DiffView: ...
        @property
        def file_list(self) -> FileList: ...
        def say(self, message: str, severity: str = "information") -> None: ...
        def load_file(self, rel: str) -> Any: ...
        current: str | None
        loading_rel: str | None
        failed: str | None
        pending_finding: str | None
        shown_review: Any
        def repaint(self, keep_cursor: bool = True) -> None: ...
        def query_one(self, selector: Any, expect_type: Any = None) -> Any: ...

    def _analysis_tick(self) -> None:
        """While the project is analysed in the background: progress, file states and counts."""
        analysis = getattr(self.app, "analysis", None)
        if analysis is None:
            return
        self.reload_if_dropped()
        seen = max(self._analysis_seen, 0)
        new = analysis.arrived_since(seen)
        if not new and not (analysis.finished or analysis.error):
            return
        self._analysis_seen = seen + len(new)
        for rel in new:  # only the rows whose summaries came in since the last tick
            self.touch_row(rel)
        view = self.project()
        self.refresh_files(view)
        self.refresh_status(view)
        if analysis.finished or analysis.error:
            self._analysis_timer.stop()

    def reload_if_dropped(self) -> None:
        """The analysis learned the project's own CUDA-looking names after the shown file was translated
        (session.learn_project_names dropped it): translate it again in a worker, on the same finding."""
        rel = self.rel
        if rel is None or self.loading_rel is not None or self.failed is not None:
            return
        if self.session.is_loaded(rel):
            if self.session.load(rel) is not self.shown_review:  # translated again meanwhile: show that one
                self.repaint()
            return
        self.pending_finding = self.current
        self.loading_rel = rel
        self.load_file(rel)

    def project(self) -> ProjectView:
        """The project's rows and totals. Built in full once (and after invalidate_rows); after that
        single rows are updated (touch_row), so a key press does not walk 5,000 files."""
        analysis = getattr(self.app, "analysis", None)
        if not self._rows:
            full = project_view(self.session, analysis)
            self._rows = {r.rel: r for r in full.rows}
            self._items_built = False  # the file list is rebuilt from these rows
            return full
        return ProjectView.of(list(self._rows.values()), analysis.error if analysis is not None else None)

    def touch_row(self, rel: str) -> None:
        if not self._rows or rel not in self._rows:
            return
        analysis = getattr(self.app, "analysis", None)
        summary = analysis.summary(rel) if analysis is not None else None
        row = file_view(self.session, self.session.entry(rel), summary)
        if row != self._rows[rel]:
            self._rows[rel] = row
            self._dirty_rows.add(rel)

    def invalidate_rows(self) -> None:
        """Something may have changed many files (write, commit, output mode, rescan): rebuild."""
        self._rows = {}

    # ---- width: stacked diff and a short footer in narrow terminals ---------------------------
    def on_resize(self, event: events.Resize) -> None:
        self.apply_width(event.size.width)

    def apply_width(self, width: int) -> None:
        stacked = width < STACK_BELOW if self.stacked_choice is None else self.stacked_choice
        if stacked != self.diff.stacked:
            self.diff.set_layout(stacked=stacked)
        self.query_one(ReviewFooter).set_width(width)

    def action_toggle_layout(self) -> None:
        self.stacked_choice = not self.diff.stacked
        self.diff.set_layout(stacked=self.stacked_choice)
        self.say("Stacked layout: CUDA line above HIP line (v: side by side)" if self.stacked_choice
                 else "Side by side (v: stacked)")

    def action_toggle_wrap(self) -> None:
        self.diff.set_layout(wrap=not self.diff.wrap)
        self.say("Long lines wrap (W: scroll sideways instead)" if self.diff.wrap
                 else "Long lines end in … ; left/right scroll both columns (W: wrap)")

    def refresh_files(self, view: ProjectView | None = None) -> None:
        if view is None:
            view = self.project()
        dirty, self._dirty_rows = self._dirty_rows, set()
        if self._items_built and dirty is not None:
            # only the rows that changed since the last refresh (and the current-file marker)
            self.file_list.update_items({rel: file_item(self._rows[rel]) for rel in dirty if rel in self._rows},
                                        self.rel)
        else:
            self.file_list.set_items([file_item(e) for e in view.rows], self.rel)
            self._items_built = True
        self.file_list.set_progress(view.done, view.total, view.stopped)

    def refresh_status(self, view: ProjectView | None = None) -> None:
        if view is None:
            view = self.project()
        if self.branch is None:
            self.branch = branch_name(self.session.root)
        # counts first: a narrow terminal cuts the end of the line, and the counts are what changes
        parts: list[str] = []
        if view.final:
            parts.append(f"all {view.decided}/{view.findings} decided")
        elif view.stopped:
            parts.append(f"analysis stopped ({view.stopped}): {view.decided}/{view.findings}+ decided")
        else:
            parts.append(f"analysing… {view.done}/{view.total} files: {view.decided}/{view.findings}+ decided")
        row = self._rows.get(self.rel) if self.rel is not None else None
        if row is None and self.rel is not None:
            row = next((e for e in view.rows if e.rel == self.rel), None)
        if row is not None:
            parts.append(f"{row.rel} {row.decided}/{row.findings}")
        kinds = view.report_kinds()  # split by kind, as `hipport convert` and `scan` count them
        if kinds:
            parts.append(", ".join(f"{n} {kind}" for kind, n in kinds.items()))
        unwritten = len(self.session.unwritten())
        if unwritten:
            parts.append(f"{unwritten} unwritten")
        if self.last_message:
            parts.append(self.last_message)
        parts += [self.session.root.name, self.branch,
                  f"{self.session.config.fix_style.value} · {self.session.config.output_mode}"]
        note = getattr(self.app, "root_note", "")
        if note:
            parts.append(note)
        self.query_one("#status-bar", Static).update(" · ".join(parts), layout=False)  # one line, fixed height
