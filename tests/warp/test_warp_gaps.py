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
from warp_samples import launched_elsewhere, logical_helpers

from hipport.engine.model import FixStyle, FixTier
from hipport.engine.pipeline import port
from hipport.engine.source import Source
from hipport.engine.translate.options import TranslateOptions
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

JOIN_LAUNCH = "void run(const int* in, unsigned long long* out) {\n    join<<<1, 64>>>(in, out);\n}\n"

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
    # launched in its file, so the only reason for review is the join
    src = Source.from_text(JOIN + JOIN_LAUNCH, "k.cu")
    held = port(src, fixes="all", style=FixStyle.WAVE64)
    # the lane/warp-id group (SAFE) and the ballot's group (REVIEW) share the kernel: one offer, held whole,
    # so the kernel stays logical warps, its ids and its ballot untouched but for the logical helpers
    assert held.held == {"group:W64-01:4:30": "needs review: " + JOIN_REASON} and held.wide_groups == ()
    w = held.text
    assert "#ifndef HIPPORT_LOGICAL_WARP_DEVICE\n" in w
    assert "int lane = threadIdx.x % 32, warp = threadIdx.x / 32;" in w
    assert "    unsigned b = hipport_ballot_sync(0xffffffffu, in[threadIdx.x] > 0);" in w
    # with review fixes: the whole kernel is 64-wide, the ballot widened, the join itself left for a person
    r = port(src, fixes="all", style=FixStyle.WAVE64, allow_review=True)
    assert r.held == {} and r.wide_groups == ("group:W64-01:4:30",) and logical_helpers(r.text) == []
    assert "int lane = threadIdx.x % 64, warp = threadIdx.x / 64;" in r.text
    assert "    unsigned long long b = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] > 0);" in r.text
    assert "(unsigned long long)halves[threadIdx.x + 1] << 32 | halves[threadIdx.x];" in r.text


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


# ------------------------------------------------ 1b. the other spellings of a join: `lane == 32`, `(lane + d) > 31`

# a 64-thread group of two 32-lane warps: the upper warp's first lane (lane 32) keeps its ballot in the upper slot
PICK_EQ = """__global__ void pick(const int* in, unsigned long long* out) {
    __shared__ unsigned halves[2];
    int lane = threadIdx.x % 64;
    unsigned b = __ballot_sync(0xffffffffu, in[threadIdx.x] > 0);
    if (lane == 0) halves[0] = b;
    if (lane == 32) { halves[1] = b; }
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = halves[0] ^ halves[1];
}
"""

# a neighbour d lanes up: past lane 31 it lies in the next warp's ballot
PICK_GT = """__global__ void neighbour(const int* in, int* out, int d) {
    __shared__ unsigned halves[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    unsigned b = __ballot_sync(0xffffffffu, in[threadIdx.x] > 0);
    if (lane == 0) halves[warp] = b;
    __syncthreads();
    out[threadIdx.x] = (lane + d) > 31 ? (halves[warp + 1] >> (lane + d - 32)) & 1 : (b >> (lane + d)) & 1;
}
"""

PICK_MSG = ("Two 32-lane ballots joined into one 64-bit word (`{}` picks the upper half): on a 64-lane wavefront "
            "one ballot already holds all 64 lanes, so no lane of a wavefront belongs to another ballot. No "
            "automatic fix: the ballots, the slots that keep them and this test change together.")


def test_lane_equal_32_picking_the_upper_ballot_is_reported_in_the_ballots_group() -> None:
    src = Source.from_text(PICK_EQ, "k.cu")
    a = analyze(src)
    assert [(f.id, src.text[f.start:f.end], f.group) for f in a.findings] == [
        ("W64-04:4:5", "unsigned", "group:W64-04:4:5"),
        ("W64-03:4:32", "0xffffffffu", "group:W64-04:4:5"),
        ("W64-04:6:14", "== 32", "group:W64-04:4:5"),
    ]
    pick = a.findings[-1]
    assert pick.fixes == () and pick.message == PICK_MSG.format("lane == 32")
    assert [(g.id, g.tier, g.tier_reason) for g in a.groups] == [
        ("group:W64-04:4:5", FixTier.REVIEW,
         "`lane == 32` at k.cu:6 picks the upper half of a 64-bit word joined from two 32-lane ballots; on a "
         "64-lane wavefront one ballot is that word: rewrite the join by hand")]


