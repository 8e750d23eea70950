/* Device properties, half precision and occupancy. */
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdio>

#if defined(__CUDA_FP16_H__)
#define HAVE_HALF_HEADER 1
#endif

__global__ void half_axpy(__half* y, const __half* x, __half a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hadd(__hmul(a, x[i]), y[i]);
}

static void describe(int dev) {
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return;
  std::printf("%s: %d SMs, warp %d, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.warpSize,
              prop.major, prop.minor);
}

int main() {
  int count = 0;
  cudaGetDeviceCount(&count);
  for (int d = 0; d < count; ++d) describe(d);
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, half_axpy, 256, 0);
  int minGrid = 0, blockSize = 0;
  cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, half_axpy, 0, 0);
  __half *x, *y;
  cudaMalloc(&x, 1024 * sizeof(__half));
  cudaMalloc(&y, 1024 * sizeof(__half));
  half_axpy<<<4, 256>>>(y, x, __float2half(2.0f), 1024);
  cudaDeviceSynchronize();
  cudaFree(x);
  cudaFree(y);
  std::printf("half header %d, %d blocks, block size %d\n", HAVE_HALF_HEADER, blocks, blockSize);
  return 0;
}
