#pragma once
// Device helpers with no CUDA include: nvcc includes cuda_runtime.h implicitly.

__device__ inline float clamp01(float v) { return fminf(fmaxf(v, 0.0f), 1.0f); }

__device__ inline int global_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

inline int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}