def test_lane_plus_offset_past_31_reading_the_next_ballot_is_reported_in_the_ballots_group() -> None:
    src = Source.from_text(PICK_GT, "k.cu")
    a = analyze(src)
    assert [(f.id, src.text[f.start:f.end], f.group) for f in a.findings] == [
        ("W64-01:3:30", "31", "group:W64-01:3:30"),
        ("W64-02:3:55", "32", "group:W64-01:3:30"),
        ("W64-04:4:5", "unsigned", "group:W64-04:4:5"),
        ("W64-03:4:32", "0xffffffffu", "group:W64-04:4:5"),
        ("W64-04:7:35", "> 31", "group:W64-04:4:5"),
    ]
    assert a.findings[-1].fixes == () and a.findings[-1].message == PICK_MSG.format("(lane + d) > 31")
    assert [(g.id, g.tier, g.tier_reason) for g in a.groups] == [
        ("group:W64-01:3:30", FixTier.SAFE, ""),
        ("group:W64-04:4:5", FixTier.REVIEW,
         "`(lane + d) > 31` at k.cu:7 picks the upper half of a 64-bit word joined from two 32-lane ballots; on "
         "a 64-lane wavefront one ballot is that word: rewrite the join by hand")]
    # launched in its file: the SAFE lane group and the REVIEW ballot group share the kernel, one offer held
    # whole for the pick's reason, and the kernel stays logical warps
    launched = Source.from_text(PICK_GT + "void run(const int* in, int* out) {\n    neighbour<<<1, 64>>>(in, out, 1);\n}\n",
                                "k.cu")
    held = port(launched, fixes="all", style=FixStyle.WAVE64)
    assert held.held == {"group:W64-01:3:30": "needs review: " + a.groups[1].tier_reason} and held.wide_groups == ()
    assert "int lane = threadIdx.x & 31, warp = threadIdx.x / 32;" in held.text
    assert "    unsigned b = hipport_ballot_sync(0xffffffffu, in[threadIdx.x] > 0);" in held.text
    r = port(launched, fixes="all", style=FixStyle.WAVE64, allow_review=True)
    assert r.wide_groups == ("group:W64-01:3:30",) and logical_helpers(r.text) == []
    assert "int lane = threadIdx.x & 63, warp = threadIdx.x / 64;" in r.text
    assert "    unsigned long long b = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] > 0);" in r.text
    assert "(lane + d) > 31 ?" in r.text  # never rewritten: a person decides


@pytest.mark.parametrize("body", [
    "  if (lane == 32) out[0] = n;",                   # a lane test deciding no ballot
    "  out[1] = lane + n > 31 ? n : 0;",               # ... in a ?: without a ballot
    "  if (n == 32) out[2] = __popcll(b);",            # not a lane
    "  if (lane >= 32) out[3] = n;\n  out[4] = __popcll(b);",
    "  if (lane == 32) out[5] = n; else out[6] = 1;",
    "  if (blockIdx.x * 64 + lane == 32) out[7] = b;",  # a global index, not a lane
])
def test_ordinary_comparisons_with_32_next_to_a_ballot_are_not_flagged(body: str) -> None:
    text = ("__global__ void plain(const int* in, unsigned long long* out, int n) {\n"
            "  int lane = threadIdx.x % 64;\n"
            "  unsigned long long b = __ballot(in[threadIdx.x] > 0);\n"
            f"{body}\n  if (threadIdx.x == 0) out[8] = __popcll(b);\n}}\n")
    assert analyze(Source.from_text(text, "k.cu")).findings == ()


@HIPCC
def test_ballot_half_pick_outputs_compile_with_hipcc(tmp_path: Path) -> None:
    """Review fixes applied: ROCm 5.2 (shims) and ROCm 7.0 (64-bit-mask header). Held: PICK_GT only, whose applied
    lane group brings the ROCm 5.2 *_sync shims; PICK_EQ held is the unfixed port (HIP 5.2 has no __ballot_sync)."""
    for name, text in (("eq", PICK_EQ), ("gt", PICK_GT)):
        src = Source.from_text(text, "k.cu")
        for style in FixStyle:
            for rocm, review, extra in (((5, 2), False, ()), ((5, 2), True, ()),
                                        ((7, 0), True, ("-include", str(ROCM7_HEADER)))):
                if name == "eq" and not review:
                    continue
                out = tmp_path / f"{name}.{style.value}.{rocm[0]}.{int(review)}.hip"
                out.write_text(port(src, TranslateOptions(rocm=rocm), fixes="all", style=style,
                                    allow_review=review, warp_options=WarpOptions(rocm=rocm)).text)
                ok, log = hipcc(out, *extra)
                assert ok, (out.name, log)


# ------------------------------------------------------------------ 2. a header's constant in other files

