// W64-19 fires: __launch_bounds__ with CUDA's minimum-blocks-per-SM argument.
#include <cuda_runtime.h>
#include <cstdio>

// EXPECT: W64-19 tier=safe text="4" edit=", 4" -> ""
__global__ void __launch_bounds__(256, 4) axpy(float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] += a * x[i];
}

int main() {
  float *x, *y;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMalloc(&y, 1024 * sizeof(float));
  cudaMemset(x, 0, 1024 * sizeof(float));
  cudaMemset(y, 0, 1024 * sizeof(float));
  axpy<<<4, 256>>>(2.0f, x, y);
  cudaDeviceSynchronize();
  printf("RESULT PASS\n");
  return 0;
}
