// W64-03 fires: 32-bit full mask in *_sync builtins (ROCm >= 7: static_assert, a compile error).
#include <cuda_runtime.h>
#include <cstdio>

__global__ void allreduce(const int* x, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[i];
  // EXPECT: W64-03 tier=safe text="0xffffffff" edit="0xffffffff" -> "0xffffffffffffffffull"
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  int any_big = __any_sync(0xffffffff, x[i] > 100);
  out[i] = v + any_big;
}

int main() {
  const int n = 16 * 256;
  int h[n], got[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 7) % 5;
  int ws = 0;
  cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, 0);
  int *dx, *dout;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dout, n * sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  allreduce<<<n / 256, 256>>>(dx, dout);
  cudaMemcpy(got, dout, n * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int base = i / ws * ws, want = 0;
    for (int j = 0; j < ws; ++j) want += h[base + j];
    bad += got[i] != want;
  }
  printf("RESULT %s\n", bad == 0 ? "PASS" : "FAIL");
  return 0;
}
