// CUDA's block-scope atomics (atomicAdd_block, ...): HIP has only device- and system-scope ones. A device-scope
// atomic is atomic for the block too (a wider scope), so each returns what CUDA's returns.
template <class T> __device__ static inline T atomicAdd_block(T* a, T v) { return atomicAdd(a, v); }
template <class T> __device__ static inline T atomicSub_block(T* a, T v) { return atomicSub(a, v); }
template <class T> __device__ static inline T atomicExch_block(T* a, T v) { return atomicExch(a, v); }
template <class T> __device__ static inline T atomicMin_block(T* a, T v) { return atomicMin(a, v); }
template <class T> __device__ static inline T atomicMax_block(T* a, T v) { return atomicMax(a, v); }
template <class T> __device__ static inline T atomicAnd_block(T* a, T v) { return atomicAnd(a, v); }
template <class T> __device__ static inline T atomicOr_block(T* a, T v) { return atomicOr(a, v); }
template <class T> __device__ static inline T atomicXor_block(T* a, T v) { return atomicXor(a, v); }
template <class T> __device__ static inline T atomicCAS_block(T* a, T c, T v) { return atomicCAS(a, c, v); }
__device__ static inline unsigned int atomicInc_block(unsigned int* a, unsigned int v) { return atomicInc(a, v); }
__device__ static inline unsigned int atomicDec_block(unsigned int* a, unsigned int v) { return atomicDec(a, v); }
