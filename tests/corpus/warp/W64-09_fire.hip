// W64-09 fires: HIP code written for ROCm <= 6 that uses warpSize as a compile-time constant.
#include <hip/hip_runtime.h>
#include <cstdio>

// EXPECT: W64-09 tier=safe text="warpSize" edit="warpSize" -> "64"
constexpr int kLanes = warpSize;

__global__ void lane_copy(const int* x, int* out) {
  __shared__ int stage[warpSize];
  int lane = threadIdx.x % warpSize;
  if (threadIdx.x < kLanes) stage[lane] = x[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < kLanes) out[threadIdx.x] = stage[(lane + 1) % kLanes];
}

int main() {
  int h[64], got[64];
  for (int i = 0; i < 64; ++i) h[i] = i * 3 + 1;
  int ws = 0;
  hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0);
  int *dx, *dout;
  hipMalloc(&dx, sizeof(h));
  hipMalloc(&dout, sizeof(got));
  hipMemcpy(dx, h, sizeof(h), hipMemcpyHostToDevice);
  hipLaunchKernelGGL(lane_copy, dim3(1), dim3(64), 0, 0, dx, dout);
  hipMemcpy(got, dout, sizeof(got), hipMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < ws; ++i) bad += got[i] != h[(i + 1) % ws];
  printf("RESULT %s\n", bad == 0 ? "PASS" : "FAIL");
  return 0;
}
