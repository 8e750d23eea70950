"""The edit model: spans of the original text, overlap detection, rendering."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hipport.engine.edits import (
    Edit,
    EditConflict,
    apply_edits,
    find_conflict,
    line_starts,
    offset_to_line_col,
)


def test_apply_renames_and_inserts_in_order() -> None:
    text = "cudaMalloc(&p, n);"
    edits = [Edit(0, 10, "hipMalloc", "api"), Edit(0, 0, "/*a*/", "x"), Edit(0, 0, "/*b*/", "y")]
    assert apply_edits(text, edits) == "/*a*//*b*/hipMalloc(&p, n);"


def test_overlap_is_reported_not_merged() -> None:
    with pytest.raises(EditConflict) as err:
        apply_edits("abcdef", [Edit(0, 3, "X", "r1"), Edit(2, 4, "Y", "r2")])
    assert "r1" in str(err.value) and "r2" in str(err.value)


def test_insertion_inside_a_replaced_span_conflicts() -> None:
    assert find_conflict([Edit(0, 4, "X", "a"), Edit(2, 2, "+", "b")]) is not None
    # at the boundary it does not
    assert find_conflict([Edit(0, 4, "X", "a"), Edit(4, 4, "+", "b"), Edit(0, 0, "+", "c")]) is None


def test_edit_outside_text_is_an_error() -> None:
    with pytest.raises(ValueError):
        apply_edits("abc", [Edit(2, 5, "x", "r")])
    with pytest.raises(ValueError):
        Edit(3, 2, "x", "r")


def test_line_starts_handle_all_newline_styles() -> None:
    text = "a\nb\r\nc\rd"
    starts = line_starts(text)
    assert starts == [0, 2, 5, 7]
    assert offset_to_line_col(starts, text.index("d")) == (4, 1)
    assert offset_to_line_col(starts, text.index("b")) == (2, 1)


@st.composite
def text_and_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    text = draw(st.text(max_size=60))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    edits = []
    # pair consecutive cut points into disjoint spans (some empty: insertions)
    for a, b in zip(cuts[::2], cuts[1::2], strict=False):
        edits.append(Edit(a, b, draw(st.text(max_size=5)), "p"))
    return text, edits


@given(text_and_edits())
def test_disjoint_edits_render_like_a_manual_splice(case: tuple[str, list[Edit]]) -> None:
    text, edits = case
    # Disjoint by construction, except an insertion exactly inside a span can't happen here.
    assert find_conflict(edits) is None
    out = apply_edits(text, edits)
    expected, pos = [], 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        expected += [text[pos : e.start], e.replacement]
        pos = e.end
    expected.append(text[pos:])
    assert out == "".join(expected)


@given(st.text(max_size=80))
def test_no_edits_is_identity(text: str) -> None:
    assert apply_edits(text, []) == text
