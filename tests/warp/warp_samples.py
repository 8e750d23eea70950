"""Inline CUDA samples shared by the warp tests (also compiled by test_hipcc.py)."""

import re

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


def launched_elsewhere(kernel: str) -> str:
    """Why `port` keeps a fix group as logical warps when its kernel is not launched in its own file
    (engine/compose.py): the other half of the 64-wide offer, the launch, is another file's."""
    return (f"needs review: kernel {kernel} is launched from another file: accept it together with the groups that "
            "size its launch there")


# what only the logical-warp port writes: its helpers' guards and names (hipport_host_warp_size is the
# portable 64-wide prelude's host query)
LOGICAL_MARKS = re.compile(r"\bHIPPORT_WARP_SIZE\b|\bHIPPORT_LOGICAL_WARP_(?:DEVICE|HOST)\b|\bhipport_(?!host_warp_size\b)\w+")


def logical_helpers(text: str) -> list[str]:
    """The logical-warp helpers that `text` defines or calls ([] for code that is wholly 64-wide)."""
    return sorted(set(LOGICAL_MARKS.findall(text)))
