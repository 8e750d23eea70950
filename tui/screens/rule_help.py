"""The full help page of a warp rule (the engine's rule catalog renders it as Markdown)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown


class RuleHelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Close"),
    ]

    def __init__(self, rule_id: str, markdown: str) -> None:
        super().__init__()
        self.rule_id = rule_id
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="rule-help-body") as body:
            body.border_title = f"{self.rule_id} (escape to close)"
            yield Markdown(self.markdown)

    def action_close(self) -> None:
        self.dismiss(None)
