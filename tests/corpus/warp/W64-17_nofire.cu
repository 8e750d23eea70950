// Look-alike for W64-17: 31 as a column index of a 32-wide tile.
// EXPECT: none
#include <cuda_runtime.h>

__global__ void last_column(const float* m, float* out) {
  int col = threadIdx.x;
  int row = blockIdx.x;
  if (col == 31) out[row] = m[row * 32 + col];
}
