// Look-alike for W64-13: a 16-lane sub-warp tile is legal and means the same on every target.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void quad_sums(const int* x, int* out) {
  cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block());
  int v = x[threadIdx.x];
  for (int o = 8; o > 0; o >>= 1) v += t.shfl_down(v, o);
  if (t.thread_rank() == 0) out[threadIdx.x / 16] = v;
}
