// W64-13 fires: a 32-wide cooperative-groups tile treated as "the warp" (one partial per tile).
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void tile_sums(const int* x, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warp.size() / 2; o > 0; o >>= 1) v += warp.shfl_down(v, o);
  if (warp.thread_rank() == 0) atomicAdd(out, v);
}

int main() {
  int* d;
  cudaMalloc(&d, 256 * sizeof(int));
  tile_sums<<<1, 256>>>(d, d);
  cudaDeviceSynchronize();
  printf("RESULT PASS\n");
  return 0;
}
