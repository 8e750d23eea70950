"""The findings panel: the finding under the cursor, its rule and explanation, and the proposed fix
in the chosen style shown as its own small diff.

A finding that stands for one root cause lists its other places (`Finding.uses`, merged by the
engine): the header says how many, and `U` (or a click on that count) opens the list below the
finding. Moving through the list, or enter/click on an entry, puts the diff's cursor on that line;
`U` or escape closes it. The panel shows the engine's uses as they are (line, role, source text)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hipport.engine.diffrows import line_table
from hipport.engine.edits import Edit, apply_edits
from hipport.engine.model import FixTier

from ..labels import SEVERITY_COLOUR, SEVERITY_SYMBOL, TIER_BADGE, decision_symbol


@dataclass(frozen=True)
class PanelData:
    finding: Any                # hipport.engine.model.Finding
    rule_title: str
    explanation: str
    decision: str               # "undecided" | "accepted" | "rejected" | "stale"
    style: str                  # "wave64" | "portable"
    group_size: int             # findings that change together with this one
    source_text: str
    fix_edits: Sequence[Edit]
    fix_summary: str
    position: str               # "3/7"
    tier: str = "safe"          # FixTier value of the finding's fix group
    tier_reason: str = ""       # why "review"
    group_edits: Sequence[Edit] = ()  # every edit of the whole fix group (the preview shows them all)
    uses_open: bool = False     # the list of the finding's uses is expanded


def fix_preview(text: str, edits: Sequence[Edit], context: int = 0) -> list[tuple[str, str]]:
    """(-|+|' ', line) pairs: each region of `text` touched by `edits`, before and after."""
    if not edits:
        return []
    table = line_table(text)  # cached per text: no re-scan of a 10,000-line file per key
    starts = table.starts or [0]

    def line_of(offset: int) -> int:
        return max(0, min(table.line_of(offset), len(starts) - 1))

    regions: list[list[int]] = []
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        a = max(0, line_of(e.start) - context)
        b = min(len(starts) - 1, line_of(max(e.start, e.end - 1) if e.end > e.start else e.start) + context)
        if regions and a <= regions[-1][1] + 1:
            regions[-1][1] = max(regions[-1][1], b)
        else:
            regions.append([a, b])
    out: list[tuple[str, str]] = []
    for a, b in regions:
        lo = starts[a]
        hi = starts[b + 1] if b + 1 < len(starts) else len(text)
        local = [
            Edit(e.start - lo, e.end - lo, e.replacement, e.rule, e.note)
            for e in edits
            if lo <= e.start and e.end <= hi
        ]
        old = text[lo:hi]
        new = apply_edits(old, local)
        if out:
            out.append((" ", "⋯"))
        out.extend(("-", line) for line in old.rstrip("\n").split("\n"))
        out.extend(("+", line) for line in new.rstrip("\n").split("\n"))
    return out


def line_text(text: str, line: int) -> str:
    """The stripped source line `line` (1-based) of `text`."""
    table = line_table(text)
    if not 1 <= line <= len(table.starts):
        return ""
    a = table.starts[line - 1]
    b = text.find("\n", a)
    return text[a:b if b >= 0 else len(text)].strip()


def use_places(data: PanelData) -> list[tuple[int, int, str, str]]:
    """(line, col, role, text) of the finding itself, then of each of its uses, as the engine lists them."""
    f = data.finding
    own = (f.line, f.col, "this finding", line_text(data.source_text, f.line)[:100])
    return [own, *((u.line, u.col, u.role, u.text) for u in f.uses)]


class UsesList(OptionList):
    """The expanded list of a finding's places; escape closes it (the screen's U toggles it)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close the list of uses", show=False),
    ]

    class Closed(Message):
        pass

    def action_close(self) -> None:
        self.post_message(self.Closed())


