"""Edits on the original text: the one idea at the core of hipport.

Every change (an API rename, an include, a warp fix) is an Edit that names a half-open span
[start, end) of the ORIGINAL text (str offsets into Source.text) and its replacement.
Rendering is a pure function of the original text and a set of edits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace text[start:end] with `replacement`. start == end is an insertion."""

    start: int
    end: int
    replacement: str
    rule: str  # what made it: "api", "include", "launch", "W64-06", ...
    note: str = ""

    def __post_init__(self) -> None:
        if not (0 <= self.start <= self.end):
            raise ValueError(f"bad edit span [{self.start}, {self.end})")

    def overlaps(self, other: Edit) -> bool:
        """Two edits conflict if their spans share a character, or one inserts strictly inside
        the other's replaced span. Insertions at the same point, or at a span's boundary, do not."""
        if self.start == self.end and other.start == other.end:
            return False
        if self.start == self.end:
            return other.start < self.start < other.end
        if other.start == other.end:
            return self.start < other.start < self.end
        return self.start < other.end and other.start < self.end


class EditConflict(Exception):
    """Two edits overlap: an engine bug, reported instead of silently merged."""

    def __init__(self, a: Edit, b: Edit) -> None:
        super().__init__(
            f"overlapping edits: [{a.start},{a.end}) {a.rule} {a.replacement!r} and "
            f"[{b.start},{b.end}) {b.rule} {b.replacement!r}"
        )
        self.a = a
        self.b = b


def sort_edits(edits: Iterable[Edit]) -> list[Edit]:
    """Order edits for application. Stable: insertions at one point keep their given order."""
    return sorted(edits, key=lambda e: (e.start, e.end))


def find_conflict(edits: Sequence[Edit]) -> tuple[Edit, Edit] | None:
    """Return the first overlapping pair of edits, or None. O(n log n)."""
    ordered = sort_edits(edits)
    reach: Edit | None = None  # the non-empty edit reaching furthest right so far
    for e in ordered:
        if reach is not None and reach.overlaps(e):
            return reach, e
        if e.start != e.end and (reach is None or e.end > reach.end):
            reach = e
    return None


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Render `text` with `edits` applied. Raises EditConflict if two edits overlap."""
    ordered = sort_edits(edits)
    conflict = find_conflict(ordered)
    if conflict:
        raise EditConflict(*conflict)
    out: list[str] = []
    pos = 0
    for e in ordered:
        if e.end > len(text):
            raise ValueError(f"edit [{e.start},{e.end}) outside text of length {len(text)}")
        out.append(text[pos : e.start])
        out.append(e.replacement)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


# \r\n is one newline; a lone \r or \n is one too (matched in C: a 50 MB file takes ~0.3 s, where a
# Python loop over the characters took ~10 s)
_NEWLINE = re.compile(r"\r\n?|\n")


def line_starts(text: str) -> list[int]:
    """Offsets at which each line begins (line 1 is index 0). Handles \\n, \\r\\n and lone \\r."""
    return [0, *(m.end() for m in _NEWLINE.finditer(text))]


def offset_to_line_col(starts: Sequence[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of a str offset, given line_starts()."""
    import bisect

    idx = bisect.bisect_right(starts, offset) - 1
    return idx + 1, offset - starts[idx] + 1
