"""Roles, root causes and tiers (issue 9): each real-code pattern is pinned by its exact fix text and tier,
or by having no finding. Samples: tests/warp/role_samples.py (self-written, modelled on HeCBench 49175104c)."""

from __future__ import annotations

import re
from pathlib import Path

from role_samples import (
    BALLOT_PARAM,
    HOST_VAR,
    HOST_WIDTH,
    LANE_ONLY,
    MANY_MASKS,
    MASK_FORMS,
    RUNTIME_CHECK,
    SCAN_LAST_LANE,
    SHARED_ROWS,
    TWO_ROLES,
    VIRTUAL,
)
from warp_samples import launched_elsewhere, logical_helpers

from hipport.engine.model import FixStyle, FixTier
from hipport.engine.pipeline import port
from hipport.engine.source import Source
from hipport.engine.warp import analyze
from hipport.engine.warp.prelude import HOST_WS, Needs, prelude_text


def _one(text: str) -> tuple[Source, object]:
    src = Source.from_text(text, "k.cu")
    return src, analyze(src)


def test_constant_used_only_as_lane_width_is_raised_safe_with_its_uses_listed() -> None:
    src, a = _one(LANE_ONLY)
    (c,) = [f for f in a.findings if f.rule == "W64-08"]
    assert [(u.line, u.text) for u in c.uses] == [(5, "int lane = threadIdx.x % WS;"),
                                                  (6, "for (int o = WS / 2; o > 0; o >>= 1) v += "
                                                      "__shfl_down_sync(0xffffffff, v, o);")]
    (g,) = [g for g in a.groups if g.id == c.group]
    assert g.tier == FixTier.SAFE and g.tier_reason == ""
    # k is launched from another file: the constant and the masks (they share k) are one offer, for review
    _held_logical(src, "k", "#define WS 32\n", "v += hipport_shfl_down_sync(0xffffffff, v, o);")
    w = _w64(src, review=True)
    assert "#define WS 64\n" in w and "__shfl_down_sync(0xffffffffffffffffull, v, o)" in w
    p = port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True).text
    assert "#define WS HIPPORT_WS\n" in p


def test_constant_that_also_sizes_the_launch_is_split_not_raised_and_needs_review() -> None:
    src, a = _one(TWO_ROLES)
    (c,) = [f for f in a.findings if f.rule == "W64-08"]
    assert len(c.uses) == 3 and "more than one role" in c.message
    (g,) = [g for g in a.groups if g.id == c.group]
    assert g.tier == FixTier.REVIEW
    assert g.tier_reason == "WS also sizes the launch or host arithmetic at k.cu:11"
    # `--fixes all` applies SAFE groups only: this one is held until asked for, and with it the mask group
    # that shares kernel k: the whole kernel stays logical warps
    held = port(src, fixes="all", style=FixStyle.WAVE64)
    assert held.held == {g.id: "needs review: " + g.tier_reason} and held.wide_groups == ()
    assert "WS_LANES" not in held.text and "0xffffffffffffffffull" not in held.text
    assert "v += hipport_shfl_down_sync(0xffffffff, v, o);" in held.text
    w = port(src, fixes="all", style=FixStyle.WAVE64, allow_review=True).text
    assert "#define WS 32\n#define WS_LANES 64\n" in w and logical_helpers(w) == []
    assert "__shfl_down_sync(0xffffffffffffffffull, v, o)" in w
    assert "int lane = threadIdx.x % WS_LANES;" in w and "for (int o = WS_LANES / 2;" in w
    assert "k<<<1, 24 * WS>>>(x, out);" in w  # the launch keeps 768 threads
    p = port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True).text
    assert "#define WS 32\n#define WS_LANES HIPPORT_WS\n" in p


