#pragma once
// bin of a value in [0, 1): defined in histogram.cu, called from kernels in other files
__device__ int bin_of(float v, int bins);
void histogram(const float* d_in, int n, int* d_bins, int bins);
