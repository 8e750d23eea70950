#include <cstdio>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <curand.h>

int main() {
  const int n = 4096;
  // tridiagonal [-1 2 -1] in CSR
  std::vector<int> rows(n + 1), cols;
  std::vector<float> vals;
  for (int i = 0; i < n; ++i) {
    rows[i] = static_cast<int>(cols.size());
    for (int j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < n) { cols.push_back(j); vals.push_back(j == i ? 2.0f : -1.0f); }
  }
  rows[n] = static_cast<int>(cols.size());
  int nnz = rows[n];
  int *d_rows, *d_cols;
  float *d_vals, *d_x, *d_y;
  cudaMalloc(&d_rows, (n + 1) * sizeof(int));
  cudaMalloc(&d_cols, nnz * sizeof(int));
  cudaMalloc(&d_vals, nnz * sizeof(float));
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMemcpy(d_rows, rows.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_cols, cols.data(), nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_vals, vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice);

  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  curandSetPseudoRandomGeneratorSeed(gen, 7ULL);
  curandGenerateUniform(gen, d_x, n);

  cusparseHandle_t handle;
  cusparseCreate(&handle);
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t x, y;
  cusparseCreateCsr(&A, n, n, nnz, d_rows, d_cols, d_vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&x, n, d_x, CUDA_R_32F);
  cusparseCreateDnVec(&y, n, d_y, CUDA_R_32F);
  float alpha = 1.0f, beta = 0.0f;
  size_t bytes = 0;
  cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, x, &beta, y, CUDA_R_32F,
                          CUSPARSE_SPMV_ALG_DEFAULT, &bytes);
  void* buffer = nullptr;
  cudaMalloc(&buffer, bytes > 0 ? bytes : 1);
  cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, x, &beta, y, CUDA_R_32F,
               CUSPARSE_SPMV_ALG_DEFAULT, buffer);

  std::vector<float> hx(n), hy(n);
  cudaMemcpy(hx.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(hy.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float ref = 2.0f * hx[i] - (i > 0 ? hx[i - 1] : 0.0f) - (i + 1 < n ? hx[i + 1] : 0.0f);
    if (std::fabs(hy[i] - ref) > 1e-5f) ++bad;
  }
  std::printf("%s  n=%d mismatches=%d\n", bad ? "FAIL" : "PASS", n, bad);
  cusparseDestroySpMat(A);
  cusparseDestroyDnVec(x);
  cusparseDestroyDnVec(y);
  cusparseDestroy(handle);
  curandDestroyGenerator(gen);
  return bad ? 1 : 0;
}