def test_host_variable_is_one_finding_and_its_declarator_is_never_rewritten() -> None:
    src, a = _one(HOST_VAR)
    assert [f.rule for f in a.findings] == ["W64-10"]
    (f,) = a.findings
    assert src.text[f.start:f.end] == "32" and f.line == 4
    assert "Host variable warp_size" in f.message and "device" not in f.message.split(":")[0]
    assert len(f.uses) == 5
    # every use derives from the one variable: the device query is exact for all of them (safe)
    (g,) = a.groups
    assert g.tier == FixTier.SAFE and g.tier_reason == ""
    p = port(src, fixes="all", style=FixStyle.PORTABLE).text
    assert "int devID, warp_size = hipport_host_warp_size();" in p
    assert "k<<<1, 4 * warp_size>>>(d, warp_size);" in p
    assert "int devID, warp_size = 64;" in port(src, fixes="all", style=FixStyle.WAVE64).text


def test_a_warp_id_and_its_first_lane_move_together_in_a_split() -> None:
    text = ("#define WS 32\n__global__ void k(const int* x, int* out) {\n"
            "  int base = threadIdx.x / WS;\n  int sbase = base * WS;\n"
            "  int v = __shfl_sync(0xffffffffffffffffull, x[threadIdx.x], 0);\n"
            "  if (sbase == threadIdx.x) out[base] = v;\n}\n"
            "void run(const int* x, int* out) { k<<<1, 24 * WS>>>(x, out); }\n")
    src, _a = _one(text)
    w = _w64(src, review=True)
    assert "int base = threadIdx.x / WS_LANES;\n  int sbase = base * WS_LANES;" in w
    assert "k<<<1, 24 * WS>>>(x, out);" in w


def test_runtime_warp_size_check_is_never_flipped() -> None:
    _, a = _one(RUNTIME_CHECK)
    assert a.findings == ()
    src, a = _one(RUNTIME_CHECK.replace("if (warpSize == 32) out[threadIdx.x] = 1;",
                                        "if (warpSize != 32) { printf(\"need 32\\n\"); return; }"))
    (f,) = a.findings
    assert f.rule == "W64-20"
    # logical warps: the program's warpSize is 32, so its own check passes as on NVIDIA
    _held_logical(src, "k", "if (HIPPORT_WARP_SIZE != 32) {", style=FixStyle.PORTABLE)
    assert "if (warpSize > 64)" in port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True).text


def test_virtual_32_lane_warp_is_left_alone_but_its_mask_still_compiles() -> None:
    src, a = _one(VIRTUAL)
    assert [f.rule for f in a.findings] == ["W64-03"]
    w = port(src, fixes="all", style=FixStyle.WAVE64).text
    assert "int lane = threadIdx.x % 32;" in w and "out[threadIdx.x / 32] = v;" in w
    assert "for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffffffffffull, v, o, 32);" in w


def test_repeated_masks_in_one_kernel_are_one_finding_listing_its_uses() -> None:
    src, a = _one(MANY_MASKS)
    (f,) = a.findings
    assert f.rule == "W64-03" and [u.line for u in f.uses] == [5, 6]
    _held_logical(src, "k", "v += hipport_shfl_xor_sync(0xffffffff, v, 4);")
    w = _w64(src, review=True)
    assert w.count("0xffffffffffffffffull") == 3 and "0xffffffff," not in w


def test_prelude_parts_are_fixed_texts_under_their_own_guards() -> None:
    full = Needs(ws=True, mask_t=True, host_ws=True, min_blocks=True)
    a = prelude_text(full, True)
    b = prelude_text(Needs(mask_t=True), True)
    # the lane_mask_t part is byte-identical in both, so either file can come first
    part = re.search(r"#ifndef HIPPORT_LANE_MASK_T\n.*?\n#endif\n#endif", a, re.S)
    assert part is not None and part.group(0) in b
    for guard in ("HIPPORT_WS", "HIPPORT_LANE_MASK_T", "HIPPORT_HOST_WARP_SIZE", "HIPPORT_CUDA_MIN_BLOCKS"):
        assert f"#ifndef {guard}\n" in a
    assert "HIPPORT_WARP_PRELUDE" not in a


