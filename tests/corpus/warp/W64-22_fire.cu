// W64-22 fires: warp size chosen by __AMDGCN_WAVEFRONT_SIZE, which recent ROCm no longer defines
// (the #if then silently picks 32; the emulation's ROCm 7 mode does not define it either).
#include <cuda_runtime.h>
#include <cstdio>

// EXPECT: W64-22 tier=safe text="__AMDGCN_WAVEFRONT_SIZE" edit="defined(__AMDGCN_WAVEFRONT_SIZE)" -> "1"
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 64
#define LANES 64
#else
#define LANES 32
#endif

__global__ void block_total(const int* x, int* total) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(__activemask(), v, o);
  if (threadIdx.x % LANES == 0) atomicAdd(total, v);
}

int main() {
  const int n = 64 * 256;
  int h[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i * 23) % 7 - 3; want += h[i]; }
  int *dx, *dt;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dt, sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dt, 0, sizeof(int));
  block_total<<<n / 256, 256>>>(dx, dt);
  int got = 0;
  cudaMemcpy(&got, dt, sizeof(int), cudaMemcpyDeviceToHost);
  printf("RESULT %s\n", got == want ? "PASS" : "FAIL");
  return 0;
}
