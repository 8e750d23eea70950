"""Every rule fires on its corpus kernel and stays silent on its look-alike (precision and recall).

Each fixture carries its expectation beside the code, as HIPIFY's tests carry `// CHECK:` lines:
`// EXPECT: none` in a look-alike; in a firing kernel, on the line above the one that must fire,

    // EXPECT: W64-03 tier=safe text="0xffffffff" edit="0xffffffff" -> "0xffffffffffffffffull"

the rule, the tier of its fix group, the text at the finding, and its first wave64 edit (the original
text and its replacement, JSON strings) or `edit=none` where the rule has no wave64 fix. `#` instead of
`//` in Python fixtures.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from hipport.engine.model import FixStyle
from hipport.engine.source import read_source
from hipport.engine.warp import analyze
from hipport.engine.warp.rules import RULES

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "warp"
FIRE = sorted(CORPUS.glob("W64-*_fire.*"))
NOFIRE = sorted(CORPUS.glob("*_nofire.*"))

_EXPECT_COMMENT = re.compile(r"\s*(?://|#) EXPECT: (?P<what>.*)")
_JSON_STRING = r'"(?:[^"\\]|\\.)*"'
_FIRES = re.compile(rf"(?P<rule>W64-\d\d) tier=(?P<tier>safe|review) text=(?P<text>{_JSON_STRING}) "
                    rf"edit=(?:none|(?P<old>{_JSON_STRING}) -> (?P<new>{_JSON_STRING}))")


@dataclass(frozen=True)
class Fires:
    """One `EXPECT: W64-NN ...` line: what the first finding of that rule must be."""
    rule: str
    line: int                     # the line below the EXPECT comment
    text: str                     # the source text the finding spans
    edit: tuple[str, str] | None  # (original text, replacement) of its first wave64 edit; None: no fix
    tier: str


def expectations(path: Path) -> list[Fires | None]:
    """The fixture's EXPECT lines in order, None for `EXPECT: none`; a malformed one fails loudly."""
    out: list[Fires | None] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if "EXPECT:" not in line:
            continue
        comment = _EXPECT_COMMENT.fullmatch(line)
        what = comment["what"] if comment else ""
        fires = _FIRES.fullmatch(what)
        assert what == "none" or fires, f"{path.name}:{number}: malformed EXPECT line: {line.strip()}"
        if fires is None:
            out.append(None)
            continue
        edit = None if fires["old"] is None else (json.loads(fires["old"]), json.loads(fires["new"]))
        out.append(Fires(fires["rule"], number + 1, json.loads(fires["text"]), edit, fires["tier"]))
    return out


def test_corpus_covers_every_rule_both_ways() -> None:
    assert {p.name[:6] for p in FIRE} == set(RULES)
    assert {p.name[:6] for p in NOFIRE if p.name.startswith("W64-")} == set(RULES)


@pytest.mark.parametrize("path", FIRE, ids=lambda p: p.name)
def test_a_firing_kernel_expects_its_own_rule_once(path: Path) -> None:
    (fires,) = expectations(path)
    assert fires is not None and fires.rule == path.name[:6]


@pytest.mark.parametrize("path", NOFIRE, ids=lambda p: p.name)
def test_a_look_alike_expects_nothing(path: Path) -> None:
    assert expectations(path) == [None]


@pytest.mark.parametrize("path", FIRE, ids=lambda p: p.name)
def test_rule_fires(path: Path) -> None:
    """The rule fires at the line and token it is about, with the exact wave64 edit and tier."""
    (want,) = expectations(path)
    assert want is not None
    src = read_source(path)
    a = analyze(src)
    mine = [f for f in a.findings if f.rule == want.rule]
    assert mine, {f.rule for f in a.findings}
    f = mine[0]
    assert (f.line, src.text[f.start:f.end]) == (want.line, want.text)
    fx = f.fix(FixStyle.WAVE64)
    if want.edit is None:
        assert fx is None
    else:
        assert fx is not None
        e = fx.edits[0]
        assert (src.text[e.start:e.end], e.replacement) == want.edit
    (g,) = [g for g in a.groups if g.id == f.group]
    assert g.tier.value == want.tier
    assert (g.tier_reason != "") == (want.tier == "review")


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