def test_host_warp_size_query_cannot_return_zero() -> None:
    assert "ws <= 0" in HOST_WS and "return ws;" in HOST_WS
    assert re.search(r"ws = 64;.*ws = 32;", HOST_WS, re.S)


def _w64(src: Source, review: bool = False) -> str:
    return port(src, fixes="all", style=FixStyle.WAVE64, allow_review=review).text


def _held_logical(src: Source, kernel: str, *logical: str, style: FixStyle = FixStyle.WAVE64) -> None:
    """`src`'s kernel is launched from another file: all its warp code is one fix group, offered for
    review only, so a 64-wide style alone keeps it logical warps (each of `logical` is in the port)."""
    r = port(src, fixes="all", style=style)
    (gid,) = r.held
    assert r.held == {gid: launched_elsewhere(kernel)} and r.wide_groups == ()
    for line in logical:
        assert line in r.text, line


def test_masks_that_are_not_a_literal_at_the_call_are_widened() -> None:
    src, a = _one(MASK_FORMS)
    assert all(g.tier == FixTier.SAFE for g in a.groups)
    w = _w64(src, review=True)
    for line in ("#define SHFL_UP(v, d) __shfl_up_sync(0xffffffffffffffffull, v, d)",
                 "#define XOR_ALL(v, m) __shfl_xor_sync(0xffffffffffffffffull, v, m)",
                 "__device__ float pass_down(float v, int o, unsigned long long mask = 0xffffffffffffffffull) {",
                 "  unsigned long long work_queue;",
                 "  work_queue = __ballot_sync(0xffffffffffffffffull, p);",
                 "  return __ffsll(work_queue) - 1;",
                 "  unsigned long long member_mask = __activemask();"):
        assert line in w, line
    assert logical_helpers(w) == []
    p = port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True).text
    assert "  lane_mask_t work_queue;" in p and "__ballot_sync((~lane_mask_t{0}), p)" in p
    # k is launched from another file, and every group reaches k (pass_down's parameter too: k calls it):
    # one offer, held for review, and no function is half logical, half 64-wide
    _held_logical(src, "k", "#define SHFL_UP(v, d) hipport_shfl_up_sync(0xffffffff, v, d)",
                  "__device__ float pass_down(float v, int o, unsigned int mask = 0xffffffff) {\n"
                  "  return hipport_shfl_down_sync(mask, v, o);")


def test_ballot_passed_to_a_narrow_helper_parameter_widens_the_parameter() -> None:
    src, a = _one(BALLOT_PARAM)
    assert len(a.groups) == 2 and all(g.tier == FixTier.SAFE for g in a.groups)
    _held_logical(src, "k", "__device__ int count_below(unsigned int m, int lane) {")
    w = _w64(src, review=True)
    assert "__device__ int count_below(unsigned long long m, int lane) {" in w
    assert "return __popcll(m & ((1ull << lane) - 1));" in w


def test_host_block_width_32_for_a_warpsize_kernel_is_one_safe_group() -> None:
    # every use understood (hostflow.py): thread_x/thread_y only build the launch's dim3, and the kernel
    # reads threadIdx.x/.y only as `threadIdx.y * warpSize + threadIdx.x` (HeCBench scatterAdd's layout)
    src, a = _one(HOST_WIDTH)
    host = [f for f in a.findings if f.rule == "W64-10"]
    assert [(f.line, src.text[f.start:f.end]) for f in host] == [(8, "32"), (9, "32")]
    (g,) = [g for g in a.groups if g.id == host[0].group]
    assert set(g.finding_ids) == {f.id for f in host}
    assert g.tier == FixTier.SAFE and g.tier_reason == ""
    w = port(src, fixes="all", style=FixStyle.WAVE64).text
    assert "int thread_x = 64;" in w and "int thread_y = MAX_THREADS / 64;" in w
    p = port(src, fixes="all", style=FixStyle.PORTABLE).text
    assert "int thread_x = hipport_host_warp_size();" in p
    assert "int thread_y = MAX_THREADS / hipport_host_warp_size();" in p


