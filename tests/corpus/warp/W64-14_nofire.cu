// Look-alike for W64-14: block tree reduction with __syncthreads at every step.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void block_sum(const float* x, float* out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
