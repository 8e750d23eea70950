// W64-16 fires: "is the whole warp active?" tested against a 32-bit mask.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void full_warps_only(const int* x, int* out, int* errors) {
  // EXPECT: W64-16 tier=safe text="0xffffffff" edit="0xffffffff" -> "0xffffffffffffffffull"
  if (__activemask() != 0xffffffff) { atomicAdd(errors, 1); return; }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2 * x[i];
}

int main() {
  const int n = 16 * 256;
  int h[n], got[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  int *dx, *dout, *de;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dout, n * sizeof(int));
  cudaMalloc(&de, sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, n * sizeof(int));
  cudaMemset(de, 0, sizeof(int));
  full_warps_only<<<n / 256, 256>>>(dx, dout, de);
  int errors = 0, bad = 0;
  cudaMemcpy(got, dout, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&errors, de, sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) bad += got[i] != 2 * h[i];
  printf("RESULT %s\n", bad == 0 && errors == 0 ? "PASS" : "FAIL");
  return 0;
}
