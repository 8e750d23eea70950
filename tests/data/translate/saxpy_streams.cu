// SAXPY with streams, events and pinned memory: a typical CUDA runtime program.
// cudaMalloc and <<<grid, block>>> in this comment must stay as they are.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <device_launch_parameters.h>
#include "helpers.cuh"

#define CUDA_CHECK(call)                                                    \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n",                      \
                   cudaGetErrorString(err_), __FILE__, __LINE__);           \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

// a launch written inside a macro body
#define LAUNCH_SAXPY(n, a, x, y, s) saxpy<<<((n) + 255) / 256, 256, 0, s>>>(n, a, x, y)

#ifdef __CUDACC__
#define HOST_DEVICE __host__ __device__
#else
#define HOST_DEVICE
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
#define HAS_FAST_ATOMICS 1
#else
#define HAS_FAST_ATOMICS 0
#endif

#if CUDART_VERSION >= 11000
#define USE_NEW_PATH 1
#endif

#ifndef __CUDA_RUNTIME_H__
#error "the runtime header guard must be visible"
#endif

HOST_DEVICE inline float twice(float v) { return 2.0f * v; }

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

namespace kernels {
template <typename T, int Scale>
__global__ void scale(T* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * T(Scale);
}
}  // namespace kernels

__global__ void sum_kernel(const float* x, float* out, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int k = 0; k < blockDim.x; ++k) s += tile[k];
    atomicAdd(out, s);
  }
}

int main() {
  const int n = 1 << 16;
  float *hx = nullptr, *hy = nullptr, *dx = nullptr, *dy = nullptr, *dsum = nullptr;
  CUDA_CHECK(cudaMallocHost(&hx, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost((void**)&hy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) { hx[i] = 1.0f; hy[i] = twice(1.0f); }
  CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dsum, sizeof(float)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop, cudaEventBlockingSync));
  CUDA_CHECK(cudaMemcpyAsync(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaEventRecord(start, stream));
  dim3 block(256), grid((n + block.x - 1) / block.x);
  saxpy<<<grid, block>>>(n, 2.0f, dx, dy);
  saxpy<<<grid, block, 0>>>(n, 2.0f, dx, dy);
  saxpy<<<grid, block, 0, stream>>>(n, 2.0f, dx, dy);
  LAUNCH_SAXPY(n, 3.0f, dx, dy, stream);
  kernels::scale<float, 2><<<grid, block, 0, stream>>>(dy, n);
  sum_kernel<<<grid, block, block.x * sizeof(float), stream>>>(dy, dsum, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop, stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("y[0] = %f, %.3f ms, fast atomics %d\n", hy[0], ms, HAS_FAST_ATOMICS);
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(dx));
  CUDA_CHECK(cudaFree(dy));
  CUDA_CHECK(cudaFree(dsum));
  CUDA_CHECK(cudaFreeHost(hx));
  CUDA_CHECK(cudaFreeHost(hy));
  return 0;
}
