// W64-17 fires: the warp total of an inclusive scan is taken from lane 31.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scan_total(const int* x, int* total) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  int lane = threadIdx.x % warpSize;
  for (int o = 1; o < warpSize; o <<= 1) {
    int up = __shfl_up_sync(__activemask(), v, o);
    if (lane >= o) v += up;
  }
  // EXPECT: W64-17 tier=safe text="31" edit="31" -> "63"
  int sum = __shfl_sync(__activemask(), v, 31);
  if (lane == 0) atomicAdd(total, sum);
}

int main() {
  const int n = 64 * 256;
  int h[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i * 7) % 6 + 1; want += h[i]; }
  int *dx, *dt;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dt, sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dt, 0, sizeof(int));
  scan_total<<<n / 256, 256>>>(dx, dt);
  int got = 0;
  cudaMemcpy(&got, dt, sizeof(int), cudaMemcpyDeviceToHost);
  printf("RESULT %s\n", got == want ? "PASS" : "FAIL");
  return 0;
}
