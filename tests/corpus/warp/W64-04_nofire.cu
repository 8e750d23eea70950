// Look-alike for W64-04: the ballot is kept in 64 bits, and __popc counts bits of a data word.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void count_bits(const unsigned* words, const int* x, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long b = __ballot_sync(__activemask(), x[i] > 0);
  out[i] = __popc(words[i]) + (int)__popcll(b);
}
