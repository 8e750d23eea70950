// Look-alike for W64-02: >> 5 and / 32 on data values (bit positions), not on thread ids.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void histogram_words(const unsigned* keys, unsigned* counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned k = keys[i];
  atomicAdd(&counts[(k >> 5) % 1024], 1u);
  atomicAdd(&counts[(k / 32) % 1024 + 1024], 1u);
}