COMMON_H = """#pragma once
#include <cuda_runtime.h>
#define WARP_SIZE 32
__device__ inline int rank_in_warp(bool p) {
    int lane = threadIdx.x % WARP_SIZE;
    unsigned m = __ballot_sync(0xffffffff, p);
    return __popc(m & ((1u << lane) - 1));
}
"""
A_CU = """#include "common.h"
__global__ void compact(const float* in, float* out, const int* base) {
    bool keep = in[threadIdx.x] > 0.0f;
    int r = rank_in_warp(keep);
    int warp = threadIdx.x / WARP_SIZE;
    if (keep) out[base[warp] + r] = in[threadIdx.x];
}
"""
B_CU = """#include "common.h"
__global__ void count(const float* in, int* n) {
    int r = rank_in_warp(in[blockIdx.x * blockDim.x + threadIdx.x] > 0.0f);
    atomicMax(n, r);
}
void run(const float* in, int* n, int len) {
    count<<<len / (24 * WARP_SIZE), 24 * WARP_SIZE>>>(in, n);
}
"""
# b.cu's other form: WARP_SIZE as the bits of a 32-bit word (understood: the split is SAFE)
B_BITS_CU = """#include "common.h"
__global__ void flags(const float* in, unsigned* words, int* any) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned bit = 1u << i % WARP_SIZE;
    if (in[i] > 0.0f) atomicOr(&words[i >> 5], bit);
    if (__any_sync(0xffffffffffffffffull, in[i] > 0.0f) && threadIdx.x == 0) *any = 1;
}
"""


def _project(root: Path, b: str | None = B_CU) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "common.h").write_text(COMMON_H)
    (root / "a.cu").write_text(A_CU)
    if b is not None:
        (root / "b.cu").write_text(b)
    return root


def _header(root: Path) -> tuple[Source, object]:
    from hipport.engine.source import read_source

    src = read_source(root / "common.h")
    return src, analyze(src)


def test_header_constant_is_raised_when_every_includer_uses_it_as_the_lane_width(tmp_path: Path) -> None:
    src, a = _header(_project(tmp_path, b=None))
    (c,) = [f for f in a.findings if f.rule == "W64-08"]
    assert (c.id, src.text[c.start:c.end]) == ("W64-08:3:19", "32")
    assert c.fixes[0].edits[0].replacement == "64"
    (g,) = [g for g in a.groups if g.id == c.group]
    assert g.tier == FixTier.SAFE


def test_a_launch_use_in_another_includer_splits_the_header_constant_for_review(tmp_path: Path) -> None:
    src, a = _header(_project(tmp_path))
    (c,) = [f for f in a.findings if f.rule == "W64-08"]
    assert (c.id, src.text[c.start:c.end]) == ("W64-08:3:19", "32")
    assert c.message == (
        "Warp-size constant WARP_SIZE is 32 and plays more than one role: 1 of its uses are the hardware lane "
        "width, 2 in files that include it (launch, e.g. b.cu:7). Raising it would break the latter: the fix adds "
        "WARP_SIZE_LANES for the lane uses.")
    (fx,) = [x for x in c.fixes if x.style == FixStyle.WAVE64]
    assert [(src.text[e.start:e.end], e.replacement) for e in fx.edits] == [
        ("", "\n#define WARP_SIZE_LANES 64"), ("WARP_SIZE", "WARP_SIZE_LANES")]
    (g,) = [g for g in a.groups if g.id == c.group]
    assert g.tier == FixTier.REVIEW
    assert g.tier_reason == "WARP_SIZE also sizes the launch or host arithmetic at b.cu:7"


def test_a_bit_word_use_in_another_includer_splits_the_header_constant_safely(tmp_path: Path) -> None:
    _src, a = _header(_project(tmp_path, b=B_BITS_CU))
    (c,) = [f for f in a.findings if f.rule == "W64-08"]
    assert "1 in files that include it (bit-word, e.g. b.cu:4)" in c.message
    (g,) = [g for g in a.groups if g.id == c.group]
    assert (g.tier, g.tier_reason) == (FixTier.SAFE, "")


def test_an_includer_calling_the_headers_ballot_helper_is_in_a_hardware_context(tmp_path: Path) -> None:
    """a.cu's warp id `threadIdx.x / WARP_SIZE` goes with rank_in_warp's 64-lane ballot: a lane use there."""
    from hipport.engine.source import read_source

    src = read_source(_project(tmp_path) / "a.cu")
    a = analyze(src)
    assert [(f.id, src.text[f.start:f.end]) for f in a.findings] == [("W64-08:5:30", "WARP_SIZE")]
    # compact is launched from no file of its own: the warp id is offered for review only
    held = port(src, fixes="all", style=FixStyle.WAVE64)
    assert held.held == {"group:W64-08:5:30": launched_elsewhere("compact")}
    assert "    int warp = threadIdx.x / WARP_SIZE;\n" in held.text
    w = port(src, fixes="all", style=FixStyle.WAVE64, allow_review=True).text
    assert "    int warp = threadIdx.x / 64;\n" in w


