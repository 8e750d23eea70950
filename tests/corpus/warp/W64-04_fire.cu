// W64-04 fires: a ballot kept in 32 bits and counted with __popc.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void count_positive(const int* x, int* count) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  // EXPECT: W64-04 tier=safe text="unsigned" edit="unsigned" -> "unsigned long long"
  unsigned b = __ballot_sync(__activemask(), v > 0);
  if (threadIdx.x % warpSize == 0) atomicAdd(count, __popc(b));
}

int main() {
  const int n = 64 * 256;
  int h[n], want = 0;
  for (int i = 0; i < n; ++i) { h[i] = (i * 29) % 9 - 4; want += h[i] > 0; }
  int *dx, *dc;
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dc, sizeof(int));
  cudaMemcpy(dx, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dc, 0, sizeof(int));
  count_positive<<<n / 256, 256>>>(dx, dc);
  int got = 0;
  cudaMemcpy(&got, dc, sizeof(int), cudaMemcpyDeviceToHost);
  printf("count %d want %d\n", got, want);
  printf("RESULT %s\n", got == want ? "PASS" : "FAIL");
  return 0;
}
