"""The findings panel: the finding under the cursor, its rule and explanation, and the proposed fix
in the chosen style shown as its own small diff."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

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


class FindingPanel(VerticalScroll):
    """Shows one finding; empty text when the file has none."""

    DEFAULT_CSS = """
    FindingPanel { height: 30%; min-height: 5; max-height: 14; }
    FindingPanel > Static { width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: PanelData | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="finding-body")

    def show(self, data: PanelData | None, empty_message: str = "No warp findings in this file.") -> None:
        self.data = data
        body = self.query_one("#finding-body", Static)
        if data is None:
            self.border_title = "Finding"
            body.update(Content(empty_message))
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
                Content.assemble(("Fix ", "bold"), (f"[{data.style}]", "bold $text-accent"), " ",
                                 (f"[{badge}]", f"bold $text-{colour}"), f" {data.fix_summary}")
            )
            if data.tier == FixTier.REVIEW:
                parts.append(Content.styled(f"Review fix: {data.tier_reason}. y will not accept it: read it, "
                                            "then press Y.", f"bold $text-{colour}"))
            edits = data.group_edits or data.fix_edits
            for sign, line in fix_preview(data.source_text, edits):
                style = {"-": "$text-error", "+": "$text-success"}.get(sign, "$text-muted")
                parts.append(Content.styled(f"{sign} {line}", style))
        else:
            parts.append(Content.styled(f"No automatic {data.style} fix: this needs a person.", "italic"))
        body.update(Content("\n").join(parts))
