// W64-24 fires: every lane of a row stores the shuffle-down total, which only the row's lane 0 holds
// (the CSR vector kernel of HeCBench simpleSpmv, reduced).
#include <cuda_runtime.h>
#include <cstdio>

template <int BS>
__global__ void row_sums(const int* x, int* y, int rows) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row < rows) {
    int sum = 0;
    for (int c = threadIdx.x; c < 100; c += BS) sum += x[row * 100 + c];
    for (int i = BS >> 1; i > 0; i >>= 1) sum += __shfl_down_sync(__activemask(), sum, i, BS);
    // EXPECT: W64-24 tier=safe text="y[row] = sum" edit="" -> "if (threadIdx.x % BS == 0) "
    y[row] = sum;
  }
}

int main() {
  const int rows = 256, cols = 100;
  static int h[rows * cols];
  static int got[rows];
  for (int i = 0; i < rows * cols; ++i) h[i] = (i * 7) % 11 - 5;
  int *dx, *dy;
  cudaMalloc(&dx, sizeof(h));
  cudaMalloc(&dy, sizeof(got));
  cudaMemcpy(dx, h, sizeof(h), cudaMemcpyHostToDevice);
  row_sums<32><<<rows / 8, dim3(32, 8)>>>(dx, dy, rows);
  cudaMemcpy(got, dy, sizeof(got), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    int want = 0;
    for (int c = 0; c < cols; ++c) want += h[r * cols + c];
    bad += got[r] != want;
  }
  printf("%d of %d rows wrong\n", bad, rows);
  printf("RESULT %s\n", bad == 0 ? "PASS" : "FAIL");
  return 0;
}
