// W64-15 fires: lane id read with inline PTX (no PTX on AMD; %laneid is 0-31).
#include <cuda_runtime.h>
#include <cstdio>

__global__ void leaders(int* count) {
  unsigned lane;
  // EXPECT: W64-15 tier=safe text="asm" edit="asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane))" -> "lane = __lane_id()"
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (lane == 0) atomicAdd(count, 1);
}

int main() {
  int* dc;
  cudaMalloc(&dc, sizeof(int));
  cudaMemset(dc, 0, sizeof(int));
  leaders<<<8, 256>>>(dc);
  int got = 0, ws = 0;
  cudaMemcpy(&got, dc, sizeof(int), cudaMemcpyDeviceToHost);
  cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, 0);
  printf("RESULT %s\n", got == 8 * 256 / ws ? "PASS" : "FAIL");
  return 0;
}
