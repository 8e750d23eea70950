"""W64-24 (engine/warp/checks/lane0.py): after a `__shfl_down` tree reduction only lane 0 of the shuffle group holds
the total, so an unguarded store of it by every lane to one address is a same-address race. Real code:
HeCBench 49175104c simpleSpmv `vector_mv_csr` (kernels.cu:49; on the H200 under the wave64 oracle it failed
5/5 runs as ported and passed 5/5 with only lane 0 storing). Pinned by the exact fix text and tier; the
look-alikes (guarded store, xor butterfly, per-lane address, broadcast first) stay quiet."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.engine.model import Analysis, Finding, FixStyle, FixTier
from hipport.engine.pipeline import port
from hipport.engine.source import Source, read_source
from hipport.engine.warp import analyze

HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
SPMV = HECBENCH / "src" / "simpleSpmv-cuda" / "kernels.cu"
needs_hecbench = pytest.mark.skipif(not SPMV.is_file(),
                                    reason=f"HeCBench 49175104c not found at {HECBENCH} (set HIPPORT_HECBENCH)")
GUARD = "if (threadIdx.x % BS == 0) "


def kernel(reduce: str, store: str, extra: str = "") -> str:
    return f"""#include <cuda_runtime.h>
template <int BS>
__global__ void rows(const float* v, float* y, int n) {{
  size_t m = blockIdx.x * blockDim.y + threadIdx.y;
  float temp = v[m * BS + threadIdx.x];{extra}
  {reduce}
  {store}
}}
"""


SHFL_DOWN = "for (int i = BS >> 1; i > 0; i >>= 1) temp += __shfl_down_sync(0xFFFFFFFF, temp, i, BS);"


def lane0(a: Analysis) -> list[Finding]:
    return [f for f in a.findings if f.rule == "W64-24"]


def tier(a: Analysis, f: Finding) -> tuple[FixTier, str]:
    (g,) = [g for g in a.groups if g.id == f.group]
    return g.tier, g.tier_reason


@needs_hecbench
def test_simple_spmv_row_store_is_guarded_exactly_and_safe() -> None:
    src = read_source(SPMV)
    a = analyze(src)
    (f,) = lane0(a)
    assert (f.line, src.text[f.start:f.end]) == (49, "y[m] = temp")
    assert tier(a, f) == (FixTier.SAFE, "")
    for style in FixStyle:
        fx = f.fix(style)
        assert fx is not None and [(e.start, e.end, e.replacement) for e in fx.edits] == [(f.start, f.start, GUARD)]

    def row_store(style: FixStyle | None, review: bool = False) -> tuple[str, str]:
        lines = port(src, fixes="all", style=style, allow_review=review).text.splitlines()
        (n,) = [i for i, x in enumerate(lines) if x.endswith("y[m] = temp;")]
        return lines[n - 2], lines[n]

    # W64-24 is right at any width: every port applies its SAFE fix, and the row is stored by its lane 0
    # only; by default the reduction stays a logical warp, and vector_mv_csr (launched in kernels.cu itself,
    # as a template: `vector_mv_csr<2><<<grid, block>>>`) is a SAFE 64-wide offer
    assert row_store(None) == ("      temp += hipport_shfl_down_sync(0xFFFFFFFF, temp, i, BS);",
                               f"    {GUARD}y[m] = temp;")
    assert row_store(FixStyle.WAVE64) == ("      temp += __shfl_down_sync(0xffffffffffffffffull, temp, i, BS);",
                                          f"    {GUARD}y[m] = temp;")
    # accepted for review, the kernel is 64-wide, the applied store guard with it
    assert row_store(FixStyle.WAVE64, review=True) == (
        "      temp += __shfl_down_sync(0xffffffffffffffffull, temp, i, BS);", f"    {GUARD}y[m] = temp;")
    assert row_store(FixStyle.PORTABLE, review=True) == (
        "      temp += __shfl_down_sync((~lane_mask_t{0}), temp, i, BS);", f"    {GUARD}y[m] = temp;")


@needs_hecbench
def test_the_rest_of_hecbench_dense_kernel_is_not_touched() -> None:
    """mv_dense stores `y[i] = temp` too, but with no shuffle at all: one thread per row."""
    a = analyze(read_source(SPMV))
    assert [f.line for f in lane0(a)] == [49]


def test_guarded_store_is_not_reported() -> None:
    for store in (GUARD + "y[m] = temp;", "if (threadIdx.x == 0) y[m] = temp;",
                  "if (threadIdx.x % BS == 0) { y[m] = temp; }"):
        assert not lane0(analyze(Source.from_text(kernel(SHFL_DOWN, store), "k.cu"))), store


def test_xor_butterfly_leaves_the_total_in_every_lane_and_is_not_reported() -> None:
    xor = "for (int i = BS >> 1; i > 0; i >>= 1) temp += __shfl_xor_sync(0xFFFFFFFF, temp, i, BS);"
    assert not lane0(analyze(Source.from_text(kernel(xor, "y[m] = temp;"), "k.cu")))


def test_lane_dependent_address_is_not_a_race() -> None:
    """Every lane writes its own element (directly or through a variable derived from threadIdx.x)."""
    for store, extra in (("y[m * BS + threadIdx.x] = temp;", ""),
                         ("y[m * BS + lane] = temp;", "\n  int lane = threadIdx.x % BS;")):
        assert not lane0(analyze(Source.from_text(kernel(SHFL_DOWN, store, extra), "k.cu"))), store


def test_broadcast_before_the_store_is_not_reported() -> None:
    """`temp = __shfl_sync(m, temp, 0, BS)` gives every lane the total: the store after it is right."""
    store = "temp = __shfl_sync(0xFFFFFFFF, temp, 0, BS);\n  y[m] = temp;"
    assert not lane0(analyze(Source.from_text(kernel(SHFL_DOWN, store), "k.cu")))


def test_per_thread_local_array_is_not_shared_memory() -> None:
    store = "float acc[2]; acc[0] = temp; y[m + threadIdx.x] = acc[0];"
    assert not lane0(analyze(Source.from_text(kernel(SHFL_DOWN, store), "k.cu")))


def test_shared_memory_slot_is_a_store_too() -> None:
    src = kernel(SHFL_DOWN, "s[threadIdx.y] = temp;", "\n  __shared__ float s[8];")
    a = analyze(Source.from_text(src, "k.cu"))
    (f,) = lane0(a)
    assert tier(a, f) == (FixTier.SAFE, "")


@pytest.mark.parametrize("reduce,store,reason", [
    (SHFL_DOWN, "y[m] = 2.0f * temp;", "the stored value is `2.0f * temp`, not `temp` itself"),
    ("for (int i = 8; i > 0; i >>= 1) temp += __shfl_down_sync(0xFFFFFFFF, temp, i, BS);", "y[m] = temp;",
     "the reduction starts at offset `8`, not half the shuffle width BS"),
    ("for (int i = warpSize / 2; i > 0; i >>= 1) temp += __shfl_down_sync(0xFFFFFFFF, temp, i);", "y[m] = temp;",
     "the shuffles give no width"),
    ("for (int i = BS >> 1; i > 0; i >>= 1) { float o = __shfl_down_sync(0xFFFFFFFF, temp, i, BS); temp = o + temp; }",
     "y[m] = temp;", "the loop body is not one `v op= __shfl_down(v, offset)` statement"),
])
def test_inexact_reductions_are_review_with_the_reason(reduce: str, store: str, reason: str) -> None:
    a = analyze(Source.from_text(kernel(reduce, store), "k.cu"))
    (f,) = lane0(a)
    t, why = tier(a, f)
    assert t == FixTier.REVIEW and reason in why, why
    assert "y[m] = " in port(Source.from_text(kernel(reduce, store), "k.cu"), fixes="all", style=FixStyle.WAVE64).text  # held
    assert "% " in port(Source.from_text(kernel(reduce, store), "k.cu"), fixes="all", style=FixStyle.WAVE64,
                       allow_review=True).text


@pytest.mark.parametrize("step", [
    "temp = temp + __shfl_down_sync(0xFFFFFFFF, temp, i, BS);",
    "temp = __shfl_down_sync(0xFFFFFFFF, temp, i, BS) + temp;",
    "temp = fmaxf(temp, __shfl_down_sync(0xFFFFFFFF, temp, i, BS));",
    "{ temp += __shfl_down_sync(0xFFFFFFFF, temp, i, BS); }",
])
def test_exact_reduction_forms(step: str) -> None:
    reduce = f"for (int i = BS / 2; i > 0; i /= 2) {step}"
    a = analyze(Source.from_text(kernel(reduce, "y[m] = temp;"), "k.cu"))
    (f,) = lane0(a)
    assert tier(a, f) == (FixTier.SAFE, "")


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="Debian's hipcc is not installed")
@needs_hecbench
def test_fixed_simple_spmv_compiles_with_hipcc(tmp_path: Path) -> None:
    """The whole fixed kernels.cu (both styles, ROCm 5.2 target: hipport's *_sync shims) compiles for gfx90a."""
    for style in FixStyle:
        out = tmp_path / f"kernels.{style.value}.hip"
        from hipport.engine.translate.options import TranslateOptions
        from hipport.engine.warp import WarpOptions
        out.write_text(port(read_source(SPMV), TranslateOptions(rocm=(5, 2)), fixes="all", style=style,
                            warp_options=WarpOptions(rocm=(5, 2))).text)
        assert GUARD + "y[m] = temp;" in out.read_text()
        p = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-c", f"-I{SPMV.parent}", str(out),
                            "-o", str(out.with_suffix(".o"))], capture_output=True, text=True,
                           env=dict(os.environ, HIP_PLATFORM="amd"), timeout=300)
        assert p.returncode == 0, p.stderr[-1500:]


def test_store_under_a_lane_independent_if_is_still_every_lane() -> None:
    """`if (m < n) y[m] = temp;` after the loop: the whole group takes the branch; the guard goes inside it."""
    for store in ("if (m < n) y[m] = temp;", "if (m < n) { y[m] = temp; }"):
        src = Source.from_text(kernel(SHFL_DOWN, store), "k.cu")
        a = analyze(src)
        (f,) = lane0(a)
        assert src.text[f.start:f.end] == "y[m] = temp" and tier(a, f) == (FixTier.SAFE, "")
        assert store.replace("y[m]", GUARD + "y[m]") in port(src, fixes="all", style=FixStyle.WAVE64).text


def test_if_else_and_lane_conditions_are_not_followed() -> None:
    for store in ("if (m < n) y[m] = temp; else y[m] = 0;", "if (threadIdx.x < 4) y[m] = temp;"):
        assert not lane0(analyze(Source.from_text(kernel(SHFL_DOWN, store), "k.cu"))), store
