"""Tile shuffles of vector types and structs (mapping/shims/tile_shfl.h, issue 20): the value is cut into
ints, each int goes through the tile's own shuffle, and the ints are put back together, as CUDA's cooperative
groups do (details/helpers.h, _intrinsic_compat_shuffle). Checked on the host (g++): 32 lanes, a tile whose
int shuffle reads another lane's value slice by slice; every lane must get exactly the bytes of the lane that
CUDA's shuffle names (own value where shfl_up/shfl_down fall outside), for sizes that are and are not
multiples of 4, up to CUDA's 32-byte limit; integer and floating types go to the tile's own member."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.engine.translate import shims

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")

DRIVER = r"""#include <cstdio>
#include <cstring>
#include <type_traits>
#define __device__
namespace cooperative_groups {
template <typename T>
using is_valid_type = std::integral_constant<bool, std::is_integral<T>::value || std::is_floating_point<T>::value>;
}
%(shim)s
struct U4 { unsigned x, y, z, w; };
struct Three { char c[3]; };
struct Mixed { double d; float f; char c[4]; };
struct Max { double a[4]; };
// 32 lanes; the int form reads slice k of another lane's value (k counts the calls of one by_ints)
template <class T> struct Tile {
  const T* lanes; unsigned self; mutable unsigned k = 0;
  int part(unsigned lane) const {
    int p = 0;
    unsigned off = 4 * k++;
    std::memcpy(&p, reinterpret_cast<const char*>(&lanes[lane]) + off, sizeof(T) - off < 4 ? sizeof(T) - off : 4);
    return p;
  }
  template <class V> V pick(V v, unsigned lane, bool inside) const {
    if constexpr (std::is_same<V, int>::value && !std::is_same<T, int>::value) { if (inside) return part(lane); k++; return v; }
    else return inside ? static_cast<V>(lanes[lane]) : v;
  }
  template <class V> V shfl(V v, int src) const { return pick(v, unsigned(src) %% 32u, true); }
  template <class V> V shfl_xor(V v, unsigned m) const { return pick(v, (self ^ m) %% 32u, true); }
  template <class V> V shfl_up(V v, unsigned d) const { return pick(v, self - d, self >= d); }
  template <class V> V shfl_down(V v, unsigned d) const { return pick(v, self + d, self + d < 32); }
};
template <class T> static int check(const char* name) {
  T lanes[32];
  unsigned char* raw = reinterpret_cast<unsigned char*>(lanes);
  for (unsigned i = 0; i < sizeof(lanes); ++i) raw[i] = (unsigned char)(i * 37u + 11u);
  int bad = 0;
  for (unsigned self = 0; self < 32; ++self) {
    struct { const char* op; T got; unsigned want; } r[4] = {
      {"shfl", hipport_tile_shfl(Tile<T>{lanes, self}, lanes[self], 5), 5u},
      {"shfl_xor", hipport_tile_shfl_xor(Tile<T>{lanes, self}, lanes[self], 3u), self ^ 3u},
      {"shfl_up", hipport_tile_shfl_up(Tile<T>{lanes, self}, lanes[self], 2u), self >= 2 ? self - 2 : self},
      {"shfl_down", hipport_tile_shfl_down(Tile<T>{lanes, self}, lanes[self], 4u), self + 4 < 32 ? self + 4 : self}};
    for (auto& x : r)
      if (std::memcmp(&x.got, &lanes[x.want], sizeof(T)) != 0) { std::printf("%%s %%s lane %%u\n", name, x.op, self); ++bad; }
  }
  return bad;
}
int main() {
  int bad = check<U4>("U4") + check<Three>("Three") + check<Mixed>("Mixed") + check<Max>("Max") +
            check<float>("float") + check<long long>("long long") + check<char>("char");
  std::printf("bad %%d\n", bad);
  return bad != 0;
}
"""


def test_every_lane_gets_the_bytes_cuda_names(tmp_path: Path) -> None:
    shim = shims.table()["tile.shfl"].text().replace("#include <hip/hip_cooperative_groups.h>\n", "")
    (tmp_path / "t.cpp").write_text(DRIVER % {"shim": shim})
    b = subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "t.cpp", "-o", "t"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert b.returncode == 0, b.stderr[-3000:]
    r = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip().splitlines()[-1] == "bad 0", r.stdout[-2000:]
    assert r.returncode == 0


def test_types_over_32_bytes_do_not_compile(tmp_path: Path) -> None:
    """CUDA refuses them ("limited to types smaller than 32B"), and so does the helper."""
    shim = shims.table()["tile.shfl"].text().replace("#include <hip/hip_cooperative_groups.h>\n", "")
    big = DRIVER % {"shim": shim} + "struct Big { double a[5]; };\nint big() { return check<Big>(\"Big\"); }\n"
    (tmp_path / "t.cpp").write_text(big)
    b = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "t.cpp"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert b.returncode != 0 and "limited to types smaller than 32B" in b.stderr
