"""Warp analysis on one very long statement (issue 22, item 13): bounded work, the same answers.

The statement walks (where a statement starts and ends, its top-level commas) cost the length of the
statement they cross, and the analysis asks them for each shuffle: 4,000 nested shuffles took 27 s,
8,000 summed ones in a kernel built a copy of the whole statement per chain head (a 300 KB file gave a
150 MB output). The walks are now answered from tables (engine/cxx/brackets.StatementIndex) and the
W64-06 statement copies have a per-file budget, past which a chain head is reported as too complex.

The subprocess timeouts turn a return of the quadratic cost into a failure (before the fix these inputs
took minutes); time and memory per MB are measured in bench/bench_warp_scale.py, not here.
"""

from __future__ import annotations

from pathlib import Path

from adv_util import hipport, no_traceback
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.cxx import brackets

MASK64 = "0xffffffffffffffffull"


def nested_kernel(n: int) -> str:
    call = "v"
    for _ in range(n):
        call = f"__shfl_down_sync(0xffffffff, {call}, 1)"
    return ("__global__ void k(float* out, const float* in) {\n    int lane = threadIdx.x % 32;\n"
            f"    float v = in[threadIdx.x];\n    float s = {call};\n"
            "    if (lane == 0) out[threadIdx.x / 32] = s;\n}\n")


def summed_kernel(n: int) -> str:
    terms = " + ".join(f"__shfl_down_sync(0xffffffff, v, {i % 16 + 1})" for i in range(n))
    return ("__global__ void k(float* out, const float* in) {\n    int lane = threadIdx.x % 32;\n"
            "    float v = in[threadIdx.x];\n    unsigned m = __ballot_sync(0xffffffff, v > 0);\n"
            f"    float s = {terms};\n    if (lane == 0) out[threadIdx.x / 32] = s + m;\n}}\n")


def test_eight_thousand_nested_shuffles_are_converted_in_bounded_time(tmp_path: Path) -> None:
    n = 8000
    (tmp_path / "nest.cu").write_text(nested_kernel(n))
    r = hipport("convert", "--fix-style", "wave64", "--fixes-review", "nest.cu", cwd=tmp_path, timeout=60)  # 64-wide: the role analysis runs
    no_traceback(r)
    assert r.rc == 0, r.err[-2000:]
    assert r.out.count(MASK64) == n and "0xffffffff," not in r.out  # every mask widened


def test_eight_thousand_summed_shuffles_are_bounded_and_reported(tmp_path: Path) -> None:
    """Every 16th term starts an unrolled chain at offset 16: its fix copies the statement (300 KB)."""
    n = 8000
    src = summed_kernel(n)
    (tmp_path / "sum.cu").write_text(src)
    r = hipport("convert", "--fix-style", "wave64", "--fixes-review", "sum.cu", cwd=tmp_path, timeout=60)  # 64-wide: the role analysis runs
    no_traceback(r)
    assert r.rc == 0, r.err[-2000:]
    assert "0xffffffff," not in r.out and "0xffffffff)" not in r.out  # every mask widened all the same
    assert len(r.out) < len(src) * 2 + (1 << 20) + (1 << 20), len(r.out)  # the copies stay within the budget
    s = hipport("scan", "--warp", "sum.cu", cwd=tmp_path, timeout=60)
    no_traceback(s)
    assert "Too complex to fix here" in s.out, s.out[-2000:]


# ------------------------------------------------------------------ the tables agree with the walks

TOKS = st.lists(st.sampled_from(["(", ")", "[", "]", "{", "}", ";", ",", "=", ">>>", "x", "1"]), max_size=60)


def walk_stmt_start(tx: list[str], k: int, lo: int) -> int:
    """Base.stmt_start as it was (the walk)."""
    s = k
    while s > lo and tx[s - 1] not in (";", "{", "}"):
        s -= 1
    return s


def walk_expression_start(tx: list[str], k: int, lo: int) -> int:
    """The first half of Base.stmt_bounds as it was (the walk)."""
    a = k
    depth = 0
    while a > lo:
        x = tx[a - 1]
        if x in (")", "]"):
            depth += 1
        elif x in ("(", "["):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and x in (";", "{", "}"):
            break
        a -= 1
    return a


@settings(max_examples=600, deadline=None, database=None)
@given(TOKS, st.sampled_from([0, 1, 3, 8, 64]), st.data())
def test_statement_index_answers_like_the_walks(toks: list[str], limit: int, data: st.DataObject) -> None:
    """With every walk limit: the tables alone (0), the walks alone (64), and both, switching midway."""
    tx = toks + [""] * 8  # padded as the warp analysis pads its tokens
    index = brackets.StatementIndex(tx, walk_limit=limit)
    m = len(toks)
    for _ in range(8):
        lo = data.draw(st.integers(0, m))
        k = data.draw(st.integers(0, m + 2))
        hi = data.draw(st.integers(0, m + 8))
        stops = data.draw(st.sampled_from([(";",), (";", ","), (">>>",), ("=",), ()]))
        assert index.scan_to(k, hi, stops) == brackets.scan_to(tx, k, hi, stops)
        assert index.stmt_start(k, lo) == walk_stmt_start(tx, k, lo)
        assert index.expression_start(k, lo) == walk_expression_start(tx, k, lo)
        a, b = sorted((lo, hi))
        assert index.split_commas(a, b) == brackets.split_commas(tx, a, b)


def old_use_text(text: str, offset: int) -> str:
    """build._use's line excerpt as it was (slices and strips the whole line for every use)."""
    s = text.rfind("\n", 0, offset) + 1
    e = text.find("\n", offset)
    return text[s:e if e >= 0 else len(text)].strip()[:100]


@settings(max_examples=600, deadline=None, database=None)
@given(st.lists(st.sampled_from(["x", " ", "\t", "\n", "\r", "\r\n", "\x1c", "\u00a0", "y" * 60, " " * 70]),
                max_size=40).map("".join), st.data())
def test_use_excerpt_is_the_stripped_line(text: str, data: st.DataObject) -> None:
    from hipport.engine.source import Source
    from hipport.engine.warp.build import _use

    src = Source.from_text(text)
    offset = data.draw(st.integers(0, max(0, len(src.text) - 1)))
    assert _use(src, offset).text == old_use_text(src.text, offset)
