// Look-alike for the whole catalog: a shared-memory tiled SGEMM with TILE 32 and dim3 block(32, 32).
// EXPECT: none
#include <cuda_runtime.h>
#include <cstdio>

#define TILE 32

__global__ void sgemm(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

int main() {
  const int n = 256;
  float *A, *B, *C;
  cudaMalloc(&A, n * n * sizeof(float));
  cudaMalloc(&B, n * n * sizeof(float));
  cudaMalloc(&C, n * n * sizeof(float));
  dim3 block(32, 32);
  dim3 grid(n / TILE, n / TILE);
  sgemm<<<grid, block>>>(A, B, C, n);
  cudaDeviceSynchronize();
  printf("RESULT PASS\n");
  return 0;
}