def test_the_header_cache_key_covers_the_files_that_include_it(tmp_path: Path) -> None:
    from hipport.engine.analysis_cache import file_key

    root = _project(tmp_path)
    h = root / "common.h"

    def key() -> str:
        return file_key("salt", h, "common.h", h.read_bytes(), True)

    k0 = key()
    (root / "b.cu").write_text(B_BITS_CU + "\n")
    k1 = key()
    (root / "c.cu").write_text(A_CU)
    assert len({k0, k1, key()}) == 3


def _convert(root: Path, out: Path, style: FixStyle, review: bool) -> None:
    from hipport.cli.main import main

    args = [str(root), "-o", str(out), "-q", "--fixes", "all", "--fix-style", style.value]
    assert main(["convert", *args, *(["--fixes-review"] if review else [])]) == 0


@pytest.mark.parametrize("style", list(FixStyle), ids=lambda s: s.value)
def test_convert_edits_the_header_once_and_leaves_the_launch_alone(tmp_path: Path, style: FixStyle) -> None:
    root = _project(tmp_path / "p")
    held, applied = tmp_path / "held", tmp_path / "applied"
    _convert(root, held, style, review=False)
    _convert(root, applied, style, review=True)
    lanes = "64" if style == FixStyle.WAVE64 else "HIPPORT_WS"
    # --fixes all: the split is REVIEW, and the header's mask group shares rank_in_warp with it: one offer,
    # held whole, so the header stays logical warps
    h = (held / "common.h").read_text()
    assert "#define WARP_SIZE 32\n" in h and "WARP_SIZE_LANES" not in h
    assert "    int lane = threadIdx.x % WARP_SIZE;\n" in h
    assert "#ifndef HIPPORT_LOGICAL_WARP_DEVICE\n" in h
    assert "    unsigned m = hipport_ballot_sync(0xffffffff, p);\n" in h
    # --fixes-review: one definition in the header, whatever the number of includers
    h = (applied / "common.h").read_text()
    assert h.count("WARP_SIZE_LANES") == 2
    assert f"#define WARP_SIZE 32\n#define WARP_SIZE_LANES {lanes}\n" in h
    assert "    int lane = threadIdx.x % WARP_SIZE_LANES;\n" in h
    assert logical_helpers(h) == []
    for out in (held, applied):
        a, b = (out / "a.cu").read_text(), (out / "b.cu").read_text()
        assert "WARP_SIZE_LANES" not in a + b  # includers never define or need the header's new constant
        assert "    count<<<len / (24 * WARP_SIZE), 24 * WARP_SIZE>>>(in, n);\n" in b
    # a.cu's kernel is launched from no file of its own: its warp id is 64-wide only with --fixes-review
    assert "    int warp = threadIdx.x / WARP_SIZE;\n" in (held / "a.cu").read_text()
    assert f"    int warp = threadIdx.x / {lanes};\n" in (applied / "a.cu").read_text()


