// W64-23 fires: 32-lane rotate through a full-width shuffle (default width is the wavefront).
#include <cuda_runtime.h>
#include <cstdio>

__global__ void rotate(const int* x, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  // EXPECT: W64-23 tier=safe text="32" edit="32" -> "64"
  out[i] = __shfl_sync(__activemask(), x[i], (lane + 1) % 32);
}

int main() {
  const int n = 8 * 256;
  int h[n], got[n];
  for (int i = 0; i < n; ++i) h[i] = i * 3 + 7;
  int ws = 0;
  cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, 0);
  int *dx, *dout;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dout, n * sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  rotate<<<n / 256, 256>>>(dx, dout);
  cudaMemcpy(got, dout, n * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != h[i / ws * ws + (i % ws + 1) % ws];
  printf("RESULT %s\n", bad == 0 ? "PASS" : "FAIL");
  return 0;
}
