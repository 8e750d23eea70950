// W64-21 fires: CUB warp-reduce storage sized and indexed with 32 lanes per warp (analysis only:
// neither hipcc 5.2 nor the wave64 emulator ships hipCUB).
#include <cuda_runtime.h>
#include <cub/cub.cuh>

__global__ void warp_sums(const int* x, int* out) {
  typedef cub::WarpReduce<int> WR;
  // EXPECT: W64-21 tier=safe text="32" edit="32" -> "64"
  __shared__ typename WR::TempStorage ts[256 / 32];
  int w = threadIdx.x / 32;
  int s = WR(ts[w]).Sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * 8 + w] = s;
}
