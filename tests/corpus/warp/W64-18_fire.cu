// W64-18 fires: one warp per row, strided by 32 although the lane id spans the whole warp.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void row_sums(const int* x, int* out, int cols) {
  int lane = threadIdx.x % warpSize;
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  int acc = 0;
  // EXPECT: W64-18 tier=safe text="32" edit="32" -> "64"
  for (int c = lane; c < cols; c += 32) acc += x[row * cols + c];
  for (int o = warpSize / 2; o > 0; o >>= 1) acc += __shfl_down_sync(__activemask(), acc, o);
  if (lane == 0) out[row] = acc;
}

int main() {
  const int rows = 64, cols = 256;
  static int h[rows * cols];
  int got[rows];
  for (int i = 0; i < rows * cols; ++i) h[i] = (i * 19) % 8;
  int ws = 0;
  cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, 0);
  int *dx, *dout;
  cudaMalloc(&dx, sizeof(h));
  cudaMalloc(&dout, sizeof(got));
  cudaMemcpy(dx, h, sizeof(h), cudaMemcpyHostToDevice);
  row_sums<<<rows * ws / 256, 256>>>(dx, dout, cols);
  cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    int want = 0;
    for (int c = 0; c < cols; ++c) want += h[r * cols + c];
    bad += got[r] != want;
  }
  printf("RESULT %s\n", bad == 0 ? "PASS" : "FAIL");
  return 0;
}
