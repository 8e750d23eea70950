// Look-alike for W64-08: constants of 32 that are tile sizes and bit widths.
// EXPECT: none
#include <cuda_runtime.h>

#define TILE 32
#define BITS_PER_WORD 32
constexpr int kTileK = 32;
static const int kHashBits = 32;

__global__ void touch(float* a) {
  __shared__ float t[TILE][TILE];
  t[threadIdx.y][threadIdx.x] = a[threadIdx.y * TILE + threadIdx.x] * kTileK * BITS_PER_WORD * kHashBits;
  __syncthreads();
  a[threadIdx.x * TILE + threadIdx.y] = t[threadIdx.x][threadIdx.y];
}
