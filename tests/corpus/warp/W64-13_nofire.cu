// Look-alikes for W64-13: tiles used only through the tile API are virtual warps, correct on a
// 64-lane wavefront as they are: a 16-lane tile, and a 32-lane tile whose scan loop is bounded by 32.
// EXPECT: none
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void quad_sums(const int* x, int* out) {
  cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block());
  int v = x[threadIdx.x];
  for (int o = 8; o > 0; o >>= 1) v += t.shfl_down(v, o);
  if (t.thread_rank() == 0) out[threadIdx.x / 16] = v;
}

__global__ void tile_scan(const int* x, int* out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int v = x[threadIdx.x];
  for (int i = 1; i < 32; i *= 2) {
    int u = tile.shfl_up(v, i);
    if (tile.thread_rank() >= i) v += u;
  }
  if (tile.thread_rank() == 31) out[threadIdx.x / 32] = v;
}
