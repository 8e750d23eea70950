// Look-alike for W64-09: warpSize used as a run-time value (loop bounds), which ROCm 7 folds.
// EXPECT: none
#include <hip/hip_runtime.h>

__global__ void warp_total(const int* x, int* out) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);
  if (threadIdx.x % warpSize == 0) atomicAdd(out, v);
}
