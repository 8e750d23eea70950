// wave64_hecbench_runtime.h: HIP runtime names some HeCBench dev benchmarks use that the wave64 oracle's
// hip_on_cuda.h does not map (graphs, stream capture, managed memory). Host-side API only: nothing here
// touches warp semantics. Included first in every flattened oracle unit by scripts/wave64_hecbench.py.
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
