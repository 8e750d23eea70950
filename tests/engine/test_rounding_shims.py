"""CUDA's directed-rounding intrinsics (mapping/shims/rounding.h, issue 20): each must return the IEEE-754
result of its rounding direction for every input. The shim is compiled for the host (g++) and compared bit
for bit with the same operation done by the CPU under fesetround(FE_DOWNWARD / FE_UPWARD / FE_TOWARDZERO),
on hypothesis' floats and doubles (zeros, subnormals, infinities, NaN, near-ties) and on pairs built to
round just beside a representable value. The translation inserts the shim where a file calls one of them."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.edits import apply_edits
from hipport.engine.model import ReportKind
from hipport.engine.source import Source
from hipport.engine.translate import shims
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions

OPS_F = ("__fadd", "__fsub", "__fmul", "__fdiv", "__frcp", "__fsqrt", "__fmaf")
OPS_D = ("__dadd", "__dsub", "__dmul", "__ddiv", "__drcp", "__dsqrt")
MODES = {"rd": "FE_DOWNWARD", "ru": "FE_UPWARD", "rz": "FE_TOWARDZERO"}

DRIVER = r"""#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#define __device__
%(shim)s
template <class T> static T ref(const std::string& op, int mode, T a, T b, T c) {
  std::fesetround(mode);
  volatile T x = a, y = b, z = c, r;
  if (op == "add") r = x + y; else if (op == "sub") r = x - y; else if (op == "mul") r = x * y;
  else if (op == "div") r = x / y; else if (op == "rcp") r = T(1) / x; else if (op == "sqrt") r = std::sqrt((T)x);
  else r = std::fma((T)x, (T)y, (T)z);
  T out = r;
  std::fesetround(FE_TONEAREST);
  return out;
}
int main() {
  char buf[64], kind[8];
  unsigned long long ua, ub, uc;
  while (std::scanf("%%7s %%63s %%llx %%llx %%llx", kind, buf, &ua, &ub, &uc) == 5) {
    std::string name(buf), k(kind);
    std::string r = name.substr(name.size() - 2), base = name.substr(0, name.size() - 3);
    int mode = r == "rd" ? FE_DOWNWARD : r == "ru" ? FE_UPWARD : FE_TOWARDZERO;
    std::string op = base.substr(3);
    if (op == "maf") op = "fma";
    if (k == "f") {
      float a, b, c, got = 0; unsigned int ia = ua, ib = ub, ic = uc;
      std::memcpy(&a, &ia, 4); std::memcpy(&b, &ib, 4); std::memcpy(&c, &ic, 4);
      %(float_calls)s
      float want = ref<float>(op, mode, a, b, c);
      unsigned int g, w; std::memcpy(&g, &got, 4); std::memcpy(&w, &want, 4);
      std::printf("%%x %%x\n", (std::isnan(got) && std::isnan(want)) ? 0u : g, (std::isnan(got) && std::isnan(want)) ? 0u : w);
    } else {
      double a, b, c, got = 0;
      std::memcpy(&a, &ua, 8); std::memcpy(&b, &ub, 8); std::memcpy(&c, &uc, 8);
      %(double_calls)s
      double want = ref<double>(op, mode, a, b, c);
      unsigned long long g, w; std::memcpy(&g, &got, 8); std::memcpy(&w, &want, 8);
      std::printf("%%llx %%llx\n", (std::isnan(got) && std::isnan(want)) ? 0ull : g, (std::isnan(got) && std::isnan(want)) ? 0ull : w);
    }
  }
}
"""


def _calls(ops: tuple[str, ...]) -> str:
    out = []
    for op in ops:
        args = "a" if op.endswith(("rcp", "sqrt")) else "a, b, c" if op == "__fmaf" else "a, b"
        for r in MODES:
            out.append(f'if (name == "{op}_{r}") got = {op}_{r}({args});')
    return "\n      ".join(out)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    d = tmp_path_factory.mktemp("rounding")
    src = DRIVER % {"shim": shims.table()["__fadd_rd"].text(), "float_calls": _calls(OPS_F),
                    "double_calls": _calls(OPS_D)}
    (d / "r.cpp").write_text(src)
    subprocess.run([gxx, "-std=c++17", "-O2", "-frounding-math", "-ffp-contract=off", "-fno-math-errno",
                    "-Wno-unknown-pragmas", "-o", str(d / "r"), str(d / "r.cpp")], check=True, capture_output=True,
                   timeout=180)
    return d / "r"


def _fbits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _dbits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _check(driver: Path, cases: list[tuple[str, float, float, float]]) -> None:
    lines = []
    for name, a, b, c in cases:
        if name.startswith(("__f", "__fmaf")) and not name.startswith("__fma_"):
            lines.append(f"f {name} {_fbits(a):x} {_fbits(b):x} {_fbits(c):x}")
        else:
            lines.append(f"d {name} {_dbits(a):x} {_dbits(b):x} {_dbits(c):x}")
    out = subprocess.run([str(driver)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120,
                         check=True).stdout.splitlines()
    assert len(out) == len(lines)
    bad = [(ln, o) for ln, o in zip(lines, out, strict=True) if o.split()[0] != o.split()[1]]
    assert not bad, bad[:5]


floats32 = st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)
floats64 = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(floats32, floats32, floats32), min_size=10, max_size=10),
       st.lists(st.tuples(floats64, floats64), min_size=10, max_size=10))
def test_directed_rounding_matches_the_cpu(driver: Path, f: list[tuple[float, float, float]],
                                          d: list[tuple[float, float]]) -> None:
    cases = []
    for a, b, c in f:
        for op in OPS_F:
            cases += [(f"{op}_{r}", a, b, c) for r in MODES]
    for a, b in d:
        for op in OPS_D:
            cases += [(f"{op}_{r}", a, b, 0.0) for r in MODES]
    _check(driver, cases)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-1074, 1023), st.integers(1, 2**52 - 1), st.integers(-60, 60),
                          st.integers(0, 2**52 - 1), st.booleans()), min_size=20, max_size=20))
def test_near_ties_and_tiny_results(driver: Path, raw: list[tuple[int, int, int, int, bool]]) -> None:
    """Operands a few binades apart, with random low bits: sums, products and quotients that fall just
    beside a representable value, or in the subnormal range, where a wrong direction shows."""
    cases = []
    for exp, mant, gap, mant2, neg in raw:
        sign = -1 if neg else 1
        a = (1 + mant / 2**52) * 2.0 ** max(-1022, min(exp, 1000))
        b = sign * (1 + mant2 / 2**52) * 2.0 ** max(-1074, min(exp - gap, 1000))
        for op in OPS_D:
            cases += [(f"{op}_{r}", a, b, 0.0) for r in MODES]
        fexp = max(-126, min(exp // 8, 120))
        fa = (1 + (mant >> 29) / 2**23) * 2.0**fexp
        fb = struct.unpack("<f", struct.pack("<f", sign * (1 + (mant2 >> 29) / 2**23)
                                             * 2.0 ** max(-149, min(fexp - gap // 2, 120))))[0]
        for op in OPS_F:
            cases += [(f"{op}_{r}", fa, fb, -fa) for r in MODES]
    _check(driver, cases)


def test_a_call_brings_the_shim_and_no_shims_reports_it() -> None:
    src = "__global__ void k(float* f, double* d) { f[0] = __fadd_rd(f[1], f[2]); d[0] = __dsqrt_ru(d[1]); }\n"
    t = translate(Source.from_text(src, "k.cu"), TranslateOptions(rocm=(5, 2), ast="off"))
    out = apply_edits(src, t.edits)
    assert out.count("#define HIPPORT_SHIM_ROUNDING\n") == 1
    assert {r.kind for r in t.reports} == {ReportKind.INFO}
    t = translate(Source.from_text(src, "k.cu"), TranslateOptions(rocm=(5, 2), ast="off", shims=False))
    assert [r.kind for r in t.reports] == [ReportKind.UNSUPPORTED] * 2
