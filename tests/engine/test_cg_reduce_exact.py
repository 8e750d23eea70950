"""cg::reduce (mapping/shims/cg_reduce.h, issue 20) run on the host: N threads play the lanes of a tile,
tile.shfl_xor exchanges through a barrier as a wavefront would, and every lane's result is compared with
the value CUDA defines: for integers and bitwise operators the plain fold (any order gives it), for
floats each lane's result of the xor tree of CUDA's coalesced_reduce (op(own, other) for masks N/2 ... 1),
bit for bit, with `less`/`greater` as CUDA writes them (signed zeros and NaN included)."""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.translate import shims

HARNESS = r"""#include <barrier>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#define __device__
#define __host__
namespace cooperative_groups {
struct thread_block {};
template <unsigned int N, class P = void> struct thread_block_tile {
  unsigned lane; std::barrier<>* bar; unsigned long long* slots;
  template <class T> T shfl_xor(T v, unsigned m) const {
    std::memcpy(&slots[lane], &v, sizeof(T)); bar->arrive_and_wait();
    T r; std::memcpy(&r, &slots[lane ^ m], sizeof(T)); bar->arrive_and_wait();
    return r;
  }
};
}
%(shim)s
namespace cg = cooperative_groups;
template <unsigned N, class T, class Op> void run(const std::vector<T>& in, std::vector<T>& out, Op op) {
  std::barrier<> bar(N); unsigned long long slots[N];
  std::vector<std::thread> lanes;
  for (unsigned l = 0; l < N; ++l)
    lanes.emplace_back([&, l] { cg::thread_block_tile<N, cg::thread_block> t{l, &bar, slots}; out[l] = cg::reduce(t, in[l], op); });
  for (auto& x : lanes) x.join();
}
template <unsigned N> void one(const char* op, const char* type) {
  if (!std::strcmp(type, "f")) {
    std::vector<float> in(N), out(N);
    for (auto& x : in) { unsigned u; std::scanf("%%x", &u); std::memcpy(&x, &u, 4); }
    if (!std::strcmp(op, "plus")) run<N>(in, out, cg::plus<float>());
    else if (!std::strcmp(op, "less")) run<N>(in, out, cg::less<float>());
    else run<N>(in, out, cg::greater<float>());
    for (auto x : out) { unsigned u; std::memcpy(&u, &x, 4); std::printf("%%x ", u); }
  } else {
    std::vector<int> in(N), out(N);
    for (auto& x : in) std::scanf("%%d", &x);
    if (!std::strcmp(op, "plus")) run<N>(in, out, cg::plus<int>());
    else if (!std::strcmp(op, "less")) run<N>(in, out, cg::less<int>());
    else if (!std::strcmp(op, "greater")) run<N>(in, out, cg::greater<int>());
    else if (!std::strcmp(op, "bit_and")) run<N>(in, out, cg::bit_and<int>());
    else if (!std::strcmp(op, "bit_or")) run<N>(in, out, cg::bit_or<int>());
    else run<N>(in, out, cg::bit_xor<int>());
    for (auto x : out) std::printf("%%d ", x);
  }
  std::printf("\n");
}
int main() {
  char op[16], type[4]; unsigned n;
  while (std::scanf("%%15s %%3s %%u", op, type, &n) == 3) {
    if (n == 32) one<32>(op, type); else if (n == 16) one<16>(op, type); else one<4>(op, type);
  }
}
"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    d = tmp_path_factory.mktemp("cgreduce")
    shim = shims.table()["reduce"].text().replace("#include <hip/hip_cooperative_groups.h>\n", "")
    (d / "r.cpp").write_text(HARNESS % {"shim": shim})
    p = subprocess.run([gxx, "-std=c++20", "-O1", "-pthread", "-o", str(d / "r"), str(d / "r.cpp")],
                       capture_output=True, text=True, timeout=180)
    if p.returncode != 0 and "barrier" in p.stderr:
        pytest.skip("g++ has no <barrier> (C++20)")
    assert p.returncode == 0, p.stderr
    return d / "r"


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def cuda_tree(values: list[float], op: str) -> list[float]:
    """CUDA's coalesced_reduce on a single-warp tile, every lane's result (they agree but for values that
    compare equal: -0.0 and 0.0 under less/greater, NaN, where each lane keeps its own operand order)."""
    vals = list(values)
    m = len(vals) // 2
    while m:
        vals = [_op(op, vals[i], vals[i ^ m]) for i in range(len(vals))]
        m //= 2
    return vals


def _op(op: str, a: float, b: float) -> float:
    if op == "plus":
        return f32(a + b)
    if op == "less":
        return b if b < a else a
    return b if a < b else a


def bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([4, 16, 32]), st.integers(0, 2**32 - 1),
       st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=32, max_size=32))
def test_reduce_gives_cudas_values_on_every_lane(harness: Path, n: int, seed: int, floats: list[float]) -> None:
    rng = random.Random(seed)
    ints = [rng.randint(-(2**31), 2**31 - 1) for _ in range(n)]
    lines, want = [], []
    for op in ("plus", "less", "greater", "bit_and", "bit_or", "bit_xor"):
        lines.append(f"{op} i {n} " + " ".join(map(str, ints)))
        acc = ints[0]
        for v in ints[1:]:
            acc = {"plus": lambda a, b: a + b, "less": min, "greater": max, "bit_and": lambda a, b: a & b,
                   "bit_or": lambda a, b: a | b, "bit_xor": lambda a, b: a ^ b}[op](acc, v)
        acc = (acc + 2**31) % 2**32 - 2**31  # int wraps
        want.append([str(acc)] * n)
    fl = [f32(x) for x in floats[:n]]
    for op in ("plus", "less", "greater"):
        lines.append(f"{op} f {n} " + " ".join(f"{bits(x):x}" for x in fl))
        want.append(["nan" if r != r else f"{bits(r):x}" for r in cuda_tree(fl, op)])
    out = subprocess.run([str(harness)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         timeout=120, check=True).stdout.splitlines()
    got = [[("nan" if (int(w, 16) & 0x7F800000) == 0x7F800000 and int(w, 16) & 0x7FFFFF else w)
            if k >= 6 else w for w in row.split()] for k, row in enumerate(out)]
    assert got == want
