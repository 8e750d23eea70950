"""Small hand-kept tables the generated CUDA->HIP mapping does not carry (data only, no logic).

Sources: argument rewrites follow hipify-clang (ROCm/HIPIFY src/HipifyAction.cpp); CUDA's macros and
their HIP meaning are mapping/macros.tsv.
"""

from __future__ import annotations

# Version macros (mapping/macros.tsv kind "version") compared with a number (`#if CUDART_VERSION >= 11000`):
# HIP has no CUDA version, so the comparison is decided as if the CUDA API level were this one (hipify's
# tables cover the CUDA 12 runtime API; a test for a newer CUDA is false: that code path uses APIs HIP
# may not have).
CUDA_API_LEVEL = 12000

# --skip-excluded-preprocessor-conditional-blocks decides #if branches as hipify-clang's clang does: a
# CUDA host-only pass (-x cuda --cuda-host-only, -std=c++14, 64-bit Linux) over the CUDA headers it
# includes. The toolkit modelled is CUDA 12.6.1 with cuDNN 9, what HIPIFY at 014177bc is tested with
# (its docs/hipify-clang.rst); library versions as that toolkit's headers encode them (cuBLAS 12.6.1,
# cuSPARSE 12.5.3, cuRAND 10.3.7). Macros named in neither table and not defined by the file or -D
# are unknown (engine/ppcond.py).
PREPROCESSOR_DEFINED: dict[str, str | None] = {
    "__CUDACC__": "1", "__CUDA__": "1", "__clang__": "1", "__cplusplus": "201402L", "__linux__": "1",
    "__x86_64__": "1", "__LP64__": "1",
    "CUDA_VERSION": "12060", "CUDART_VERSION": "12060", "__CUDART_API_VERSION": "12060",
    "CUBLAS_VER_MAJOR": "12", "CUBLAS_VER_MINOR": "6", "CUBLAS_VER_PATCH": "1", "CUBLAS_VERSION": "120601",
    "CUSPARSE_VER_MAJOR": "12", "CUSPARSE_VER_MINOR": "5", "CUSPARSE_VER_PATCH": "3", "CUSPARSE_VERSION": "12503",
    "CURAND_VER_MAJOR": "10", "CURAND_VER_MINOR": "3", "CURAND_VER_PATCH": "7", "CURAND_VERSION": "10307",
    "CUDNN_MAJOR": "9", "CUDNN_MINOR": "5", "CUDNN_PATCHLEVEL": "0", "CUDNN_VERSION": "90500",
}
PREPROCESSOR_UNDEFINED = frozenset({
    "__CUDA_ARCH__", "__NVCC__", "__CUDACC_RTC__", "__HIP__", "__HIPCC__", "__HIP_DEVICE_COMPILE__",
    "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__",
    "_WIN32", "_WIN64", "_MSC_VER", "__APPLE__", "__CUDA_API_VERSION_INTERNAL",
})

# `__CUDA_ARCH__ >= N`: MI-series GPUs offer what compute capability <= 8.0 code paths need through
# HIP's portable APIs (atomics, fp16/bf16, shuffles); Hopper/Blackwell paths (>= 9.0: wgmma, TMA,
# clusters) do not exist on AMD, so those tests are false in device code too.
ARCH_AVAILABLE_UP_TO = 800

