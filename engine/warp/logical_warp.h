// hipport logical warps: the helpers a default port calls (engine/warp/logical.py inserts them).
// A CUDA warp has 32 lanes. On a 64-wide wave (gfx9: MI100-MI350) the port runs each wave as two
// logical warps of 32 lanes, so every 32-lane assumption of the CUDA program stays true; on 32-wide
// waves (RDNA) the wave is one logical warp, and on NVIDIA these are CUDA's own builtins.
// Each part below is inserted whole under its own guard, the same text in every file, so parts met
// twice through includes are skipped. They use only builtins that HIP has had since ROCm 5
// (__shfl, __ballot, __lane_id, the wave barrier): no *_sync builtin, no 32-bit mask reaches HIP.
// The lines between "@part NAME" and "@end" are the part's text (this file is data, not a header).
// @part SIZE
#ifndef HIPPORT_WARP_SIZE
#define HIPPORT_WARP_SIZE 32  /* hipport: the CUDA program's warpSize: a logical warp of 32 lanes on every GPU */
#endif
// @end
// @part DEVICE
#ifndef HIPPORT_LOGICAL_WARP_DEVICE
#define HIPPORT_LOGICAL_WARP_DEVICE
/* hipport: CUDA warp collectives on logical 32-lane warps (two per 64-wide wave on MI-series) */
#include <hip/hip_runtime.h>
#if defined(__HIP_PLATFORM_NVIDIA__)
/* CUDA's warp is the logical warp: CUDA's own builtins, with the mask CUDA takes */
__device__ inline unsigned hipport_lane_id() { unsigned r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
template <class M, class T> __device__ inline T hipport_shfl_sync(M m, T v, int src, int width = 32) { return __shfl_sync((unsigned)m, v, src, width); }
template <class M, class T> __device__ inline T hipport_shfl_up_sync(M m, T v, unsigned delta, int width = 32) { return __shfl_up_sync((unsigned)m, v, delta, width); }
template <class M, class T> __device__ inline T hipport_shfl_down_sync(M m, T v, unsigned delta, int width = 32) { return __shfl_down_sync((unsigned)m, v, delta, width); }
template <class M, class T> __device__ inline T hipport_shfl_xor_sync(M m, T v, int lane_mask, int width = 32) { return __shfl_xor_sync((unsigned)m, v, lane_mask, width); }
template <class T> __device__ inline T hipport_shfl(T v, int src, int width = 32) { return __shfl_sync(__activemask(), v, src, width); }
template <class T> __device__ inline T hipport_shfl_up(T v, unsigned delta, int width = 32) { return __shfl_up_sync(__activemask(), v, delta, width); }
template <class T> __device__ inline T hipport_shfl_down(T v, unsigned delta, int width = 32) { return __shfl_down_sync(__activemask(), v, delta, width); }
template <class T> __device__ inline T hipport_shfl_xor(T v, int lane_mask, int width = 32) { return __shfl_xor_sync(__activemask(), v, lane_mask, width); }
__device__ inline unsigned hipport_ballot(int p) { return __ballot_sync(__activemask(), p); }
__device__ inline unsigned hipport_activemask() { return __activemask(); }
template <class M> __device__ inline unsigned hipport_ballot_sync(M m, int p) { return __ballot_sync((unsigned)m, p); }
template <class M> __device__ inline int hipport_any_sync(M m, int p) { return __any_sync((unsigned)m, p); }
template <class M> __device__ inline int hipport_all_sync(M m, int p) { return __all_sync((unsigned)m, p); }
template <class M> __device__ inline int hipport_uni_sync(M m, int p) { return __uni_sync((unsigned)m, p); }
__device__ inline int hipport_any(int p) { return __any_sync(__activemask(), p); }
__device__ inline int hipport_all(int p) { return __all_sync(__activemask(), p); }
template <class M, class T> __device__ inline unsigned hipport_match_any_sync(M m, T v) { return __match_any_sync((unsigned)m, v); }
template <class M, class T> __device__ inline unsigned hipport_match_all_sync(M m, T v, int* pred) { return __match_all_sync((unsigned)m, v, pred); }
template <class M, class T> __device__ inline T hipport_reduce_add_sync(M m, T v) { return __reduce_add_sync((unsigned)m, v); }
template <class M, class T> __device__ inline T hipport_reduce_min_sync(M m, T v) { return __reduce_min_sync((unsigned)m, v); }
template <class M, class T> __device__ inline T hipport_reduce_max_sync(M m, T v) { return __reduce_max_sync((unsigned)m, v); }
template <class M, class T> __device__ inline T hipport_reduce_and_sync(M m, T v) { return __reduce_and_sync((unsigned)m, v); }
template <class M, class T> __device__ inline T hipport_reduce_or_sync(M m, T v) { return __reduce_or_sync((unsigned)m, v); }
template <class M, class T> __device__ inline T hipport_reduce_xor_sync(M m, T v) { return __reduce_xor_sync((unsigned)m, v); }
template <class M = unsigned> __device__ inline void hipport_syncwarp(M m = 0xffffffffu) { __syncwarp((unsigned)m); }
__device__ inline unsigned hipport_lanemask_lt() { unsigned r; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); return r; }
__device__ inline unsigned hipport_lanemask_le() { unsigned r; asm("mov.u32 %0, %%lanemask_le;" : "=r"(r)); return r; }
__device__ inline unsigned hipport_lanemask_eq() { unsigned r; asm("mov.u32 %0, %%lanemask_eq;" : "=r"(r)); return r; }
__device__ inline unsigned hipport_lanemask_ge() { unsigned r; asm("mov.u32 %0, %%lanemask_ge;" : "=r"(r)); return r; }
__device__ inline unsigned hipport_lanemask_gt() { unsigned r; asm("mov.u32 %0, %%lanemask_gt;" : "=r"(r)); return r; }
#else
/* the caller's lane in its logical warp, and where that warp starts in the wave (0 or 32) */
__device__ inline unsigned hipport_lane_id() { return __lane_id() & 31u; }
__device__ inline unsigned hipport_half_() { return __lane_id() & 32u; }
/* any value of at most 8 bytes, read from logical lane src of the caller's logical warp */
template <class T> __device__ inline T hipport_read_lane_(T v, unsigned src) {
  static_assert(sizeof(T) <= 8, "hipport: a warp shuffle moves at most 8 bytes, as in CUDA");
  long long bits = 0;
  __builtin_memcpy(&bits, &v, sizeof(T));
  if (sizeof(T) <= 4) bits = (long long)__shfl((int)bits, (int)src, 32);
  else bits = __shfl(bits, (int)src, 32);
  T out;
  __builtin_memcpy(&out, &bits, sizeof(T));
  return out;
}
/* CUDA's shuffle rules (PTX shfl): segments of `width` lanes inside the 32-lane warp; a source
   outside the caller's segment (up, down) or past its end (xor) returns the caller's own value */
