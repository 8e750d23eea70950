# W64-11 fires: Python launch math with 32 threads per warp, and CUDA source in a string.
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <cuda_runtime.h>
__global__ void lane_ids(int* out) {
  int lane = threadIdx.x % 32;
  out[blockIdx.x * blockDim.x + threadIdx.x] = __shfl_sync(0xffffffff, lane, 0);
}
"""

num_warps = 4
# EXPECT: W64-11 tier=safe text="32" edit="32" -> "64"
threads = num_warps * 32
block_size = 32


def launch(n):
    mod = load_inline(name="lanes", cpp_sources="", cuda_sources=cuda_src, functions=[])
    return mod, (n + threads - 1) // threads, threads
