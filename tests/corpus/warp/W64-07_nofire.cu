// Look-alike for W64-07: transpose tile with bank padding [32][33], indexed by 2-D thread ids.
// EXPECT: none
#include <cuda_runtime.h>

#define TILE_DIM 32

__global__ void transpose(const float* in, float* out, int n) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  __shared__ float row_cache[32];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  if (threadIdx.y == 0) row_cache[threadIdx.x] = in[x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y] + row_cache[threadIdx.y];
}
