#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <curand.h>
#include "scale.cuh"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale(a, x[i]) + y[i];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  float *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  curandGenerator_t gen;
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS) return 1;
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  curandGenerateUniform(gen, x, n);
  curandGenerateUniform(gen, y, n);
  std::vector<float> hx(n), hy(n), out(n);
  CHECK(cudaMemcpy(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (std::abs(out[i] - (2.0f * hx[i] + hy[i])) > 1e-5f) ++bad;
  std::printf("%s  n=%d mismatches=%d\n", bad ? "FAIL" : "PASS", n, bad);
  curandDestroyGenerator(gen);
  cudaFree(x);
  cudaFree(y);
  return bad ? 1 : 0;
}