# Calls whose arguments change, not only their name: hipify-clang's FuncArgCasts and FuncOverloads
# (ROCm/HIPIFY src/HipifyAction.cpp), as data. An op is (kind, index[, value | (to, count)]):
#   "add"      insert `value` before original argument `index` (index >= argc appends)
#   "remove"   drop argument `index`
#   "replace"  replace argument `index` with `value`
#   "wrap"     wrap argument `index` as value(...)  (HIP_SYMBOL, reinterpret_cast<size_t*>)
#   "move"     move `count` arguments starting at `index` to before original argument `to`
#   "copy"     copy argument `index` to before original argument `to` (appended when `to` >= argc)
#   "manual"   not rewritten: the call is reported for a person
# Indices always name the ORIGINAL arguments. `when`: "any", or "roc" (only with --roc: the
# rocSPARSE/MIOpen signatures; hipSPARSE/hipDNN keep CUDA's argument lists).
ArgOp = tuple[str, int, str | tuple[int, int]]
_SYM = "HIP_SYMBOL"
_FUNC = "reinterpret_cast<const void*>"
# hipGetProcAddress takes the HIP version it is written for: hipify-clang adds HIP_LATEST / 10 (HIP 6.3)
_HIP_LATEST_VERSION = "603"
_SIZE_T = "reinterpret_cast<size_t*>"
_SOLVE = "rocsparse_solve_policy_auto"
_FORCE = "rocsparse_analysis_policy_force"


def _zcds(pattern: str, when: str, *ops: ArgOp) -> dict[str, tuple[str, tuple[ArgOp, ...]]]:
    return {pattern.format(t): (when, ops) for t in "ZCDS"}


