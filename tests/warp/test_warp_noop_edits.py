"""A warp finding whose fix changes nothing must not exist (issue 9; warpgaps saw W64-05 fire on `1ull << lane`
with the wave64 edit `1ull` -> `1ull`).

1. W64-05 does not fire on a lane bit that already is 64-bit (`1ull`, `1LLU`, `(unsigned long long)1`,
   `(uint64_t)1`); such a bit stored in a 32-bit variable is still reported, the fix widening the variable only.
2. The guard where hits become findings (engine/warp/build.changing_hits, one place): an edit that leaves the
   text unchanged is dropped, and a hit left with no edit is not reported.
3. No rule builds a no-op edit on the warp corpus or on the labelled HeCBench 49175104c dev benchmarks (raw
   analyzer hits, before the guard, so that the guard hides no rule's mistake).

Outputs are compiled with Debian's hipcc for gfx90a where it is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from warp_samples import launched_elsewhere

from hipport.engine.edits import Edit
from hipport.engine.model import FixStyle
from hipport.engine.pipeline import port
from hipport.engine.source import Source
from hipport.engine.translate.options import TranslateOptions
from hipport.engine.warp import WarpOptions, analyze
from hipport.engine.warp.analyzer import analyze_text
from hipport.engine.warp.build import changing_hits, noop_edit
from hipport.engine.warp.hits import Hit

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "warp"
LABELS = ROOT / "tests" / "data" / "warp_labels"
HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
HIPCC = pytest.mark.skipif(shutil.which("hipcc") is None, reason="Debian's hipcc is not installed")


def _k(body: str) -> str:
    return "__global__ void k(unsigned long long* o) {\n  int lane = __lane_id();\n" + body + "\n}\n"


def _fixes(text: str) -> list[tuple[str, str, list[tuple[str, list[tuple[str, str]]]]]]:
    s = Source.from_text(text, "k.cu")
    return [(f.id, s.text[f.start:f.end],
             [(fx.style.value, [(s.text[e.start:e.end], e.replacement) for e in fx.edits]) for fx in f.fixes])
            for f in analyze(s).findings]


@pytest.mark.parametrize("bit", ["1ull", "1ULL", "1llu", "1LL", "(unsigned long long)1", "(uint64_t)1",
                                 "(long long)1", "(lane_mask_t)1", "(unsigned long long) 1"])
def test_a_lane_bit_that_already_is_64_bit_is_not_flagged(bit: str) -> None:
    assert _fixes(_k(f"  o[0] = {bit} << lane;\n  unsigned long long m = {bit} << (lane + 1);\n  o[1] = m;")) == []


def test_a_64_bit_lane_bit_kept_in_32_bits_widens_the_variable_only() -> None:
    assert _fixes(_k("  unsigned m = 1ull << lane;\n  o[0] = m;")) == [
        ("W64-05:3:3", "unsigned", [("wave64", [("unsigned", "unsigned long long")]),
                                    ("portable", [("unsigned", "lane_mask_t")])])]
    f = analyze(Source.from_text(_k("  unsigned m = 1ull << lane;\n  o[0] = m;"), "k.cu")).findings[0]
    assert f.message.startswith("A 64-bit lane bit stored in 32 bits is 0 for lanes 32-63.")


@pytest.mark.parametrize("bit", ["1u", "1", "1U", "1ul", "(unsigned)1", "(int)1", "(uint32_t)1"])
def test_a_32_bit_lane_bit_is_still_widened(bit: str) -> None:
    text = _k(f"  o[0] = {bit} << lane;")
    lit = "1u" if bit == "1u" else bit.split(")")[-1]
    got = _fixes(text)
    assert len(got) == 1 and got[0][0].startswith("W64-05:3:")
    assert got[0][2] == [("wave64", [(lit, "1ull")]), ("portable", [(lit, "lane_mask_t{1}")])]


def test_guard_drops_noop_edits_and_hits_left_with_none() -> None:
    text = "a = 1ull << lane;"
    noop = Edit(4, 8, "1ull", "W64-05")
    real = Edit(0, 1, "b", "W64-05")
    assert noop_edit(text, noop) and not noop_edit(text, real)
    h = Hit("W64-05", 0, [noop], [Edit(4, 8, "lane_mask_t{1}", "W64-05")], "", "", "m", "k")
    kept = changing_hits(text, [h])
    assert len(kept) == 1 and kept[0].w64 is None and kept[0].port == [Edit(4, 8, "lane_mask_t{1}", "W64-05")]
    assert changing_hits(text, [Hit("W64-05", 0, [noop], [noop], "", "", "m", "k")]) == []
    assert changing_hits(text, [Hit("W64-05", 0, [noop, real], None, "", "", "m", "k")])[0].w64 == [real]
    review_only = Hit("W64-04", 0, None, None, "", "", "m", "k", review="why")
    assert changing_hits(text, [review_only]) == [review_only]


def _noop_edits(path: Path) -> list[str]:
    text = path.read_text(errors="replace")
    out = []
    for rocm in ((5, 2), (7, 0)):
        for h in analyze_text(text, rocm, False).hits:
            for e in (h.w64 or []) + (h.port or []):
                if noop_edit(text, e):
                    out.append(f"{path}:{text.count(chr(10), 0, e.start) + 1} {h.rule} {e.replacement!r}")
    return out


def test_no_rule_builds_a_noop_edit_on_the_warp_corpus() -> None:
    files = sorted(CORPUS.glob("*.cu"))
    assert len(files) >= 40
    assert [x for p in files for x in _noop_edits(p)] == []


@pytest.mark.skipif(not (HECBENCH / "src").is_dir(),
                    reason=f"HeCBench 49175104c not found at {HECBENCH} (set HIPPORT_HECBENCH)")
def test_no_rule_builds_a_noop_edit_on_the_labelled_hecbench_benchmarks() -> None:
    names = [tomllib.loads(p.read_text())["benchmark"] for p in sorted(LABELS.glob("*.toml"))]
    files = [p for n in names for p in sorted((HECBENCH / "src" / f"{n}-cuda").rglob("*"))
             if p.suffix in (".cu", ".cuh", ".h", ".hpp")]
    assert len(files) >= 40
    assert [x for p in files for x in _noop_edits(p)] == []


@HIPCC
def test_lane_bit_outputs_compile_with_hipcc(tmp_path: Path) -> None:
    text = ("#include <cstdint>\n" + _k("  unsigned m = 1ull << lane;\n  o[0] = m | (1u << lane)"
                                        " | ((uint64_t)1 << (lane ^ 1));"))
    src = Source.from_text(text, "k.cu")
    for style in FixStyle:
        for review in (False, True):
            out = tmp_path / f"bit.{style.value}.{int(review)}.hip"
            r = port(src, TranslateOptions(rocm=(5, 2)), fixes="all", style=style, allow_review=review,
                     warp_options=WarpOptions(rocm=(5, 2)))
            out.write_text(r.text)
            if review:  # widened: the 64-bit bit is kept in 64 bits
                assert "1ull << lane" in r.text and "unsigned m" not in r.text
            else:  # k is launched from another file: its rewrite is offered for review only
                assert r.held == {"group:W64-05:4:3": launched_elsewhere("k")} and "unsigned m = 1ull << lane;" in r.text
            p = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-c", str(out), "-o", str(out.with_suffix(".o"))],
                               capture_output=True, text=True, env=dict(os.environ, HIP_PLATFORM="amd"), timeout=600)
            assert p.returncode == 0, (out.name, (p.stdout + p.stderr)[-800:])
