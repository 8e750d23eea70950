// Look-alike for W64-18: a loop with stride 32 over a global index (tiles of 32 rows).
// EXPECT: none
#include <cuda_runtime.h>

__global__ void every_32nd(const float* x, float* out, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int i = gid; i < n; i += 32) acc += x[i];
  out[gid] = acc;
}
