// cooperative_groups::reduce and its operators (CUDA's cooperative_groups/reduce.h), which HIP's cooperative
// groups lack. On a tile of N threads every lane combines op(own, tile.shfl_xor(own, m)) for m = N/2, ..., 1:
// the xor tree CUDA uses for tiles of up to 32 threads, so each lane returns what it returns under CUDA, bit
// for bit for floating point too (lanes differ only where operands compare equal yet differ, -0.0 and 0.0
// under less/greater or NaN, as under CUDA); integer and bitwise results are also those of CUDA's sm_80
// redux path. Groups other than thread_block_tile (coalesced groups, whose CUDA order differs) do not match
// this template: hipport reports those calls instead.
#include <hip/hip_cooperative_groups.h>
namespace cooperative_groups {
template <class T> struct plus { __host__ __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __host__ __device__ T operator()(T a, T b) const { return (b < a) ? b : a; } };
template <class T> struct greater { __host__ __device__ T operator()(T a, T b) const { return (a < b) ? b : a; } };
template <class T> struct bit_and { __host__ __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { __host__ __device__ T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { __host__ __device__ T operator()(T a, T b) const { return a ^ b; } };
template <unsigned int N, class Parent, class T, class Op>
__device__ inline T reduce(const thread_block_tile<N, Parent>& tile, T value, Op op) {
  for (unsigned int m = N / 2; m > 0; m /= 2) value = op(value, tile.shfl_xor(value, m));
  return value;
}
}  // namespace cooperative_groups
