// Look-alike for W64-20: guards on a tile size and a word width, not on the warp.
// EXPECT: none
#include <cuda_runtime.h>
#include <cassert>

#define TILE 32
static_assert(TILE == 32, "kernel is tuned for 32x32 tiles");
static_assert(sizeof(unsigned) * 8 == 32, "32-bit words");

__global__ void touch(float* a) { a[threadIdx.x] = 0.0f; }
