// Look-alike for W64-16: 0xffffffff compared with data (an "empty slot" sentinel).
// EXPECT: none
#include <cuda_runtime.h>

__global__ void count_empty(const unsigned* slots, int* empty, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && slots[i] == 0xffffffff) atomicAdd(empty, 1);
}
