// Look-alike for W64-19: __launch_bounds__ with the maximum block size only.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) axpy(float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] += a * x[i];
}
