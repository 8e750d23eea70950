// CUDA's integer min/max overloads that HIP lacks: with only min<T>(T, T), min(int, int), float and double,
// hip-clang finds min(unsigned, int), min(x, blockDim.x) (a coordinate proxy) ambiguous. CUDA's math
// functions convert a signed and an unsigned argument of one width to the unsigned type, as these do.
// Templates on purpose: where a HIP release declares the same overload, its non-template one is chosen.
#define HIPPORT_MINMAX(U, S)                                                                            \
  template <class = void> __host__ __device__ static inline U min(U a, U b) { return a < b ? a : b; }     \
  template <class = void> __host__ __device__ static inline U min(S a, U b) { return min((U)a, b); }      \
  template <class = void> __host__ __device__ static inline U min(U a, S b) { return min(a, (U)b); }      \
  template <class = void> __host__ __device__ static inline U max(U a, U b) { return a > b ? a : b; }     \
  template <class = void> __host__ __device__ static inline U max(S a, U b) { return max((U)a, b); }      \
  template <class = void> __host__ __device__ static inline U max(U a, S b) { return max(a, (U)b); }
HIPPORT_MINMAX(unsigned int, int)
HIPPORT_MINMAX(unsigned long, long)
HIPPORT_MINMAX(unsigned long long, long long)
#undef HIPPORT_MINMAX
