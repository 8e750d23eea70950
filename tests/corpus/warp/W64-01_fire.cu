// W64-01 fires: lane id from `& 31`; the reduction already spans the whole warp (warpSize),
// so on a 64-lane wavefront lanes 0 AND 32 act as leaders and the total is counted wrong.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void block_total(const int* x, int* total) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(__activemask(), v, o);
  // EXPECT: W64-01 tier=safe text="31" edit="31" -> "63"
  int lane = threadIdx.x & 31;
  if (lane == 0) atomicAdd(total, v);
}

int main() {
  const int n = 64 * 256;
  int h[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i * 37) % 11 - 3; want += h[i]; }
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
