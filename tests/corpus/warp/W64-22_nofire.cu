// Look-alike for W64-22: the warp size selected by architecture macros in the device pass.
// EXPECT: none
#include <cuda_runtime.h>

#if defined(__GFX8__) || defined(__GFX9__)
#define LANES 64
#else
#define LANES 32
#endif

__global__ void leaders(int* count) {
  if (threadIdx.x % LANES == 0) atomicAdd(count, 1);
}
