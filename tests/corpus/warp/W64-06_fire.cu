// W64-06 fires: shuffle reduction starting at 16 (reduces 32 lanes only).
#include <cuda_runtime.h>
#include <cstdio>

__global__ void block_total(const int* x, int* total) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  // EXPECT: W64-06 tier=safe text="16" edit="16" -> "32"
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(__activemask(), v, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(total, v);
}

int main() {
  const int n = 64 * 256;
  int h[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i * 17) % 13 - 5; want += h[i]; }
  int *dx, *dt;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dt, sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dt, 0, sizeof(int));
  block_total<<<n / 256, 256>>>(dx, dt);
  int got = 0;
  cudaMemcpy(&got, dt, sizeof(int), cudaMemcpyDeviceToHost);
  printf("total %d want %lld\n", got, want);
  printf("RESULT %s\n", got == want ? "PASS" : "FAIL");
  return 0;
}
