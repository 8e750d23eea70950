#include "histogram.cuh"

__device__ int bin_of(float v, int bins) {
  int b = static_cast<int>(v * bins);
  return b < 0 ? 0 : (b >= bins ? bins - 1 : b);
}

__global__ void histogram_kernel(const float* in, int n, int* bins, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[bin_of(in[i], nbins)], 1);
}

void histogram(const float* d_in, int n, int* d_bins, int bins) {
  histogram_kernel<<<64, 256>>>(d_in, n, d_bins, bins);
}
