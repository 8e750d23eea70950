"""The `/` search box: one line above the footer, shown while the person types a query."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Input


class SearchBar(Input):
    DEFAULT_CSS = """
    SearchBar { dock: bottom; height: 1; border: none; padding: 0 1; display: none; }
    SearchBar.-visible { display: block; }
    """

    class Search(Message):
        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Cancelled(Message):
        pass

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="search (enter: find · n/N: next/previous · esc: end)", id=id)

    def open(self) -> None:
        self.add_class("-visible")
        self.value = ""
        self.focus()

    def close(self) -> None:
        self.remove_class("-visible")

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.close()
            self.post_message(self.Cancelled())
            return
        await super()._on_key(event)

    async def action_submit(self) -> None:
        query = self.value
        self.close()
        self.post_message(self.Search(query))
