// Look-alike for W64-01/02/05: a bitset indexed by a GLOBAL element id (32 = bits per word).
// EXPECT: none
#include <cuda_runtime.h>

__global__ void set_bits(const int* x, unsigned* words, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n) return;
  int word = gid / 32;
  int bit = gid & 31;
  if (x[gid] > 0) atomicOr(&words[word], 1u << bit);
}
