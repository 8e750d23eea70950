"""The side-by-side diff: ONE line-API ScrollView that draws both columns.

Both columns share one scroll offset (no sync bugs), only visible rows are rendered, and
rendered rows sit in an LRU cache, so a 10,000-line file scrolls without lag. Rows come from
`hipport.engine.diffrows.build_rows` (the engine aligns lines from its edits; this widget only
paints them). Syntax colours: Pygments through `textual.highlight`, one line at a time, cached by
text (the HIP side reuses the CUDA side's colouring for unchanged lines).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Size
from textual.highlight import highlight
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style

GUTTER = 2  # severity symbol + decision symbol
NUMBER = 5  # line number width
SEPARATOR = "│"
TAB = 4
_OLD_TEXT = attrgetter("old_text")
_NEW_TEXT = attrgetter("new_text")


@dataclass(frozen=True)
class Mark:
    """What the gutter shows for a line with a finding: readable without colour."""

    severity: str   # symbol: "W" wrong result, "C" compile error, "P" performance
    severity_class: str  # component class for its colour
    decision: str   # symbol: "?" undecided, "✓" accepted, "✗" rejected, "~" stale
    decision_class: str


def _tab_offsets(text: str) -> list[int] | None:
    """Column of each str offset once tabs are expanded (None when the line has no tab)."""
    if "\t" not in text:
        return None
    cols = []
    col = 0
    for ch in text:
        cols.append(col)
        col = (col // TAB + 1) * TAB if ch == "\t" else col + 1
    cols.append(col)
    return cols


def _span(span: Any) -> tuple[int, int, str]:
    """(start, end, kind) of an engine diffrows.Span (or a plain tuple in tests)."""
    if isinstance(span, tuple):
        return int(span[0]), int(span[1]), str(span[2]) if len(span) > 2 else "changed"
    return int(span.start), int(span.end), str(getattr(span, "kind", "changed"))


def pygments_language(language: str) -> str:
    """Pygments lexer name for an engine `Language` value (cuda/cpp/python, and the build files
    make/cmake). `.hip` must not be guessed by Pygments (it answers tsql), so the engine's language
    decides."""
    return {"cuda": "cuda", "cpp": "cpp", "python": "python", "make": "make", "cmake": "cmake"}.get(language, "text")


class DiffView(ScrollView, can_focus=True):
    """Two synchronized columns (CUDA | HIP) with line numbers and a finding gutter."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--lineno",
        "diff--removed",
        "diff--added",
        "diff--removed-word",
        "diff--added-word",
        "diff--cursor",
        "diff--current",
        "diff--fold",
        "diff--separator",
        "diff--sev-wrong",
        "diff--sev-compile",
        "diff--sev-perf",
        "diff--accepted",
        "diff--rejected",
        "diff--undecided",
        "diff--stale",
        "diff--empty",
        "diff--finding-word",
        "diff--report",
    }

    # the vertical scrollbar's column is always kept free (stable gutter) and no text is ever drawn
    # under it: the widths below are those of the scrollable region, not of the whole widget
    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        scrollbar-gutter: stable;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up_rows", "Page up", show=False),
        Binding("pagedown", "page_down_rows", "Page down", show=False),
        Binding("home", "first_row", "First", show=False),
        Binding("end", "last_row", "Last", show=False),
        Binding("left", "scroll_left", "Left", show=False),
        Binding("right", "scroll_right", "Right", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)

    class CursorMoved(Message):
        """The cursor row changed (the screen picks the finding under it)."""

        def __init__(self, view: DiffView, row: int) -> None:
            super().__init__()
            self.view = view
            self.row = row

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.rows: Sequence[Any] = ()
        self.language = "text"
        self.marks: Mapping[str, Mark] = {}
        self.current: str | None = None  # finding id shown in the findings panel
        self.title = ""
        self._max_text = 0
        self._strip_cache: LRUCache[tuple[Any, ...], Strip] = LRUCache(4096)
        self._line_cache: LRUCache[tuple[str, str], Content] = LRUCache(8192)
        self._style_cache: dict[str, Style] = {}
        self._pending_centre: int | None = None
        # layout: side by side (default) or stacked (CUDA line above HIP line, for narrow terminals);
        # wrap: long lines continue on the next screen line instead of ending in "…"
        self.stacked = False
        self.wrap = False
        # visual lines -> (row index, part, sub-line) when stacked or wrapped; None: one line per row
        self._visual: list[tuple[int, str, int]] | None = None
        self._row_top: list[int] = []  # first visual line of each row (with _visual)

    # ---- data in -----------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[Any], *, language: str, keep_cursor: bool = False) -> None:
        self.rows = rows
        self.language = pygments_language(language)
        if rows:  # C-level map/len: a 10,000-row file costs ~1 ms per repaint
            self._max_text = max(max(map(len, map(_OLD_TEXT, rows))), max(map(len, map(_NEW_TEXT, rows))))
        else:
            self._max_text = 0
        self._update_virtual_size()
        if not keep_cursor:
            self.set_reactive(DiffView.cursor, 0)
            self.scroll_x = self.scroll_y = 0
        else:
            self.set_reactive(DiffView.cursor, min(self.cursor, max(0, len(rows) - 1)))
        self.refresh()

    def set_marks(self, marks: Mapping[str, Mark], current: str | None) -> None:
        self.marks = marks
        self.current = current
        self.refresh()

    def set_layout(self, *, wrap: bool | None = None, stacked: bool | None = None) -> None:
        """Switch wrapping and/or the stacked layout; the cursor stays on its row."""
        if wrap is not None:
            self.wrap = wrap
        if stacked is not None:
            self.stacked = stacked
        self._strip_cache.clear()
        self._update_virtual_size()
        self.scroll_x = 0
        self._centre(self.cursor)
        self.refresh()

    @property
    def view_width(self) -> int:
        """Cells a screen line of text may use: the widget's width less its scrollbar gutter (text drawn
        in that column would sit under the scrollbar)."""
        return self.scrollable_content_region.width or self.size.width or 80

    @property
    def view_height(self) -> int:
        """Screen lines not covered by the horizontal scrollbar."""
        return self.scrollable_content_region.height or self.size.height

    def _text_width(self, width: int) -> int:
        """Cells of text per line: one column's worth side by side, the whole width stacked."""
        if self.stacked:
            return max(1, width - GUTTER - NUMBER - 2)
        return max(1, self._column_width(width) - GUTTER - NUMBER - 1)

    def _parts(self, row: Any) -> tuple[str, ...]:
        if row.kind == "fold":
            return ("fold",)
        if not self.stacked:
            return ("both",)
        if row.kind == "change" or row.old_text != row.new_text:
            return tuple(p for p, no in (("old", row.old_no), ("new", row.new_no)) if no is not None) or ("both",)
        return ("both",)

    def _update_virtual_size(self) -> None:
        width = self.view_width
        text_width = self._text_width(width)
        if not (self.stacked or self.wrap):
            self._visual = None
            self._row_top = []
            extra = max(0, self._max_text - text_width)
            self.virtual_size = Size(width + extra, len(self.rows))
            return
        visual: list[tuple[int, str, int]] = []
        tops: list[int] = []
        for i, row in enumerate(self.rows):
            tops.append(len(visual))
            for part in self._parts(row):
                n = 1
                if self.wrap and part != "fold":
                    if part == "both" and not self.stacked:
                        longest = max(len(row.old_text.expandtabs(TAB)), len(row.new_text.expandtabs(TAB)))
                    else:
                        longest = len((row.new_text if part == "new" else row.old_text).expandtabs(TAB))
                    n = max(1, -(-longest // text_width))
                visual.extend((i, part, k) for k in range(n))
        self._visual = visual
        self._row_top = tops
        extra = 0 if self.wrap else max(0, self._max_text - text_width)
        self.virtual_size = Size(width + extra, len(visual))

    def visual_top(self, row: int) -> int:
        """First screen line (in the scrolled area) of a row."""
        if self._visual is None:
            return row
        return self._row_top[row] if 0 <= row < len(self._row_top) else 0

    def _row_height(self, row: int) -> int:
        if self._visual is None:
            return 1
        nxt = self._row_top[row + 1] if row + 1 < len(self._row_top) else len(self._visual)
        return nxt - self.visual_top(row)

    def on_resize(self, event: events.Resize) -> None:
        self._strip_cache.clear()
        self._update_virtual_size()
        if self._pending_centre is not None:
            row, self._pending_centre = self._pending_centre, None
            self._centre(row)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strip_cache.clear()
        self._style_cache.clear()
        self._line_cache.clear()

    # ---- cursor ------------------------------------------------------------------------------
    def row_of_finding(self, finding_id: str) -> int | None:
        for i, row in enumerate(self.rows):
            if finding_id in (getattr(row, "finding_ids", ()) or ()):
                return i
        return None

    def row_of_line(self, side: str, line: int) -> tuple[int | None, int | None]:
        """(the row showing CUDA ("old") or HIP ("new") line `line`, None); (None, the fold's first old
        line) when a fold hides it (unfolding that fold shows it); (None, None) when no row has it."""
        for i, row in enumerate(self.rows):
            n = row.old_no if side == "old" else row.new_no
            if n is None:
                continue
            if row.kind == "fold":
                if n <= line < n + row.hidden and row.old_no is not None:
                    return None, row.old_no
            elif n == line:
                return i, None
        return None, None

    def row_of_hip_line(self, line: int) -> int | None:
        """The row showing HIP line `line`, or the fold row hiding it."""
        for i, row in enumerate(self.rows):
            if row.new_no == line or (row.kind == "fold" and row.new_no is not None
                                      and row.new_no <= line < row.new_no + row.hidden):
                return i
        return None

    def cursor_lines(self) -> tuple[int, int]:
        """(CUDA line, HIP line) at the cursor (1 where the row has none)."""
        row = self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None
        if row is None:
            return 1, 1
        return row.old_no or 1, row.new_no or row.old_no or 1

    def show_finding(self, finding_id: str | None) -> None:
        """Put the cursor on the finding's first row and centre it."""
        if finding_id is None:
            return
        row = self.row_of_finding(finding_id)
        if row is not None:
            self.set_reactive(DiffView.cursor, row)
            self._centre(row)
            # right after set_rows the new virtual size is not laid out yet and the scroll is clamped
            self.call_after_refresh(self._centre, row)
            self.refresh()

    def _centre(self, row: int) -> None:
        if row != self.cursor:
            return
        if not self.view_height:  # not laid out yet: centre on the first resize
            self._pending_centre = row
            return
        self.scroll_y = max(0, min(self.visual_top(row) - self.view_height // 3, self.max_scroll_y))

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1)) if self.rows else 0

    def watch_cursor(self, old: int, new: int) -> None:
        height = max(1, self.view_height)
        top = int(self.scroll_y)
        first = self.visual_top(new)
        last = first + self._row_height(new) - 1
        if first < top:
            self.scroll_to(y=first, animate=False, immediate=True)
        elif last >= top + height:
            self.scroll_to(y=min(first, last - height + 1), animate=False, immediate=True)
        # cached strips are keyed by "is the cursor row": no need to drop them
        self.refresh()
        self.post_message(self.CursorMoved(self, new))

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_page_up_rows(self) -> None:
        self.cursor -= max(1, self.view_height - 1)

    def action_page_down_rows(self) -> None:
        self.cursor += max(1, self.view_height - 1)

    def action_first_row(self) -> None:
        self.cursor = 0

    def action_last_row(self) -> None:
        self.cursor = len(self.rows) - 1

    # ---- painting ----------------------------------------------------------------------------
    @staticmethod
    def _column_width(width: int) -> int:
        return max(GUTTER + NUMBER + 2, (width - 1) // 2)

    def _style(self, name: str) -> Style:
        style = self._style_cache.get(name)
        if style is None:
            style = self.get_visual_style(name)
            self._style_cache[name] = style
        return style

    def _background_only(self, name: str) -> Style:
        key = f"{name}/bg"
        style = self._style_cache.get(key)
        if style is None:
            full = self.get_visual_style(name)
            # get_visual_style drops `reverse`; read it from the component's own text-style
            reverse = bool(self.get_component_styles(name).text_style.reverse) or None
            style = Style(background=full.background, bold=full.bold, underline=full.underline,
                          reverse=reverse)
            self._style_cache[key] = style
        return style

    def _highlighted(self, text: str) -> Content:
        key = (self.language, text)
        content = self._line_cache.get(key)
        if content is None:
            content = highlight(text.expandtabs(TAB), language=self.language) if text else Content("")
            self._line_cache[key] = content
        return content

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.view_width
        part, sub = "both", 0
        if self._visual is not None:
            if scroll_y + y >= len(self._visual):
                return Strip.blank(width, self.rich_style)
            index, part, sub = self._visual[scroll_y + y]
        else:
            index = scroll_y + y
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        finding_ids = row.finding_ids
        mark = self._mark_for(finding_ids) if finding_ids else None
        current = self.current is not None and self.current in finding_ids
        # keyed by what the row shows, not where it is: after a decision only rows that changed
        # (new text, gutter mark, current finding) are drawn again
        key = (row, width, scroll_x, index == self.cursor, mark, current, self.language, part, sub,
               self.stacked, self.wrap)
        strip = self._strip_cache.get(key)
        if strip is None:
            if part in ("both", "fold") and not self.stacked and not self.wrap:
                strip = self._render_row(index, width, scroll_x)
            elif part == "fold":
                strip = self._render_row(index, width, 0)
            else:
                strip = self._render_part(index, width, scroll_x, part, sub)
            self._strip_cache[key] = strip
        return strip

    def _render_row(self, index: int, width: int, scroll_x: int) -> Strip:
        row = self.rows[index]
        left_w = self._column_width(width)
        right_w = max(0, width - left_w - 1)
        at_cursor = index == self.cursor
        finding_ids = tuple(getattr(row, "finding_ids", ()) or ())
        is_current = self.current is not None and self.current in finding_ids
        segments: list[Segment] = []
        if row.kind == "fold":
            hidden = int(getattr(row, "hidden", 0) or 0)
            what = "lines inserted by hipport (helpers)" if (row.old_no or 0) < 0 else \
                f"unchanged line{'s' if hidden != 1 else ''}"
            label = f" ⋯ {hidden} {what} (space to expand) ⋯"
            style = self._style("diff--fold")
            if at_cursor:
                style = style + self._background_only("diff--cursor")
            text = Content(label).truncate(width, pad=True)
            fold = self._segments(text, style)
            if at_cursor and self._background_only("diff--cursor").reverse:
                fold = list(Segment.apply_style(fold, post_style=RichStyle(reverse=True)))
            return Strip(fold, width)

        mark = self._mark_for(finding_ids)
        for side, col_w in (("old", left_w), ("new", right_w)):
            number = getattr(row, f"{side}_no")
            text = getattr(row, f"{side}_text")
            spans = getattr(row, f"{side}_spans", ()) or ()
            row_style = self._row_style(row, side, number, at_cursor, is_current)
            segments.extend(self._gutter(mark if side == "old" else None, row_style))
            num_style = row_style + self._style("diff--lineno")
            num_text = "" if number is None else str(number)
            segments.append(Segment(f"{num_text:>{NUMBER}} ", num_style.rich_style))
            text_w = max(0, col_w - GUTTER - NUMBER - 1)
            if number is None:
                segments.append(Segment("╱" * text_w if text_w else "", row_style.rich_style))
            else:
                content = self._highlighted(text or "")
                word = "diff--removed-word" if side == "old" else "diff--added-word"
                offsets = _tab_offsets(text or "")
                for span in spans:
                    start, end, kind = _span(span)
                    if offsets is not None:
                        start, end = offsets[min(start, len(offsets) - 1)], offsets[min(end, len(offsets) - 1)]
                    cls = "diff--finding-word" if kind == "finding" else word
                    content = content.stylize(self._background_only(cls), start, end)
                content = content[scroll_x:] if scroll_x else content
                if content.cell_length > text_w:
                    content = content.truncate(text_w, ellipsis=True)
                else:
                    content = content.truncate(text_w, pad=True)
                segments.extend(self._segments(content, row_style))
            if side == "old":
                segments.append(Segment(SEPARATOR, self._style("diff--separator").rich_style))
        if at_cursor and self._background_only("diff--cursor").reverse:
            # 16-colour themes mark the cursor row by reversing it, over every span's own style
            segments = list(Segment.apply_style(segments, post_style=RichStyle(reverse=True)))
        return Strip(segments).adjust_cell_length(width, self.rich_style)

    def _side_content(self, row: Any, side: str) -> Content:
        """The highlighted text of one side with its changed words and finding marked."""
        text = getattr(row, f"{side}_text") or ""
        content = self._highlighted(text)
        word = "diff--removed-word" if side == "old" else "diff--added-word"
        offsets = _tab_offsets(text)
        for span in getattr(row, f"{side}_spans", ()) or ():
            start, end, kind = _span(span)
            if offsets is not None:
                start, end = offsets[min(start, len(offsets) - 1)], offsets[min(end, len(offsets) - 1)]
            content = content.stylize(self._background_only("diff--finding-word" if kind == "finding" else word),
                                      start, end)
        return content

    def _cut(self, content: Content, text_w: int, scroll_x: int, sub: int) -> Content:
        """The piece of a line shown on one screen line: scrolled, or the `sub`-th wrapped piece."""
        if self.wrap:
            content = content[sub * text_w:(sub + 1) * text_w]
            return content.truncate(text_w, pad=True)
        content = content[scroll_x:] if scroll_x else content
        if content.cell_length > text_w:
            return content.truncate(text_w, ellipsis=True)
        return content.truncate(text_w, pad=True)

    def _row_style(self, row: Any, side: str, number: int | None, at_cursor: bool, is_current: bool) -> Style:
        if number is None:
            style = self._style("diff--empty")
        elif row.kind == "change" and side in ("old", "new"):
            style = self._style("diff--removed" if side == "old" else "diff--added")
        else:
            style = self.get_visual_style()
        if is_current:
            style = style + self._background_only("diff--current")
        if at_cursor:
            style = style + self._background_only("diff--cursor")
        return style

    def _render_part(self, index: int, width: int, scroll_x: int, part: str, sub: int) -> Strip:
        """One screen line of a row when stacked (part: "old", "new" or "both" for an unchanged line)
        or wrapped (sub: which piece of the line)."""
        row = self.rows[index]
        at_cursor = index == self.cursor
        finding_ids = tuple(getattr(row, "finding_ids", ()) or ())
        is_current = self.current is not None and self.current in finding_ids
        mark = self._mark_for(finding_ids)
        segments: list[Segment] = []
        if not self.stacked:  # wrapped, side by side: both columns cut at the same piece
            left_w = self._column_width(width)
            # both sides are cut into pieces of the same length (the one the row heights were counted
            # with); the right column may be a cell wider, that cell is padding
            piece_w = self._text_width(width)
            for side, col_w in (("old", left_w), ("new", max(0, width - left_w - 1))):
                number = getattr(row, f"{side}_no")
                style = self._row_style(row, side if row.kind == "change" else "both", number, at_cursor, is_current)
                segments.extend(self._gutter(mark if side == "old" and sub == 0 else None, style))
                num = "" if number is None or sub else str(number)
                segments.append(Segment(f"{num:>{NUMBER}} ", (style + self._style("diff--lineno")).rich_style))
                text_w = max(0, col_w - GUTTER - NUMBER - 1)
                if number is None:
                    segments.append(Segment("╱" * text_w if text_w and sub == 0 else " " * text_w,
                                            style.rich_style))
                else:
                    piece = self._cut(self._side_content(row, side), piece_w, 0, sub)
                    segments.extend(self._segments(piece.truncate(text_w, pad=True), style))
                if side == "old":
                    segments.append(Segment(SEPARATOR, self._style("diff--separator").rich_style))
        else:
            side = "new" if part == "new" else "old"
            number = row.new_no if part == "new" else row.old_no
            style = self._row_style(row, part, number, at_cursor, is_current)
            first_line = sub == 0 and (part != "new" or row.old_no is None)
            segments.extend(self._gutter(mark if first_line else None, style))
            num = "" if number is None or sub else str(number)
            segments.append(Segment(f"{num:>{NUMBER}}", (style + self._style("diff--lineno")).rich_style))
            sign = {"old": "-", "new": "+"}.get(part, " ") if sub == 0 else " "
            segments.append(Segment(f"{sign} ", (style + self._style("diff--lineno")).rich_style))
            text_w = self._text_width(width)
            segments.extend(self._segments(self._cut(self._side_content(row, side), text_w, scroll_x, sub), style))
        if at_cursor and self._background_only("diff--cursor").reverse:
            segments = list(Segment.apply_style(segments, post_style=RichStyle(reverse=True)))
        return Strip(segments).adjust_cell_length(width, self.rich_style)

    def _mark_for(self, finding_ids: tuple[str, ...]) -> Mark | None:
        for fid in finding_ids:
            if fid in self.marks:
                return self.marks[fid]
        return None

    def _gutter(self, mark: Mark | None, row_style: Style) -> list[Segment]:
        if mark is None:
            return [Segment(" " * GUTTER, row_style.rich_style)]
        return [
            Segment(mark.severity, (row_style + self._style(mark.severity_class)).rich_style),
            Segment(mark.decision, (row_style + self._style(mark.decision_class)).rich_style),
        ]

    def _segments(self, content: Content, style: Style) -> list[Segment]:
        return [
            Segment(text, (style + text_style).rich_style)
            for text, text_style in content.render(style, end="", parse_style=self._get_style)
        ]
