// W64-10 fires: host launch math with 32 threads per warp; the kernel maps one row per hardware warp.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void row_sums(const int* x, int* out, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  int lane = threadIdx.x % warpSize;
  if (row >= rows) return;
  int acc = 0;
  for (int c = lane; c < cols; c += warpSize) acc += x[row * cols + c];
  for (int o = warpSize / 2; o > 0; o >>= 1) acc += __shfl_down_sync(__activemask(), acc, o);
  if (lane == 0) out[row] = acc;
}

int main() {
  const int rows = 64, cols = 200;
  static int h[rows * cols];
  int got[rows];
  for (int i = 0; i < rows * cols; ++i) h[i] = (i * 11) % 7;
  int *dx, *dout;
  cudaMalloc(&dx, sizeof(h));
  cudaMalloc(&dout, sizeof(got));
  cudaMemcpy(dx, h, sizeof(h), cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, sizeof(got));
  int warps_per_block = 4;
  // safe: `threads` only sizes the launch, and row_sums reads threadIdx.x/blockDim.x only through warpSize
  // EXPECT: W64-10 tier=safe text="32" edit="32" -> "64"
  int threads = warps_per_block * 32;
  int grid = rows / warps_per_block;
  row_sums<<<grid, threads>>>(dx, dout, rows, cols);
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
