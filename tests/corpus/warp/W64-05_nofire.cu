// Look-alike for W64-05: 1u << (bit index of a 32-bit word), unrelated to lanes.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void flags(const int* x, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int bitpos = x[i] & 31;
  out[i] = 1u << bitpos;
}
