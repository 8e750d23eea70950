// thread_block_tile shuffles of types other than integers and floating types. CUDA's tile.shfl* take any
// trivially copyable type of at most 32 bytes: cooperative_groups/details/helpers.h (_intrinsic_compat_shuffle)
// copies a vector type or struct into ceil(sizeof / 4) ints, shuffles each int with the tile's mask and width, and
// copies the bytes back. HIP's tile.shfl* static_assert "Neither an integer or float type." for anything else
// (HIP 5.2 to ROCm/clr f9f995c6). These do what CUDA does, through HIP's own tile shuffle of each int; integer
// and floating types go to HIP's member unchanged. HIP's vector types are trivially copy-constructible but write
// out their copy assignment (it copies their one data member, the same bytes), so std::is_trivially_copyable is
// false for them (and for structs holding them): the check is on what a byte copy needs instead.
#include <hip/hip_cooperative_groups.h>
#include <type_traits>
namespace hipport_cg {
template <class T, class Shuffle> __device__ inline T by_ints(T value, Shuffle shuffle) {
  static_assert(std::is_trivially_copy_constructible<T>::value && std::is_trivially_destructible<T>::value,
                "Type is not compatible with device shuffle");
  static_assert(sizeof(T) <= 32, "Cooperative groups collectives are limited to types smaller than 32B");
  int part[(sizeof(T) + sizeof(int) - 1) / sizeof(int)];
  __builtin_memcpy(part, &value, sizeof(T));
  for (unsigned int k = 0; k < sizeof(part) / sizeof(int); ++k) part[k] = shuffle(part[k]);
  __builtin_memcpy(&value, part, sizeof(T));
  return value;
}
#define HIPPORT_TILE_SHUFFLE(OP, ARG)                                                                            \
  template <class Tile, class T> __device__ inline T OP(const Tile& tile, T value, ARG, std::true_type) {        \
    return tile.OP(value, arg);                                                                                  \
  }                                                                                                              \
  template <class Tile, class T> __device__ inline T OP(const Tile& tile, T value, ARG, std::false_type) {       \
    return by_ints(value, [&](int part) { return tile.OP(part, arg); });                                         \
  }
HIPPORT_TILE_SHUFFLE(shfl, int arg)
HIPPORT_TILE_SHUFFLE(shfl_up, unsigned int arg)
HIPPORT_TILE_SHUFFLE(shfl_down, unsigned int arg)
HIPPORT_TILE_SHUFFLE(shfl_xor, unsigned int arg)
#undef HIPPORT_TILE_SHUFFLE
}  // namespace hipport_cg
#define HIPPORT_TILE_SHUFFLE(OP, ARG)                                                                            \
  template <class Tile, class T> __device__ inline T hipport_tile_##OP(const Tile& tile, T value, ARG) {         \
    return hipport_cg::OP(tile, value, arg, cooperative_groups::is_valid_type<T>{});                            \
  }
HIPPORT_TILE_SHUFFLE(shfl, int arg)
HIPPORT_TILE_SHUFFLE(shfl_up, unsigned int arg)
HIPPORT_TILE_SHUFFLE(shfl_down, unsigned int arg)
HIPPORT_TILE_SHUFFLE(shfl_xor, unsigned int arg)
#undef HIPPORT_TILE_SHUFFLE
