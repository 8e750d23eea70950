// W64-12 fires: one 32-thread block per "warp" leaves half of each 64-lane wavefront idle.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale(float* x, float a) { x[blockIdx.x * blockDim.x + threadIdx.x] *= a; }

int main() {
  const int n = 4096;
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemset(d, 0, n * sizeof(float));
  // EXPECT: W64-12 tier=review text="32" edit=none
  scale<<<n / 32, 32>>>(d, 2.0f);
  dim3 one_warp(32);
  scale<<<n / 32, one_warp>>>(d, 0.5f);
  cudaDeviceSynchronize();
  printf("RESULT PASS\n");
  return 0;
}
