// Look-alikes for W64-24: an xor butterfly (every lane holds the total), a shuffle-down total stored by lane 0
// only, a per-lane store, and a broadcast from lane 0 before the store.
// EXPECT: none
#include <cuda_runtime.h>

template <int BS>
__global__ void row_sums(const int* x, int* y, int* z, int* w, int* u) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  int a = x[row * BS + threadIdx.x];
  int b = a, c = a, d = a;
  for (int i = BS >> 1; i > 0; i >>= 1) a += __shfl_xor_sync(__activemask(), a, i, BS);
  y[row] = a;
  for (int i = BS >> 1; i > 0; i >>= 1) b += __shfl_down_sync(__activemask(), b, i, BS);
  if (threadIdx.x % BS == 0) z[row] = b;
  for (int i = BS >> 1; i > 0; i >>= 1) c += __shfl_down_sync(__activemask(), c, i, BS);
  w[row * BS + threadIdx.x] = c;
  for (int i = BS >> 1; i > 0; i >>= 1) d += __shfl_down_sync(__activemask(), d, i, BS);
  d = __shfl_sync(__activemask(), d, 0, BS);
  u[row] = d;
}

template __global__ void row_sums<32>(const int*, int*, int*, int*, int*);
