// Look-alike for W64-03: 0xffffffff as a hash constant and data mask, never a *_sync mask.
// EXPECT: none
#include <cuda_runtime.h>
#include <cstdint>

__device__ uint32_t hash32(uint32_t x) {
  x ^= 0xffffffff;
  x *= 0x9e3779b9u;
  return (x ^ (x >> 16)) & 0xffffffffu;
}

__global__ void hash_all(const uint32_t* in, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hash32(in[i]);
}
