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
TWO_ROLES = LANE_ONLY + """void launch(const float* x, float* out) {
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

# 32-bit masks that are not a literal at the call (issue 9 "missed"): a macro body, uint32_t(-1), ~0, a
# helper's `unsigned int mask = 0xffffffff` parameter, `uint32_t` declared apart from its ballot, and
# an `unsigned int` member mask for __syncwarp
MASK_FORMS = """#include <cuda_runtime.h>
#define SHFL_UP(v, d) __shfl_up_sync(0xffffffff, v, d)
#define XOR_ALL(v, m) __shfl_xor_sync(uint32_t(-1), v, m)
__device__ float pass_down(float v, int o, unsigned int mask = 0xffffffff) {
  return __shfl_down_sync(mask, v, o);
}
__device__ int first_voter(int p) {
  uint32_t work_queue;
  work_queue = __ballot_sync(~0, p);
  return __ffs(work_queue) - 1;
}
__global__ void k(float* x) {
  unsigned int member_mask = __activemask();
  __syncwarp(member_mask);
  x[threadIdx.x] = pass_down(x[threadIdx.x], 1) + SHFL_UP(x[0], 1) + XOR_ALL(x[1], 2) + first_voter(x[0] > 0);
}
"""

# a widened ballot passed on into an `unsigned int` helper parameter
BALLOT_PARAM = """#include <cuda_runtime.h>
__device__ int count_below(unsigned int m, int lane) {
  return __popc(m & ((1u << lane) - 1));
}
__global__ void k(int* x) {
  int lane = threadIdx.x % warpSize;
  unsigned long long b = __ballot_sync(0xffffffffffffffffull, x[threadIdx.x] > 0);
  x[threadIdx.x] = count_below(b, lane);
}
"""

# the host gives the block a width of 32 while the kernel takes its lanes from warpSize
HOST_WIDTH = """#include <cuda_runtime.h>
#define MAX_THREADS 256
__global__ void rows(float* out) {
  int i = threadIdx.y * warpSize + threadIdx.x;
  out[blockIdx.x * MAX_THREADS + i] = __shfl_down_sync(0xffffffff, 1.0f, 1);
}
void run(float* out) {
  int thread_x = 32;
  int thread_y = MAX_THREADS / 32;
  dim3 threads(thread_x, thread_y);
  rows<<<4, threads>>>(out);
}
"""

# a shared array with one row per lane, sized 32 * F, in a kernel whose lanes come from warpSize
SHARED_ROWS = """#include <cuda_runtime.h>
#define F 9
__global__ void k(const int* in, int* out) {
  __shared__ int rows[32 * F];
  int lane = threadIdx.x % warpSize;
  for (int i = 0; i < F; i++) rows[F * lane + i] = in[i];
  __syncwarp();
  out[threadIdx.x] = rows[F * __shfl_sync(0xffffffff, lane, 0)];
}
"""

# the last lane and the scan bound change together with the lane id they belong to
SCAN_LAST_LANE = """#include <cuda_runtime.h>
__global__ void scan(const int* x, int* sums) {
  int laneid = threadIdx.x % 32;
  int v = x[threadIdx.x];
  for (int c0 = 1; c0 < 32; c0 <<= 1) {
    int up = __shfl_up_sync(0xffffffff, v, c0);
    if (laneid >= c0) v += up;
  }
  if (laneid == 31) sums[threadIdx.x / 32] = v;
}
"""

ROLE_SAMPLES.update({"mask_forms": MASK_FORMS, "ballot_param": BALLOT_PARAM, "host_width": HOST_WIDTH,
                     "shared_rows": SHARED_ROWS, "scan_last_lane": SCAN_LAST_LANE})

# a lanemask helper written in inline PTX that returns unsigned int
LANEMASK_PTX = """#include <cuda_runtime.h>
__device__ unsigned lanemask_lt() {
  unsigned m;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}
__global__ void k(int* x) {
  unsigned long long b = __ballot_sync(0xffffffffffffffffull, x[threadIdx.x] > 0);
  x[threadIdx.x] = __popcll(b & lanemask_lt());
}
"""

ROLE_SAMPLES["lanemask_ptx"] = LANEMASK_PTX

# the mask of a partial last warp, built from `blockSize & 31` and `0xffffffff >> (32 - n)`
PARTIAL_MASK = """#include <cuda_runtime.h>
__global__ void k(float* x, int blockSize) {
  int maskLength = blockSize & 31;
  unsigned int mask = (maskLength == 0) ? 0xffffffff : (0xffffffff >> (32 - maskLength));
  x[threadIdx.x] = __shfl_sync(mask, x[threadIdx.x], 0);
}
"""

ROLE_SAMPLES["partial_mask"] = PARTIAL_MASK
