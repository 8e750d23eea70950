// W64-05 fires: a 32-bit lane mask `(1u << lane) - 1` gives the wrong rank to lanes 32-63.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void rank_positive(const int* x, int* rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  unsigned long long b = __ballot_sync(__activemask(), x[i] > 0);
  // EXPECT: W64-05 tier=safe text="1u" edit="1u" -> "1ull"
  unsigned lt = (1u << lane) - 1;
  rank[i] = __popcll(b & lt);
}

int main() {
  const int n = 16 * 256;
  int h[n], got[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 31) % 5 - 2;
  int ws = 0;
  cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, 0);
  int *dx, *dr;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dr, n * sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  rank_positive<<<n / 256, 256>>>(dx, dr);
  cudaMemcpy(got, dr, n * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int want = 0;
    for (int j = i / ws * ws; j < i; ++j) want += h[j] > 0;
    bad += got[i] != want;
  }
  printf("RESULT %s\n", bad == 0 ? "PASS" : "FAIL");
  return 0;
}
