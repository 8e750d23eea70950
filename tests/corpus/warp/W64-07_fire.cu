// W64-07 fires: per-warp partials sized (and counted) with 32 lanes per warp; on a 64-lane
// wavefront half the slots stay at their initial 0 and the block maximum of negatives is wrong.
#include <cuda_runtime.h>
#include <cstdio>

#define BLOCK 256

__global__ void block_max(const int* x, int* out) {
  // EXPECT: W64-07 tier=safe text="32" edit="32" -> "64"
  __shared__ int part[BLOCK / 32];
  if (threadIdx.x < sizeof(part) / sizeof(part[0])) part[threadIdx.x] = 0;
  __syncthreads();
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(__activemask(), v, o));
  if (threadIdx.x % warpSize == 0) part[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int m = part[0];
    for (int i = 1; i < blockDim.x / 32; ++i) m = max(m, part[i]);
    out[blockIdx.x] = m;
  }
}

int main() {
  const int blocks = 32, n = blocks * BLOCK;
  int h[n], got[blocks];
  for (int i = 0; i < n; ++i) h[i] = -1 - (i * 7919) % 1000;
  int *dx, *dout;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dout, blocks * sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  block_max<<<blocks, BLOCK>>>(dx, dout);
  cudaMemcpy(got, dout, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    int want = h[b * BLOCK];
    for (int i = 1; i < BLOCK; ++i) want = h[b * BLOCK + i] > want ? h[b * BLOCK + i] : want;
    bad += got[b] != want;
  }
  printf("RESULT %s\n", bad == 0 ? "PASS" : "FAIL");
  return 0;
}
