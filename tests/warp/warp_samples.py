"""Inline CUDA samples shared by the warp tests (also compiled by test_hipcc.py)."""

REDUCE = """#include <cuda_runtime.h>
__global__ void k(const float* x, float* out) {
  float v = x[threadIdx.x];
  int lane = threadIdx.x % 32;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  v = __shfl_sync(0xffffffff, v, 0);  // every lane takes the warp's sum: the hardware warp
  if (lane == 0) atomicAdd(out, v);
}
"""
UNROLLED = """#include <cuda_runtime.h>
#define LANE_ID (threadIdx.x & 31)
#define WARP_ID (threadIdx.x >> 5)
__global__ void k(const float* x, float* out) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  v += __shfl_down_sync(0xffffffff, v, 8);
  v += __shfl_down_sync(0xffffffff, v, 4);
  v += __shfl_down_sync(0xffffffff, v, 2);
  v += __shfl_down_sync(0xffffffff, v, 1);
  v = __shfl_sync(0xffffffff, v, 0);
  if (LANE_ID == 0) out[WARP_ID] = v;
}
"""

from role_samples import ROLE_SAMPLES  # noqa: E402

SAMPLES = {"reduce": REDUCE, "unrolled": UNROLLED, **ROLE_SAMPLES}