ARG_REWRITES: dict[str, tuple[str, tuple[ArgOp, ...]]] = {
    # hipHostMalloc's flags argument has no default in C
    "cudaMallocHost": ("any", (("add", 2, "hipHostMallocDefault"),)),
    # symbols are passed through HIP_SYMBOL (HIP takes the symbol's address)
    "cudaMemcpyToSymbol": ("any", (("wrap", 0, _SYM),)),
    "cudaMemcpyToSymbolAsync": ("any", (("wrap", 0, _SYM),)),
    "cudaGetSymbolSize": ("any", (("wrap", 1, _SYM),)),
    "cudaGetSymbolAddress": ("any", (("wrap", 1, _SYM),)),
    "cudaMemcpyFromSymbol": ("any", (("wrap", 1, _SYM),)),
    "cudaMemcpyFromSymbolAsync": ("any", (("wrap", 1, _SYM),)),
    "cudaGraphAddMemcpyNodeToSymbol": ("any", (("wrap", 4, _SYM),)),
    "cudaGraphAddMemcpyNodeFromSymbol": ("any", (("wrap", 5, _SYM),)),
    "cudaGraphMemcpyNodeSetParamsToSymbol": ("any", (("wrap", 1, _SYM),)),
    "cudaGraphMemcpyNodeSetParamsFromSymbol": ("any", (("wrap", 2, _SYM),)),
    "cudaGraphExecMemcpyNodeSetParamsToSymbol": ("any", (("wrap", 2, _SYM),)),
    "cudaGraphExecMemcpyNodeSetParamsFromSymbol": ("any", (("wrap", 3, _SYM),)),
    "cudaGetTextureReference": ("any", (("wrap", 1, _SYM),)),
    # kernels are passed as `const void*` (hipify-clang: e_reinterpret_cast)
    "cudaFuncSetCacheConfig": ("any", (("wrap", 0, _FUNC),)),
    "cudaFuncSetSharedMemConfig": ("any", (("wrap", 0, _FUNC),)),
    "cudaFuncGetAttributes": ("any", (("wrap", 1, _FUNC),)),
    "cudaFuncSetAttribute": ("any", (("wrap", 0, _FUNC),)),
    "cudaLaunchKernel": ("any", (("wrap", 0, _FUNC),)),
    "cudaLaunchCooperativeKernel": ("any", (("wrap", 0, _FUNC),)),
    "cudaGetDriverEntryPoint": ("any", (("add", 2, _HIP_LATEST_VERSION),)),
    # HIP's module occupancy calls take no blockSizeToDynamicSMemSize callback
    "cuOccupancyMaxPotentialBlockSize": ("any", (("remove", 3, ""),)),
    "cuOccupancyMaxPotentialBlockSizeWithFlags": ("any", (("remove", 3, ""),)),
    # cuDNN -> MIOpen (--roc)
    "cudnnGetConvolutionForwardWorkspaceSize": ("roc", (("move", 1, (2, 1)), ("move", 2, (1, 1)), ("remove", 5, ""))),
    "cudnnGetConvolutionBackwardDataWorkspaceSize": ("roc", (("move", 1, (2, 1)), ("move", 2, (1, 1)),
                                                              ("remove", 5, ""))),
    "cudnnFindConvolutionForwardAlgorithmEx": ("roc", (("add", 13, "true"),)),
    "cudnnSetPooling2dDescriptor": ("roc", (("remove", 2, ""),)),
    "cudnnGetPooling2dDescriptor": ("roc", (("remove", 2, ""),)),
    "cudnnSetPoolingNdDescriptor": ("roc", (("remove", 2, ""),)),
    "cudnnGetPoolingNdDescriptor": ("roc", (("remove", 3, ""),)),
    "cudnnSetLRNDescriptor": ("roc", (("add", 1, "miopenLRNCrossChannel"),)),
    "cudnnGetRNNDescriptor_v6": ("roc", (("remove", 0, ""),)),
    "cudnnSetRNNDescriptor_v6": ("roc", (("remove", 0, ""),)),
    "cudnnSoftmaxForward": ("roc", (("move", 1, (9, 2)),)),
    "cudnnSoftmaxBackward": ("roc", (("move", 1, (11, 2)),)),
    "cudnnConvolutionForward": ("roc", (("move", 8, (13, 2)),)),
    "cudnnConvolutionBackwardData": ("roc", (("move", 2, (4, 2)), ("move", 4, (2, 2)), ("move", 8, (13, 2)))),
    "cudnnRNNBackwardWeights": ("roc", (("move", 9, (11, 2)), ("move", 11, (9, 2)))),
    # cuSPARSE -> rocSPARSE (--roc)
    **_zcds("cusparse{}csrilu02", "roc", ("replace", 8, _SOLVE)),
    **_zcds("cusparse{}csrilu02_analysis", "roc", ("replace", 8, _FORCE), ("add", 9, _SOLVE)),
    **_zcds("cusparse{}csric02_analysis", "roc", ("replace", 8, _FORCE), ("add", 9, _SOLVE)),
    **_zcds("cusparse{}csric02_bufferSize", "roc", ("wrap", 8, _SIZE_T)),
    **_zcds("cusparse{}bsrilu02", "roc", ("replace", 10, _SOLVE)),
    **_zcds("cusparse{}bsrilu02_analysis", "roc", ("replace", 10, _FORCE), ("add", 11, _SOLVE)),
    **_zcds("cusparse{}bsric02", "roc", ("replace", 10, _SOLVE)),
    **_zcds("cusparse{}bsric02_analysis", "roc", ("replace", 10, _FORCE), ("add", 11, _SOLVE)),
    **_zcds("cusparse{}bsric02_bufferSize", "roc", ("wrap", 10, _SIZE_T)),
    **_zcds("cusparse{}bsrsm2_bufferSize", "roc", ("wrap", 13, _SIZE_T)),
    **_zcds("cusparse{}csrsm2_solve", "roc", ("replace", 15, _SOLVE)),
    **_zcds("cusparse{}csrsm2_analysis", "roc", ("replace", 15, _FORCE), ("add", 16, _SOLVE)),
    **_zcds("cusparse{}csrsm2_bufferSizeExt", "roc", ("replace", 15, _SOLVE)),
    **_zcds("cusparse{}gemvi_bufferSize", "roc", ("wrap", 5, _SIZE_T)),
    **_zcds("cusparse{}csrsv2_solve", "roc", ("replace", 12, _SOLVE)),
    **_zcds("cusparse{}csrsv2_analysis", "roc", ("replace", 9, _FORCE), ("add", 10, _SOLVE)),
    **_zcds("cusparse{}csrmv", "roc", ("add", 10, "nullptr")),
    **_zcds("cusparse{}bsrsv2_solve", "roc", ("replace", 14, _SOLVE)),
    **_zcds("cusparse{}bsrsv2_analysis", "roc", ("replace", 11, _FORCE), ("add", 12, _SOLVE)),
    **_zcds("cusparse{}csrmm", "roc", ("add", 2, "rocsparse_operation_none")),
    **_zcds("cusparse{}csrgeam2", "roc", ("remove", 19, "")),
    **_zcds("cusparse{}bsrsv2_bufferSize", "roc", ("wrap", 11, _SIZE_T)),
    **_zcds("cusparse{}csrsv2_bufferSize", "roc", ("wrap", 9, _SIZE_T)),
    **_zcds("cusparse{}csrgemm2", "roc", ("add", 1, "rocsparse_operation_none, rocsparse_operation_none")),
    **_zcds("cusparse{}csrilu02_bufferSize", "roc", ("wrap", 8, _SIZE_T)),
    **_zcds("cusparse{}bsrilu02_bufferSize", "roc", ("wrap", 10, _SIZE_T)),
    # rocSPARSE takes a batch stride after the batch count: hipify-clang passes the count again
    # (e_add_var_argument), as hipSPARSE's own implementation does
    **_zcds("cusparse{}gpsvInterleavedBatch", "roc", ("copy", 9, (10, 1))),
    **_zcds("cusparse{}gpsvInterleavedBatch_bufferSizeExt", "roc", ("copy", 9, (10, 1))),
    **_zcds("cusparse{}gtsvInterleavedBatch", "roc", ("copy", 7, (8, 1))),
    **_zcds("cusparse{}gtsvInterleavedBatch_bufferSizeExt", "roc", ("copy", 7, (8, 1))),
    "cusparseCsr2cscEx2_bufferSize": ("roc", tuple(("remove", k, "") for k in (4, 7, 8, 9, 10, 12, 13))),
    "cusparseSparseToDense": ("roc", (("add", 4, "nullptr"),)),
    "cusparseSparseToDense_bufferSize": ("roc", (("add", 5, "nullptr"),)),
    "cusparseDenseToSparse_bufferSize": ("roc", (("add", 5, "nullptr"),)),
    "cusparseDenseToSparse_analysis": ("roc", (("add", 4, "nullptr"),)),
    "cusparseSpMM_bufferSize": ("roc", (("add", 10, "rocsparse_spmm_stage_compute"), ("add", 12, "nullptr"))),
    "cusparseSpSM_analysis": ("roc", (("replace", 9, "rocsparse_spsm_stage_compute"), ("add", 10, "nullptr"))),
    "cusparseXcsrgeam2Nnz": ("roc", (("remove", 14, ""),)),
    "cusparseSpMM": ("roc", (("add", 10, "rocsparse_spmm_stage_compute, nullptr"),)),
    "cusparseSpVV_bufferSize": ("roc", (("add", 7, "nullptr"),)),
    "cusparseSpVV": ("roc", (("add", 6, "nullptr"),)),
    "cusparseSpMV_bufferSize": ("roc", (("add", 9, "rocsparse_spmv_stage_buffer_size"), ("add", 11, "nullptr"))),
    "cusparseSpMV": ("roc", (("add", 9, "rocsparse_spmv_stage_compute"),)),
    "cusparseSpMM_preprocess": ("roc", (("add", 10, "rocsparse_spmm_stage_preprocess, nullptr"),)),
    "cusparseSpSV_bufferSize": ("roc", (("replace", 8, "rocsparse_spsv_stage_buffer_size"), ("add", 10, "nullptr"))),
}
# cusparseSpSM_solve differs by target: rocSPARSE and hipSPARSE both take extra arguments
ARG_REWRITES_HIP_ONLY: dict[str, tuple[ArgOp, ...]] = {
    "cusparseSpSM_solve": (("add", 10, "nullptr"),),
}
ARG_REWRITES["cusparseSpSM_solve"] = ("roc", (("replace", 9, "rocsparse_spsm_stage_compute"),
                                             ("add", 10, "nullptr"), ("add", 11, "nullptr")))

