"""The main screen: file list | side-by-side diff, findings panel, run pane, footer.

Every key goes through the engine's ReviewSession (decide, undo, write, commit ...); the screen then
repaints from the session, so what is shown is always what the session holds.

The screen owns what is shown (the file, the finding under review, folds) and every key's action. Parts
it composes, each with its own state and a typed interface (none shares the screen's `self`):
review_project.py (`ProjectRows`: the project view behind the file list and header), review_panel.py
(the finding panel's data), review_walk.py (j/k past the file's end), review_search.py (`FileSearch`),
review_editor.py (the editor, `DiskWatch`), review_output.py (`Output`: output mode, writing,
committing, writing before a build), review_across.py (`AcrossProject`: one decision for identical
findings, the overview), review_support.py (gutter marks, rule texts, branch). Output and AcrossProject
finish after a dialog or a worker and report with the messages of review_messages.py; the widgets
report with their own messages.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from hipport.engine.model import FixStyle
from hipport.engine.project.analysis import ProjectAnalysis, ProjectView
from hipport.engine.review import (
    Change,
    Decision,
    FileReview,
    NeedsReview,
    ReviewError,
    ReviewSession,
    is_report,
)

from ..keymap import bindings
from ..labels import plain_ids
from ..opening import first_file
from ..widgets.diff_view import DiffView, Mark
from ..widgets.file_list import FileList
from ..widgets.finding_panel import FindingPanel, PanelData, UsesList
from ..widgets.review_footer import ReviewFooter
from ..widgets.run_pane import RunPane
from ..widgets.search_bar import SearchBar
from .review_across import AcrossProject
from .review_editor import DiskWatch, run_editor
from .review_messages import Notice, ProjectChanged, ShowFinding
from .review_output import Output
from .review_panel import panel_content
from .review_project import Header, ProjectRows, header_line
from .review_search import FileSearch, SearchMove, Side
from .review_support import GutterMarks, branch_name, rule_help
from .review_walk import walk_files

# How often the header, file list and progress bar take in the background analysis' new summaries. Each
# tick repaints them: at 0.5 s the app took 12% of a core from the analysis workers on 5,000 files.
ANALYSIS_TICK_S = 1.0
STACK_BELOW = 120  # columns: below this the diff is stacked (CUDA line above HIP line)


class ReviewScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = bindings()  # type: ignore[assignment]
    AUTO_FOCUS = "DiffView"

    def __init__(self, session: ReviewSession) -> None:
        super().__init__()
        self.session = session
        self.rel: str | None = None
        self.current: str | None = None    # finding id under review
        self.expanded: set[int] = set()    # fold rows the person opened (their first old line)
        self.context = 3
        self.loading_rel: str | None = None
        self.last_message = ""
        self.painted_at: float | None = None  # monotonic time of the first painted diff (bench)
        self.branch: str | None = None         # cached: asking git on every key would cost ms
        self.diagnostic_index = -1             # into run_pane.diagnostics (the last build's)
        self.pending_line: int | None = None   # HIP line to put the cursor on once the file is shown
        self.pending_finding: str | None = None  # finding to show once its file is painted (overview)
        self.failed: str | None = None         # why the open file cannot be reviewed
        self._analysis_seen = -1               # summaries taken in from the background analysis
        self.stacked_choice: bool | None = None  # v: the person's layout; None: by width
        self.uses_open: str | None = None      # U: the finding whose list of uses is expanded
        # j/k/J/K crossing into another file: (step, undecided only, the file the walk started in), used
        # once that file is shown
        self.pending_nav: tuple[int, bool, str] | None = None
        self.shown_review: FileReview | None = None  # the engine FileReview the diff was last painted from
        self.file_list = FileList(id="files")
        self.diff = DiffView(id="diff")
        self.panel = FindingPanel(id="finding")
        self.run_pane = RunPane(id="run")
        self.project_rows = ProjectRows(session, self._analysis)
        self.search = FileSearch(session)
        self.disk = DiskWatch(session.root)
        self.output = Output(self, session, self.project_rows)
        self.across = AcrossProject(self, session, self._analysis)

    def _analysis(self) -> ProjectAnalysis | None:
        analysis: ProjectAnalysis | None = getattr(self.app, "analysis", None)  # PortApp's; a bare App has none
        return analysis

    # ---- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("", id="status-bar")
        with Horizontal(id="main"):
            yield self.file_list
            with Vertical(id="diff-pane"):
                yield Static("", id="diff-title")
                yield self.diff
        yield self.panel
        yield self.run_pane
        yield SearchBar(id="search")
        yield ReviewFooter()

    def on_mount(self) -> None:
        self.file_list.border_title = "Files"
        first = getattr(self.app, "first_file", None) or first_file(self.session)
        self.refresh_files()
        if first is not None:
            self.open_file(first)
        else:
            self.panel.show(None, "No CUDA, C++ or Python files in this project.")
        self.refresh_status()
        self._analysis_timer = self.set_interval(ANALYSIS_TICK_S, self._analysis_tick)
        self.set_interval(2.0, self.watch_disk)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # search keys exist only while a search is active: otherwise n is reject and escape is free
        if action in ("search_next", "search_prev", "end_search"):
            return self.search.query is not None
        return True

    def on_resize(self, event: events.Resize) -> None:
        self.apply_width(event.size.width)

    def apply_width(self, width: int) -> None:
        """Stacked diff and a short footer in narrow terminals."""
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

    # ---- opening files -----------------------------------------------------------------------
    def open_file(self, rel: str) -> None:
        if rel == self.rel and self.loading_rel is None and self.session.is_loaded(rel):
            return
        self.rel = rel
        self.current = None
        self.expanded = set()
        self.failed = None
        if self.session.is_loaded(rel):
            self.show_file(rel)
        else:
            self.loading_rel = rel
            self.query_one("#diff-title", Static).update(f"{rel}: translating and analysing …")
            self.load_file(rel)
        self.refresh_files()

    @work(exclusive=True, group="load", exit_on_error=False)
    async def load_file(self, rel: str) -> None:
        try:
            await asyncio.to_thread(self.session.load, rel)
        except ReviewError as e:
            if self.rel == rel:
                self.loading_rel = None
                self.failed = str(e)
                self.diff.set_rows([], language="text")
                self.diff.set_marks({}, None)
                self.query_one("#diff-title", Static).update(f"✗ {rel}: cannot be reviewed")
                self.panel.show(None, str(e))
                self.project_rows.touch(rel)
                self.refresh_files()
            return
        if self.rel == rel:
            self.loading_rel = None
            self.show_file(rel)

    def show_file(self, rel: str) -> None:
        fr = self.session.load(rel)
        self.loading_rel = None
        nav, self.pending_nav = self.pending_nav, None
        if nav is not None:  # j/k came here from another file: their first (or, going back, last) stop
            self.current = self.session.next_item(rel, None, nav[0], nav[1])
        else:  # the first undecided finding or report, in the order of the text
            self.current = self.session.next_item(rel, None, 1, True) or (fr.marked[0].id if fr.marked else None)
        if self.pending_finding is not None and (self.pending_finding in fr.by_id
                                                 or self.pending_finding in fr.report_by_id):
            self.current, self.pending_finding = self.pending_finding, None
        self.repaint(keep_cursor=False)
        self.diff.show_finding(self.current)
        self._goto_pending_line()
        self._apply_search(self.search.arrive(rel, lambda: self._match_rows(rel)))
        self.disk.remember(rel)
        if self.painted_at is None:
            self.painted_at = time.monotonic()
        if nav is not None and self.current is None:
            # the walk chose this file before it was analysed, and it has nothing to stop at: on to the next
            self._walk_files(nav[0], nav[1], nav[2])

    # ---- repainting from the session ----------------------------------------------------------
    def repaint(self, keep_cursor: bool = True) -> None:
        rel = self.rel
        if rel is None or self.loading_rel is not None or self.failed is not None:
            return
        fr = self.session.load(rel)
        self.shown_review = fr  # the load the diff shows (a new one replaces it: reload_if_dropped)
        rows = self.session.rows(rel, self.context, frozenset(self.expanded))
        self.diff.set_rows(rows, language=fr.source.language.value, keep_cursor=keep_cursor)
        self.diff.set_marks(self.marks(), self.current)
        self.project_rows.touch(rel)
        view = self.project_rows.view()  # the title, list and status from the same rows
        entry = next((e for e in view.rows if e.rel == rel), None)
        out = entry.output if entry is not None and entry.output else rel
        stale = "   ~ STALE: changed on disk since review; saved decisions are NOT applied (press ! to re-review)"
        held = self.session.held(rel)
        held_note = f"   ! {len(held)} fix group(s) held back (not applied): see the finding" if held else ""
        self.query_one("#diff-title", Static).update(
            f"CUDA {rel}  │  HIP {out}  ({self.session.config.output_mode})" + (stale if fr.stale else held_note)
        )
        self.refresh_panel()
        self.refresh_files(view)
        self.refresh_status(view)

    def marks(self) -> Mapping[str, Mark]:
        rel = self.rel
        assert rel is not None
        fr = self.session.load(rel)
        stale = self.session.stale_decisions(rel) if fr.stale else None
        return GutterMarks(self.session, rel, fr.by_id, stale, self.session.held(rel), fr.report_by_id)

    def refresh_marks(self) -> None:
        if self.rel is not None and self.loading_rel is None and self.failed is None:
            self.diff.set_marks(self.marks(), self.current)

    def refresh_panel(self) -> None:
        rel = self.rel
        if rel is None or self.loading_rel is not None or self.failed is not None:
            return
        if self.uses_open is not None and self.uses_open != self.current:
            self.uses_open = None  # the list belongs to the finding it was opened on
        content = panel_content(self.session, rel, self.current, self.uses_open is not None)
        if isinstance(content, str):
            self.panel.show(None, content)
            return
        if not isinstance(content, PanelData):
            self.panel.show_report(content)
            return
        self.panel.show(content)
        if not self.panel.uses_open and self.panel.uses_list.has_focus:
            self.diff.focus()  # the list closed under the person's focus

    def refresh_files(self, view: ProjectView | None = None) -> None:
        self.project_rows.show_in(self.file_list, self.rel, view if view is not None else self.project_rows.view())

    def refresh_status(self, view: ProjectView | None = None) -> None:
        if view is None:
            view = self.project_rows.view()
        if self.branch is None:
            self.branch = branch_name(self.session.root)
        row = self.project_rows.row(self.rel) if self.rel is not None else None
        if row is None and self.rel is not None:
            row = next((e for e in view.rows if e.rel == self.rel), None)
        header = Header(row, self.last_message, self.branch, getattr(self.app, "root_note", ""))
        # one line, fixed height: no re-layout
        self.query_one("#status-bar", Static).update(header_line(self.session, view, header), layout=False)

    def say(self, message: str, severity: str = "information") -> None:
        message = plain_ids(message)
        self.last_message = message
        self.refresh_status()
        self.notify(message, severity=severity, timeout=4)  # type: ignore[arg-type]

    # ---- the background analysis ----------------------------------------------------------------
    def _analysis_tick(self) -> None:
        """While the project is analysed in the background: progress, file states and counts."""
        analysis = self._analysis()
        if analysis is None:
            return
        self.reload_if_dropped()
        seen = max(self._analysis_seen, 0)
        new = analysis.arrived_since(seen)
        if not new and not (analysis.finished or analysis.error):
            return
        self._analysis_seen = seen + len(new)
        for rel in new:  # only the rows whose summaries came in since the last tick
            self.project_rows.touch(rel)
        view = self.project_rows.view()
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

    # ---- events from widgets and controllers ---------------------------------------------------
    @on(FileList.FileChosen)
    def _file_chosen(self, event: FileList.FileChosen) -> None:
        self.open_file(event.rel)
        self.diff.focus()

    @on(FileList.Leave)
    def _leave_file_list(self, event: FileList.Leave) -> None:
        self.diff.focus()

    @on(DiffView.CursorMoved)
    def _cursor_moved(self, event: DiffView.CursorMoved) -> None:
        rows = self.diff.rows
        if self.uses_open is not None and self.uses_open == self.current:
            return  # visiting the uses of the open finding: the panel stays on it
        if 0 <= event.row < len(rows):
            ids = rows[event.row].finding_ids
            if ids and ids[0] != self.current:
                self.current = ids[0]
                self.diff.set_marks(self.diff.marks, self.current)
                self.refresh_panel()

    @on(FindingPanel.UseChosen)
    def _use_chosen(self, event: FindingPanel.UseChosen) -> None:
        self.goto_use(event.line)

    @on(UsesList.Closed)
    def _uses_closed(self, event: UsesList.Closed) -> None:
        self.close_uses()

    @on(Notice)
    def _notice(self, event: Notice) -> None:
        if event.toast:
            self.say(event.text, event.severity)
        else:
            self.last_message = plain_ids(event.text)
            self.refresh_status()

    @on(ProjectChanged)
    def _project_changed(self, event: ProjectChanged) -> None:
        self.project_rows.invalidate()
        if event.branch is not None:
            self.branch = event.branch
        self.repaint()

    @on(ShowFinding)
    def _show_finding(self, event: ShowFinding) -> None:
        self.pending_finding = event.finding
        if event.rel == self.rel:
            self.current = event.finding
            self.repaint()
            self.diff.show_finding(event.finding)
        else:
            self.open_file(event.rel)

    # ---- deciding ----------------------------------------------------------------------------
    def _ready(self) -> bool:
        if self.rel is None or self.loading_rel is not None:
            self.say("Still loading this file.", "warning")
            return False
        if self.failed is not None:
            self.say(self.failed, "error")
            return False
        return True

    def _need_finding(self) -> str | None:
        if not self._ready():
            return None
        if self.current is None:
            self.say("No finding here: move to one with j/k.", "warning")
            return None
        if is_report(self.current):
            self.say("A translation report: nothing to decide; port it by hand (e opens the file here). "
                     "j/k go on.", "warning")
            return None
        return self.current

    def _decide(self, decision: Decision, only: bool = False, deliberate: bool = False) -> None:
        fid = self._need_finding()
        if fid is None or self.rel is None:
            return
        rel = self.rel
        try:
            if only:
                change = self.session.decide_one(rel, fid, decision, review_confirmed=deliberate)
            else:
                change = self.session.decide(rel, fid, decision, review_confirmed=deliberate)
        except NeedsReview:  # the session's rule; the app names its key for the confirmation
            why = self.session.load(rel).review_reason(fid)
            self.say(f"This fix needs review ({why}). Read it, then press Y to accept it.", "warning")
            return
        except ReviewError as e:
            self.say(str(e), "error")
            return
        self.last_message = plain_ids(change.message)
        nxt = self.session.next_finding(rel, fid, 1, True, wrap=True)
        if nxt is not None:
            self.current = nxt
        self.repaint()
        if nxt is not None:
            self.diff.show_finding(nxt)
        else:
            self.say(f"{change.message}. Every finding of {rel} is decided: w writes it.")

    def action_accept(self) -> None:
        self._decide(Decision.ACCEPTED)

    def action_reject(self) -> None:
        self._decide(Decision.REJECTED)

    def action_accept_one(self) -> None:
        self._decide(Decision.ACCEPTED, only=True)

    def action_accept_review(self) -> None:
        self._decide(Decision.ACCEPTED, deliberate=True)

    def _decide_rest(self, decision: Decision) -> None:
        if not self._ready() or self.rel is None:
            return
        rel = self.rel

        def refused_for_review() -> None:  # the session refused before changing anything: name the keys
            fr = self.session.load(rel)
            review = [f for f in fr.findings if self.session.decision(rel, f.id) == Decision.PENDING
                      and fr.review_reason(f.id) is not None]
            self.say(f"{len(review)} pending finding(s) of {rel} have REVIEW fixes: decide those one by "
                     f"one (Y accepts one after reading it), then A accepts the rest.", "warning")

        self._change(lambda: self.session.decide_rest(rel, decision), refused_for_review)

    def action_accept_rest(self) -> None:
        self._decide_rest(Decision.ACCEPTED)

    def action_reject_rest(self) -> None:
        self._decide_rest(Decision.REJECTED)

    def _after_history(self, change: Change | None, empty: str) -> None:
        if change is None:
            self.say(empty, "warning")
            return
        self.last_message = plain_ids(change.message)
        self.project_rows.invalidate()  # an undone step may span files (one decision for identical findings)
        if change.path != self.rel:
            self.rel = change.path
            self.expanded = set()
            self.session.load(change.path)
        if change.finding_ids:
            self.current = change.finding_ids[0]
        self.repaint()
        self.diff.show_finding(self.current)

    def action_undo(self) -> None:
        self._after_history(self.session.undo(), "Nothing to undo.")

    def action_redo(self) -> None:
        self._after_history(self.session.redo(), "Nothing to redo.")

    def _other_style(self, style: FixStyle) -> FixStyle:
        return FixStyle.PORTABLE if style == FixStyle.WAVE64 else FixStyle.WAVE64

    def action_switch_style(self) -> None:
        fid = self._need_finding()
        if fid is None or self.rel is None:
            return
        rel, new = self.rel, self._other_style(self.session.style(self.rel, fid))
        self._change(lambda: self.session.set_style(rel, new, fid))

    def action_switch_style_file(self) -> None:
        if not self._ready() or self.rel is None:
            return
        basis = self.session.style(self.rel, self.current) if self.current else self.session.config.fix_style
        rel, new = self.rel, self._other_style(basis)
        self._change(lambda: self.session.set_style(rel, new, None))

    def _change(self, work: Callable[[], Change], refused_for_review: Callable[[], None] | None = None) -> None:
        """A change of the session's decisions or styles: its message shown and the screen repainted, or why
        the session refused it (`refused_for_review` says it when the refusal is NeedsReview)."""
        try:
            change = work()
        except NeedsReview as e:
            if refused_for_review is None:
                self.say(str(e), "error")
            else:
                refused_for_review()
            return
        except ReviewError as e:
            self.say(str(e), "error")
            return
        self.last_message = plain_ids(change.message)
        self.repaint()

    # ---- moving ------------------------------------------------------------------------------
    def _move(self, step: int, undecided_only: bool) -> None:
        """j/k (undecided findings and reports) and J/K (any): through the file, then on through the whole
        project in the file list's order, around its end."""
        if not self._ready() or self.rel is None:
            return
        nxt = self.session.next_item(self.rel, self.current, step, undecided_only)
        if nxt is None:
            self._walk_files(step, undecided_only, self.rel)
            return
        self._go_to(nxt)

    def _go_to(self, item: str) -> None:
        self.current = item
        self.refresh_marks()
        self.diff.show_finding(item)
        self.refresh_panel()

    def _walk_files(self, step: int, undecided_only: bool, origin: str) -> None:
        """Open the next file (file list order, around the end) that has a finding or report to stop at;
        `origin`: the file the walk started in (it ends there)."""
        stop = walk_files(self.session, self.project_rows, self._file_order(), self.rel, self.current, step,
                          undecided_only, origin)
        if stop is None:
            return
        if stop.rel is not None and stop.rel == self.rel and stop.item is not None:
            self._go_to(stop.item)
        elif stop.rel is not None:
            if stop.item is not None:
                self.pending_finding = stop.item
            else:  # its first (or last) stop once it is shown
                self.pending_nav = (step, undecided_only, origin)
            self.open_file(stop.rel)
        if stop.message:
            self.say(stop.message, stop.severity)

    def _file_order(self) -> list[str]:
        """The files in the file list's order (as filtered), or every file before the list is filled."""
        return [it.rel for it in self.file_list.shown_items()] or [e.rel for e in self.session.files()]

    def action_next_undecided(self) -> None:
        self._move(1, True)

    def action_prev_undecided(self) -> None:
        self._move(-1, True)

    def action_next_any(self) -> None:
        self._move(1, False)

    def action_prev_any(self) -> None:
        self._move(-1, False)

    def _file_step(self, step: int) -> None:
        rels = self._file_order()
        if not rels:
            return
        i = rels.index(self.rel) if self.rel in rels else -1
        self.open_file(rels[(i + step) % len(rels)])

    def action_next_file(self) -> None:
        self._file_step(1)

    def action_prev_file(self) -> None:
        self._file_step(-1)

    def action_toggle_fold(self) -> None:
        if not self._ready():
            return
        rows = self.diff.rows
        row = rows[self.diff.cursor] if 0 <= self.diff.cursor < len(rows) else None
        if row is not None and row.kind == "fold" and row.old_no is not None:
            self.expanded.add(row.old_no)
        elif self.expanded:
            self.expanded = set()
        else:
            # unfold everything: every fold row's first line
            self.expanded = {r.old_no for r in rows if r.kind == "fold" and r.old_no is not None}
            if not self.expanded:
                self.say("Nothing folded in this file.")
                return
        self.repaint()

    def action_rule_help(self) -> None:
        fid = self._need_finding()
        if fid is None or self.rel is None:
            return
        rule_id = self.session.load(self.rel).by_id[fid].rule
        page = rule_help(rule_id)
        if not page:
            self.say(f"No help page for {rule_id}.", "warning")
            return
        from .rule_help import RuleHelpScreen

        self.app.push_screen(RuleHelpScreen(rule_id, page))

    def action_filter_files(self) -> None:
        self.query_one("#file-filter", Input).focus()

    # ---- finding the diff row of a line ---------------------------------------------------------
    def _diff_row(self, side: Side, line: int) -> int | None:
        """Index of the diff row showing this CUDA ("old") or HIP ("new") line (after unfolding it), or
        None."""
        for _ in range(2):
            row, fold = self.diff.row_of_line(side, line)
            if fold is None:
                return row
            self.expanded.add(fold)
            self.repaint()
        return None

    def _goto_pending_line(self) -> None:
        if self.pending_line is None or self.loading_rel is not None:
            return
        line, self.pending_line = self.pending_line, None
        row = self.diff.row_of_hip_line(line)
        if row is not None:
            self.diff.cursor = row

    # ---- U: the other places of the finding's root cause (listed in the finding panel) ----------
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
        row = self._diff_row("old", line)
        if row is None:
            self.say(f"Line {line} is not shown in this diff.", "warning")
            return
        self.diff.cursor = row

    # ---- e / E: the editor; edits made outside hipport --------------------------------------------
    def action_edit(self) -> None:
        self._edit(hip=False)

    def action_edit_hip(self) -> None:
        self._edit(hip=True)

    def _edit(self, hip: bool) -> None:
        if not self._ready() or self.rel is None:
            return
        rel = self.rel
        old_line, new_line = self.diff.cursor_lines()
        if hip:
            path = self.session.output_path(rel)
            if self.session.entry(rel).status.value not in ("written", "committed") or not path.exists():
                self.say(f"{rel}: the HIP file is not written yet (w writes it); e opens the CUDA file.", "warning")
                return
        else:
            path = self.session.root / rel
        root = self.session.root
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        outcome = run_editor(self.app, path, new_line if hip else old_line, shown)
        if not outcome.changed:
            self.say(outcome.message, outcome.severity)
        elif hip:
            self.say(f"{shown} edited in the editor: hipport will not overwrite it without asking (w asks).")
        else:
            self._disk_changed(rel, "in the editor")

    def watch_disk(self) -> None:
        """Timer: notice that the shown file changed on disk (another editor, git checkout ...)."""
        rel = self.rel
        if rel is None or self.loading_rel is not None or not self.session.is_loaded(rel):
            return
        if not self.disk.moved(rel):
            return
        if self.session.load(rel).stale or not self.session.changed_outside(rel):
            return  # unchanged, or hipport's own in-place write
        self._disk_changed(rel, "on disk (outside hipport)")

    def _disk_changed(self, rel: str, how: str) -> None:
        """The CUDA file changed: let the session notice (stale if it has decisions, else reloaded)."""
        self.session.rescan()
        self.project_rows.invalidate()
        self.disk.remember(rel)
        if self.session.is_loaded(rel) and self.session.load(rel).stale:
            self.repaint()
            self.say(f"{rel} changed {how}: its decisions are kept but NOT applied; press ! to re-review it.",
                     "warning")
            return
        self.say(f"{rel} changed {how}: translating and analysing it again.")
        if self.rel == rel:
            self.rel = None  # force open_file to load it again
        self.open_file(rel)

    # ---- / n N: search -------------------------------------------------------------------------
    def action_search(self) -> None:
        self.query_one(SearchBar).open()

    @on(SearchBar.Search)
    def _search(self, event: SearchBar.Search) -> None:
        self.diff.focus()
        if not event.query:
            self._end_search()
            return
        self._set_search(event.query)
        self._search_step(1, include_current=True)

    @on(SearchBar.Cancelled)
    def _search_cancelled(self, event: SearchBar.Cancelled) -> None:
        self.diff.focus()
        self._end_search()

    def _set_search(self, query: str | None) -> None:
        self.search.query = query
        self.query_one(ReviewFooter).searching = query is not None
        self.refresh_bindings()  # n/N/escape on or off (check_action), and the footer with them

    def _end_search(self) -> None:
        if self.search.query is not None:
            self._set_search(None)
            self.say("Search ended: n rejects again.")

    def action_end_search(self) -> None:
        self._end_search()

    def action_search_next(self) -> None:
        self._search_step(1)

    def action_search_prev(self) -> None:
        self._search_step(-1)

    def _match_rows(self, rel: str) -> list[int]:
        """The diff rows of the search's matches in the shown file (unfolding those folded)."""
        return sorted({i for side, n in self.search.matches(rel) if (i := self._diff_row(side, n)) is not None})

    def _search_step(self, step: int, include_current: bool = False) -> None:
        if not self.search.query or not self._ready() or self.rel is None:
            return
        rel = self.rel
        here = self.diff.cursor
        found: Sequence[int] = self._match_rows(rel)
        self._apply_search(self.search.step(rel, found, here, step, include_current, self._file_order()))

    def _apply_search(self, move: SearchMove | None) -> None:
        if move is None:
            return
        if move.row is not None:
            self.diff.cursor = move.row
        if move.other_file is not None:
            self.open_file(move.other_file)
        self.say(move.message, move.severity)

    # ---- I, O: across the project ------------------------------------------------------------------
    def action_apply_identical(self) -> None:
        fid = self._need_finding()
        if fid is None or self.rel is None:
            return
        self.across.apply_identical(self.rel, fid)

    def action_overview(self) -> None:
        self.across.overview()

    # ---- o w c !: output, writing, committing, a stale file ------------------------------------------
    def action_cycle_output(self) -> None:
        self.output.cycle_mode()

    def action_write(self) -> None:
        if not self._ready() or self.rel is None:
            return
        self.output.write(self.rel)

    def action_commit(self) -> None:
        self.output.commit()

    def action_resolve_stale(self) -> None:
        if not self._ready() or self.rel is None:
            return
        if not self.session.load(self.rel).stale:
            self.say(f"{self.rel} is not stale.")
            return
        try:
            change = self.session.resolve_stale(self.rel, keep=True)
            self.project_rows.invalidate()
        except ReviewError as e:  # e.g. the file became unreadable meanwhile
            self.say(str(e), "error")
            return
        self.last_message = plain_ids(change.message)
        self.show_file(self.rel)

    # ---- the run pane's keys (the pane owns detection, device, doctor and the run) -----------------
    def action_build_run(self) -> None:
        self.output.build_run(self.run_pane)

    def action_stop_run(self) -> None:
        if not self.run_pane.stop():
            self.say("Nothing is running.")

    def action_pick_platform(self) -> None:
        self.run_pane.pick_platform()

    def action_pick_device(self) -> None:
        self.run_pane.pick_device()

    def action_doctor(self) -> None:
        self.run_pane.doctor(self.session.root)

    def action_jump_diagnostic(self) -> None:
        diagnostics = self.run_pane.diagnostics
        if not diagnostics:
            self.say("No build diagnostics to jump to.")
            return
        self.diagnostic_index = (self.diagnostic_index + 1) % len(diagnostics)
        d = diagnostics[self.diagnostic_index]
        target = self._file_for_output(d.path)
        if target is None:
            self.say(f"{d.location()}: not a file under review", "warning")
            return
        if target != self.rel:
            self.open_file(target)
        self.pending_line = d.line
        self._goto_pending_line()
        self.say(f"{d.severity}: {d.location()}: {d.message}")

    def _file_for_output(self, path: str) -> str | None:
        name = Path(path).name
        for e in self.session.files():
            if e.output == path or Path(e.output).name == name or e.rel == path:
                return e.rel
        return None

    @on(RunPane.Notice)
    def _run_notice(self, event: RunPane.Notice) -> None:
        self.say(event.text, event.severity)

    @on(RunPane.Finished)
    def _run_finished(self, event: RunPane.Finished) -> None:
        self.diagnostic_index = -1
        if event.code is None:
            self.say("Run stopped.", "warning")
            return
        if self.run_pane.diagnostics:
            self.run_pane.write_line(f"{len(self.run_pane.diagnostics)} diagnostics: press x to jump to each")
        from hipport.engine.toolchain.execute import NO_SELF_CHECK  # loaded by the run already

        status = event.report.status if event.report is not None else ""
        if event.code != 0:
            self.say(f"Build/run failed (exit {event.code}){f': {status}' if status else ''}", "error")
        elif status == "built, not launched":  # nothing ran: say so, not "finished"
            self.say(f"Built in {event.seconds:.1f} s; nothing was run (no GPU of this platform here: see the "
                     "run pane)", "warning")
        elif status in ("passed", NO_SELF_CHECK):
            self.say(f"Build and run: {status} in {event.seconds:.1f} s")
        else:
            self.say(f"Build and run: {status or 'finished'} in {event.seconds:.1f} s", "error" if status else
                     "information")

    # ---- app-level ---------------------------------------------------------------------------
    def action_help(self) -> None:
        from .help import HelpScreen

        overrides = getattr(self.app, "keymap_overrides", {})
        self.app.push_screen(HelpScreen(overrides))

    async def action_cycle_theme(self) -> None:
        await self.app.run_action("cycle_theme")
        self.refresh_status()

    def action_quit_app(self) -> None:
        if self.output.cancel_commit():  # a hook that hangs must not keep the app (and a blank screen) alive
            self.output.quit_after_commit = True
            self.say("Stopping the commit (git and its hooks), then quitting…", "warning")
            return
        unwritten = self.session.unwritten()
        if not unwritten:
            self.app.exit(0)
            return
        from .confirm import ConfirmScreen

        names = ", ".join(unwritten[:4]) + (" …" if len(unwritten) > 4 else "")

        def answer(yes: bool | None) -> None:
            if yes:
                self.app.exit(0)

        self.app.push_screen(
            ConfirmScreen(f"{len(unwritten)} file(s) have decisions not written yet: {names}.\n"
                          "They are saved in .hipport/ and come back next time. Quit anyway?",
                          "Quit", "Stay"),
            answer,
        )

    @on(OptionList.OptionHighlighted)
    def _noop(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()

