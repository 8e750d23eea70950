// Look-alike for W64-21: one CUB TempStorage per block (no per-warp sizing).
// EXPECT: none
#include <cuda_runtime.h>
#include <cub/cub.cuh>

__global__ void block_sum(const int* x, int* out) {
  typedef cub::BlockReduce<int, 256> BR;
  __shared__ typename BR::TempStorage ts;
  int s = BR(ts).Sum(x[blockIdx.x * 256 + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