def test_shared_rows_per_lane_follow_warpsize() -> None:
    src, a = _one(SHARED_ROWS)
    assert {f.rule for f in a.findings} == {"W64-07", "W64-03"}
    _held_logical(src, "k", "__shared__ int rows[32 * F];", "int lane = threadIdx.x % HIPPORT_WARP_SIZE;")
    assert "__shared__ int rows[64 * F];" in _w64(src, review=True)


def test_last_lane_and_scan_bound_change_with_their_lane_id() -> None:
    src, a = _one(SCAN_LAST_LANE)
    lane = {f.group for f in a.findings if f.rule != "W64-03"}
    assert len(lane) == 1 and all(g.tier == FixTier.SAFE for g in a.groups)
    _held_logical(src, "scan", "if (laneid == 31) sums[threadIdx.x / 32] = v;",
                  "int up = hipport_shfl_up_sync(0xffffffff, v, c0);")
    w = _w64(src, review=True)
    for line in ("int laneid = threadIdx.x % 64;", "for (int c0 = 1; c0 < 64; c0 <<= 1) {",
                 "if (laneid == 63) sums[threadIdx.x / 64] = v;"):
        assert line in w, line


def test_float_warp_count_is_a_warp_count() -> None:
    text = ("__global__ void k(float* s, float* out) {\n"
            "  float v = __shfl_sync(0xffffffffffffffffull, s[threadIdx.x], 0);\n"
            "  if (threadIdx.x < blockDim.x / 32.f) out[threadIdx.x] = v;\n}\n")
    src, a = _one(text)
    (f,) = a.findings
    assert (f.rule, src.text[f.start:f.end]) == ("W64-02", "32.f")
    _held_logical(src, "k", "if (threadIdx.x < blockDim.x / 32.f)")
    assert "blockDim.x / 64.f" in _w64(src, review=True)
    assert "blockDim.x / (float)warpSize" in port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True).text


def test_ptx_lanemask_helper_becomes_the_hip_builtin_with_its_types() -> None:
    from role_samples import LANEMASK_PTX

    src, a = _one(LANEMASK_PTX)
    assert len(a.groups) == 1 and a.groups[0].tier == FixTier.SAFE
    _held_logical(src, "k", "__device__ unsigned lanemask_lt() {\n  unsigned m;\n  (m) = hipport_lanemask_lt();")
    w = _w64(src, review=True)
    assert ("__device__ unsigned long long lanemask_lt() {\n  unsigned long long m;\n  m = __lanemask_lt();\n"
            "  return m;\n}") in w


def test_partial_warp_mask_arithmetic_widens_with_its_mask() -> None:
    from role_samples import PARTIAL_MASK

    src, a = _one(PARTIAL_MASK)
    (f,) = a.findings
    assert f.rule == "W64-04" and a.groups[0].tier == FixTier.SAFE
    _held_logical(src, "k", "int maskLength = blockSize & 31;", "hipport_shfl_sync(mask, x[threadIdx.x], 0);")
    w = _w64(src, review=True)
    assert "int maskLength = blockSize & 63;" in w
    assert ("unsigned long long mask = (maskLength == 0) ? 0xffffffffffffffffull : "
            "(0xffffffffffffffffull >> (64 - maskLength));") in w
    p = port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True).text
    assert "int maskLength = blockSize & (warpSize - 1);" in p
    assert "((~lane_mask_t{0}) >> ((sizeof(lane_mask_t) * 8) - maskLength))" in p


def test_coalesced_group_ballot_is_64_bit_but_a_32_tile_ballot_is_not() -> None:
    # (text only: Debian's HIP 5.2 has no coalesced_group::ballot to compile against)
    text = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
            "__global__ void k(int* x) {\n"
            "  cg::coalesced_group g = cg::coalesced_threads();\n"
            "  unsigned votes = g.ballot(x[threadIdx.x] > 0);\n"
            "  if (g.thread_rank() == 0) atomicAdd(x, __popc(votes));\n"
            "  auto t = cg::tiled_partition<32>(cg::this_thread_block());\n"
            "  unsigned tv = t.ballot(x[threadIdx.x] > 1);\n"
            "  x[1] = __popc(tv);\n}\n")
    src, _a = _one(text)
    _held_logical(src, "k", "unsigned votes = g.ballot(")
    w = _w64(src, review=True)
    assert "unsigned long long votes = g.ballot(" in w and "atomicAdd(x, __popcll(votes));" in w
    assert "unsigned tv = t.ballot(" in w and "x[1] = __popc(tv);" in w


