// The driver API's cuGetErrorName / cuGetErrorString (CUresult is hipError_t), which HIP has as
// hipDrvGetErrorName / hipDrvGetErrorString from ROCm 5.4. These do what ROCm/clr's hipamd/src/hip_error.cpp
// does: a null out-pointer is hipErrorInvalidValue; otherwise the string is the runtime's own (hipGetErrorName /
// hipGetErrorString, the functions clr builds them on), and a code the runtime does not know, one whose string is
// that of hipErrorUnknown (the runtime's default case) without being hipErrorUnknown, returns hipErrorInvalidValue
// (CUDA: CUDA_ERROR_INVALID_VALUE) with that string set.
#include <string.h>
static inline hipError_t cuGetErrorName(hipError_t error, const char** str) {
  if (!str) return hipErrorInvalidValue;
  *str = hipGetErrorName(error);
  return error == hipErrorUnknown || strcmp(*str, hipGetErrorName(hipErrorUnknown)) != 0 ? hipSuccess
                                                                                          : hipErrorInvalidValue;
}
static inline hipError_t cuGetErrorString(hipError_t error, const char** str) {
  if (!str) return hipErrorInvalidValue;
  *str = hipGetErrorString(error);
  return error == hipErrorUnknown || strcmp(*str, hipGetErrorString(hipErrorUnknown)) != 0 ? hipSuccess
                                                                                            : hipErrorInvalidValue;
}
