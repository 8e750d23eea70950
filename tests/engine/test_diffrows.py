"""diffrows: alignment from edits, word spans, folds; hypothesis invariants; speed on 10,000 lines."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.diffrows import FOLD_INSERTED, Row, build_rows, finding_rows, split_lines
from hipport.engine.edits import Edit, apply_edits
from hipport.engine.model import Finding, Severity


def full(rows: list[Row], text: str, edits: list[Edit], findings: tuple[Finding, ...] = (),
         context: int = 3) -> list[Row]:
    """Rows with every fold expanded."""
    folds = frozenset(r.old_no for r in rows if r.kind == "fold" and r.old_no is not None)
    return build_rows(text, edits, findings, context, folds) if folds else rows


def finding(fid: str, start: int, end: int) -> Finding:
    return Finding(fid, "W64-01", Severity.WRONG_RESULT, start, end, 1, 1, "m", fid, ())


def test_rename_pairs_lines_and_marks_words() -> None:
    text = "a\nx = cudaMalloc(p);\nb\n"
    i = text.index("cudaMalloc")
    rows = build_rows(text, [Edit(i, i + 10, "hipMalloc", "api")])
    assert [(r.kind, r.old_no, r.new_no) for r in rows] == [("same", 1, 1), ("change", 2, 2), ("same", 3, 3)]
    r = rows[1]
    assert (r.old_text, r.new_text) == ("x = cudaMalloc(p);", "x = hipMalloc(p);")
    assert [(s.start, s.end, s.kind) for s in r.old_spans] == [(4, 14, "changed")]
    assert [(s.start, s.end, s.kind) for s in r.new_spans] == [(4, 13, "changed")]


def test_inserted_lines_pad_the_old_side() -> None:
    text = "int a;\nint b;\n"
    rows = build_rows(text, [Edit(7, 7, "typedef T;\n", "W64"), Edit(0, 0, "#include <h>\n", "inc")])
    assert [(r.kind, r.old_no, r.old_text, r.new_no, r.new_text) for r in rows] == [
        ("change", None, "", 1, "#include <h>"),
        ("same", 1, "int a;", 2, "int a;"),
        ("change", None, "", 3, "typedef T;"),
        ("same", 2, "int b;", 4, "int b;"),
    ]


def test_deleted_line_pads_the_new_side_and_numbers_shift() -> None:
    text = "".join(f"l{i}\n" for i in range(1, 11))
    s = text.index("l3")
    rows = build_rows(text, [Edit(s, s + 3, "", "del")], context=1)
    assert [(r.kind, r.old_no, r.new_no, r.hidden) for r in rows] == [
        ("same", 1, 1, 0), ("same", 2, 2, 0), ("change", 3, None, 0), ("same", 4, 3, 0), ("fold", 5, 4, 6),
    ]


def test_edit_eating_a_newline_joins_lines_in_one_block() -> None:
    text = "a\nb\nc\nd\n"
    rows = build_rows(text, [Edit(1, 2, " ", "join")])  # "a b"
    assert [(r.kind, r.old_no, r.old_text, r.new_no, r.new_text) for r in rows] == [
        ("change", 1, "a", 1, "a b"), ("change", 2, "b", None, ""), ("same", 3, "c", 2, "c"), ("same", 4, "d", 3, "d"),
    ]


def test_folds_and_expansion() -> None:
    text = "".join(f"line {i}\n" for i in range(1, 101))
    s = text.index("line 50")
    rows = build_rows(text, [Edit(s, s + 4, "LINE", "x")], context=2)
    assert [(r.kind, r.old_no, r.hidden) for r in rows] == [
        ("fold", 1, 47), ("same", 48, 0), ("same", 49, 0), ("change", 50, 0), ("same", 51, 0), ("same", 52, 0),
        ("fold", 53, 48),
    ]
    rows2 = build_rows(text, [Edit(s, s + 4, "LINE", "x")], context=2, expanded=frozenset({53}))
    assert len(rows2) == 6 + 48 and rows2[-1].old_no == 100


def test_unchanged_file_is_one_fold_and_tiny_runs_are_shown() -> None:
    rows = build_rows("a\nb\nc\n", [])
    assert [(r.kind, r.hidden) for r in rows] == [("fold", 3)]
    assert [r.kind for r in build_rows("a\n", [])] == ["same"]
    assert build_rows("", []) == []


def test_a_run_of_inserted_lines_is_one_fold_row_keyed_by_minus_its_first_new_line() -> None:
    """hipport's helper block (8+ lines it inserted, no original line) folds into one row; fewer lines
    are shown; expanding the row (its negative key) shows every inserted line."""
    text = "#include <hip/hip_runtime.h>\nint a;\nint b;\n"
    at = text.index("int a;")
    helpers = [f"helper {i};" for i in range(FOLD_INSERTED)]
    edits = [Edit(at, at, "".join(h + "\n" for h in helpers), "logical-warp")]
    rows = build_rows(text, edits, context=5)
    assert [(r.kind, r.old_no, r.new_no, r.hidden, r.old_text, r.new_text) for r in rows] == [
        ("same", 1, 1, 0, "#include <hip/hip_runtime.h>", "#include <hip/hip_runtime.h>"),
        ("fold", -2, 2, FOLD_INSERTED, "", ""),
        ("same", 2, 2 + FOLD_INSERTED, 0, "int a;", "int a;"),
        ("same", 3, 3 + FOLD_INSERTED, 0, "int b;", "int b;"),
    ]
    opened = build_rows(text, edits, context=5, expanded=frozenset({-2}))
    assert [(r.kind, r.old_no, r.new_no, r.new_text) for r in opened[1:1 + FOLD_INSERTED]] == [
        ("change", None, 2 + i, h) for i, h in enumerate(helpers)]
    assert len(opened) == 3 + FOLD_INSERTED and not any(r.kind == "fold" for r in opened)
    # one line fewer is shown as it is
    short = [Edit(at, at, "".join(h + "\n" for h in helpers[1:]), "logical-warp")]
    assert [r.kind for r in build_rows(text, short, context=5)] == ["same"] + ["change"] * (FOLD_INSERTED - 1) + [
        "same", "same"]
    # at the very start of the file, and next to a changed line, the inserted run still folds alone
    first = build_rows(text, [Edit(0, 0, "".join(h + "\n" for h in helpers), "x"), Edit(at, at + 3, "long", "y")],
                       context=5)
    assert [(r.kind, r.old_no, r.new_no, r.hidden) for r in first] == [
        ("fold", -1, 1, FOLD_INSERTED), ("same", 1, 1 + FOLD_INSERTED, 0), ("change", 2, 2 + FOLD_INSERTED, 0),
        ("same", 3, 3 + FOLD_INSERTED, 0)]


def test_findings_mark_rows_and_stay_visible() -> None:
    text = "".join(f"line {i}\n" for i in range(1, 41))
    at = text.index("line 20")
    f = finding("W64-01:20:1", at, at + 4)
    rows = build_rows(text, [], [f], context=1)
    marked = [r for r in rows if r.finding_ids]
    assert len(marked) == 1 and marked[0].old_no == 20 and marked[0].kind == "same"
    assert [(s.start, s.end, s.kind) for s in marked[0].old_spans] == [(0, 4, "finding")]
    assert marked[0].new_spans == marked[0].old_spans
    assert [r.old_no for r in rows if r.kind != "fold"] == [19, 20, 21]
    assert finding_rows(rows) == {"W64-01:20:1": rows.index(marked[0])}


def test_crlf_and_no_final_newline() -> None:
    text = "a\r\nb cuda\r\nc"
    i = text.index("cuda")
    rows = build_rows(text, [Edit(i, i + 4, "hip", "x"), Edit(len(text), len(text), "\r\nd", "y")], context=5)
    assert [(r.old_no, r.old_text, r.new_no, r.new_text) for r in rows] == [
        (1, "a", 1, "a"), (2, "b cuda", 2, "b hip"), (3, "c", 3, "c"), (None, "", 4, "d"),
    ]


def test_append_after_final_newline() -> None:
    rows = build_rows("a\n", [Edit(2, 2, "b\n", "x")])
    assert [(r.kind, r.old_no, r.new_no, r.new_text) for r in rows] == [("same", 1, 1, "a"), ("change", None, 2, "b")]


# ------------------------------------------------------------------------------------------ invariants

ALPHABET = st.sampled_from(["a", "b", " ", "\n", "\n", "\r\n", "\r", "x"])


@st.composite
def texts_and_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    text = "".join(draw(st.lists(ALPHABET, max_size=60)))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=12))))
    edits: list[Edit] = []
    i = 0
    while i < len(cuts):
        start = cuts[i]
        take_span = i + 1 < len(cuts) and draw(st.booleans())
        end = cuts[i + 1] if take_span else start
        rep = "".join(draw(st.lists(st.sampled_from(["H", "\n", "y", "\r", "\r\n"]), max_size=5)))
        edits.append(Edit(start, end, rep, "t"))
        i += 2 if take_span else 1
    return text, edits


@settings(max_examples=300, deadline=None)
@given(texts_and_edits(), st.integers(0, 3))
def test_columns_reproduce_both_texts(te: tuple[str, list[Edit]], context: int) -> None:
    text, edits = te
    rendered = apply_edits(text, edits)
    rows = build_rows(text, edits, (), context)
    expanded = full(rows, text, edits, (), context)
    old = [(r.old_no, r.old_text) for r in expanded if r.old_no is not None]
    new = [(r.new_no, r.new_text) for r in expanded if r.new_no is not None]
    assert [t for _, t in old] == split_lines(text)
    assert [n for n, _ in old] == list(range(1, len(old) + 1))
    assert [t for _, t in new] == split_lines(rendered)
    assert [n for n, _ in new] == list(range(1, len(new) + 1))
    for r in expanded:
        assert r.kind != "fold"
        if r.kind == "same":
            assert r.old_text == r.new_text and r.old_no is not None and r.new_no is not None
        for sp in r.old_spans:
            assert 0 <= sp.start < sp.end <= len(r.old_text)
        for sp in r.new_spans:
            assert 0 <= sp.start < sp.end <= len(r.new_text)


@settings(max_examples=300, deadline=None)
@given(texts_and_edits(), st.integers(0, 3))
def test_folds_hide_only_unchanged_lines(te: tuple[str, list[Edit]], context: int) -> None:
    text, edits = te
    rows = build_rows(text, edits, (), context)
    old_lines = split_lines(text)
    new_lines = split_lines(apply_edits(text, edits))
    touched = set()
    from hipport.engine.diffrows import line_table

    t = line_table(text)
    for e in edits:
        a = t.line_of(e.start)
        b = t.line_of(e.end - 1) if e.end > e.start else a
        touched.update(range(a + 1, b + 2))
    seen_old: list[int] = []
    for r in rows:
        if r.kind == "fold" and r.old_no is not None and r.old_no < 0:
            # lines the edits inserted (no original line): keyed by minus the first new line
            assert r.new_no == -r.old_no and r.hidden >= FOLD_INSERTED
            opened = build_rows(text, edits, (), context, frozenset({r.old_no}))
            inner = [x for x in opened if x.new_no is not None and r.new_no <= x.new_no < r.new_no + r.hidden]
            assert [(x.kind, x.old_no) for x in inner] == [("change", None)] * r.hidden
            assert [x.new_text for x in inner] == new_lines[r.new_no - 1:r.new_no - 1 + r.hidden]
        elif r.kind == "fold":
            assert r.hidden >= 2 and r.old_no is not None and r.new_no is not None
            for k in range(r.hidden):
                assert r.old_no + k not in touched
                assert old_lines[r.old_no - 1 + k] == new_lines[r.new_no - 1 + k]
            seen_old.extend(range(r.old_no, r.old_no + r.hidden))
        elif r.old_no is not None:
            seen_old.append(r.old_no)
    assert seen_old == list(range(1, len(old_lines) + 1))


@settings(max_examples=200, deadline=None)
@given(texts_and_edits())
def test_changed_spans_cover_every_edited_character(te: tuple[str, list[Edit]]) -> None:
    text, edits = te
    rows = full(build_rows(text, edits, (), 0), text, edits, (), 0)
    old_marked = sum(sp.end - sp.start for r in rows for sp in r.old_spans if sp.kind == "changed")
    new_marked = sum(sp.end - sp.start for r in rows for sp in r.new_spans if sp.kind == "changed")
    t_old = sum(len(text[e.start:e.end].replace("\r", "").replace("\n", "")) for e in edits)
    t_new = sum(len(e.replacement.replace("\r", "").replace("\n", "")) for e in edits)
    assert old_marked == t_old
    assert new_marked == t_new


@settings(max_examples=150, deadline=None)
@given(texts_and_edits(), st.data())
def test_cached_rows_equal_fresh_rows(te: tuple[str, list[Edit]], data: st.DataObject) -> None:
    """Rows built after other edit sets (warm caches) equal rows built from scratch."""
    from hipport.engine import diffrows

    text, edits = te
    n = len(text)
    spans = data.draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, 3)), max_size=4))
    findings = tuple(finding(f"F{i}", s, min(n, s + w)) for i, (s, w) in enumerate(spans))
    subset = [e for e in edits if data.draw(st.booleans())]
    context = data.draw(st.integers(0, 2))
    for es in (edits, subset, [], edits):
        build_rows(text, es, findings, context)
    warm = build_rows(text, subset, findings, context)
    diffrows._TABLES.clear()
    fresh = build_rows(text, subset, findings, context)
    assert warm == fresh
    marked = {fid for r in fresh for fid in r.finding_ids}
    assert marked == {f.id for f in findings if text}  # every finding marks a row (unless text is empty)


# ------------------------------------------------------------------------------------------ speed

def big_file() -> tuple[str, list[Edit], list[Finding]]:
    lines = []
    for i in range(10_000):
        lines.append(f"  v{i} += __shfl_down_sync(0xffffffff, v, 16); cudaMalloc(&p, {i});" if i % 5 == 0
                     else f"  int x{i} = threadIdx.x + {i};")
    text = "\n".join(lines) + "\n"
    edits: list[Edit] = []
    findings: list[Finding] = []
    pos = 0
    for i, ln in enumerate(lines):
        if i % 5 == 0:
            j = ln.index("cudaMalloc")
            edits.append(Edit(pos + j, pos + j + 10, "hipMalloc", "api"))
            k = ln.index("0xffffffff")
            findings.append(finding(f"W64-06:{i + 1}:{k + 1}", pos + k, pos + k + 10))
        pos += len(ln) + 1
    return text, edits, findings


def test_ten_thousand_lines_rebuild_renders_only_the_changed_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """After one decision only the block it touches is rendered again (timings: bench/)."""
    from hipport.engine import diffrows

    text, edits, findings = big_file()
    t0 = time.perf_counter()
    first = build_rows(text, edits, findings)  # fills the caches (once per file)
    cold = time.perf_counter() - t0
    made: list[int] = []
    real = diffrows._make_block
    monkeypatch.setattr(diffrows, "_make_block", lambda t, a, b, es: made.append(a) or real(t, a, b, es))
    f = findings[1000]
    accepted = [*edits, Edit(f.start, f.end, "0xffffffffffffffffull", "W64-06")]
    t0 = time.perf_counter()
    rows = build_rows(text, accepted, findings)
    warm = time.perf_counter() - t0
    assert made == [5000]  # one block: findings[1000] sits on line index 5000 (every 5th line)
    assert len(rows) == len(first)
    changed = [r for r in rows if "0xffffffffffffffffull" in r.new_text]
    assert len(changed) == 1 and changed[0].finding_ids == (f.id,)
    assert build_rows(text, accepted, findings) == rows
    assert warm < max(0.5, cold), f"rebuild {warm * 1000:.0f} ms vs first build {cold * 1000:.0f} ms"
