"""The main screen: file list | side-by-side diff, findings panel, run pane, footer.

Every key goes through the engine's ReviewSession (decide, undo, write, commit ...); the screen then
repaints from the session, so what is shown is always what the session holds.

Parts live beside it: review_project.py (file list and header from the whole-project view, layout by
width), review_tools.py (editor, outside edits, search, one decision for identical findings, the
overview), review_output.py (output mode, writing, committing, the run pane's keys),
review_support.py (gutter marks, rule texts, branch). This module keeps the layout, opening/painting
a file, deciding, moving, and the Textual @on handlers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from hipport.engine.model import FixStyle, FixTier
from hipport.engine.project_analysis import FileView, ProjectState
from hipport.engine.review import Decision, ReviewError, ReviewSession, is_report

from ..keymap import bindings
from ..labels import (
    HELD_MARK,
    REPORT_SYMBOL,
    REPORT_WORD,
    STALE_MARK,
    decision_word,
    plain_ids,
)
from ..opening import first_file
from ..widgets.diff_view import DiffView, Mark
from ..widgets.file_list import FileList
from ..widgets.finding_panel import FindingPanel, PanelData, ReportData, UsesList, line_text
from ..widgets.review_footer import ReviewFooter
from ..widgets.run_pane import RunPane
from ..widgets.search_bar import SearchBar
from .review_output import ReviewOutput
from .review_project import ProjectPanes
from .review_support import GutterMarks, rule_help, rule_text
from .review_tools import ReviewTools
from .review_uses import ReviewUses

# How often the header, file list and progress bar take in the background analysis' new summaries. Each
# tick repaints them: at 0.5 s the app took 12% of a core from the analysis workers on 5,000 files.
ANALYSIS_TICK_S = 1.0


class ReviewScreen(ReviewUses, ReviewTools, ReviewOutput, ProjectPanes, Screen[None]):
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
        self.failed: str | None = None         # why the open file cannot be reviewed
        self._analysis_seen = -1               # summaries taken in from the background analysis
        self._rows: dict[str, FileView] = {}   # the project view's rows (see project())
        self._dirty_rows: set[str] = set()     # rows changed since the file list last showed them
        self._items_built = False              # the file list shows every row of self._rows
        self.stacked_choice: bool | None = None  # v: the person's layout; None: by width
        self.uses_open: str | None = None      # U: the finding whose list of uses is expanded
        # j/k/J/K crossing into another file: (step, undecided only, the file the walk started in), used
        # once that file is shown
        self.pending_nav: tuple[int, bool, str] | None = None
        self.shown_review: Any = None  # the engine FileReview the diff was last painted from

    # ---- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("", id="status-bar")
        with Horizontal(id="main"):
            yield FileList(id="files")
            with Vertical(id="diff-pane"):
                yield Static("", id="diff-title")
                yield DiffView(id="diff")
        yield FindingPanel(id="finding")
        yield RunPane(id="run")
        yield SearchBar(id="search")
        yield ReviewFooter()

    @property
    def diff(self) -> DiffView:
        return self.query_one("#diff", DiffView)

    @property
    def file_list(self) -> FileList:
        return self.query_one("#files", FileList)

    @property
    def panel(self) -> FindingPanel:
        return self.query_one("#finding", FindingPanel)

    @property
    def run_pane(self) -> RunPane:
        return self.query_one("#run", RunPane)

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
            return self.search_query is not None
        return True

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
                self.touch_row(rel)
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
        self.goto_pending_search()
        self._disk_seen = self._stat(rel)
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
        self.touch_row(rel)
        view = self.project()  # the title, list and status from the same rows
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
        fr = self.session.load(rel)
        if self.uses_open is not None and self.uses_open != self.current:
            self.uses_open = None  # the list belongs to the finding it was opened on
        report = fr.report_by_id.get(self.current) if self.current is not None else None
        if report is not None:
            reports = [r.id for r in fr.reports]
            self.panel.show_report(ReportData(
                report, REPORT_SYMBOL.get(report.kind, "?"), REPORT_WORD.get(report.kind, report.kind.value),
                f"{reports.index(report.id) + 1}/{len(reports)}", line_text(fr.source.text, report.line)))
            return
        if self.current is None or self.current not in fr.by_id:
            n = len(fr.translation.edits)
            k = len(fr.reports)
            to_hand = f" {k} report{'s' if k != 1 else ''} to port by hand (j/k reach them)." if k else ""
            self.panel.show(None, f"No warp findings in {rel}. {n} translation edit{'s' if n != 1 else ''}."
                            + to_hand if not fr.findings else "Move to a finding with j/k.")
            return
        f = fr.by_id[self.current]
        style = self.session.style(rel, f.id)
        fix = f.fix(style)
        title, explanation = rule_text(f.rule)
        if fr.stale:
            decision = STALE_MARK[2] if f.id in self.session.stale_decisions(rel) else decision_word(Decision.PENDING)
        else:
            decision = decision_word(self.session.decision(rel, f.id))
            held = self.session.held(rel).get(f.group)
            if held and self.session.decision(rel, f.id) == Decision.ACCEPTED:
                decision = f"{HELD_MARK[2]}: {held}"
        ids = [x.id for x in fr.findings]
        group = fr.fix_groups.get(f.group)
        tier = group.tier if group is not None else FixTier.SAFE
        tier_reason = (group.tier_reason if group is not None else "") or (
            "the analysis did not understand every use of the value" if tier == FixTier.REVIEW else "")
        # the whole group's edits (every member's fix + the group's shared edits): a group changes together,
        # so its preview shows every edit, not only this finding's half
        group_edits: list[Any] = []
        for m in fr.group_of(f.id):
            mf = fr.by_id[m].fix(style)
            if mf is not None:
                group_edits.extend(mf.edits)
        if group is not None:
            group_edits.extend(e for sf in group.shared if sf.style == style for e in sf.edits)
        self.panel.show(PanelData(
            finding=f,
            rule_title=title,
            explanation=explanation,
            decision=decision,
            style=style.value,
            group_size=len(fr.group_of(f.id)),
            source_text=fr.source.text,
            fix_edits=fix.edits if fix else (),
            fix_summary=fix.summary if fix else "",
            position=f"{ids.index(f.id) + 1}/{len(ids)}",
            tier=tier.value,
            tier_reason=tier_reason,
            group_edits=group_edits,
            uses_open=self.uses_open == f.id,
        ))
        if not self.panel.uses_open and self.panel.uses_list.has_focus:
            self.diff.focus()  # the list closed under the person's focus

    def say(self, message: str, severity: str = "information") -> None:
        message = plain_ids(message)
        self.last_message = message
        self.refresh_status()
        self.notify(message, severity=severity, timeout=4)  # type: ignore[arg-type]

    # ---- events from widgets -----------------------------------------------------------------
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

    def _review_tier(self, rel: str, fid: str) -> str | None:
        """The tier reason when the finding's fix group is a REVIEW fix (None for a safe one)."""
        fr = self.session.load(rel)
        g = fr.fix_groups.get(fr.by_id[fid].group)
        if g is None or g.tier != FixTier.REVIEW:
            return None
        return g.tier_reason or "the analysis did not understand every use of the value"

    def _decide(self, decision: Decision, only: bool = False, deliberate: bool = False) -> None:
        fid = self._need_finding()
        if fid is None or self.rel is None:
            return
        rel = self.rel
        if decision == Decision.ACCEPTED and not deliberate:
            why = self._review_tier(rel, fid)
            if why is not None:
                self.say(f"This fix needs review ({why}). Read it, then press Y to accept it.", "warning")
                return
        try:
            if only:
                change = self.session.decide_one(rel, fid, decision)
            else:
                change = self.session.decide(rel, fid, decision, review_confirmed=deliberate)
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
        if decision == Decision.ACCEPTED:
            fr = self.session.load(self.rel)
            review = [f for f in fr.findings if self.session.decision(self.rel, f.id) == Decision.PENDING
                      and self._review_tier(self.rel, f.id) is not None]
            if review:
                self.say(f"{len(review)} pending finding(s) of {self.rel} have REVIEW fixes: decide those one by "
                         f"one (Y accepts one after reading it), then A accepts the rest.", "warning")
                return
        try:
            change = self.session.decide_rest(self.rel, decision)
        except ReviewError as e:
            self.say(str(e), "error")
            return
        self.last_message = plain_ids(change.message)
        self.repaint()

    def action_accept_rest(self) -> None:
        self._decide_rest(Decision.ACCEPTED)

    def action_reject_rest(self) -> None:
        self._decide_rest(Decision.REJECTED)

    def _after_history(self, change: Any, empty: str) -> None:
        if change is None:
            self.say(empty, "warning")
            return
        self.last_message = plain_ids(change.message)
        self.invalidate_rows()  # an undone step may span files (one decision for identical findings)
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
        new = self._other_style(self.session.style(self.rel, fid))
        try:
            change = self.session.set_style(self.rel, new, fid)
        except ReviewError as e:
            self.say(str(e), "error")
            return
        self.last_message = plain_ids(change.message)
        self.repaint()

    def action_switch_style_file(self) -> None:
        if not self._ready() or self.rel is None:
            return
        basis = self.session.style(self.rel, self.current) if self.current else self.session.config.fix_style
        try:
            change = self.session.set_style(self.rel, self._other_style(basis), None)
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
        rel = self.rel
        what = ("undecided finding or report" if undecided_only else "finding or report")
        order = [it.rel for it in self.file_list.shown_items()] or [e.rel for e in self.session.files()]
        if not order:
            return
        here = order.index(rel) if rel in order else (-1 if step > 0 else len(order))
        for k in range(1, len(order) + 1):
            i = here + step * k
            wrapped = not 0 <= i < len(order)
            cand = order[i % len(order)]
            if cand == origin:  # around the whole project: only the file the walk started in is left
                first = self.session.next_item(cand, None, step, undecided_only) if self.session.is_loaded(cand) \
                    else None
                if first is None or (cand == self.rel and first == self.current):
                    self.say(f"No other {what} in the project.", "warning")
                elif cand == self.rel:
                    self._go_to(first)
                    self.say(f"{what.capitalize()}: back to the {'top' if step > 0 else 'end'} of {cand}, the "
                             "only file with one.")
                else:
                    self.pending_finding = first
                    self.open_file(cand)
                return
            if not self._may_stop_in(cand, undecided_only):
                continue
            if self.session.is_loaded(cand) and self.session.next_item(cand, None, step, undecided_only) is None:
                continue
            self.pending_nav = (step, undecided_only, origin)
            self.open_file(cand)
            around = " (around the end of the file list)" if wrapped else ""
            self.say(f"{'Next' if step > 0 else 'Previous'} {what}: in {cand}{around}")
            return

    def _may_stop_in(self, rel: str, undecided_only: bool) -> bool:
        """Whether the project view says the file has something j/k (or J/K) stop at; a file not analysed
        yet may."""
        row = self._rows.get(rel)
        if row is None or row.state is ProjectState.NOT_ANALYSED:
            return True
        if row.state is ProjectState.ERROR:
            return False
        open_findings = row.findings - row.decided if undecided_only else row.findings
        return open_findings > 0 or row.unsupported > 0

    def action_next_undecided(self) -> None:
        self._move(1, True)

    def action_prev_undecided(self) -> None:
        self._move(-1, True)

    def action_next_any(self) -> None:
        self._move(1, False)

    def action_prev_any(self) -> None:
        self._move(-1, False)

    def _file_step(self, step: int) -> None:
        rels = [it.rel for it in self.file_list.shown_items()] or [e.rel for e in self.session.files()]
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

    # ---- run pane events (@on handlers stay here: Textual collects them only on the Screen class) ----
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
        if self.cancel_commit():  # a hook that hangs must not keep the app (and a blank screen) alive
            self.quit_after_commit = True
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

