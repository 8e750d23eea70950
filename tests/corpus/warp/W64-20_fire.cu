// W64-20 fires: hard guards on a 32-lane warp (compile-time and run-time).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define WARP_SIZE 32
static_assert(WARP_SIZE == 32, "this code assumes 32-thread warps");

__global__ void block_total(const int* x, int* total) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_down_sync(__activemask(), v, o);
  if (threadIdx.x % warpSize == 0) atomicAdd(total, v);
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  // EXPECT: W64-20 tier=safe text="32" edit="!= 32" -> "!= 64"
  if (prop.warpSize != 32) { printf("RESULT FAIL (warp size guard)\n"); return 1; }
  const int n = 16 * 256;
  int h[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = i % 5; want += h[i]; }
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
