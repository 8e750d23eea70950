"""The footer of the review screen: in a narrow terminal (under 130 columns) only the essential keys
(decide, undo, next finding, search, write, commit, help, quit) are shown, compactly, so they stay
visible at 80x24; the rest stay bound and are listed by `?` and the command palette."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel

ESSENTIAL = frozenset({"accept", "reject", "undo", "next_undecided", "prev_undecided", "search", "search_next",
                       "search_prev", "end_search", "write", "commit", "help", "quit_app"})
NARROW_BELOW = 130  # the full footer needs about 130 columns


class ReviewFooter(Footer):
    DEFAULT_CSS = """
    ReviewFooter.-compact FooterLabel { margin: 0 1 0 0; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.narrow = False
        self.searching = False  # a search is active (the screen sets it, then refreshes its bindings)

    def set_width(self, width: int) -> None:
        narrow = width < NARROW_BELOW
        if narrow != self.narrow:
            self.narrow = narrow
            self.compact = narrow
            self.show_command_palette = not narrow
            self.call_later(self.recompose)

    def compose(self) -> ComposeResult:
        grouped = 0  # keys kept in the group whose label comes next
        # during a search n/N move between matches: "n Reject" would name a key that does not reject
        searching = self.searching
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                if self.narrow and widget.action not in ESSENTIAL:
                    continue
                if searching and widget.action == "reject":
                    continue
                grouped += widget.has_class("-grouped")
            elif isinstance(widget, FooterLabel):
                if grouped == 0:
                    continue  # every key of its group is hidden
                grouped = 0
            yield widget
