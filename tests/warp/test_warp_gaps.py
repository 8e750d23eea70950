"""Issue 9's last two "Missed" forms, pinned by exact findings, fixes, tiers and reasons:

1. two 32-lane ballots joined into one 64-bit word (`(unsigned long long)hi << 32 | lo`): reported in the
   ballot's own fix group, no automatic rewrite, the group REVIEW; `x << 32` on other values is not flagged;
2. a header's warp-size constant as seen from the other files that include it (engine/warp/project.py).

Outputs that `port`/`convert` write are compiled with Debian's hipcc for gfx90a where it is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.engine.model import FixStyle, FixTier
from hipport.engine.pipeline import port
from hipport.engine.source import Source
from hipport.engine.translate import TranslateOptions
from hipport.engine.warp import WarpOptions, analyze

HIPCC = pytest.mark.skipif(shutil.which("hipcc") is None, reason="Debian's hipcc is not installed")

# the form of issue 9: each 32-lane warp's leader keeps its ballot in a per-warp slot, then one thread
# joins the slots of two warps into one 64-bit word
JOIN = """#include <cstdint>
__global__ void join(const int* in, unsigned long long* out) {
    __shared__ unsigned halves[64];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned b = __ballot_sync(0xffffffffu, in[threadIdx.x] > 0);
    if (lane == 0) halves[warp] = b;
    __syncthreads();
    if (threadIdx.x < 32 && (threadIdx.x & 1) == 0) {
        unsigned long long word = (unsigned long long)halves[threadIdx.x + 1] << 32 | halves[threadIdx.x];
        out[threadIdx.x / 2] = word;
    }
}
"""

JOIN_REASON = ("`halves[threadIdx.x + 1] << 32` at k.cu:9 joins two 32-lane ballots into one 64-bit word; "
               "on a 64-lane wavefront one ballot is that word: rewrite the join by hand")


ROCM7_HEADER = Path(__file__).resolve().parents[1] / "include" / "hip_warp_sync_rocm62.h"


def hipcc(path: Path, *extra: str) -> tuple[bool, str]:
    env = dict(os.environ, HIP_PLATFORM="amd")
    p = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-c", *extra, str(path), "-o", str(path.with_suffix(".o"))],
                       capture_output=True, text=True, env=env, timeout=600)
    return p.returncode == 0, (p.stdout + p.stderr)[-800:]


def test_ballot_join_is_reported_in_the_ballots_group_and_holds_it_for_review() -> None:
    src = Source.from_text(JOIN, "k.cu")
    a = analyze(src)
    got = [(f.id, src.text[f.start:f.end], f.group) for f in a.findings]
    assert got == [
        ("W64-01:4:30", "32", "group:W64-01:4:30"),
        ("W64-02:4:55", "32", "group:W64-01:4:30"),
        ("W64-04:5:5", "unsigned", "group:W64-04:5:5"),
        ("W64-03:5:32", "0xffffffffu", "group:W64-04:5:5"),
        ("W64-04:9:79", "<< 32", "group:W64-04:5:5"),  # the join, with the ballot it joins
    ]
    join = a.findings[-1]
    assert join.fixes == ()  # no automatic rewrite: the right one changes slots, their count and the join
    assert join.message == (
        "Two 32-lane ballots joined into one 64-bit word (`halves[threadIdx.x + 1] << 32`): on a 64-lane "
        "wavefront one ballot already holds all 64 lanes, so the shift drops its upper half and the word mixes "
        "two wavefronts. No automatic fix: the ballots, the slots that keep them and this join change together.")
    tiers = {g.id: (g.tier, g.tier_reason) for g in a.groups}
    assert tiers == {"group:W64-01:4:30": (FixTier.SAFE, ""),
                     "group:W64-04:5:5": (FixTier.REVIEW, JOIN_REASON)}


def test_fixes_all_never_applies_half_of_a_ballot_join() -> None:
    src = Source.from_text(JOIN, "k.cu")
    w = port(src, fixes="all", style=FixStyle.WAVE64).text
    # the lane/warp-id group is SAFE and applied; the ballot's group (widening + mask) is held whole
    assert "int lane = threadIdx.x % 64, warp = threadIdx.x / 64;" in w
    assert "    unsigned b = __ballot_sync(0xffffffffu, in[threadIdx.x] > 0);" in w
    # with review fixes: the ballot is widened, the join itself is left for a person (never rewritten)
    r = port(src, fixes="all", style=FixStyle.WAVE64, allow_review=True).text
    assert "    unsigned long long b = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] > 0);" in r
    assert "(unsigned long long)halves[threadIdx.x + 1] << 32 | halves[threadIdx.x];" in r


def test_a_join_of_two_ballot_calls_is_reported_too() -> None:
    text = ("__global__ void two(const int* x, unsigned long long* o) {\n"
            "  unsigned long long w = (unsigned long long)__ballot_sync(0xffffffffffffffffull, x[threadIdx.x] > 1)"
            " << 32 | __ballot_sync(0xffffffffffffffffull, x[threadIdx.x] > 0);\n"
            "  o[threadIdx.x] = w;\n}\n")
    src = Source.from_text(text, "k.cu")
    a = analyze(src)
    assert [(f.id, src.text[f.start:f.end]) for f in a.findings] == [("W64-04:2:103", "<< 32")]
    (g,) = a.groups
    assert g.tier == FixTier.REVIEW and g.tier_reason.startswith(
        "`__ballot_sync(0xffffffffffffffffull, x[threadIdx.x] > 1) << 32` at k.cu:2 joins two 32-lane ballots")


def test_shift_by_32_of_values_not_from_a_ballot_is_not_flagged() -> None:
    # 64-bit words built from plain data, next to a ballot that is never joined
    text = ("__global__ void pack(const unsigned* in, unsigned long long* out, int n) {\n"
            "  unsigned long long b = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] > 0);\n"
            "  __shared__ unsigned slots[64];\n"
            "  slots[threadIdx.x % 64] = in[threadIdx.x];\n"
            "  unsigned long long w = (unsigned long long)in[2 * threadIdx.x + 1] << 32 | in[2 * threadIdx.x];\n"
            "  unsigned long long s = (unsigned long long)slots[threadIdx.x] << 32 | (unsigned)n;\n"
            "  out[threadIdx.x] = w + s + (b << 1) + ((unsigned long long)n << 32);\n}\n")
    assert analyze(Source.from_text(text, "k.cu")).findings == ()


@HIPCC
def test_ballot_join_outputs_compile_with_hipcc(tmp_path: Path) -> None:
    """ROCm 5.2 target (hipport's *_sync shims) with the held group and with review fixes applied; ROCm 7.0
    target (64-bit-mask header) with review fixes applied: held, the 32-bit mask is ROCm 7's compile error."""
    src = Source.from_text(JOIN, "k.cu")
    for style in FixStyle:
        for rocm, review, extra in (((5, 2), False, ()), ((5, 2), True, ()),
                                    ((7, 0), True, ("-include", str(ROCM7_HEADER)))):
            out = tmp_path / f"join.{style.value}.{rocm[0]}.{int(review)}.hip"
            out.write_text(port(src, TranslateOptions(rocm=rocm), fixes="all", style=style, allow_review=review,
                                warp_options=WarpOptions(rocm=rocm)).text)
            ok, log = hipcc(out, *extra)
            assert ok, (out.name, log)
