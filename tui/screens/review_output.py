"""`Output`: the review screen's output keys: output mode (o), writing (w), committing (c), and writing what
a build reads before building (b). Its dialogs and git's worker end after the key's handler, so it
reports to the screen with messages (review_messages.py) and never touches what is shown."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from hipport.engine.fsutil import WriteError
from hipport.engine.review import FileEntry, FileStatus, OutputExists, ReviewError, ReviewSession, StaleError

from ..widgets.run_pane import RunPane
from .review_messages import Notice, ProjectChanged
from .review_project import ProjectRows
from .review_support import branch_name

if TYPE_CHECKING:
    from .commit import CommitRequest

OUTPUT_MODES = ("sibling", "in-place", "folder")


class Output:
    def __init__(self, screen: Screen[Any], session: ReviewSession, rows: ProjectRows) -> None:
        self.screen = screen            # where messages go; its app shows the dialogs and runs the workers
        self.session = session
        self.rows = rows
        self.commit_cancel: threading.Event | None = None  # set while a commit runs: setting it stops git
        self.quit_after_commit = False  # q came during a commit: quit once git is stopped and our `git add` undone

    def _say(self, text: str, severity: str = "information") -> None:
        self.screen.post_message(Notice(text, severity))

    # ---- output mode, writing -------------------------------------------------------------------
    def cycle_mode(self) -> None:
        cfg = self.session.config
        mode = OUTPUT_MODES[(OUTPUT_MODES.index(cfg.output_mode) + 1) % len(OUTPUT_MODES)]
        try:
            self.session.set_config(cfg.replace(output_mode=mode))
        except Exception as e:  # ConfigError: one line
            self._say(str(e), "error")
            return
        self._say(f"Output mode: {mode} (this session; set output_mode in config to keep it)")
        self.screen.post_message(ProjectChanged())

    def write(self, rel: str, overwrite: bool = False) -> None:
        try:
            path = self.session.write(rel, overwrite=overwrite)
        except StaleError:
            self._say(f"{rel} changed on disk since it was loaded; not written. Press ! to re-review it "
                      "(decisions that still match are kept).", "error")
            self.screen.post_message(ProjectChanged())
            return
        except OutputExists as e:
            from .confirm import ConfirmScreen  # dialogs load on first use: a faster start

            def answer(yes: bool | None) -> None:
                if yes:
                    self.write(rel, overwrite=True)

            self.screen.app.push_screen(ConfirmScreen(f"{e}.\nOverwrite it? What it holds now is kept beside it "
                                                      "(<file>.prehip, or the next free .prehip.N).", "Overwrite",
                                                      "Keep it"), answer)
            return
        except (ReviewError, WriteError) as e:  # WriteError: read-only file, full disk, no permission: one line
            self._say(str(e), "error")
            return
        except OSError as e:
            self._say(f"{rel}: not written ({e})", "error")
            return
        shown = path.relative_to(self.session.root) if path.is_relative_to(self.session.root) else path
        self._say(f"Wrote {shown}")
        self.screen.post_message(ProjectChanged())

    # ---- committing ------------------------------------------------------------------------------
    def commit(self) -> None:
        if self.cancel_commit():
            self._say("Cancelling the commit: stopping git and its hooks…", "warning")
            return
        from hipport.engine.vcs import commit_refusal

        why = commit_refusal(self.session.root)  # before the dialog, not after ctrl+s
        if why is not None:
            self._say(f"Not committed: {why}.", "error")
            return
        paths = self.session.committable()
        if not paths:
            reason = self.session.nothing_to_commit()
            self._say(reason[:1].upper() + reason[1:] + ".", "warning")
            return
        from .commit import CommitScreen  # dialogs load on first use: a faster start

        screen = CommitScreen(self.session.commit_message(), list(paths), branch_name(self.session.root),
                              "hipport/port")
        self.screen.app.push_screen(screen, self._commit_answer)

    def _commit_answer(self, request: CommitRequest | None) -> None:
        if request is None:
            self._say("Commit cancelled.")
            return
        cancel = self.commit_cancel = threading.Event()
        self._say("Committing: git runs the repository's hooks now (c cancels)…")
        self.screen.run_worker(lambda: self._commit(request, cancel), thread=True, exclusive=True, group="git",
                               exit_on_error=False)

    def cancel_commit(self) -> bool:
        """Stop a running commit (git and its hooks); whether one was running. Quitting calls it too: a
        hook that never ends must not keep the app from exiting."""
        running = self.commit_cancel
        if running is None or running.is_set():
            return False
        running.set()
        return True

    def _commit(self, request: CommitRequest, cancel: threading.Event) -> None:
        """In a worker thread (git and the repository's hooks may take long)."""
        try:
            sha = self.session.commit(request.message, request.branch, cancel=cancel)
        except Exception as e:  # ReviewError / VcsError: one line, shown, nothing lost
            self.screen.app.call_from_thread(self._say, f"Not committed: {e}", "error")
        else:
            where = branch_name(self.session.root)
            self.screen.app.call_from_thread(self._committed, sha, where)
        self.screen.app.call_from_thread(self._commit_ended, cancel)

    def _committed(self, sha: str, branch: str) -> None:
        self.screen.post_message(ProjectChanged(branch))
        self._say(f"Committed {sha[:10]} on {branch}")

    def _commit_ended(self, cancel: threading.Event) -> None:
        if self.commit_cancel is cancel:
            self.commit_cancel = None
        if self.quit_after_commit:  # q during the commit: it is stopped and cleaned up, now quit
            self.quit_after_commit = False
            self.screen.app.call_later(self.screen.app.run_action, "quit_app")

    # ---- building: write what the build reads first ----------------------------------------------
    def build_run(self, run_pane: RunPane) -> None:
        """b: build and run the port; with files not written yet, offer "write and build" in one key: only
        the files the build reads, and nothing when no write can make the build work (it says what does)."""
        from hipport.engine.toolchain.build_inputs import build_inputs

        root = Path(self.session.root)
        pending = self._not_written()
        needs = build_inputs(root, self.session.config, [e.rel for e in pending])
        if needs.blocked:
            self._say(f"Cannot build: {needs.blocked}; in the app, o switches the output mode", "warning")
            return
        pending = [e for e in pending if e.rel in needs.reads]
        if not pending:
            run_pane.build_and_run(root, self.session.config)
            return
        from .confirm import ConfirmScreen

        def answer(yes: bool | None) -> None:
            if yes:
                self._write_for_build([e.rel for e in pending])
            run_pane.build_and_run(root, self.session.config)

        self.screen.app.push_screen(ConfirmScreen(self._write_question(pending), "Write and build",
                                                  "Build as it is"), answer)

    def _write_question(self, pending: list[FileEntry]) -> str:
        # undecided by the project view: a file not opened yet counts by its background analysis (the
        # session's own status knows only the files it loaded)
        open_findings = {r.rel for r in self.rows.view().rows if r.findings > r.decided}
        undecided = [e.rel for e in pending if e.rel in open_findings]
        names = ", ".join(e.rel for e in pending[:4]) + (" …" if len(pending) > 4 else "")
        which = ", ".join(undecided[:4]) + (" …" if len(undecided) > 4 else "")
        return (f"{len(pending)} file(s) of the port are not written yet: {names}."
                + (f"\n{len(undecided)} of them {'has' if len(undecided) == 1 else 'have'} undecided findings "
                   f"({which}): written without those fixes." if undecided else "") + "\nWrite them and build?")

    def _not_written(self) -> list[FileEntry]:
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
        self.screen.post_message(ProjectChanged())
        if failed:
            self._say(f"Wrote {len(rels) - len(failed)} of {len(rels)}; not written: {failed[0]}", "warning")
        else:
            self._say(f"Wrote {len(rels)} file(s); building")
