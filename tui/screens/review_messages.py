"""Messages the review screen's controllers (review_output.py, review_across.py) post to it: their work
ends after the key's handler (a dialog's answer, a git or analysis worker), so they report back here and
the screen, which owns what is shown, repaints."""

from __future__ import annotations

from textual.message import Message


class Notice(Message, bubble=False):
    """One line for the header (and, with `toast`, a notification)."""

    def __init__(self, text: str, severity: str = "information", toast: bool = True) -> None:
        super().__init__()
        self.text = text
        self.severity = severity
        self.toast = toast


class ProjectChanged(Message, bubble=False):
    """Files or their review changed (written, committed, decided across files, output mode): rebuild the
    project view and repaint. `branch`: the current branch, when a commit may have moved it."""

    def __init__(self, branch: str | None = None) -> None:
        super().__init__()
        self.branch = branch


class ShowFinding(Message, bubble=False):
    """Show this finding (or report) of this file."""

    def __init__(self, rel: str, finding: str) -> None:
        super().__init__()
        self.rel = rel
        self.finding = finding
