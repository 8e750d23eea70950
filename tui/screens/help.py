"""`?`: every key in force (after the person's remapping), by section, plus the gutter legend."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keymap import SCROLL_KEYS, effective_keys

LEGEND = (
    ("W", "wrong result: the code computes a different answer on a 64-wide wavefront"),
    ("C", "compile error: does not build for wave64 (e.g. 32-bit masks to *_sync)"),
    ("P", "performance: correct, but slower than it should be on wave64"),
    ("?", "undecided"),
    ("✓", "fix accepted"),
    ("✗", "fix rejected"),
    ("~", "stale: the file changed on disk since the decision; it is not applied"),
    ("!", "accepted, but its fix group is held back (only part of the group accepted, or its fix "
          "overlaps another): not applied"),
)


KEY_NAMES = {"question_mark": "?", "slash": "/", "exclamation_mark": "!", "full_stop": ".",
             "left_curly_bracket": "{", "right_curly_bracket": "}"}


def help_text(keymap: dict[str, str] | None = None) -> Content:
    lines: list[Content] = []
    section = ""
    rows = effective_keys(keymap)
    order = {sec: i for i, sec in reversed(list(enumerate(k.section for k, _ in rows)))}
    # by section (in the order sections first appear), keys in their listed order within each
    for key, keys in sorted(rows, key=lambda r: order[r[0].section]):
        if key.section != section:
            section = key.section
            lines.append(Content(""))
            lines.append(Content.styled(section, "bold $text-accent"))
        shown = ", ".join(KEY_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))
        lines.append(Content.assemble((f"  {shown:<18}", "bold"), key.description, (f"  [{key.id}]", "$text-muted")))
    lines.append(Content(""))
    lines.append(Content.styled("Scrolling", "bold $text-accent"))
    for keys, what in SCROLL_KEYS:
        lines.append(Content.assemble((f"  {keys:<18}", "bold"), what))
    lines.append(Content(""))
    lines.append(Content.styled("Gutter", "bold $text-accent"))
    for sym, what in LEGEND:
        lines.append(Content.assemble((f"  {sym:<18}", "bold"), what))
    lines.append(Content(""))
    lines.append(Content.styled("Remap any key by its [id] in [tool.hipport.keymap] or .hipport.toml [keymap].",
                                "italic"))
    return Content("\n").join(lines[1:])


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close"),
    ]

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = keymap or {}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "hipport keys (escape to close)"
            yield Static(help_text(self.keymap))

    def action_close(self) -> None:
        self.dismiss(None)
