// W64-14 fires: warp-synchronous shared-memory tail that starts at 16 lanes, without __syncwarp.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void block_total(const int* x, int* total) {
  __shared__ volatile int s[256];
  int t = threadIdx.x;
  int lane = t % warpSize;
  s[t] = x[blockIdx.x * blockDim.x + t];
  // EXPECT: W64-14 tier=safe text="16" edit="" -> "__syncwarp();\n  if (lane < 32) s[t] += s[t + 32];\n  __syncwarp();\n  "
  if (lane < 16) s[t] += s[t + 16];
  if (lane < 8) s[t] += s[t + 8];
  if (lane < 4) s[t] += s[t + 4];
  if (lane < 2) s[t] += s[t + 2];
  if (lane < 1) s[t] += s[t + 1];
  if (lane == 0) atomicAdd(total, s[t]);
}

int main() {
  const int n = 64 * 256;
  int h[n];
  long long want = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i * 3) % 10 - 4; want += h[i]; }
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
