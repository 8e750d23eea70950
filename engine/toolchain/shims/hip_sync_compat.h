// hipport: the HIP warp-sync builtins for HIP < 6.2 (e.g. Debian 12's HIP 5.2), force-included
// by hipport's build plan only when the detected HIP is older than 6.2.
//
// ROCm 6.2 added __shfl*_sync/__ballot_sync/__any_sync/__all_sync (opt-in), ROCm 7.0 made them
// the default. Like ROCm's amd_warp_sync_functions.h, these shims insist on a 64-bit mask, so a
// port that still passes CUDA's 32-bit 0xffffffff fails to compile here as it would on ROCm 7.
// Lockstep execution of a wavefront makes the plain builtins equivalent for full masks.
#pragma once
#if defined(__HIP__)
#include <hip/hip_runtime.h>
#if defined(__HIP_PLATFORM_AMD__) && defined(HIP_VERSION_MAJOR) && (HIP_VERSION_MAJOR < 6 || (HIP_VERSION_MAJOR == 6 && HIP_VERSION_MINOR < 2))

#define HIPPORT_CHECK_MASK(MaskT)                                                              \
    static_assert(sizeof(MaskT) == 8,                                                          \
                  "The mask must be a 64-bit integer. Implicitly promoting a smaller integer " \
                  "is almost always an error.");                                               \
    (void)mask /* full masks only: a wavefront runs in lockstep */

template <typename MaskT, typename T>
__device__ inline T __shfl_sync(MaskT mask, T var, int src, int width = warpSize) {
    HIPPORT_CHECK_MASK(MaskT);
    return __shfl(var, src, width);
}
template <typename MaskT, typename T>
__device__ inline T __shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
    HIPPORT_CHECK_MASK(MaskT);
    return __shfl_up(var, delta, width);
}
template <typename MaskT, typename T>
__device__ inline T __shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
    HIPPORT_CHECK_MASK(MaskT);
    return __shfl_down(var, delta, width);
}
template <typename MaskT, typename T>
__device__ inline T __shfl_xor_sync(MaskT mask, T var, int lane_mask, int width = warpSize) {
    HIPPORT_CHECK_MASK(MaskT);
    return __shfl_xor(var, lane_mask, width);
}
template <typename MaskT>
__device__ inline unsigned long long __ballot_sync(MaskT mask, int predicate) {
    HIPPORT_CHECK_MASK(MaskT);
    return __ballot(predicate) & mask;
}
template <typename MaskT>
__device__ inline int __any_sync(MaskT mask, int predicate) {
    HIPPORT_CHECK_MASK(MaskT);
    return __ballot_sync(mask, predicate) != 0;
}
template <typename MaskT>
__device__ inline int __all_sync(MaskT mask, int predicate) {
    HIPPORT_CHECK_MASK(MaskT);
    return __ballot_sync(mask, predicate) == mask;
}
#undef HIPPORT_CHECK_MASK
#endif
#endif