# --use-hip-data-types: these types become hipDataType, not hipblasDatatype_t / rocblas_datatype
# (hipify-clang's TypeOverloads, applied there to variable declarations).
HIP_DATA_TYPES: dict[str, str] = {"cudaDataType_t": "hipDataType", "cudaDataType": "hipDataType"}

# Overloads told apart by their number of arguments (hipify-clang's FuncOverloads).
OVERLOADS: dict[str, dict[int, str]] = {
    "cudaEventCreate": {1: "hipEventCreate", 2: "hipEventCreateWithFlags"},
    "cudaGraphInstantiate": {5: "hipGraphInstantiate", 3: "hipGraphInstantiateWithFlags"},
}

# Identifiers that look like CUDA APIs: reported as UNKNOWN when in no table (and not defined by the file).
UNKNOWN_PATTERN = (
    r"^(?:cuda[A-Z_]\w*|cu[A-Z][a-z]\w*|CU_[A-Z0-9_]+|CUDA_[A-Z0-9_]+|"
    r"(?:cublas|cublasLt|cusparse|cusolver|cufft|curand|cudnn|nvrtc|nvtx)[A-Z_]\w*)$"
)

# `half2` values whose `.x` / `.y` are read as `half` (hipify-clang's half2Member): engine/translate/members.py.
HALF2_MEMBER_TYPES = frozenset({"half2"})
HALF2_MEMBER_CAST = "reinterpret_cast<half&>"

