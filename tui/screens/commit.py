"""The commit dialog: an editable generated message, the files that will be committed, and the
branch (the current one, or a new `hipport/...` branch)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, TextArea


class BranchCheckbox(Checkbox):
    """A checkbox whose mark reads without colour: `▐ ▌` off, `▐✓▌` on (Textual draws `▐X▌` in both
    states, told apart only by colour, so "off" looked ticked)."""

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "✓" if self.value else " "
        return super()._button


@dataclass(frozen=True)
class CommitRequest:
    message: str
    branch: str | None  # None: the current branch


class CommitScreen(ModalScreen[CommitRequest | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "commit", "Commit", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, message: str, files: Sequence[str], current_branch: str, new_branch: str) -> None:
        super().__init__()
        self.message = message
        self.files = list(files)
        self.current_branch = current_branch
        self.new_branch = new_branch

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Commit (ctrl+s commits, escape cancels)"
            yield Label(f"Files ({len(self.files)}): " + ", ".join(self.files), id="commit-files")
            yield TextArea(self.message, id="commit-message", soft_wrap=True, show_line_numbers=False)
            with Horizontal(id="branch-row"):
                yield BranchCheckbox(self._branch_label(False), False, id="new-branch")
                yield Input(self.new_branch, id="branch-name", disabled=True)
            with Horizontal(id="buttons"):
                yield Button("Commit", variant="success", id="do-commit")
                yield Button("Cancel", variant="default", id="cancel")

    def _branch_label(self, on: bool) -> str:
        return ("New branch: ON, commit on the branch named here" if on
                else f"New branch: off, commit on {self.current_branch} (space turns it on)")

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self.query_one("#branch-name", Input).disabled = not event.value
        event.checkbox.label = self._branch_label(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "do-commit":
            self.action_commit()
        else:
            self.action_cancel()

    def action_commit(self) -> None:
        message = self.query_one("#commit-message", TextArea).text.strip()
        if not message:
            self.notify("The commit message is empty.", severity="error")
            return
        branch: str | None = None
        if self.query_one("#new-branch", Checkbox).value:
            branch = self.query_one("#branch-name", Input).value.strip()
            if not branch:
                self.notify("Name the new branch.", severity="error")
                return
        self.dismiss(CommitRequest(message + "\n", branch))

    def action_cancel(self) -> None:
        self.dismiss(None)
