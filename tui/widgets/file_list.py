"""The file list: every CUDA/Python file with its state and counts, a filter box with fuzzy search."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.fuzzy import Matcher
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Input, OptionList, ProgressBar
from textual.widgets.option_list import Option


@dataclass(frozen=True)
class FileItem:
    """One row of the list. `symbol` and `state` make the state readable without colour."""

    rel: str
    state: str      # label of the file's state (tui/labels.py)
    symbol: str     # one cell (tui/labels.py STATE_SYMBOL)
    counts: str     # e.g. "2/5" (decided/total findings), "3?" (unsupported APIs) or ""
    colour: str = "muted"  # $text-<colour> of the symbol


def elide_middle(path: str, width: int) -> str:
    """`path` in at most `width` cells: the middle gives way to "…", the end (file name and the folders
    just above it, what tells files apart) is kept whole while it fits."""
    if len(path) <= width:
        return path
    if width <= 1:
        return "…"[:width]
    budget = width - 1
    name = path.rsplit("/", 1)[-1]
    tail = max(budget - budget // 3, min(len(name), budget))
    head = budget - tail
    return path[:head] + "…" + path[len(path) - tail:]


class FileOptions(OptionList):
    """An OptionList whose options are all one line high (the list does not wrap: nowrap + ellipsis).

    OptionList measures the height of EVERY option again after any change (about 1 s for 5,000
    files); with one line each that is a plain list. Relies on OptionList's line cache (Textual 8.2.8
    is pinned)."""

    def _update_lines(self) -> None:
        if not self.scrollable_content_region:
            return
        cache = self._line_cache
        n = len(self.options)
        if len(cache.lines) != n:
            cache.lines = [(i, 0) for i in range(n)]
            cache.heights = dict.fromkeys(range(n), 1)
            cache.index_to_line = {i: i for i in range(n)}
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        virtual_size = Size(width, n)
        if virtual_size != self.virtual_size:
            self.virtual_size = virtual_size
            self._scroll_update(virtual_size)

    def set_prompts(self, prompts: dict[int, Content]) -> None:
        """Replace several prompts (all one line: no re-measure) and repaint only the visible ones: rows
        streaming in off screen from the background analysis cost no repaint of the list."""
        changed = set()
        for index, prompt in prompts.items():
            option = self.get_option_at_index(index)
            option._set_prompt(prompt)
            changed.add(option)
        cache = self._option_render_cache  # keyed by (option, style, padding)
        for key in [k for k in cache.keys() if k[0] in changed]:
            cache.discard(key)
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        for index in prompts:
            if top <= index < top + height:
                self.refresh_line(index)


class FileList(Vertical):
    """Filter input over an OptionList of files; posts FileChosen when a file is picked."""

    DEFAULT_CSS = """
    FileList { width: 25%; min-width: 18; max-width: 72; }
    FileList > Input { height: 3; }
    FileList > OptionList { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    FileList > ProgressBar { height: 1; width: 1fr; }
    FileList > ProgressBar > Bar { width: 1fr; }
    FileList > ProgressBar.-done { display: none; }
    """

    class Leave(Message):
        """The person pressed escape in the filter box: hand the keys back to the diff."""

    @dataclass
    class FileChosen(Message):
        """The person chose a file in the list."""

        rel: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[FileItem] = []
        self.current: str | None = None
        self.query_text = ""
        self._rel_index: dict[str, int] = {}
        self._labelled_at = 0  # the row width the labels were made for

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter files (fuzzy)", id="file-filter")
        yield FileOptions(id="file-options")
        yield ProgressBar(id="analysis-progress", show_eta=False)

    def set_progress(self, done: int, total: int, stopped: str | None = None) -> None:
        """The background analysis: a bar and "analysing… N/M" in the border until it is done."""
        bar = self.query_one("#analysis-progress", ProgressBar)
        bar.update(total=max(total, 1), progress=done)
        finished = done >= total or stopped is not None
        bar.set_class(finished, "-done")
        if stopped:
            self.border_title = f"Files ({done}/{total} analysed: stopped)"
        elif finished:
            self.border_title = f"Files ({total})"
        else:
            self.border_title = f"Files: analysing… {done}/{total}"

    @property
    def options(self) -> FileOptions:
        return self.query_one("#file-options", FileOptions)

    def set_items(self, items: Sequence[FileItem], current: str | None, changed: set[str] | None = None) -> None:
        """All rows. `changed`: the caller already replaced these rows in place (update_items)."""
        if changed is None:
            items = list(items)
            if items == self.items and current == self.current:
                return  # rebuilding the options re-lays out the screen: only when something changed
            old = self.items
            if self.query_text or len(old) != len(items) or any(a.rel != b.rel for a, b in zip(old, items,
                                                                                                strict=True)):
                self.items, self.current = items, current
                self._rel_index = {}
                self._rebuild()
                return
            changed = {b.rel for a, b in zip(old, items, strict=True) if a != b}
        old_current = self.current
        self.items = list(items)
        self.current = current
        if self.query_text:
            self._rebuild()
            return
        # same files in the same order: replace only the rows that changed (a 5,000-file list
        # streams in from the background analysis without rebuilding it)
        index = self._index()
        changed = set(changed) | {r for r in (current, old_current) if r is not None}
        room = self._label_width
        labels = {index[r]: self._label(self.items[index[r]], room) for r in changed if r in index}
        if labels:
            self.options.set_prompts(labels)
        if current != old_current and current in index:
            self.options.highlighted = index[current]

    def update_items(self, changed: dict[str, FileItem], current: str | None) -> None:
        """Replace the given rows (by file) and move the current-file marker; cheap for 5,000 files."""
        if not changed and current == self.current:
            return
        index = self._index()
        items = self.items
        for rel, item in changed.items():
            i = index.get(rel)
            if i is not None:
                items[i] = item
        self.set_items(items, current, changed=set(changed))

    def _index(self) -> dict[str, int]:
        if len(self._rel_index) != len(self.items):
            self._rel_index = {it.rel: i for i, it in enumerate(self.items)}
        return self._rel_index

    def shown_items(self) -> list[FileItem]:
        if not self.query_text:
            return list(self.items)
        matcher = Matcher(self.query_text)
        scored = [(matcher.match(it.rel), i, it) for i, it in enumerate(self.items)]
        return [it for score, _, it in sorted(scored, key=lambda t: (-t[0], t[1])) if score > 0]

    def _label(self, item: FileItem, room: int) -> Content:
        """One row in `room` cells (0: not laid out yet, whole): the state word goes first when space is
        short (the symbol says the same), then the middle of the path, never its end or the counts."""
        marker = "▶" if item.rel == self.current else " "
        counts = f" {item.counts}" if item.counts else ""
        state = f" {item.state}"
        path = item.rel
        if room:
            fixed = 3 + len(counts)
            if fixed + len(path) + len(state) > room:
                state = ""
                path = elide_middle(path, max(room - fixed, 8))
        return Content.assemble(
            (f"{marker}{item.symbol} ", f"$text-{item.colour}"),
            path,
            (counts, "$text-muted"),
            (state, "$text-muted italic"),
        )

    @property
    def _label_width(self) -> int:
        """Cells a row may use (0 before the list is laid out: labels are made again on the first resize)."""
        try:
            options = self.options
        except Exception:  # not composed yet
            return 0
        width = options.scrollable_content_region.width
        return max(0, width - options._get_left_gutter_width())

    def on_resize(self, event: events.Resize) -> None:
        width = self._label_width
        if width == self._labelled_at:
            return
        self._labelled_at = width
        if self.query_text:
            self._rebuild()
            return
        # the same rows in the same order: new labels in place (rebuilding 5,000 options re-measures them)
        self.options.set_prompts({i: self._label(it, width) for i, it in enumerate(self.items)})

    def _rebuild(self) -> None:
        options = self.options
        shown = self.shown_items()
        room = self._label_width
        options.set_options(Option(self._label(it, room), id=it.rel) for it in shown)
        for i, it in enumerate(shown):
            if it.rel == self.current:
                options.highlighted = i
                break

    @on(Input.Changed, "#file-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()
        self._rebuild()

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.post_message(self.Leave())

    @on(Input.Submitted, "#file-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        shown = self.shown_items()
        if shown:
            self.post_message(self.FileChosen(shown[0].rel))

    @on(OptionList.OptionSelected, "#file-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.post_message(self.FileChosen(event.option.id))

