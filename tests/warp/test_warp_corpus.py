"""Every rule fires on its corpus kernel and stays silent on its look-alike (precision and recall)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.engine.model import FixStyle
from hipport.engine.source import read_source
from hipport.engine.warp import analyze

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "warp"
FIRE = sorted(CORPUS.glob("W64-*_fire.*"))
NOFIRE = sorted(CORPUS.glob("W64-*_nofire.*"))


def test_corpus_covers_every_rule_both_ways() -> None:
    assert {p.name[:6] for p in FIRE} == {f"W64-{i:02d}" for i in range(1, 25)}
    assert {p.name[:6] for p in NOFIRE} == {f"W64-{i:02d}" for i in range(1, 25)}


# rule -> (line, text at the finding, (original, wave64 replacement) of its first edit or None, tier)
EXPECT: dict[str, tuple[int, str, tuple[str, str] | None, str]] = {
    "W64-01": (9, "31", ("31", "63"), "safe"),
    "W64-02": (9, "32", ("32", "64"), "safe"),
    "W64-03": (8, "0xffffffff", ("0xffffffff", "0xffffffffffffffffull"), "safe"),
    "W64-04": (7, "unsigned", ("unsigned", "unsigned long long"), "safe"),
    "W64-05": (9, "1u", ("1u", "1ull"), "safe"),
    "W64-06": (7, "16", ("16", "32"), "safe"),
    "W64-07": (9, "32", ("32", "64"), "safe"),
    "W64-08": (5, "32", ("32", "64"), "safe"),
    "W64-09": (5, "warpSize", ("warpSize", "64"), "safe"),
    # safe: `threads` only sizes the launch and row_sums reads threadIdx.x/blockDim.x only through warpSize
    "W64-10": (26, "32", ("32", "64"), "safe"),
    "W64-11": (14, "32", ("32", "64"), "safe"),
    "W64-12": (12, "32", None, "review"),
    "W64-13": (11, "32", None, "review"),
    "W64-14": (10, "16", ("", "__syncwarp();\n  if (lane < 32) s[t] += s[t + 32];\n  __syncwarp();\n  "), "safe"),
    "W64-15": (7, "asm", ('asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane))', "lane = __lane_id()"), "safe"),
    "W64-16": (6, "0xffffffff", ("0xffffffff", "0xffffffffffffffffull"), "safe"),
    "W64-17": (12, "31", ("31", "63"), "safe"),
    "W64-18": (9, "32", ("32", "64"), "safe"),
    "W64-19": (5, "4", (", 4", ""), "safe"),
    "W64-20": (18, "32", ("!= 32", "!= 64"), "safe"),
    "W64-21": (8, "32", ("32", "64"), "safe"),
    "W64-22": (6, "__AMDGCN_WAVEFRONT_SIZE", ("defined(__AMDGCN_WAVEFRONT_SIZE)", "1"), "safe"),
    "W64-23": (8, "32", ("32", "64"), "safe"),
    "W64-24": (13, "y[row] = sum", ("", "if (threadIdx.x % BS == 0) "), "safe"),
}


@pytest.mark.parametrize("path", FIRE, ids=lambda p: p.name)
def test_rule_fires(path: Path) -> None:
    """The rule fires at the line and token it is about, with the exact wave64 edit and tier."""
    src = read_source(path)
    a = analyze(src)
    rule = path.name[:6]
    mine = [f for f in a.findings if f.rule == rule]
    assert mine, {f.rule for f in a.findings}
    f = mine[0]
    line, text, edit, tier = EXPECT[rule]
    assert (f.line, src.text[f.start:f.end]) == (line, text)
    fx = f.fix(FixStyle.WAVE64)
    if edit is None:
        assert fx is None
    else:
        assert fx is not None
        e = fx.edits[0]
        assert (src.text[e.start:e.end], e.replacement) == edit
    (g,) = [g for g in a.groups if g.id == f.group]
    assert g.tier.value == tier
    assert (g.tier_reason != "") == (tier == "review")


@pytest.mark.parametrize("path", NOFIRE, ids=lambda p: p.name)
def test_look_alike_does_not_fire(path: Path) -> None:
    a = analyze(read_source(path))
    assert not a.findings, [(f.id, f.message) for f in a.findings]


def test_tiled_sgemm_with_tile_32_and_block_32x32_has_no_findings() -> None:
    src = read_source(CORPUS / "sgemm_tiled_nofire.cu")
    assert "#define TILE 32" in src.text and "dim3 block(32, 32)" in src.text
    assert analyze(src).findings == ()


@pytest.mark.parametrize("path", FIRE, ids=lambda p: p.name)
def test_findings_point_at_the_original_text(path: Path) -> None:
    src = read_source(path)
    for f in analyze(src).findings:
        assert src.line_col(f.start) == (f.line, f.col)
        assert f.id == f"{f.rule}:{f.line}:{f.col}"
        assert src.text[f.start:f.end].strip()
