// Look-alike for W64-15: the lane id from HIP/CUDA-neutral arithmetic, and no warp PTX.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void lanes(int* out) {
  int lane = threadIdx.x % warpSize;
  out[blockIdx.x * blockDim.x + threadIdx.x] = lane;
}
