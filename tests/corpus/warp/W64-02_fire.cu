// W64-02 fires: warp id from `/ 32` while the leader test and the partial count use warpSize.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void block_sums(const int* x, int* out) {
  __shared__ int part[32];
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(__activemask(), v, o);
  // EXPECT: W64-02 tier=safe text="32" edit="32" -> "64"
  int wid = threadIdx.x / 32;
  if (threadIdx.x % warpSize == 0) part[wid] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < blockDim.x / warpSize; ++i) s += part[i];
    out[blockIdx.x] = s;
  }
}

int main() {
  const int blocks = 64, n = blocks * 256;
  int h[n], got[blocks];
  for (int i = 0; i < n; ++i) h[i] = (i * 13) % 7 + 1;
  int *dx, *dout;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dout, blocks * sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  block_sums<<<blocks, 256>>>(dx, dout);
  cudaMemcpy(got, dout, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    int want = 0;
    for (int i = 0; i < 256; ++i) want += h[b * 256 + i];
    bad += got[b] != want;
  }
  printf("RESULT %s\n", bad == 0 ? "PASS" : "FAIL");
  return 0;
}
