// Look-alike for W64-12: block sizes that are multiples of 64, including a 2-D 16x16 block.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void fill(float* x) { x[blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x] = 1.0f; }

int main() {
  float* d;
  cudaMalloc(&d, 1 << 16);
  fill<<<64, 256>>>(d);
  dim3 block(16, 16);
  fill<<<64, block>>>(d);
  cudaDeviceSynchronize();
  return 0;
}
