// W64-13 fires: a 32-wide tile treated as the hardware warp. The tile reduces 32 lanes, but the
// leader and the per-warp slot come from warpSize: on a 64-lane wavefront lanes 32-63 are lost.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void tile_sums(const int* x, int* out) {
  __shared__ int partial[32];
  cg::thread_block block = cg::this_thread_block();
  // EXPECT: W64-13 tier=review text="32" edit=none
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = tile.size() / 2; o > 0; o >>= 1) v += tile.shfl_down(v, o);
  int lane = threadIdx.x % warpSize;
  if (lane == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < blockDim.x / warpSize; ++w) s += partial[w];
    atomicAdd(out, s);
  }
}

int main() {
  int* d;
  cudaMalloc(&d, 256 * sizeof(int));
  tile_sums<<<1, 256>>>(d, d);
  cudaDeviceSynchronize();
  printf("RESULT PASS\n");
  return 0;
}
