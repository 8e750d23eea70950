"""Review helpers of the main screen, kept apart from its layout and deciding code:

- `e` / `E`: open the CUDA file (or the written HIP file) in $VISUAL/$EDITOR at the cursor's line;
  an edit is noticed on return (the file is analysed again, or turns stale if it had decisions);
- outside edits are noticed while the app runs (a cheap stat of the shown file every 2 s), not only
  at `w`;
- `/`, `n`, `N`: search the shown file (CUDA and HIP sides), then the other files of the project;
- `I`: apply the finding's decision to every identical finding of the project (same rule, same fix
  text), after a count and a confirmation; `u` undoes all of them at once.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import SuspendNotSupported

from hipport.engine.model import FixTier
from hipport.engine.review.identical import identical_groups
from hipport.engine.review.state import Decision, sha256_file
from hipport.engine.search import line_matches, next_file_with

from ..widgets.search_bar import SearchBar

if TYPE_CHECKING:
    from hipport.engine.review import ReviewSession

    from ..widgets.diff_view import DiffView
    from ..widgets.file_list import FileList


def editor_argv(path: Path, line: int) -> list[str]:
    """$VISUAL, else $EDITOR, else vi; `+LINE` is understood by vi, vim, nvim, nano, emacs, micro, kak."""
    cmd = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return [*shlex.split(cmd), f"+{max(1, line)}", str(path)]


class ReviewTools:
    """Mixed into ReviewScreen; uses its session, diff, file list and `say`."""

    if TYPE_CHECKING:
        session: ReviewSession
        rel: str | None
        loading_rel: str | None
        expanded: set[int]
        app: Any

        @property
        def diff(self) -> DiffView: ...
        @property
        def file_list(self) -> FileList: ...
        def say(self, message: str, severity: str = "information") -> None: ...
        def _ready(self) -> bool: ...
        def repaint(self, keep_cursor: bool = True) -> None: ...
        def open_file(self, rel: str) -> None: ...
        def refresh_status(self, view: Any = None) -> None: ...
        last_message: str
        def query_one(self, selector: Any, expect_type: Any = None) -> Any: ...
        def refresh_bindings(self) -> None: ...
        def invalidate_rows(self) -> None: ...
        def _need_finding(self) -> str | None: ...
        current: str | None

    search_query: str | None = None
    pending_finding: str | None = None  # finding to show once its file is painted (overview)
    pending_goto: tuple[str, int] | None = None   # ("old"|"new", line) to show once the file is painted
    _disk_seen: tuple[str, int, int] | None = None  # (rel, mtime_ns, size) of the shown file

    # ---- the editor --------------------------------------------------------------------------
    def action_edit(self) -> None:
        self._edit(hip=False)

    def action_edit_hip(self) -> None:
        self._edit(hip=True)

    def _cursor_lines(self) -> tuple[int, int]:
        rows = self.diff.rows
        row = rows[self.diff.cursor] if 0 <= self.diff.cursor < len(rows) else None
        if row is None:
            return 1, 1
        return row.old_no or 1, row.new_no or row.old_no or 1

    def _edit(self, hip: bool) -> None:
        if not self._ready() or self.rel is None:
            return
        rel = self.rel
        old_line, new_line = self._cursor_lines()
        if hip:
            path = self.session.output_path(rel)
            if self.session.entry(rel).status.value not in ("written", "committed") or not path.exists():
                self.say(f"{rel}: the HIP file is not written yet (w writes it); e opens the CUDA file.", "warning")
                return
            line = new_line
        else:
            path = self.session.root / rel
            line = old_line
        before = sha256_file(path)
        argv = editor_argv(path, line)
        try:
            with self.app.suspend():
                proc = subprocess.run(argv, check=False)
        except SuspendNotSupported:
            self.say("This terminal cannot be handed to an editor.", "error")
            return
        except OSError as e:
            self.say(f"Cannot start the editor {argv[0]!r} ({e.strerror or e}); set $VISUAL or $EDITOR.", "error")
            return
        self.app.refresh()
        shown = path.relative_to(self.session.root) if path.is_relative_to(self.session.root) else path
        if sha256_file(path) == before:
            note = f" (the editor exited with {proc.returncode})" if proc.returncode else ""
            self.say(f"{shown}: not changed in the editor{note}.")
            return
        if hip:
            self.say(f"{shown} edited in the editor: hipport will not overwrite it without asking (w asks).")
            return
        self._disk_changed(rel, "in the editor")

    # ---- outside edits -----------------------------------------------------------------------
    def _stat(self, rel: str) -> tuple[str, int, int] | None:
        try:
            st = (self.session.root / rel).stat()
        except OSError:
            return None
        return rel, st.st_mtime_ns, st.st_size

    def watch_disk(self) -> None:
        """Timer: notice that the shown file changed on disk (another editor, git checkout ...)."""
        rel = self.rel
        if rel is None or self.loading_rel is not None or not self.session.is_loaded(rel):
            return
        now = self._stat(rel)
        seen, self._disk_seen = self._disk_seen, now
        if seen is None or now is None or seen[0] != rel or seen == now:
            return
        if self.session.load(rel).stale or not self.session.changed_outside(rel):
            return  # unchanged, or hipport's own in-place write
        self._disk_changed(rel, "on disk (outside hipport)")

    def _disk_changed(self, rel: str, how: str) -> None:
        """The CUDA file changed: let the session notice (stale if it has decisions, else reloaded)."""
        self.session.rescan()
        self.invalidate_rows()
        self._disk_seen = self._stat(rel)
        if self.session.is_loaded(rel) and self.session.load(rel).stale:
            self.repaint()
            self.say(f"{rel} changed {how}: its decisions are kept but NOT applied; press ! to re-review it.",
                     "warning")
            return
        self.say(f"{rel} changed {how}: translating and analysing it again.")
        if self.rel == rel:
            self.rel = None  # force open_file to load it again
        self.open_file(rel)

    # ---- search ------------------------------------------------------------------------------
    def action_search(self) -> None:
        self.query_one(SearchBar).open()

    # handlers by name (a plain mixin's @on decorators are not collected by Textual's metaclass)
    def on_search_bar_search(self, event: SearchBar.Search) -> None:
        self.diff.focus()
        query = event.query
        if not query:
            self._end_search()
            return
        self.search_query = query
        self.refresh_bindings()
        self._search_step(1, include_current=True)

    def on_search_bar_cancelled(self, event: SearchBar.Cancelled) -> None:
        self.diff.focus()
        self._end_search()

    def _end_search(self) -> None:
        if self.search_query is not None:
            self.search_query = None
            self.refresh_bindings()
            self.say("Search ended: n rejects again.")

    def action_end_search(self) -> None:
        self._end_search()

    def action_search_next(self) -> None:
        self._search_step(1)

    def action_search_prev(self) -> None:
        self._search_step(-1)

    def _matches(self, rel: str) -> list[tuple[str, int]]:
        """("old"|"new", line) of every match in the shown file: CUDA side, then HIP side."""
        query = self.search_query or ""
        fr = self.session.load(rel)
        hits = [("old", n) for n in line_matches(fr.source.text, query)]
        hits += [("new", n) for n in line_matches(self.session.result_text(rel), query)]
        return hits

    def _loaded_result(self, rel: str) -> str | None:
        """The HIP text of a file already translated (searching it costs no translation)."""
        if not self.session.is_loaded(rel):
            return None
        try:
            return self.session.result_text(rel)
        except Exception:  # a stale or failing file: its source is searched anyway
            return None

    def _row_key(self, side: str, line: int) -> int | None:
        """Index of the diff row showing this line (after unfolding it), or None."""
        for _ in range(2):
            for i, row in enumerate(self.diff.rows):
                n = row.old_no if side == "old" else row.new_no
                if n is None:
                    continue
                if row.kind == "fold":
                    if n <= line < n + row.hidden and row.old_no is not None:
                        self.expanded.add(row.old_no)
                        self.repaint()
                        break
                elif n == line:
                    return i
            else:
                return None
        return None

    def _search_step(self, step: int, include_current: bool = False) -> None:
        query = self.search_query
        if not query or not self._ready() or self.rel is None:
            return
        rel = self.rel
        here = self.diff.cursor
        found: list[int] = sorted({i for side, n in self._matches(rel)
                                   if (i := self._row_key(side, n)) is not None})
        if step > 0:
            nxt = next((i for i in found if i > here or (include_current and i == here)), None)
        else:
            nxt = next((i for i in reversed(found) if i < here), None)
        if nxt is not None:
            self.diff.cursor = nxt
            k = found.index(nxt) + 1
            self.say(f"/{query}: match {k}/{len(found)} in {rel} (n/N: next/previous, esc ends the search)")
            return
        rels = [it.rel for it in self.file_list.shown_items()] or [e.rel for e in self.session.files()]
        other = next_file_with(self.session.root, rels, rel, step, query, self._loaded_result)
        if other is None:
            if found:
                self.diff.cursor = found[0] if step > 0 else found[-1]
                self.say(f"/{query}: only in {rel}; wrapped around")
            else:
                self.say(f"/{query}: not found in any file", "warning")
            return
        self.pending_goto = ("search", step)
        self.open_file(other)
        self.say(f"/{query}: continuing in {other}")

    def goto_pending_search(self) -> None:
        """Called once a file is painted: put the cursor on the first (or last) match of the search."""
        pending, self.pending_goto = self.pending_goto, None
        if pending is None or self.rel is None or not self.search_query:
            return
        step = pending[1]
        found = sorted({i for side, n in self._matches(self.rel) if (i := self._row_key(side, n)) is not None})
        if found:
            self.diff.cursor = found[0] if step > 0 else found[-1]
            self.say(f"/{self.search_query}: match {1 if step > 0 else len(found)}/{len(found)} in {self.rel}")

    # ---- one decision for every identical finding ---------------------------------------------
    def action_apply_identical(self) -> None:
        fid = self._need_finding()
        if fid is None or self.rel is None:
            return
        decision = self.session.decision(self.rel, fid)
        if decision == Decision.PENDING:
            self.say("Decide this finding first (y/n); I then applies that decision to the identical ones.",
                     "warning")
            return
        self.say("Looking for identical findings in the project …")
        self._find_identical(self.rel, fid, decision)

    def _candidates(self, reports: bool = False) -> list[str]:
        """Files that may hold findings (and, with `reports`, translation reports a person acts on): loaded
        ones, and those the background analysis found some in (or has not reached yet)."""
        analysis = getattr(self.app, "analysis", None)
        out = []
        for e in self.session.files():
            s = analysis.summary(e.rel) if analysis is not None else None
            if self.session.is_loaded(e.rel) or s is None or s.findings or (reports and s.unsupported):
                out.append(e.rel)
        return out

    @work(thread=True, exclusive=True, group="identical", exit_on_error=False)
    def _find_identical(self, rel: str, fid: str, decision: Decision) -> None:
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
        self.app.call_from_thread(self._confirm_identical, rel, fid, decision, targets, review)

    def _confirm_identical(self, rel: str, fid: str, decision: Decision, targets: list[tuple[str, str]],
                           review: int) -> None:
        f = self.session.load(rel).by_id[fid]
        verb = "accept" if decision == Decision.ACCEPTED else "reject"
        note = f" ({review} REVIEW-tier ones left for Y)" if review else ""
        if not targets:
            self.say(f"No other pending {f.rule} finding with the same fix in the project{note}.")
            return
        files = len({r for r, _ in targets})
        from .confirm import ConfirmScreen

        def answer(yes: bool | None) -> None:
            if not yes:
                self.say("Nothing changed.")
                return
            message = f"{verb}ed {len(targets)} identical {f.rule} fix group(s) in {files} file(s)"
            try:
                change = self.session.decide_groups(targets, decision, message)
                self.invalidate_rows()
            except Exception as e:  # ReviewError: one line
                self.say(str(e), "error")
                return
            self.repaint()
            self.say(f"{change.message}{note}; u undoes them all at once")

        self.app.push_screen(ConfirmScreen(
            f"{verb.capitalize()} {len(targets)} more {f.rule} fix group(s) identical to this one (same rule, "
            f"same fix text) in {files} file(s)?{note}\nu undoes them all at once.", verb.capitalize(), "Cancel"),
            answer)

    # ---- the overview of every finding -----------------------------------------------------------
    def action_overview(self) -> None:
        self.say("Collecting every finding of the project …")
        self._collect_overview()

    @work(thread=True, exclusive=True, group="overview", exit_on_error=False)
    def _collect_overview(self) -> None:
        from hipport.engine.project_findings import finding_rows

        rels = self._candidates(reports=True)
        rows = finding_rows(self.session, rels)
        analysis = getattr(self.app, "analysis", None)
        note = ""
        if analysis is not None and not analysis.finished:
            note = f"  (analysis still running: {analysis.done}/{analysis.total} files; opened files are complete)"
        self.app.call_from_thread(self._show_overview, rows, note)

    def _show_overview(self, rows: list[Any], note: str) -> None:
        from hipport.engine.project_findings import BY_HAND

        from .overview import OverviewScreen

        reports = sum(1 for r in rows if r.decision == BY_HAND)
        # the header no longer says "Collecting every finding …" once they are shown
        self.last_message = f"Overview: {len(rows) - reports} finding(s), {reports} report(s) to port by hand"
        self.refresh_status()

        def chosen(target: tuple[str, str] | None) -> None:
            if target is None:
                return
            rel, fid = target
            self.pending_finding = fid
            if rel == self.rel:
                self.current = fid
                self.repaint()
                self.diff.show_finding(fid)
            else:
                self.open_file(rel)

        self.app.push_screen(OverviewScreen(rows, note), chosen)
