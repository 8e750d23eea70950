// wave64_hecbench_runtime.h: HIP names some HeCBench dev benchmarks use that the wave64 oracle
// (../shared/tools/wave64, not changed from here) does not provide. Included first in every flattened oracle
// unit by scripts/wave64_hecbench.py. Three parts, each filling a gap of the oracle, never a port's:
//   1. HIP runtime names hip_on_cuda.h does not map (graphs, stream capture, managed memory): host API.
//   2. HIP's vector-type operators (emulation only, see below).
//   3. __match_any_sync / __match_any (emulation only, see below): built on the oracle's own __ballot and
//      __shfl, so its wave64 semantics and scheduler apply.
#pragma once
#include <cuda_runtime.h>

typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;
typedef cudaStreamCaptureMode hipStreamCaptureMode;
#define hipStreamCaptureModeGlobal cudaStreamCaptureModeGlobal
inline cudaError_t hipStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode m) { return cudaStreamBeginCapture(s, m); }
inline cudaError_t hipStreamEndCapture(cudaStream_t s, cudaGraph_t* g) { return cudaStreamEndCapture(s, g); }
inline cudaError_t hipGraphInstantiate(cudaGraphExec_t* e, cudaGraph_t g, cudaGraphNode_t* n, char* log, size_t sz) {
  (void)n; (void)log; (void)sz;
  return cudaGraphInstantiate(e, g, 0);
}
inline cudaError_t hipGraphLaunch(cudaGraphExec_t e, cudaStream_t s) { return cudaGraphLaunch(e, s); }
inline cudaError_t hipGraphExecDestroy(cudaGraphExec_t e) { return cudaGraphExecDestroy(e); }
inline cudaError_t hipGraphDestroy(cudaGraph_t g) { return cudaGraphDestroy(g); }
#define hipMemAttachGlobal cudaMemAttachGlobal
template <typename T>
inline cudaError_t hipMallocManaged(T** p, size_t n, unsigned flags = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void**>(p), n, flags);
}

// <hip/hip_math_constants.h> names (the unit includes CUDA's math_constants.h instead)
#define HIP_INF_F CUDART_INF_F
#define HIP_NAN_F CUDART_NAN_F
#define HIP_INF CUDART_INF
#define HIP_NAN CUDART_NAN
#define HIP_PI_F CUDART_PI_F
#define HIP_PI CUDART_PI

#if defined(__HIP_PLATFORM_AMD__) && !defined(W64_NATIVE)
// 2. HIP's float4/uint4/... (HIP_vector_type, hip/amd_detail/amd_hip_vector_types.h) define component-wise
// arithmetic; CUDA's vector types, which the oracle keeps while it defines __HIP_PLATFORM_AMD__
// (hip_on_cuda.h, "Platform and version macros"), define none. hipport keeps a program's own operators on
// vector types for NVIDIA only (engine/vector_ops.py: under hipcc both sets made every use ambiguous), so
// an emulated unit needs HIP's (HeCBench nbnxm `Float4 += float4`, radixsort `uint4 + uint4`). Here:
// vector (+ - * /) vector and the compound forms, for the float/double/int/uint 1-4 types.
#define W64H_EACH1(a, op, b) a.x op b.x;
#define W64H_EACH2(a, op, b) a.x op b.x; a.y op b.y;
#define W64H_EACH3(a, op, b) a.x op b.x; a.y op b.y; a.z op b.z;
#define W64H_EACH4(a, op, b) a.x op b.x; a.y op b.y; a.z op b.z; a.w op b.w;
#define W64H_OP(T, EACH, op, cop)                                                                      \
  __host__ __device__ inline T& operator cop(T& a, const T& b) { EACH(a, cop, b) return a; }          \
  __host__ __device__ inline T operator op(T a, const T& b) { return a cop b; }
#define W64H_VEC(T, EACH) W64H_OP(T, EACH, +, +=) W64H_OP(T, EACH, -, -=) W64H_OP(T, EACH, *, *=) \
  W64H_OP(T, EACH, /, /=)
#define W64H_VEC4(B) W64H_VEC(B##1, W64H_EACH1) W64H_VEC(B##2, W64H_EACH2) W64H_VEC(B##3, W64H_EACH3) \
  W64H_VEC(B##4, W64H_EACH4)
W64H_VEC4(float)
W64H_VEC4(double)
W64H_VEC4(int)
W64H_VEC4(uint)

#if defined(__CUDACC__)
// 3. The oracle does not model __match_any_sync (wave64_emu.cuh's header: "Not modelled: ... __match_*"),
// so CUDA's own builtin ran in its place: it matches within one 32-thread NVIDIA warp and numbers lanes
// from 0 there, so lanes 32-63 of each emulated wave got wrong masks (HeCBench atomicAggregate printed FAIL).
// HIP: __match_any(v) = the active lanes whose v equals the caller's; __match_any_sync(m, v) =
// __match_any(v) & m, with the 64-bit mask static_assert (HIP documentation, warp cross-lane functions).
template <class T>
__device__ inline unsigned long long w64h_match_any(T value) {
  static_assert(sizeof(T) <= 8, "__match_any: at most 8 bytes");
  unsigned long long key = 0;
  memcpy(&key, &value, sizeof(T));
  unsigned long long result = 0;
  bool done = false;
  for (;;) {  // one round per distinct value; every active lane takes part in every collective
    const unsigned long long todo = __ballot(!done);
    if (todo == 0ull) break;
    const unsigned long long pick = __shfl(key, __ffsll(todo) - 1);
    const unsigned long long same = __ballot(key == pick);
    if (!done && key == pick) {
      result = same;
      done = true;
    }
  }
  return result;
}
template <class M, class T>
__device__ inline unsigned long long w64h_match_any_sync(M mask, T value) {
  W64_MASK_STATIC_ASSERT(M);
  return w64h_match_any(value) & static_cast<unsigned long long>(mask);
}
#define __match_any(value) w64h_match_any(value)
#define __match_any_sync(mask, value) w64h_match_any_sync(mask, value)
#endif
#endif
