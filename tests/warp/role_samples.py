"""Small self-written CUDA samples modelled on real-code patterns of issue 9 (HeCBench 49175104c):
each is pinned by tests/warp/test_warp_roles.py and hipcc-compiled by tests/warp/test_warp_hipcc.py."""

# a warp-size macro used only as the hardware lane width: raised, SAFE
LANE_ONLY = """#include <cuda_runtime.h>
#define WS 32
__global__ void k(const float* x, float* out) {
  float v = x[threadIdx.x];
  int lane = threadIdx.x % WS;
  for (int o = WS / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  v = __shfl_sync(0xffffffff, v, 0);  // the hardware warp's sum in every lane
  if (lane == 0) atomicAdd(out, v);
}
"""

# the same macro also sizes the launch (24 * WS threads): split, REVIEW
TWO_ROLES = """#include <cuda_runtime.h>
#define WS 32
__global__ void k(const float* x, float* out) {
  float v = x[threadIdx.x];
  int lane = threadIdx.x % WS;
  for (int o = WS / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  v = __shfl_sync(0xffffffff, v, 0);  // the hardware warp's sum in every lane
  if (lane == 0) atomicAdd(out, v);
}
void launch(const float* x, float* out) {
  k<<<1, 24 * WS>>>(x, out);
}
"""

# a host variable declared next to another declarator, used many times
HOST_VAR = """#include <cuda_runtime.h>
__global__ void k(int* out, int n) { out[threadIdx.x] = n; }
int main() {
  int devID, warp_size = 32;
  cudaGetDevice(&devID);
  int* d;
  cudaMalloc(&d, 4 * warp_size * sizeof(int));
  k<<<1, 4 * warp_size>>>(d, warp_size);
  k<<<2, 2 * warp_size>>>(d, warp_size);
  return 0;
}
"""

# a runtime check that is right on every platform
RUNTIME_CHECK = """#include <cuda_runtime.h>
__global__ void k(int* out) {
  if (warpSize == 32) out[threadIdx.x] = 1;
  else out[threadIdx.x] = 2;
}
"""

# a virtual 32-lane warp: every shuffle has width 32, the lane id and the leader are per 32 lanes
VIRTUAL = """#include <cuda_runtime.h>
__device__ float sub_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o, 32);
  return v;
}
__global__ void k(const float* x, float* out) {
  float v = sub_sum(x[threadIdx.x]);
  int lane = threadIdx.x % 32;
  if (lane == 0) out[threadIdx.x / 32] = v;
}
"""

# many masks in one kernel: one root cause
MANY_MASKS = """#include <cuda_runtime.h>
__global__ void k(const float* x, float* out) {
  float v = x[threadIdx.x];
  v += __shfl_xor_sync(0xffffffff, v, 1);
  v += __shfl_xor_sync(0xffffffff, v, 2);
  v += __shfl_xor_sync(0xffffffff, v, 4);
  out[threadIdx.x] = v;
}
"""

ROLE_SAMPLES = {"lane_only": LANE_ONLY, "two_roles": TWO_ROLES, "host_var": HOST_VAR, "runtime_check": RUNTIME_CHECK,
                "virtual": VIRTUAL, "many_masks": MANY_MASKS}
