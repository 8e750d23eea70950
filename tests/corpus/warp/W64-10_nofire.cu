// Look-alike for W64-10: host sizes with 32 that are bitset words and a 2-D tile shape.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void k(unsigned* w) { w[threadIdx.x] = 0; }

int main() {
  int n = 1 << 20;
  int words = n / 32;
  unsigned* d;
  cudaMalloc(&d, words * sizeof(unsigned));
  dim3 block(32, 32);
  dim3 grid(n / 1024);
  k<<<grid, block>>>(d);
  cudaDeviceSynchronize();
  return 0;
}