class FindingPanel(VerticalScroll):
    """Shows one finding; empty text when the file has none."""

    DEFAULT_CSS = """
    FindingPanel { height: 30%; min-height: 5; max-height: 14; }
    FindingPanel.-uses-open { max-height: 22; }
    FindingPanel > Static { width: 1fr; }
    FindingPanel > UsesList { height: auto; max-height: 10; display: none; padding: 0; }
    FindingPanel > UsesList, FindingPanel > UsesList:focus { border: none; }
    FindingPanel > #finding-uses-title { display: none; }
    FindingPanel.-uses-open > UsesList, FindingPanel.-uses-open > #finding-uses-title { display: block; }
    """

    @dataclass
    class UseChosen(Message):
        """A use of the shown finding was highlighted or chosen: show its line."""

        line: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: PanelData | None = None
        self._uses_key: tuple[str, int] | None = None  # (finding id, number of uses) the list shows

    def compose(self) -> ComposeResult:
        yield Static(id="finding-body")
        yield Static(id="finding-uses-title")
        yield UsesList(id="finding-uses")

    @property
    def uses_list(self) -> UsesList:
        return self.query_one("#finding-uses", UsesList)

    @property
    def uses_open(self) -> bool:
        return self.has_class("-uses-open")

    def _show_uses(self, data: PanelData | None) -> None:
        uses = self.uses_list
        is_open = data is not None and data.uses_open and bool(data.finding.uses)
        self.set_class(is_open, "-uses-open")
        if not is_open or data is None:
            self._uses_key = None
            return
        key = (data.finding.id, len(data.finding.uses))
        if key == self._uses_key:  # a repaint of the same finding keeps the person's place in the list
            return
        self._uses_key = key
        n = len(data.finding.uses) + 1
        self.query_one("#finding-uses-title", Static).update(Content.assemble(
            (f"▾ The {n} places of this root cause", "bold $text-accent"),
            ("  (up/down or a click shows each line; U or esc closes)", "$text-muted")))
        options: list[Option] = []
        for line, col, role, text in use_places(data):
            label = Content.assemble((f"{line:>5}:{col:<3}", "$text-muted"), " ",
                                     (f"[{role}] " if role else "", "$text-accent"), text)
            options.append(Option(label, id=f"use-{line}-{col}-{len(options)}"))
        uses.set_options(options)
        uses.highlighted = 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._chosen(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._chosen(event.option_index)

    def _chosen(self, index: int) -> None:
        if self.data is None or not self.uses_open:
            return
        places = use_places(self.data)
        if 0 <= index < len(places):
            self.post_message(self.UseChosen(places[index][0]))

    def show_report(self, data: ReportData) -> None:
        """A translation report instead of a finding (no fix, no uses)."""
        self.data = None
        body = self.query_one("#finding-body", Static)
        was_open = self.has_class("-uses-open")
        self._show_uses(None)
        self.border_title = f"Report {data.position}"
        _set_text(body, report_content(data), self.has_class("-uses-open") != was_open)

    def show(self, data: PanelData | None, empty_message: str = "No warp findings in this file.") -> None:
        self.data = data
        body = self.query_one("#finding-body", Static)
        was_open = self.has_class("-uses-open")
        self._show_uses(data)
        relayout = self.has_class("-uses-open") != was_open  # the list below the text appeared or went
        if data is None:
            self.border_title = "Finding"
            _set_text(body, Content(empty_message), relayout)
            return
        f = data.finding
        severity = str(getattr(f.severity, "value", f.severity))
        symbol = SEVERITY_SYMBOL.get(severity, "?")
        colour = SEVERITY_COLOUR.get(severity, "muted")
        self.border_title = f"Finding {data.position}"
        parts: list[Content] = [
            Content.assemble(
                (f"[{symbol}] {severity}", f"bold $text-{colour}"),
                "  ",
                (f"{f.rule}", "bold"),
                f" {data.rule_title}",
                "  ",
                (f"line {f.line}:{f.col}", "$text-muted"),
                "  ",
                (f"{decision_symbol(data.decision)} {data.decision}", "bold"),
                ("" if f.confidence == "high" else f"  confidence: {f.confidence}", "$text-muted"),
                *_uses_badge(len(f.uses), data.uses_open),
            ),
            Content(f.message),
        ]
        if data.explanation:
            parts.append(Content.styled(data.explanation.strip(), "$text-muted"))
        if data.group_size > 1:
            parts.append(
                Content.styled(
                    f"Fix group: {data.group_size} findings change together (y/n decide the whole group).",
                    "italic",
                )
            )
        if data.fix_edits:
            badge, colour = TIER_BADGE[FixTier(data.tier)]
            parts.append(
                Content.assemble(("64-wide rewrite ", "bold"), (f"[{data.style}]", "bold $text-accent"), " ",
                                 (f"[{badge}]", f"bold $text-{colour}"), f" {data.fix_summary}")
            )
            if data.decision != "accepted":
                parts.append(Content.styled("Until accepted, this code is written as logical 32-lane warps (right "
                                            "on every GPU); accepting rewrites its whole group to use the 64-wide "
                                            "wave.", "italic $text-muted"))
            if data.tier == FixTier.REVIEW:
                parts.append(Content.styled(f"Review fix: {data.tier_reason}. y will not accept it: read it, "
                                            "then press Y.", f"bold $text-{colour}"))
            edits = data.group_edits or data.fix_edits
            for sign, line in fix_preview(data.source_text, edits):
                style = {"-": "$text-error", "+": "$text-success"}.get(sign, "$text-muted")
                parts.append(Content.styled(f"{sign} {line}", style))
        else:
            parts.append(Content.styled(f"No automatic {data.style} fix: this needs a person.", "italic"))
        _set_text(body, Content("\n").join(parts), relayout)


@dataclass(frozen=True)
class ReportData:
    """A translation report a person acts on (engine review/types.py ReportItem) as the panel shows it."""

    report: Any         # hipport.engine.review.types.ReportItem
    symbol: str         # the gutter's letter for its kind
    word: str           # its kind in words
    position: str       # "2/6" among the file's reports
    source_line: str    # the stripped source line it is on


def report_content(data: ReportData) -> Content:
    r = data.report
    parts = [
        Content.assemble((f"[{data.symbol}] {r.kind.value}", "bold $text-accent"), "  ", (r.name, "bold"),
                         "  ", (f"line {r.line}:{r.col}", "$text-muted"), "  ", (data.word, "$text-muted")),
        Content(r.message),
    ]
    if r.hip_name:
        since = f" (HIP/ROCm {r.since})" if r.since else ""
        parts.append(Content.styled(f"HIP name: {r.hip_name}{since}", "$text-muted"))
    if data.source_line:
        parts.append(Content.styled(f"  {data.source_line}", "$text-muted"))
    parts.append(Content.styled("A translation report: nothing to accept or reject here. Port it by hand "
                                "(e opens the file at this line); j/k go on to the next finding or report.",
                                "italic"))
    return Content("\n").join(parts)


def _set_text(body: Static, content: Content, relayout: bool = False) -> None:
    """Replace the panel's text; a re-layout of the screen only when its height changes. Every j/k shows
    another finding here, and a re-layout on each cost a 160x45 screen ~50 ms of CPU (taken from the
    background analysis while it runs); the height is what Textual itself measures (get_height)."""
    width, height = body.content_region.width, body.content_region.height
    # Textual's own Widget.get_content_height passes `styles` here too; get_height's annotation (RulesMap, a
    # TypedDict) does not admit the styles object its docstring asks for
    same = width > 0 and content.get_height(body.styles, width) == height  # type: ignore[arg-type]
    body.update(content, layout=relayout or not same)


def _uses_badge(n: int, is_open: bool) -> list[tuple[str, str]]:
    """The header's count of the finding's other places; a click on it (or U) opens/closes the list."""
    if not n:
        return []
    arrow = "▾" if is_open else "▸"
    what = f"{n} more place{'s' if n != 1 else ''}"
    hint = "U closes" if is_open else "U lists them"
    return [("  ", ""), (f"{arrow} {what} ({hint})", "bold $text-accent @click=screen.toggle_uses")]
