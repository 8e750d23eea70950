// Look-alike for W64-06: a shared-memory tree over 32 entries with __syncthreads (no shuffles).
// EXPECT: none
#include <cuda_runtime.h>

__global__ void tree32(const float* x, float* out) {
  __shared__ float s[32];
  int t = threadIdx.x;
  if (t < 32) s[t] = x[blockIdx.x * 32 + t];
  __syncthreads();
  for (int stride = 16; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
