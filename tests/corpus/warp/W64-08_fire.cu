// W64-08 fires: a warp-size macro of 32 used for the lane id, next to a helper written with warpSize.
#include <cuda_runtime.h>
#include <cstdio>

// EXPECT: W64-08 tier=safe text="32" edit="32" -> "64"
#define WARP_SIZE 32

__device__ int warp_sum(int v) {
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(__activemask(), v, o);
  return v;
}

__global__ void block_total(const int* x, int* total) {
  int v = warp_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
  int lane = threadIdx.x % WARP_SIZE;
  if (lane == 0) atomicAdd(total, v);
}

int main() {
  const int n = 64 * 256;
  int h[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i * 5) % 9 - 2; want += h[i]; }
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
