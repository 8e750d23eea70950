// Test-only header: the ROCm >= 6.2 warp-sync builtins declared as AMD documents them (HIP
// "Warp cross-lane functions": 64-bit masks, static_assert on the mask type), for compiling with
// Debian's HIP 5.2 (which predates them). Force-included with -include; written for hipport's
// tests from the documented signatures, release-build semantics (the mask is not checked at run time).
#pragma once
#include <hip/hip_runtime.h>
#include <type_traits>

#define HIPPORT_TEST_MASK_ASSERT(MaskT)                                   \
  static_assert(std::is_integral<MaskT>::value && sizeof(MaskT) == 8,     \
                "The mask must be a 64-bit integer. "                     \
                "Implicitly promoting a smaller integer is almost always an error.")

__device__ inline unsigned long long __activemask() { return __ballot(1); }

template <typename MaskT>
__device__ inline unsigned long long __ballot_sync(MaskT mask, int predicate) {
  HIPPORT_TEST_MASK_ASSERT(MaskT);
  return __ballot(predicate) & mask;
}
template <typename MaskT>
__device__ inline int __all_sync(MaskT mask, int predicate) {
  HIPPORT_TEST_MASK_ASSERT(MaskT);
  return __ballot_sync(mask, predicate) == mask;
}
template <typename MaskT>
__device__ inline int __any_sync(MaskT mask, int predicate) {
  HIPPORT_TEST_MASK_ASSERT(MaskT);
  return __ballot_sync(mask, predicate) != 0;
}
template <typename MaskT, typename T>
__device__ inline T __shfl_sync(MaskT mask, T var, int srcLane, int width = warpSize) {
  HIPPORT_TEST_MASK_ASSERT(MaskT);
  return __shfl(var, srcLane, width);
}
template <typename MaskT, typename T>
__device__ inline T __shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
  HIPPORT_TEST_MASK_ASSERT(MaskT);
  return __shfl_up(var, delta, width);
}
template <typename MaskT, typename T>
__device__ inline T __shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
  HIPPORT_TEST_MASK_ASSERT(MaskT);
  return __shfl_down(var, delta, width);
}
template <typename MaskT, typename T>
__device__ inline T __shfl_xor_sync(MaskT mask, T var, int laneMask, int width = warpSize) {
  HIPPORT_TEST_MASK_ASSERT(MaskT);
  return __shfl_xor(var, laneMask, width);
}
// HIP 7.0: __syncwarp (wavefront release/acquire around a wave barrier); mask must be 64-bit.
template <typename MaskT = unsigned long long>
__device__ inline void __syncwarp(MaskT mask = ~0ull) {
  HIPPORT_TEST_MASK_ASSERT(MaskT);
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
