"""Small hand-kept tables the generated CUDA->HIP mapping does not carry (data only, no logic).

Sources: include guards read from CUDA 13's headers (/usr/local/cuda/include) and HIP's headers
(/usr/include/hip); argument rewrites follow hipify-clang (ROCm/HIPIFY src/HipifyAction.cpp).
"""

from __future__ import annotations

# Macros CUDA compilers/headers define, and their HIP counterparts for `#ifdef`/`defined()` tests.
PREPROCESSOR_RENAMES: dict[str, str] = {
    "__CUDACC__": "__HIPCC__",
    "__NVCC__": "__HIPCC__",
    "__CUDACC_RTC__": "__HIPCC_RTC__",
    "__CUDA_ARCH__": "__HIP_DEVICE_COMPILE__",
    "CUDA_VERSION": "HIP_VERSION",
    "CUDART_VERSION": "HIP_VERSION",
}

# Version macros compared with a number (`#if CUDART_VERSION >= 11000`): HIP has no CUDA version,
# so the comparison is decided as if the CUDA API level were this one (hipify's tables cover the
# CUDA 12 runtime API; a test for a newer CUDA is false: that code path uses APIs HIP may not have).
CUDA_API_LEVEL = 12000
VERSION_MACROS = frozenset({"CUDA_VERSION", "CUDART_VERSION"})

# `__CUDA_ARCH__ >= N`: MI-series GPUs offer what compute capability <= 8.0 code paths need through
# HIP's portable APIs (atomics, fp16/bf16, shuffles); Hopper/Blackwell paths (>= 9.0: wgmma, TMA,
# clusters) do not exist on AMD, so those tests are false in device code too.
ARCH_AVAILABLE_UP_TO = 800

# Include guards of CUDA headers that code tests to know a header was included, mapped to the guard
# of the HIP header the include is translated to.
INCLUDE_GUARDS: dict[str, str] = {
    "__CUDA_RUNTIME_H__": "HIP_INCLUDE_HIP_HIP_RUNTIME_H",
    "__cuda_cuda_h__": "HIP_INCLUDE_HIP_HIP_RUNTIME_H",
    "__DEVICE_LAUNCH_PARAMETERS_H__": "HIP_INCLUDE_HIP_HIP_RUNTIME_H",
    "__CUDA_RUNTIME_API_H__": "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H",
    "__CUDA_PROFILER_API_H__": "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H",
    "__CUDA_FP16_H__": "HIP_INCLUDE_HIP_HIP_FP16_H",
    "CU_COMPLEX_H_": "HIP_INCLUDE_HIP_HIP_COMPLEX_H",
    "_COOPERATIVE_GROUPS_H_": "HIP_INCLUDE_HIP_HIP_COOPERATIVE_GROUP_H",
    "__VECTOR_TYPES_H__": "HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H",
    "__DRIVER_TYPES_H__": "HIP_INCLUDE_HIP_DRIVER_TYPES_H",
}

# Calls whose arguments change, not only their name. Keyed by CUDA name:
#   ("append", n_args, text)   a call with exactly n_args arguments gets `, text` appended
#   ("rename_if", n_args, hip) a call with exactly n_args arguments is renamed to `hip` instead
#   ("drop", n_args, index)    a call with exactly n_args arguments loses argument `index` (0-based)
ARG_REWRITES: dict[str, tuple[str, int, str | int]] = {
    # hipHostMalloc's flags argument has no default in C
    "cudaMallocHost": ("append", 2, "hipHostMallocDefault"),
    # the C++ two-argument overload of cudaEventCreate takes flags
    "cudaEventCreate": ("rename_if", 2, "hipEventCreateWithFlags"),
    # HIP's module occupancy calls take no blockSizeToDynamicSMemSize callback
    "cuOccupancyMaxPotentialBlockSize": ("drop", 6, 3),
    "cuOccupancyMaxPotentialBlockSizeWithFlags": ("drop", 7, 3),
}

# Identifiers that look like CUDA APIs: reported as UNKNOWN when in no table (and not defined by the file).
UNKNOWN_PATTERN = (
    r"^(?:cuda[A-Z_]\w*|cu[A-Z][a-z]\w*|CU_[A-Z0-9_]+|CUDA_[A-Z0-9_]+|"
    r"(?:cublas|cublasLt|cusparse|cusolver|cufft|curand|cudnn|nvrtc|nvtx)[A-Z_]\w*)$"
)

# Launches: the HIP macro and the wrapper for kernels named with explicit template arguments.
LAUNCH_MACRO = "hipLaunchKernelGGL"
TEMPLATE_KERNEL_WRAPPER = "HIP_KERNEL_NAME"

# The header every translated CUDA file needs (inserted once).
HIP_RUNTIME_HEADER = "hip/hip_runtime.h"

# File suffixes that nvcc treats as CUDA (it includes cuda_runtime.h implicitly).
CUDA_SUFFIXES = frozenset({".cu", ".cuh"})
