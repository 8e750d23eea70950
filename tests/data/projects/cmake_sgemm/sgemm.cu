#include <cstdio>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>

int main() {
  const int n = 256;
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (int i = 0; i < n * n; ++i) { a[i] = (i % 7) * 0.25f; b[i] = (i % 5) * 0.5f; }
  float *da, *db, *dc;
  cudaMalloc(&da, n * n * sizeof(float));
  cudaMalloc(&db, n * n * sizeof(float));
  cudaMalloc(&dc, n * n * sizeof(float));
  cudaMemcpy(da, a.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n);
  cudaMemcpy(c.data(), dc, n * n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int j = 0; j < n; j += 17)
    for (int i = 0; i < n; i += 13) {
      float ref = 0.0f;
      for (int k = 0; k < n; ++k) ref += a[i + k * n] * b[k + j * n];
      if (std::fabs(c[i + j * n] - ref) > 1e-3f * std::fabs(ref) + 1e-3f) ++bad;
    }
  std::printf("%s  n=%d mismatches=%d\n", bad ? "FAIL" : "PASS", n, bad);
  cublasDestroy(h);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return bad ? 1 : 0;
}
