"""Issue 9, after the H200 four-way run: a host block width of 32 for a warpSize kernel is SAFE when every use
is understood (engine/warp/hostflow.py), REVIEW naming the use otherwise; a per-warp array sized 32 that lane
ids read only under a warp count is not flagged (it fits on 64 lanes). Real code: HeCBench 49175104c
(scatterAdd, quantAQLM) and the bundled GEMM demo (row_sums); each pinned by its exact fix text and tier."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hipport.engine.model import FixStyle, FixTier
from hipport.engine.pipeline import port
from hipport.engine.source import Source, read_source
from hipport.engine.warp import analyze

HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
needs_hecbench = pytest.mark.skipif(not (HECBENCH / "src").is_dir(),
                                    reason=f"HeCBench 49175104c not found at {HECBENCH} (set HIPPORT_HECBENCH)")
GEMM = Path(__file__).resolve().parents[2] / "examples" / "gemm" / "gemm.cu"

# the same host layout as role_samples.HOST_WIDTH, but the kernel is a 32-wide tile: threadIdx.x indexes
# a tile column directly, so a 64-wide block would change the tile, not only the lanes
HOST_TILE = """#include <cuda_runtime.h>
__global__ void tiles(const float* in, float* out) {
  __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  float v = tile[threadIdx.x][threadIdx.y];
  int lane = threadIdx.x % warpSize;
  v += __shfl_down_sync(0xffffffff, v, 1);
  if (lane == 0) out[threadIdx.y] = v;
}
void run(const float* in, float* out) {
  int tx = 32;
  dim3 block(tx, 8);
  tiles<<<1, block>>>(in, out);
}
"""

# one block-width variable that host arithmetic also reads (the shared-memory size): not only the launch
HOST_SMEM = """#include <cuda_runtime.h>
__global__ void rows(float* out) { out[threadIdx.y * warpSize + threadIdx.x] = 1.0f; }
void run(float* out) {
  int tx = 32;
  dim3 block(tx, 4);
  rows<<<1, block, tx * sizeof(float)>>>(out);
}
"""

# a kernel that never reads threadIdx.x: a 64-wide block would count twice as many threads
NO_TID = """#include <cuda_runtime.h>
__global__ void count(int* n) { if (threadIdx.y == 0) atomicAdd(n, warpSize); }
void run(int* n) {
  int tx = 32;
  count<<<1, tx>>>(n);
}
"""

# row_sums of the GEMM demo, reduced: partial[32] has one slot per warp (tid / warpSize); warp 0 reads it by
# lane only where lane < blockDim.x / warpSize. UNBOUNDED reads it with every lane of warp 0.
PER_WARP = """#include <cuda_runtime.h>
__global__ void sums(const float* x, float* out) {
  __shared__ float partial[32];
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  float s = x[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffffffffffull, s, o);
  if (lane == 0) partial[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = (lane < blockDim.x / warpSize) ? partial[lane] : 0.0f;
    if (lane == 0) out[blockIdx.x] = s;
  }
}
"""
UNBOUNDED = PER_WARP.replace("s = (lane < blockDim.x / warpSize) ? partial[lane] : 0.0f;", "s = partial[lane];")


def _groups(src: Source, rule: str) -> tuple[list, list]:
    a = analyze(src)
    fs = [f for f in a.findings if f.rule == rule]
    return fs, [g for g in a.groups if g.id in {f.group for f in fs}]


def test_host_width_for_a_tile_kernel_stays_review_and_names_the_use() -> None:
    src = Source.from_text(HOST_TILE, "k.cu")
    fs, (g,) = _groups(src, "W64-10")
    assert [(f.line, src.text[f.start:f.end]) for f in fs] == [(11, "32")]
    assert g.tier == FixTier.REVIEW
    assert g.tier_reason == "threadIdx.x in tiles at k.cu:4 is not taken through warpSize"
    assert "int tx = 32;" in port(src, fixes="all", style=FixStyle.WAVE64).text  # held by --fixes all


def test_host_width_also_read_by_host_arithmetic_stays_review() -> None:
    src = Source.from_text(HOST_SMEM, "k.cu")
    _fs, (g,) = _groups(src, "W64-10")
    assert g.tier == FixTier.REVIEW and g.tier_reason == "tx is also used at k.cu:6"


def test_host_width_for_a_kernel_that_never_reads_threadidx_stays_review() -> None:
    src = Source.from_text(NO_TID, "k.cu")
    _fs, (g,) = _groups(src, "W64-10")
    assert g.tier == FixTier.REVIEW and g.tier_reason == "count does not read threadIdx.x: a wider block repeats its work"


@needs_hecbench
def test_scatteradd_block_width_and_height_are_one_safe_group() -> None:
    """HeCBench 49175104c scatterAdd main.cu:80-81 (kernels in kernels.h, read through the quoted include):
    plain fails with an illegal address on wave64 (thread_idx = threadIdx.y * warpSize + threadIdx.x
    reaches 991 in a 512-slot buffer); the analysis finds the fix safe. The kernels are another file's
    (kernels.h), whose port keeps their warpSize logical (32) unless accepted there too: the port offers
    the widening for review only, and the block stays 32 wide, as the logical kernels need."""
    src = read_source(HECBENCH / "src" / "scatterAdd-cuda" / "main.cu")
    fs, (g,) = _groups(src, "W64-10")
    assert [(f.line, src.text[f.start:f.end]) for f in fs] == [(80, "32"), (81, "32")]
    assert g.tier == FixTier.SAFE and g.tier_reason == "" and set(g.finding_ids) == {f.id for f in fs}
    held = port(src, fixes="all", style=FixStyle.WAVE64)
    assert held.held == {g.id: "needs review: it sizes the launch of scatterAdd2_kernel, a kernel of another file: "
                               "accept it together with that kernel's warp groups there"}
    assert held.text.splitlines()[79:81] == ["  int thread_x = 32; //warpSize;",
                                             "  int thread_y = MAX_THREADS_PER_BLOCK / 32; //warpSize;"]
    w = port(src, fixes="all", style=FixStyle.WAVE64, allow_review=True).text.splitlines()
    assert w[79:81] == ["  int thread_x = 64; //warpSize;", "  int thread_y = MAX_THREADS_PER_BLOCK / 64; //warpSize;"]
    p = port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True).text
    assert "  int thread_x = hipport_host_warp_size(); //warpSize;\n" in p
    assert "  int thread_y = MAX_THREADS_PER_BLOCK / hipport_host_warp_size(); //warpSize;\n" in p


@needs_hecbench
def test_quantaqlm_threads_per_row_is_safe() -> None:
    """HeCBench 49175104c quantAQLM main.cu:128 `int threads = 32 * thread_m;`: Code1x16MatVec maps one row
    per warpSize lanes and reads threadIdx.x/blockDim.x only through warpSize or a block-stride loop."""
    src = read_source(HECBENCH / "src" / "quantAQLM-cuda" / "main.cu")
    fs, (g,) = _groups(src, "W64-10")
    assert [(f.line, src.text[f.start:f.end]) for f in fs] == [(128, "32")]
    assert g.tier == FixTier.SAFE
    assert "  int threads = 64 * thread_m;\n" in port(src, fixes="all", style=FixStyle.WAVE64).text


@pytest.mark.parametrize("read", ["s = (lane < blockDim.x / warpSize) ? partial[lane] : 0.0f;",
                                  "if (lane < blockDim.x / warpSize) s = partial[lane];",
                                  "if (lane < blockDim.x / warpSize) { s = partial[lane]; }"])
def test_per_warp_partials_read_under_a_warp_count_fit_and_are_not_flagged(read: str) -> None:
    text = PER_WARP.replace("s = (lane < blockDim.x / warpSize) ? partial[lane] : 0.0f;", read)
    assert read in text
    assert not [f for f in analyze(Source.from_text(text, "k.cu")).findings if f.rule == "W64-07"]


def test_per_warp_partials_read_by_every_lane_overflow_and_say_so() -> None:
    (f,) = [f for f in analyze(Source.from_text(UNBOUNDED, "k.cu")).findings if f.rule == "W64-07"]
    assert f.line == 3 and f.message.startswith(
        "Per-warp array `partial[32]` (one slot per warp) is also read by a lane id that no warp count bounds")


def test_gemm_demo_row_sums_keeps_its_real_fixes_and_no_overflow_claim() -> None:
    src = read_source(GEMM)
    lines = src.text.splitlines()
    first = lines.index("__global__ void row_sums(const float* __restrict__ C, int N, float* __restrict__ sums) {") + 1
    shuffle = next(i for i in range(first, first + 15) if "offset = 16" in lines[i - 1])  # its first loop
    a = analyze(src)
    rows = [f for f in a.findings if first <= f.line <= first + 15]
    assert sorted((f.rule, f.line) for f in rows) == [("W64-03", shuffle), ("W64-06", shuffle)]
    assert not any("overflow" in f.message for f in a.findings)
    w = port(src, fixes="all", style=FixStyle.WAVE64).text
    assert "__shared__ float partial[32];" in w
    assert w.count("for (int offset = 32; offset > 0; offset /= 2) "
                   "s += __shfl_down_sync(0xffffffffffffffffull, s, offset);") == 2