__device__ inline unsigned hipport_width_(int width) { return (width >= 1 && width <= 32) ? (unsigned)width : 32u; }
template <class T> __device__ inline T hipport_shfl(T v, int src, int width = 32) {
  const unsigned w = hipport_width_(width), lane = hipport_lane_id();
  return hipport_read_lane_(v, (lane & ~(w - 1u)) | ((unsigned)src & (w - 1u)));
}
template <class T> __device__ inline T hipport_shfl_up(T v, unsigned delta, int width = 32) {
  const unsigned w = hipport_width_(width), lane = hipport_lane_id(), first = lane & ~(w - 1u);
  delta &= 31u;  /* PTX reads the low 5 bits of the delta */
  return hipport_read_lane_(v, (delta <= lane - first) ? lane - delta : lane);
}
template <class T> __device__ inline T hipport_shfl_down(T v, unsigned delta, int width = 32) {
  const unsigned w = hipport_width_(width), lane = hipport_lane_id(), last = (lane & ~(w - 1u)) + w - 1u;
  delta &= 31u;  /* PTX reads the low 5 bits of the delta */
  return hipport_read_lane_(v, (delta <= last - lane) ? lane + delta : lane);
}
template <class T> __device__ inline T hipport_shfl_xor(T v, int lane_mask, int width = 32) {
  const unsigned w = hipport_width_(width), lane = hipport_lane_id(), last = (lane & ~(w - 1u)) + w - 1u;
  const unsigned src = lane ^ ((unsigned)lane_mask & 31u);  /* PTX reads the low 5 bits of the mask */
  return hipport_read_lane_(v, src <= last ? src : lane);
}
template <class M, class T> __device__ inline T hipport_shfl_sync(M, T v, int src, int width = 32) { return hipport_shfl(v, src, width); }
template <class M, class T> __device__ inline T hipport_shfl_up_sync(M, T v, unsigned delta, int width = 32) { return hipport_shfl_up(v, delta, width); }
template <class M, class T> __device__ inline T hipport_shfl_down_sync(M, T v, unsigned delta, int width = 32) { return hipport_shfl_down(v, delta, width); }
template <class M, class T> __device__ inline T hipport_shfl_xor_sync(M, T v, int lane_mask, int width = 32) { return hipport_shfl_xor(v, lane_mask, width); }
/* votes: the caller's half of HIP's 64-bit ballot, as CUDA's 32-bit one */
__device__ inline unsigned hipport_ballot(int p) { return (unsigned)(__ballot(p) >> hipport_half_()); }
__device__ inline unsigned hipport_activemask() { return hipport_ballot(1); }
template <class M> __device__ inline unsigned hipport_ballot_sync(M m, int p) { return hipport_ballot(p) & (unsigned)m; }
template <class M> __device__ inline int hipport_any_sync(M m, int p) { return hipport_ballot_sync(m, p) != 0u; }
template <class M> __device__ inline int hipport_all_sync(M m, int p) {
  const unsigned members = (unsigned)m & hipport_activemask();
  return (hipport_ballot(p) & members) == members;
}
template <class M> __device__ inline int hipport_uni_sync(M m, int p) {
  const unsigned members = (unsigned)m & hipport_activemask(), yes = hipport_ballot(p) & members;
  return yes == 0u || yes == members;
}
__device__ inline int hipport_any(int p) { return hipport_ballot(p) != 0u; }
__device__ inline int hipport_all(int p) { return hipport_ballot(p) == hipport_activemask(); }
/* match: lanes of the mask holding the same bits */
template <class T> __device__ inline unsigned long long hipport_bits_(T v) {
  static_assert(sizeof(T) <= 8, "hipport: __match_*_sync takes values of at most 8 bytes, as in CUDA");
  unsigned long long bits = 0;
  __builtin_memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <class M, class T> __device__ inline unsigned hipport_match_any_sync(M m, T v) {
  const unsigned long long mine = hipport_bits_(v);
  unsigned todo = (unsigned)m & hipport_activemask(), same_as_me = 0u;
  while (todo != 0u) {  /* the same on every lane of the logical warp: one group per round */
    const unsigned long long theirs = hipport_read_lane_(mine, (unsigned)(__ffs(todo) - 1));
    const unsigned group = hipport_ballot(theirs == mine) & todo;
    if (theirs == mine) same_as_me = group;
    todo &= ~group;
  }
  return same_as_me;
}
template <class M, class T> __device__ inline unsigned hipport_match_all_sync(M m, T v, int* pred) {
  const unsigned members = (unsigned)m & hipport_activemask();
  const unsigned long long mine = hipport_bits_(v);
  const unsigned long long first = hipport_read_lane_(mine, (unsigned)(__ffs(members) - 1));
  const int all = (hipport_ballot(first == mine) & members) == members;
  if (pred) *pred = all;
  return all ? members : 0u;
}
/* reductions over the lanes of the mask (CUDA: int and unsigned; and/or/xor: unsigned) */
template <class M, class T, class Op> __device__ inline T hipport_reduce_(M m, T v, Op op) {
  const unsigned members = (unsigned)m & hipport_activemask();
  if (members == 0xffffffffu) {
    for (int o = 16; o > 0; o >>= 1) v = op(v, hipport_read_lane_(v, hipport_lane_id() ^ (unsigned)o));
    return v;
  }
  T acc = hipport_read_lane_(v, (unsigned)(__ffs(members) - 1));
  for (unsigned rest = members & (members - 1u); rest != 0u; rest &= rest - 1u)
    acc = op(acc, hipport_read_lane_(v, (unsigned)(__ffs(rest) - 1)));
  return acc;
}
struct hipport_add_ { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct hipport_min_ { template <class T> __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
struct hipport_max_ { template <class T> __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
struct hipport_and_ { template <class T> __device__ T operator()(T a, T b) const { return a & b; } };
struct hipport_or_ { template <class T> __device__ T operator()(T a, T b) const { return a | b; } };
struct hipport_xor_ { template <class T> __device__ T operator()(T a, T b) const { return a ^ b; } };
template <class M, class T> __device__ inline T hipport_reduce_add_sync(M m, T v) { return hipport_reduce_(m, v, hipport_add_()); }
template <class M, class T> __device__ inline T hipport_reduce_min_sync(M m, T v) { return hipport_reduce_(m, v, hipport_min_()); }
template <class M, class T> __device__ inline T hipport_reduce_max_sync(M m, T v) { return hipport_reduce_(m, v, hipport_max_()); }
template <class M, class T> __device__ inline T hipport_reduce_and_sync(M m, T v) { return hipport_reduce_(m, v, hipport_and_()); }
template <class M, class T> __device__ inline T hipport_reduce_or_sync(M m, T v) { return hipport_reduce_(m, v, hipport_or_()); }
template <class M, class T> __device__ inline T hipport_reduce_xor_sync(M m, T v) { return hipport_reduce_(m, v, hipport_xor_()); }
/* __syncwarp: the lanes of a wave run in lockstep on AMD; order memory for the wave and wait for it */
__device__ inline void hipport_syncwarp_() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
template <class M = unsigned> __device__ inline void hipport_syncwarp(M = 0xffffffffu) { hipport_syncwarp_(); }
/* PTX %lanemask_*: masks of the logical warp (PTX's meaning: not ANDed with the active lanes) */
__device__ inline unsigned hipport_lanemask_lt() { return (1u << hipport_lane_id()) - 1u; }
__device__ inline unsigned hipport_lanemask_le() { return (2u << hipport_lane_id()) - 1u; }
__device__ inline unsigned hipport_lanemask_eq() { return 1u << hipport_lane_id(); }
__device__ inline unsigned hipport_lanemask_ge() { return ~hipport_lanemask_lt(); }
__device__ inline unsigned hipport_lanemask_gt() { return ~hipport_lanemask_le(); }
#endif
#endif
// @end
// @part HOST
#ifndef HIPPORT_LOGICAL_WARP_HOST
#define HIPPORT_LOGICAL_WARP_HOST
/* hipport: the program's queries of the warp size answer its logical warp, 32 lanes, on every GPU */
#include <hip/hip_runtime.h>
static inline hipError_t hipport_get_device_properties(hipDeviceProp_t* prop, int device) {
  const hipError_t err = hipGetDeviceProperties(prop, device);
  if (err == hipSuccess && prop->warpSize > 32) prop->warpSize = 32;
  return err;
}
static inline hipError_t hipport_device_get_attribute(int* value, hipDeviceAttribute_t attr, int device) {
  const hipError_t err = hipDeviceGetAttribute(value, attr, device);
  if (err == hipSuccess && attr == hipDeviceAttributeWarpSize && *value > 32) *value = 32;
  return err;
}
#endif
// @end
