"""The review screen's output parts: output mode, writing, committing, re-reviewing a stale file, and
the run pane's keys (build and run, stop, device, doctor, jump to a build diagnostic). Mixed into
ReviewScreen; its RunPane message handlers stay in review.py (Textual collects @on handlers only on the
Screen class itself)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from hipport.engine.fsutil import WriteError
from hipport.engine.review import FileStatus, ReviewError

from ..labels import plain_ids
from .review_support import branch_name

if TYPE_CHECKING:
    from hipport.engine.review import ReviewSession

    from ..widgets.diff_view import DiffView
    from ..widgets.run_pane import RunPane
    from .commit import CommitRequest

OUTPUT_MODES = ("sibling", "in-place", "folder")


class ReviewOutput:
    """Mixed into ReviewScreen; uses its session, diff, run pane and `say`."""

    commit_cancel: threading.Event | None = None  # set while a commit runs: setting it stops git
    quit_after_commit = False  # q came during a commit: quit once git is stopped and our `git add` undone

    if TYPE_CHECKING:
        session: ReviewSession
        rel: str | None
        loading_rel: str | None
        last_message: str
        branch: str | None
        diagnostic_index: int
        pending_line: int | None
        app: Any

        @property
        def diff(self) -> DiffView: ...
        @property
        def run_pane(self) -> RunPane: ...
        def say(self, message: str, severity: str = "information") -> None: ...
        def _ready(self) -> bool: ...
        def repaint(self, keep_cursor: bool = True) -> None: ...
        def open_file(self, rel: str) -> None: ...
        def show_file(self, rel: str) -> None: ...
        def invalidate_rows(self) -> None: ...
        def project(self) -> Any: ...

    # ---- output, writing, committing ----------------------------------------------------------
    def action_cycle_output(self) -> None:
        cfg = self.session.config
        mode = OUTPUT_MODES[(OUTPUT_MODES.index(cfg.output_mode) + 1) % len(OUTPUT_MODES)]
        try:
            self.session.set_config(cfg.replace(output_mode=mode))
            self.invalidate_rows()
        except Exception as e:  # ConfigError: one line
            self.say(str(e), "error")
            return
        self.say(f"Output mode: {mode} (this session; set output_mode in config to keep it)")
        if self.rel is not None and self.loading_rel is None:
            self.repaint()

    def action_write(self) -> None:
        if not self._ready() or self.rel is None:
            return
        self._write(self.rel, overwrite=False)

    def _write(self, rel: str, overwrite: bool) -> None:
        from hipport.engine.review import OutputExists, StaleError

        try:
            path = self.session.write(rel, overwrite=overwrite)
        except StaleError:
            self.say(f"{rel} changed on disk since it was loaded; not written. Press ! to re-review it "
                     "(decisions that still match are kept).", "error")
            self.repaint()
            return
        except OutputExists as e:
            from .confirm import ConfirmScreen

            def answer(yes: bool | None) -> None:
                if yes:
                    self._write(rel, overwrite=True)

            self.app.push_screen(ConfirmScreen(f"{e}.\nOverwrite it? What it holds now is kept beside it "
                                               "(<file>.prehip, or the next free .prehip.N).", "Overwrite",
                                               "Keep it"), answer)
            return
        except ReviewError as e:
            self.say(str(e), "error")
            return
        except WriteError as e:  # read-only file, full disk, no permission: one line, the app goes on
            self.say(str(e), "error")
            return
        except OSError as e:
            self.say(f"{rel}: not written ({e})", "error")
            return
        try:
            shown = path.relative_to(self.session.root)
        except ValueError:
            shown = path
        self.invalidate_rows()
        self.say(f"Wrote {shown}")
        self.repaint()

    def action_commit(self) -> None:
        if self.cancel_commit():
            self.say("Cancelling the commit: stopping git and its hooks…", "warning")
            return
        from hipport.engine.vcs import commit_refusal

        why = commit_refusal(self.session.root)  # before the dialog, not after ctrl+s
        if why is not None:
            self.say(f"Not committed: {why}.", "error")
            return
        paths = self.session.committable()
        if not paths:
            reason = self.session.nothing_to_commit()
            self.say(reason[:1].upper() + reason[1:] + ".", "warning")
            return
        from .commit import CommitScreen  # dialogs load on first use: a faster start

        branch = branch_name(self.session.root)
        default = "hipport/port"
        screen = CommitScreen(self.session.commit_message(), list(paths), branch, default)
        self.app.push_screen(screen, self._commit_answer)

    def _commit_answer(self, request: CommitRequest | None) -> None:
        if request is None:
            self.say("Commit cancelled.")
            return
        self.commit_cancel = threading.Event()
        self.say("Committing: git runs the repository's hooks now (c cancels)…")
        self.do_commit(request, self.commit_cancel)

    def cancel_commit(self) -> bool:
        """Stop a running commit (git and its hooks); whether one was running. Quitting calls it too: a
        hook that never ends must not keep the app from exiting."""
        running = self.commit_cancel
        if running is None or running.is_set():
            return False
        running.set()
        return True

    @work(thread=True, exclusive=True, group="git", exit_on_error=False)
    def do_commit(self, request: CommitRequest, cancel: threading.Event) -> None:
        try:
            sha = self.session.commit(request.message, request.branch, cancel=cancel)
        except Exception as e:  # ReviewError / VcsError: one line, shown, nothing lost
            self.app.call_from_thread(self.say, f"Not committed: {e}", "error")
            self.app.call_from_thread(self._commit_ended, cancel)
            return
        self.app.call_from_thread(self._committed, sha, request.branch)
        self.app.call_from_thread(self._commit_ended, cancel)

    def _commit_ended(self, cancel: threading.Event) -> None:
        if self.commit_cancel is cancel:
            self.commit_cancel = None
        if self.quit_after_commit:  # q during the commit: it is stopped and cleaned up, now quit
            self.quit_after_commit = False
            self.app.call_later(self.app.action_quit_app)

    def _committed(self, sha: str, branch: str | None) -> None:
        self.invalidate_rows()
        self.branch = where = branch_name(self.session.root)
        self.say(f"Committed {sha[:10]} on {where}")
        if self.rel is not None and self.loading_rel is None:
            self.repaint()

    def action_resolve_stale(self) -> None:
        if not self._ready() or self.rel is None:
            return
        if not self.session.load(self.rel).stale:
            self.say(f"{self.rel} is not stale.")
            return
        try:
            change = self.session.resolve_stale(self.rel, keep=True)
            self.invalidate_rows()
        except ReviewError as e:  # e.g. the file became unreadable meanwhile
            self.say(str(e), "error")
            return
        self.last_message = plain_ids(change.message)
        self.show_file(self.rel)

    # ---- run pane (the pane owns detection, device, doctor and the run; the screen binds keys) ----
    def action_build_run(self) -> None:
        """b: build and run the port; with files not written yet, offer "write and build" in one key: only
        the files the build reads, and nothing when no write can make the build work (it says what does)."""
        from hipport.engine.toolchain.build_inputs import build_inputs

        pending = self._not_written()
        needs = build_inputs(Path(self.session.root), self.session.config, [e.rel for e in pending])
        if needs.blocked:
            self.say(f"Cannot build: {needs.blocked}; in the app, o switches the output mode", "warning")
            return
        pending = [e for e in pending if e.rel in needs.reads]
        if not pending:
            self.run_pane.build_and_run(Path(self.session.root), self.session.config)
            return
        from .confirm import ConfirmScreen

        # undecided by the project view: a file not opened yet counts by its background analysis (the
        # session's own status knows only the files it loaded)
        rows = self.project().rows
        open_findings = {r.rel for r in rows if r.findings > r.decided}
        undecided = [e.rel for e in pending if e.rel in open_findings]
        names = ", ".join(e.rel for e in pending[:4]) + (" …" if len(pending) > 4 else "")
        which = ", ".join(undecided[:4]) + (" …" if len(undecided) > 4 else "")
        question = (f"{len(pending)} file(s) of the port are not written yet: {names}."
                    + (f"\n{len(undecided)} of them {'has' if len(undecided) == 1 else 'have'} undecided findings "
                       f"({which}): written without those fixes." if undecided else "") + "\nWrite them and build?")

        def answer(yes: bool | None) -> None:
            if yes:
                self._write_for_build([e.rel for e in pending])
            self.run_pane.build_and_run(Path(self.session.root), self.session.config)

        self.app.push_screen(ConfirmScreen(question, "Write and build", "Build as it is"), answer)

    def _not_written(self) -> list[Any]:
        """Files whose current result is not on disk: never written, or decided since."""
        unwritten = set(self.session.unwritten())
        open_states = (FileStatus.UNTRANSLATED, FileStatus.TRANSLATED, FileStatus.HAS_FINDINGS, FileStatus.REVIEWED)
        return [e for e in self.session.files()
                if e.rel in unwritten or (e.status in open_states and e.output
                                          and not (Path(self.session.root) / e.output).exists())]

    def _write_for_build(self, rels: list[str]) -> None:
        failed: list[str] = []
        for rel in rels:
            try:
                self.session.write(rel)
            except (ReviewError, WriteError, OSError) as e:
                failed.append(f"{rel}: {e}")
        self.repaint()
        if failed:
            self.invalidate_rows()
            self.say(f"Wrote {len(rels) - len(failed)} of {len(rels)}; not written: {failed[0]}", "warning")
        else:
            self.invalidate_rows()
            self.say(f"Wrote {len(rels)} file(s); building")

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

    def _goto_pending_line(self) -> None:
        if self.pending_line is None or self.loading_rel is not None:
            return
        line, self.pending_line = self.pending_line, None
        for i, row in enumerate(self.diff.rows):
            if row.new_no == line or (row.kind == "fold" and row.new_no is not None
                                      and row.new_no <= line < row.new_no + row.hidden):
                self.diff.cursor = i
                return
