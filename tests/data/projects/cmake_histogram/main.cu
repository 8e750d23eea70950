#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "histogram.cuh"

// uses bin_of() from histogram.cu: needs separable compilation
__global__ void count_first_bin(const float* in, int n, int bins, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && bin_of(in[i], bins) == 0) atomicAdd(out, 1);
}

int main() {
  const int n = 1 << 16, bins = 16;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i % 1000) / 1000.0f;
  float* d_in;
  int *d_bins, *d_first;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_bins, bins * sizeof(int));
  cudaMalloc(&d_first, sizeof(int));
  cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_bins, 0, bins * sizeof(int));
  cudaMemset(d_first, 0, sizeof(int));
  histogram(d_in, n, d_bins, bins);
  count_first_bin<<<(n + 255) / 256, 256>>>(d_in, n, bins, d_first);
  std::vector<int> hb(bins);
  int first = 0;
  cudaMemcpy(hb.data(), d_bins, bins * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&first, d_first, sizeof(int), cudaMemcpyDeviceToHost);
  long total = 0;
  for (int b : hb) total += b;
  bool ok = total == n && first == hb[0];
  std::printf("%s  total=%ld first=%d\n", ok ? "PASS" : "FAIL", total, first);
  cudaFree(d_in);
  cudaFree(d_bins);
  cudaFree(d_first);
  return ok ? 0 : 1;
}