def test_constants_and_kernels_from_the_files_own_headers(tmp_path: Path) -> None:
    """A warp constant and a warpSize kernel defined in a quoted header are followed from the .cu file."""
    from hipport.engine.source import read_source

    (tmp_path / "kern.h").write_text(
        "#define WARP_SIZE 32\n"
        "__global__ void rows(float* o) { o[threadIdx.y * warpSize + threadIdx.x] = 1.0f; }\n")
    (tmp_path / "main.cu").write_text(
        '#include "kern.h"\n'
        "__global__ void red(float* x) {\n"
        "  float v = x[threadIdx.x];\n"
        "  int lane = threadIdx.x % WARP_SIZE;\n"
        "  v = __shfl_sync(0xffffffffffffffffull, v, 0);\n"
        "  if (lane == 0) x[0] = v;\n}\n"
        "void run(float* o) {\n  int tx = 32;\n  dim3 t(tx, 8);\n  rows<<<1, t>>>(o);\n}\n")
    src = read_source(tmp_path / "main.cu")
    a = analyze(src)
    by_rule = {f.rule: f for f in a.findings}
    assert src.text[by_rule["W64-08"].start:by_rule["W64-08"].end] == "WARP_SIZE"
    assert by_rule["W64-10"].line == 9
    w = port(src, fixes="all", style=FixStyle.WAVE64, allow_review=True).text
    assert "int lane = threadIdx.x % 64;" in w and "int tx = 64;" in w
    assert '#include "kern.h"' in w  # the header itself is the header's own analysis


def test_prelude_is_never_inside_a_preprocessor_conditional() -> None:
    text = ("#pragma once\n#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#endif\n#ifndef USE_ROCM\n"
            "  #define XOR(v, m) __shfl_xor_sync(uint32_t(-1), v, m)\n#endif\n")
    after_include = "#pragma once\n#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#endif\n"
    # the logical-warp helpers (the default port) sit where the 64-wide prelude does
    d = port(Source.from_text(text, "c.h")).text
    assert d.startswith(after_include + "#ifndef HIPPORT_LOGICAL_WARP_DEVICE\n")
    assert d.index("#endif\n#ifndef USE_ROCM") > d.index("#define HIPPORT_LOGICAL_WARP_DEVICE")
    # with a 64-wide style: the 64-wide prelude follows the logical one, both before the conditional
    p = port(Source.from_text(text, "c.h"), fixes="all", style=FixStyle.PORTABLE).text
    assert p.startswith(after_include + "#ifndef HIPPORT_LOGICAL_WARP_DEVICE\n")
    assert p.index("#endif\n/* hipport warp helpers") < p.index("#ifndef USE_ROCM")
    guarded = "#ifndef G_H\n#define G_H\n#include <cuda_runtime.h>\n__global__ void k(float* x) " \
              "{ x[0] = __shfl_xor_sync(0xffffffff, x[0], 1); }\n#endif\n"
    # k is launched from another file: logical warps unless accepted for review
    g = port(Source.from_text(guarded, "g.h"), fixes="all", style=FixStyle.PORTABLE).text
    assert g.startswith("#ifndef G_H\n#define G_H\n#include <hip/hip_runtime.h>\n#ifndef HIPPORT_LOGICAL_WARP_DEVICE\n")
    g = port(Source.from_text(guarded, "g.h"), fixes="all", style=FixStyle.PORTABLE, allow_review=True).text
    assert g.startswith("#ifndef G_H\n#define G_H\n#include <hip/hip_runtime.h>\n/* hipport warp helpers")
