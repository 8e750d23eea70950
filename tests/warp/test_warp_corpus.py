"""Every rule fires on its corpus kernel and stays silent on its look-alike (precision and recall)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.engine.source import read_source
from hipport.engine.warp import analyze

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "warp"
FIRE = sorted(CORPUS.glob("W64-*_fire.*"))
NOFIRE = sorted(CORPUS.glob("W64-*_nofire.*"))


def test_corpus_covers_every_rule_both_ways() -> None:
    assert {p.name[:6] for p in FIRE} == {f"W64-{i:02d}" for i in range(1, 24)}
    assert {p.name[:6] for p in NOFIRE} == {f"W64-{i:02d}" for i in range(1, 24)}


@pytest.mark.parametrize("path", FIRE, ids=lambda p: p.name)
def test_rule_fires(path: Path) -> None:
    a = analyze(read_source(path))
    rules = {f.rule for f in a.findings}
    assert path.name[:6] in rules, rules


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
