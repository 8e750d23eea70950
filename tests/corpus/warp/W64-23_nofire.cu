// Look-alike for W64-23: 32-lane logic with an explicit shuffle width of 32 (sub-warp, correct).
// EXPECT: none
#include <cuda_runtime.h>

__global__ void rotate32(const int* x, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int sub = threadIdx.x % 32;
  out[i] = __shfl_sync(__activemask(), x[i], (sub + 1) % 32, 32);
}
