"""The row model the side-by-side diff view paints: CUDA (old) on the left, HIP (new) on the right.

No diff algorithm decides the alignment: it follows from the edits. The original lines an edit touches
(an edit may span or insert newlines) form a block; a block is rendered on its own and its old and new
lines are paired (one to one when the counts agree, else by equal lines, padding the shorter side with
rows whose line number is None). Word-level "changed" spans come straight from the edits' spans.
Lines no edit touches are "same" rows; runs of them away from any change or finding fold into one
"fold" row, indexed by its first original line so the app can expand it (`expanded`).

Row texts carry no line terminator. Span offsets are str offsets into the row's text.
Speed: line tables and rendered blocks are cached per text, so rebuilding the rows of a 10,000-line file
after a decision re-renders only the blocks whose edits changed (see bench/ and tests).
"""

from __future__ import annotations

import bisect
import difflib
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from .edits import Edit, EditConflict, find_conflict, sort_edits

RowKind = Literal["same", "change", "fold"]


class Marked(Protocol):
    """What marks rows: a warp Finding, or a translation report a person acts on (review/types.py ReportItem)."""

    @property
    def id(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Span:
    """[start, end) of a row's text. kind: "changed" (word-level change) or "finding" (a warp finding)."""

    start: int
    end: int
    kind: str


@dataclass(frozen=True, slots=True)
class Row:
    """One painted line of the diff. For kind == "fold": old_no/new_no are the first hidden line numbers,
    `hidden` the number of hidden lines, texts empty; expand it by passing old_no in `expanded`. A fold of
    lines hipport inserted (no old line) has old_no = minus its first new line number."""

    kind: RowKind
    old_no: int | None
    old_text: str
    new_no: int | None
    new_text: str
    old_spans: tuple[Span, ...] = ()
    new_spans: tuple[Span, ...] = ()
    finding_ids: tuple[str, ...] = ()
    hidden: int = 0


_NL = re.compile(r"\r\n|\r|\n")


class LineTable:
    """Where each line of a text starts and where its content (without terminator) ends."""

    __slots__ = ("_blocks", "_lock", "_marks", "ends", "n", "starts", "text")

    def __init__(self, text: str) -> None:
        starts = [0]
        ends: list[int] = []
        if "\r" not in text:  # the common case, done with C-speed split
            pos = 0
            for part in text.split("\n"):
                pos += len(part)
                ends.append(pos)
                pos += 1
                starts.append(pos)
            starts.pop()
            ends.pop()
            if starts[-1] < len(text):
                ends.append(len(text))
            else:
                starts.pop()  # the text ends with a newline (or is empty): no further line
        else:
            for m in _NL.finditer(text):
                ends.append(m.start())
                starts.append(m.end())
            if starts[-1] == len(text):
                starts.pop()  # the text ends with a terminator (or is empty): no further line
            else:
                ends.append(len(text))
        self.text = text
        self.starts = starts
        self.ends = ends
        self.n = len(starts)
        self._blocks: OrderedDict[tuple[int, tuple[Edit, ...]], _Block] = OrderedDict()
        self._lock = threading.Lock()
        # (findings object, its marks per line, finished rows keyed by (line|block, delta))
        self._marks: tuple[object, dict[int, list[tuple[str, int, int]]], dict[object, object]] | None = None

    def marks_for(self, findings: Sequence[Marked]) -> tuple[dict[int, list[tuple[str, int, int]]],
                                                               dict[object, object]]:
        """Finding marks per line, and the row cache that goes with them (reset for new findings)."""
        with self._lock:
            m = self._marks
            if m is not None and m[0] is findings:
                return m[1], m[2]
        marks = _finding_index(self, findings)
        cache: dict[object, object] = {}
        with self._lock:
            self._marks = (findings, marks, cache)
        return marks, cache

    def full_end(self, i: int) -> int:
        """End of line i including its terminator (the virtual line n ends at len(text))."""
        return self.starts[i + 1] if i + 1 < self.n else len(self.text)

    def start(self, i: int) -> int:
        return self.starts[i] if i < self.n else len(self.text)

    def line_of(self, offset: int) -> int:
        """0-based line holding `offset`; offset len(text) after a final terminator is the virtual line n."""
        if offset >= len(self.text):
            # the last line owns its end only when it has no terminator
            if self.n and self.ends[-1] == len(self.text):
                return self.n - 1
            return self.n
        return bisect.bisect_right(self.starts, offset) - 1

    def line(self, i: int) -> str:
        return self.text[self.starts[i] : self.ends[i]]


_TABLES: OrderedDict[str, LineTable] = OrderedDict()
_TABLES_LOCK = threading.Lock()
_MAX_TABLES = 16
_MAX_BLOCKS = 50_000
_MAX_ROWS_CACHED = 400_000


def line_table(text: str) -> LineTable:
    """The (cached) LineTable of `text`."""
    with _TABLES_LOCK:
        t = _TABLES.get(text)
        if t is not None:
            _TABLES.move_to_end(text)
            return t
    t = LineTable(text)
    with _TABLES_LOCK:
        _TABLES[text] = t
        while len(_TABLES) > _MAX_TABLES:
            _TABLES.popitem(last=False)
    return t


def split_lines(text: str) -> list[str]:
    """Lines without terminators, split on \\n, \\r\\n and lone \\r only (as Source.line_col counts)."""
    t = line_table(text)
    return [t.line(i) for i in range(t.n)]


# one rendered row of a block: (old line index | None, new line index within block | None, kind,
# old text, new text, old "changed" spans, new "changed" spans)
_BlockRow = tuple[int | None, int | None, str, str, str, tuple[Span, ...], tuple[Span, ...]]


@dataclass(frozen=True, slots=True, eq=False)  # identity hash: a cheap key for the row cache
class _Block:
    a: int  # first original line (0-based)
    b: int  # last original line, inclusive (may be the virtual line n)
    rows: tuple[_BlockRow, ...]
    new_count: int


def _clip(s: int, e: int, lo: int, hi: int) -> tuple[int, int] | None:
    s2, e2 = max(s, lo), min(e, hi)
    return (s2 - lo, e2 - lo) if s2 < e2 else None


def _render_block(t: LineTable, a: int, b: int, edits: Sequence[Edit]) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """New text of lines a..b with edits applied; old spans (absolute) and new spans (block-relative)."""
    base = t.start(a)
    end = t.full_end(b) if b < t.n else len(t.text)
    out: list[str] = []
    pos = base
    npos = 0
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    for e in edits:
        chunk = t.text[pos : e.start]
        out.append(chunk)
        npos += len(chunk)
        out.append(e.replacement)
        if e.end > e.start:
            old_spans.append((e.start, e.end))
        if e.replacement:
            new_spans.append((npos, npos + len(e.replacement)))
        npos += len(e.replacement)
        pos = e.end
    out.append(t.text[pos:end])
    return "".join(out), old_spans, new_spans


def _new_lines(new: str) -> list[tuple[int, int]]:
    """(content start, content end) of each line of a rendered block."""
    res: list[tuple[int, int]] = []
    pos = 0
    for m in _NL.finditer(new):
        res.append((pos, m.start()))
        pos = m.end()
    if pos < len(new):
        res.append((pos, len(new)))
    return res


def _make_block(t: LineTable, a: int, b: int, edits: tuple[Edit, ...]) -> _Block:
    if a == b < t.n and all(e.end <= t.ends[a] and "\n" not in e.replacement and "\r" not in e.replacement
                            for e in edits):
        blk = _one_line_block(t, a, edits)
        if blk is not None:
            return blk
    new, old_abs, new_rel = _render_block(t, a, b, edits)
    old_idx = list(range(a, min(b, t.n - 1) + 1))
    old_texts = [t.line(i) for i in old_idx]
    old_sp: list[tuple[Span, ...]] = []
    for i in old_idx:
        lo, hi = t.starts[i], t.ends[i]
        old_sp.append(tuple(Span(*c, "changed") for s, e in old_abs if (c := _clip(s, e, lo, hi))))
    nl = _new_lines(new)
    new_texts = [new[s:e] for s, e in nl]
    new_sp = [tuple(Span(*c, "changed") for s, e in new_rel if (c := _clip(s, e, lo, hi))) for lo, hi in nl]
    k, m = len(old_idx), len(nl)
    pairs: list[tuple[int | None, int | None]] = []
    if k == m:
        pairs = [(j, j) for j in range(k)]
    else:
        sm = difflib.SequenceMatcher(None, old_texts, new_texts, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal" or tag == "replace":
                for d in range(max(i2 - i1, j2 - j1)):
                    pairs.append((i1 + d if i1 + d < i2 else None, j1 + d if j1 + d < j2 else None))
            elif tag == "delete":
                pairs.extend((i, None) for i in range(i1, i2))
            else:
                pairs.extend((None, j) for j in range(j1, j2))
    rows: list[_BlockRow] = []
    for oi, nj in pairs:
        ot = old_texts[oi] if oi is not None else ""
        nt = new_texts[nj] if nj is not None else ""
        kind = "same" if oi is not None and nj is not None and ot == nt else "change"
        rows.append((
            old_idx[oi] if oi is not None else None,
            nj,
            kind,
            ot,
            nt,
            old_sp[oi] if oi is not None else (),
            new_sp[nj] if nj is not None else (),
        ))
    return _Block(a, b, tuple(rows), m)


def _one_line_block(t: LineTable, a: int, edits: tuple[Edit, ...]) -> _Block | None:
    """Fast path: edits inside one line's content that add no line break (renames, most fixes).
    None when the line would vanish (a last line without terminator emptied): the general path."""
    base = t.starts[a]
    text = t.text
    out: list[str] = []
    pos = base
    npos = 0
    old_sp: list[Span] = []
    new_sp: list[Span] = []
    for e in edits:
        chunk = text[pos : e.start]
        out.append(chunk)
        npos += len(chunk)
        out.append(e.replacement)
        if e.end > e.start:
            old_sp.append(Span(e.start - base, e.end - base, "changed"))
        if e.replacement:
            new_sp.append(Span(npos, npos + len(e.replacement), "changed"))
        npos += len(e.replacement)
        pos = e.end
    out.append(text[pos : t.ends[a]])
    old_text = text[base : t.ends[a]]
    new_text = "".join(out)
    if not new_text and t.ends[a] == len(text):
        return None
    kind = "same" if old_text == new_text else "change"
    return _Block(a, a, ((a, 0, kind, old_text, new_text, tuple(old_sp), tuple(new_sp)),), 1)


def _ends_line(new: str) -> bool:
    return not new or new.endswith(("\n", "\r"))


def _blocks(t: LineTable, edits: Sequence[Edit], checked: bool = False) -> list[_Block]:
    ordered = sort_edits(edits)
    if not checked:
        conflict = find_conflict(ordered)
        if conflict:
            raise EditConflict(*conflict)
    if ordered and ordered[-1].end > len(t.text):
        raise ValueError(f"edit ends at {ordered[-1].end}, beyond the text's {len(t.text)} characters")
    return [_cached_block(t, a, b, tuple(ordered[i:j])) for a, b, i, j in _spans(t, ordered)]


def _spans(t: LineTable, ordered: Sequence[Edit]) -> list[tuple[int, int, int, int]]:
    """The line spans of the diff's blocks over the sorted edits: (first line, last line, first edit, end
    edit), each a run of edits whose lines touch, widened to whole rendered lines."""
    spans: list[tuple[int, int, int, int]] = []
    i = 0
    while i < len(ordered):
        e = ordered[i]
        a = t.line_of(e.start)
        b = t.line_of(e.end - 1) if e.end > e.start else a
        j = i + 1
        while True:
            while j < len(ordered) and t.line_of(ordered[j].start) <= b:
                ej = ordered[j]
                b = max(b, t.line_of(ej.end - 1) if ej.end > ej.start else t.line_of(ej.start))
                j += 1
            # A block must start and end on whole rendered lines. If an edit ate the final terminator, or
            # a "\r" and a "\n" would meet across the block's edge to form one CRLF, take the neighbour in.
            # Only edits at the block's first offset or in its last terminator can cause either.
            first_at_start = ordered[i].start == t.start(a) and a > 0 and t.text[t.start(a) - 1] == "\r"
            last_in_term = b < t.n and ordered[j - 1].end > t.ends[b]
            if not (first_at_start or last_in_term):
                break
            rendered = _render_block(t, a, b, ordered[i:j])[0]
            if first_at_start and not rendered and b < t.n - 1 and t.text[t.full_end(b)] == "\n":
                b += 1  # the block vanished: what follows it meets the "\r" before it
                continue
            if first_at_start and rendered.startswith("\n"):
                a -= 1
                if spans and spans[-1][1] >= a:
                    a, _, i, _ = spans.pop()
                continue
            if b < t.n - 1 and (not _ends_line(rendered) or (
                    rendered.endswith("\r") and t.text[t.full_end(b)] == "\n")):
                b += 1
                continue
            break
        spans.append((a, b, i, j))
        i = j
    return spans


def _cached_block(t: LineTable, a: int, b: int, edits: tuple[Edit, ...]) -> _Block:
    """The block of lines a..b under `edits`, from the table's cache (least recently used dropped)."""
    key = (a, edits)
    with t._lock:
        blk = t._blocks.get(key)
        if blk is not None:
            t._blocks.move_to_end(key)
    if blk is None:
        blk = _make_block(t, a, b, edits)
        with t._lock:
            t._blocks[key] = blk
            while len(t._blocks) > _MAX_BLOCKS:
                t._blocks.popitem(last=False)
    return blk


def _finding_index(t: LineTable, findings: Sequence[Marked]) -> dict[int, list[tuple[str, int, int]]]:
    """line -> [(finding id, span start, span end)] in line-local offsets (empty span when none)."""
    by_line: dict[int, list[tuple[str, int, int]]] = {}
    if t.n == 0:
        return by_line
    for f in findings:
        # a finding at the very end of a text that ends with a newline marks the last line
        first = min(t.line_of(f.start), t.n - 1)
        last = min(t.line_of(f.end - 1) if f.end > f.start else first, t.n - 1)
        for i in range(first, last + 1):
            c = _clip(f.start, f.end, t.starts[i], t.ends[i]) or (0, 0)
            by_line.setdefault(i, []).append((f.id, c[0], c[1]))
    return by_line


def _with_findings(spans: tuple[Span, ...], marks: list[tuple[str, int, int]] | None) -> tuple[Span, ...]:
    if not marks:
        return spans
    extra = tuple(Span(s, e, "finding") for _, s, e in marks if e > s)
    return tuple(sorted(spans + extra, key=lambda sp: (sp.start, sp.end, sp.kind)))


def build_rows(
    source_text: str,
    edits: Sequence[Edit],
    findings: Sequence[Marked] = (),
    context: int = 3,
    expanded: frozenset[int] = frozenset(),
    *,
    checked: bool = False,
) -> list[Row]:
    """Rows for the side-by-side view of `source_text` rendered with `edits`.

    `edits`: everything that makes the right column (translation edits + accepted fix edits); raises
    EditConflict when two overlap (`checked=True`: the caller already knows they do not). `findings`
    mark the rows (finding_ids, "finding" spans on the old side, and on the new side of unchanged rows)
    and keep their lines out of folds. `context`: unchanged lines kept around each change or finding.
    `expanded`: old_no of folds to show in full. Runs of one hidden line are shown rather than folded.

    Cheap to call again after a decision: line tables, rendered blocks and finished rows are cached
    per text (and per `findings` object: pass the same sequence again to reuse its marks).
    """
    t = line_table(source_text)
    blocks = _blocks(t, edits, checked)
    marks, cache = t.marks_for(findings)
    n = t.n
    # which unchanged lines are shown: within `context` of a block line or a finding line
    shown = bytearray(n + 1)
    for a, b in [(blk.a, min(blk.b, n - 1)) for blk in blocks] + [(i, i) for i in marks]:
        lo, hi = max(0, a - context), min(n - 1, b + context)
        if lo <= hi:
            shown[lo : hi + 1] = b"\x01" * (hi - lo + 1)
    rows: list[Row] = []
    add = rows.append
    extend = rows.extend
    delta = 0  # new line number - old line number, for lines after the blocks seen so far

    def same_row(i: int) -> Row:
        key = (i, delta)
        r = cache.get(key)
        if r is None:
            text = t.line(i)
            mk = marks.get(i)
            sp = _with_findings((), mk)
            r = Row("same", i + 1, text, i + 1 + delta, text, sp, sp, tuple(m[0] for m in mk) if mk else ())
            cache[key] = r
        return r  # type: ignore[return-value]

    def same_rows(lo: int, hi: int) -> None:
        """Unchanged lines lo..hi-1 (0-based), folding hidden runs."""
        i = lo
        while i < hi:
            if shown[i]:
                add(same_row(i))
                i += 1
                continue
            j = shown.find(1, i, hi)
            j = hi if j < 0 else j
            if j - i >= 2 and (i + 1) not in expanded:
                add(Row("fold", i + 1, "", i + 1 + delta, "", hidden=j - i))
            else:
                for k in range(i, j):
                    add(same_row(k))
            i = j

    pos = 0
    for blk in blocks:
        same_rows(pos, blk.a)
        bkey = (blk, delta)
        cached = cache.get(bkey)
        if cached is None:
            cached = _block_rows(blk, blk.a + delta, marks)
            cache[bkey] = cached
        extend(_fold_insertions(cached, expanded))  # type: ignore[arg-type]
        old_count = min(blk.b, n - 1) - blk.a + 1 if blk.a < n else 0
        delta += blk.new_count - old_count
        pos = min(blk.b, n - 1) + 1 if blk.a < n else n
    same_rows(pos, n)
    if len(cache) > _MAX_ROWS_CACHED:
        cache.clear()
    return rows


# An inserted run of at least this many lines (the logical-warp helpers, shims) is shown as one fold row
FOLD_INSERTED = 8


def _fold_insertions(rows: Sequence[Row], expanded: frozenset[int]) -> Sequence[Row]:
    """Runs of FOLD_INSERTED or more lines that exist only on the HIP side (hipport's helpers) as one
    "fold" row, keyed for `expanded` by minus its first new line number (old_no is that key, negative)."""
    if len(rows) < FOLD_INSERTED:
        return rows
    out: list[Row] = []
    i = 0
    while i < len(rows):
        j = i
        while j < len(rows) and rows[j].old_no is None and rows[j].new_no is not None and not rows[j].finding_ids:
            j += 1
        if j - i >= FOLD_INSERTED and -(rows[i].new_no or 0) not in expanded:
            out.append(Row("fold", -(rows[i].new_no or 0), "", rows[i].new_no, "", hidden=j - i))
            i = j
        elif j > i:
            out.extend(rows[i:j])
            i = j
        else:
            out.append(rows[i])
            i += 1
    return out


def _block_rows(blk: _Block, new_base: int, marks: dict[int, list[tuple[str, int, int]]]) -> tuple[Row, ...]:
    """The rows of one block whose first new line has 0-based index `new_base`."""
    out = []
    for oi, nj, kind, ot, nt, osp, nsp in blk.rows:
        mk = marks.get(oi) if oi is not None else None
        out.append(Row(
            "same" if kind == "same" else "change",
            oi + 1 if oi is not None else None,
            ot,
            new_base + nj + 1 if nj is not None else None,
            nt,
            _with_findings(osp, mk),
            _with_findings(nsp, mk) if kind == "same" else nsp,
            tuple(m[0] for m in mk) if mk else (),
        ))
    return tuple(out)


def finding_rows(rows: Sequence[Row]) -> dict[str, int]:
    """finding id -> index of the first row that carries it (for scrolling to a finding)."""
    out: dict[str, int] = {}
    for idx, r in enumerate(rows):
        for fid in r.finding_ids:
            out.setdefault(fid, idx)
    return out
