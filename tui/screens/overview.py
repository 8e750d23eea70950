"""`O`: every finding of the project in one table (by rule, then file and line) with its decision and
fix tier; a filter box narrows it (every word must match); enter jumps to the finding."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from hipport.engine.project.findings import BY_HAND, FindingRow, matches

from ..labels import decision_symbol


class OverviewScreen(ModalScreen[tuple[str, str] | None]):
    """Returns (file, finding id) to jump to, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("slash", "focus_filter", "Filter", show=False),
    ]

    DEFAULT_CSS = """
    OverviewScreen { align: center middle; }
    OverviewScreen > #overview { width: 95%; height: 90%; border: thick $primary; background: $surface; }
    OverviewScreen #overview-summary { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    OverviewScreen #overview-filter { height: 3; }
    OverviewScreen DataTable { height: 1fr; }
    """

    def __init__(self, rows: list[FindingRow], note: str = "") -> None:
        super().__init__()
        self.rows = rows
        self.note = note
        self.shown: list[FindingRow] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="overview"):
            yield Static(id="overview-summary")
            # select_on_focus off: the first key typed into the table moves the focus here, the next must
            # not replace it
            yield Input(placeholder="filter: rule, file, decision, tier, words of the message", id="overview-filter",
                        select_on_focus=False)
            yield DataTable(id="overview-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        box = self.query_one("#overview")
        box.border_title = "All findings and reports (enter: go to it · escape: close)"
        table = self.query_one(DataTable)
        table.add_columns("rule", "file:line", "severity", "decision", "tier", "message")
        self._fill("")
        table.focus()

    def _fill(self, query: str) -> None:
        self.shown = [r for r in self.rows if matches(r, query)] if query else list(self.rows)
        table = self.query_one(DataTable)
        table.clear()
        for r in self.shown:
            mark = "·" if r.decision == BY_HAND else decision_symbol(_word(r.decision))
            table.add_row(r.rule, f"{r.rel}:{r.line}", r.severity, f"{mark} {r.decision}", r.tier, r.message,
                          key=f"{r.rel}\0{r.finding_id}")
        findings = [r for r in self.shown if r.decision != BY_HAND]
        by_rule = Counter(r.rule for r in findings)
        decided = Counter(r.rule for r in findings if r.decision in ("accepted", "rejected"))
        parts = [f"{rule} {decided[rule]}/{n}" for rule, n in sorted(by_rule.items())]
        by_kind = Counter(r.rule for r in self.shown if r.decision == BY_HAND)
        reports = f"; to port by hand: {', '.join(f'{n} {k}' for k, n in sorted(by_kind.items()))}" if by_kind else ""
        total = len(findings)
        all_findings = sum(1 for r in self.rows if r.decision != BY_HAND)
        head = f"{total} finding(s) shown of {all_findings}, decided per rule: " if query else \
            f"{total} finding(s), decided per rule: "
        self.query_one("#overview-summary", Static).update(head + (" · ".join(parts) or "none") + reports + self.note)

    @on(Input.Changed, "#overview-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value.strip())

    @on(Input.Submitted, "#overview-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        key = str(event.row_key.value or "")
        rel, _, fid = key.partition("\0")
        self.dismiss((rel, fid))

    def on_key(self, event: events.Key) -> None:
        """Typing while the table has the focus filters: the text goes to the filter box (it was dropped
        until `/` was pressed)."""
        box = self.query_one("#overview-filter", Input)
        if box.has_focus or not event.is_printable or not event.character or event.character == "/":
            return
        event.stop()
        event.prevent_default()
        box.focus()
        box.insert_text_at_cursor(event.character)

    def action_focus_filter(self) -> None:
        self.query_one("#overview-filter", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)


def _word(decision: str) -> str:
    return {"pending": "undecided"}.get(decision, decision)
