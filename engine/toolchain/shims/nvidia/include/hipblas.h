// hipport: the part of hipBLAS the bundled samples use, on cuBLAS, for `hipport run --platform nvidia`
// (hipBLAS's own NVIDIA backend is not installed on machines without ROCm). Only what is declared here
// exists; a port calling anything else fails to compile, naming it.
#pragma once
#include <cublas_v2.h>

typedef cublasHandle_t hipblasHandle_t;
typedef cublasStatus_t hipblasStatus_t;
typedef cublasOperation_t hipblasOperation_t;
#define HIPBLAS_STATUS_SUCCESS CUBLAS_STATUS_SUCCESS
#define HIPBLAS_OP_N CUBLAS_OP_N
#define HIPBLAS_OP_T CUBLAS_OP_T
#define HIPBLAS_OP_C CUBLAS_OP_C

static inline hipblasStatus_t hipblasCreate(hipblasHandle_t* h) { return cublasCreate(h); }
static inline hipblasStatus_t hipblasDestroy(hipblasHandle_t h) { return cublasDestroy(h); }
static inline hipblasStatus_t hipblasSetStream(hipblasHandle_t h, cudaStream_t s) { return cublasSetStream(h, s); }
static inline hipblasStatus_t hipblasSgemm(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m,
                                           int n, int k, const float* alpha, const float* A, int lda,
                                           const float* B, int ldb, const float* beta, float* C, int ldc) {
    return cublasSgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
static inline hipblasStatus_t hipblasDgemm(hipblasHandle_t h, hipblasOperation_t ta, hipblasOperation_t tb, int m,
                                           int n, int k, const double* alpha, const double* A, int lda,
                                           const double* B, int ldb, const double* beta, double* C, int ldc) {
    return cublasDgemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