@HIPCC
def test_converted_two_file_project_compiles_with_hipcc(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    for style in FixStyle:
        for review in (False, True):
            out = tmp_path / f"{style.value}{int(review)}"
            _convert(root, out, style, review)
            for name in ("a.cu", "b.cu"):
                ok, log = hipcc(out / name, "-include", str(ROCM7_HEADER))
                assert ok, (out.name, name, log)


@pytest.mark.parametrize("definition", ["#define WS 32u", "#define WARP_SIZE (32)", "constexpr int kWarpSize = 32;",
                                        "enum { WARP_LANES = 32 };"])
def test_every_warp_constant_spelling_has_its_includers_looked_up(tmp_path: Path, definition: str) -> None:
    from hipport.engine.warp.project import includer_scope

    root = _project(tmp_path)
    assert includer_scope(root / "common.h", definition + "\n") == ([root / "a.cu", root / "b.cu"], True)
    assert includer_scope(root / "common.h", "#define BLOCK 32\n") == ([], True)  # no warp constant: no lookup


# ------------------------------------ 2b. includers in other folders, by any relative spelling of the include

def _nested(root: Path, *, git: bool) -> Path:
    """inc/common.h; src/a.cu includes "../inc/common.h" (lane uses); src/deep/b.cu includes
    "../../inc/common.h" and launches 24 * WARP_SIZE threads; other/common.h is another header of the same
    name, and other/c.cu (launching with its WARP_SIZE) includes that one, not inc/common.h."""
    for d in ("inc", "src/deep", "other"):
        (root / d).mkdir(parents=True, exist_ok=True)
    (root / "inc" / "common.h").write_text(COMMON_H)
    (root / "src" / "a.cu").write_text(A_CU.replace('"common.h"', '"../inc/common.h"'))
    (root / "src" / "deep" / "b.cu").write_text(B_CU.replace('"common.h"', '"../../inc/common.h"'))
    (root / "other" / "common.h").write_text("#pragma once\n#define WARP_SIZE 32\n")
    (root / "other" / "c.cu").write_text(B_CU.replace("#include \"common.h\"\n", "#include \"common.h\"\n"
                                                      "__device__ int rank_in_warp(bool p) { return p; }\n"))
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_includers_in_other_folders_of_the_git_tree_are_read(tmp_path: Path) -> None:
    from hipport.engine.source import read_source
    from hipport.engine.warp.project import includer_scope

    root = _nested(tmp_path / "p", git=True)
    h = root / "inc" / "common.h"
    assert includer_scope(h, COMMON_H) == ([root / "src" / "a.cu", root / "src" / "deep" / "b.cu"], True)
    src = read_source(h)
    a = analyze(src)
    (c,) = [f for f in a.findings if f.rule == "W64-08"]
    assert (c.id, src.text[c.start:c.end]) == ("W64-08:3:19", "32")
    assert "2 in files that include it (launch, e.g. ../src/deep/b.cu:7)" in c.message
    (g,) = [g for g in a.groups if g.id == c.group]
    assert (g.tier, g.tier_reason) == (
        FixTier.REVIEW, "WARP_SIZE also sizes the launch or host arithmetic at ../src/deep/b.cu:7")


def test_without_git_the_headers_folder_and_its_subfolders_are_read(tmp_path: Path) -> None:
    from hipport.engine.warp.project import includer_scope

    root = _nested(tmp_path / "p", git=False)
    (root / "inc" / "tools").mkdir()
    (root / "inc" / "tools" / "t.cu").write_text(B_CU.replace('"common.h"', '"../common.h"'))
    # outside git the project is inc/ and below: src/ is not looked at
    assert includer_scope(root / "inc" / "common.h", COMMON_H) == ([root / "inc" / "tools" / "t.cu"], True)
    src_h = root / "inc" / "common.h"
    from hipport.engine.source import read_source

    a = analyze(read_source(src_h))
    (g,) = [g for g in a.groups if any(f.rule == "W64-08" and f.group == g.id for f in a.findings)]
    assert (g.tier, g.tier_reason) == (FixTier.REVIEW, "WARP_SIZE also sizes the launch or host arithmetic at tools/t.cu:7")


def test_a_header_of_the_same_name_elsewhere_is_not_an_includer(tmp_path: Path) -> None:
    """other/c.cu includes other/common.h: inc/common.h, with src/a.cu's lane uses only, is raised SAFE."""
    from hipport.engine.source import read_source

    root = _nested(tmp_path / "p", git=True)
    (root / "src" / "deep" / "b.cu").unlink()
    src = read_source(root / "inc" / "common.h")
    a = analyze(src)
    (c,) = [f for f in a.findings if f.rule == "W64-08"]
    assert [(src.text[e.start:e.end], e.replacement) for e in c.fixes[0].edits] == [("32", "64")]
    (g,) = [g for g in a.groups if g.id == c.group]
    assert g.tier == FixTier.SAFE


@HIPCC
def test_converted_nested_project_keeps_the_launch_and_compiles_with_hipcc(tmp_path: Path) -> None:
    root = _nested(tmp_path / "p", git=True)
    (root / "other").joinpath("c.cu").unlink()
    for style in FixStyle:
        for review in (False, True):
            out = tmp_path / f"{style.value}{int(review)}"
            _convert(root, out, style, review)
            h = (out / "inc" / "common.h").read_text()
            assert ("WARP_SIZE_LANES" in h) == review and "#define WARP_SIZE 32\n" in h
            b = (out / "src" / "deep" / "b.cu").read_text()
            assert "    count<<<len / (24 * WARP_SIZE), 24 * WARP_SIZE>>>(in, n);\n" in b
            for name in ("src/a.cu", "src/deep/b.cu"):
                ok, log = hipcc(out / name, "-include", str(ROCM7_HEADER))
                assert ok, (out.name, name, log)