# Launches: the HIP macro and the wrapper for kernels named with explicit template arguments.
LAUNCH_MACRO = "hipLaunchKernelGGL"
TEMPLATE_KERNEL_WRAPPER = "HIP_KERNEL_NAME"

# HIP types that a HIP header other than hip_runtime.h declares: a file that gets one by renaming
# (HIPIFY: __nv_bfloat16 -> hip_bfloat16) gets that header too. Read from Debian HIP 5.2's
# /usr/include/hip/hip_bfloat16.h (hip_runtime.h does not include it).
TYPE_HEADERS: dict[str, str] = {
    "hip_bfloat16": "hip/hip_bfloat16.h",
    "__hip_bfloat16": "hip/hip_bf16.h",  # engine/translate/bf16.py: bf16 device arithmetic at ROCm >= 6.2
    "__hip_bfloat162": "hip/hip_bf16.h",
}

# The header every translated CUDA file needs (inserted once).
HIP_RUNTIME_HEADER = "hip/hip_runtime.h"
# HIP headers that do not build unless hip_runtime.h comes first (HIP 5.2: hip_cooperative_groups.h
# uses hip_runtime's declarations; hiprand_kernel.h its device functions): engine/translate/includes.py keeps
# them after it.
NEEDS_RUNTIME_FIRST = frozenset({"hip/hip_cooperative_groups.h", "hiprand/hiprand_kernel.h"})
# hipify-clang's header bookkeeping (HipifyAction::Exclude): the APIs whose main header is written
# once, the hipRAND headers written once, and the rocRAND headers written once under --roc.
MAIN_ONCE_APIS = frozenset({"API_BLAS", "API_DNN", "API_FFT", "API_COMPLEX", "API_SPARSE", "API_SOLVER"})
RAND_KERNEL_HEADER = "hiprand/hiprand_kernel.h"
RAND_ONCE_HIP = frozenset({"hiprand/hiprand.h", RAND_KERNEL_HEADER})
RAND_ONCE_ROC = frozenset({"rocrand/rocrand_discrete.h", "rocrand/rocrand_mtgp32.h", "rocrand/rocrand_normal.h"})
# APIs whose names and headers go to the ROC library (or MIOpen) with --roc / --miopen
# (hipify-clang's Statistics::isToRoc).
ROC_APIS = frozenset({"API_BLAS", "API_DNN", "API_SPARSE", "API_SOLVER", "API_RUNTIME", "API_COMPLEX", "API_RAND"})

# File suffixes that nvcc treats as CUDA (it includes cuda_runtime.h implicitly).
CUDA_SUFFIXES = frozenset({".cu", ".cuh"})
