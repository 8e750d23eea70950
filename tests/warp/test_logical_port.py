"""The default port: logical 32-lane warps (engine/warp/logical.py, logical_warp.h; WAVE64.md "Design:
logical warps"). Exact outputs of the rewrite, the names it must leave alone, the reports it makes,
and how an accepted 64-wide group takes whole functions out of it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.cli.main import main
from hipport.engine.compose import compose, connected_groups
from hipport.engine.model import FixStyle, FixTier
from hipport.engine.pipeline import logical_port, port
from hipport.engine.source import Source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions
from hipport.engine.warp import analyze
from hipport.engine.warp.logical import RENAMES, analyze_logical, helper_parts

HIPCC = shutil.which("hipcc")
needs_hipcc = pytest.mark.skipif(HIPCC is None, reason="Debian's hipcc is not installed (scripts/install-system-deps.sh)")


def body(text: str) -> str:
    """The port without its inserted helpers."""
    return re.sub(r"#ifndef HIPPORT_(WARP_SIZE|LOGICAL_WARP_DEVICE|LOGICAL_WARP_HOST)\n.*?\n#endif\n(#endif\n)?", "",
                  text, flags=re.S)


def default(text: str, name: str = "k.cu", **kw: object) -> str:
    return port(Source.from_text(text, name), TranslateOptions(ast="off"), **kw).text  # type: ignore[arg-type]


KERNEL = """\
#include <cuda_runtime.h>
#define FULL 0xffffffff
__device__ float warp_sum(float v) {
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
  return v;
}
__global__ void k(const float* x, float* out, unsigned* votes) {
  __shared__ float part[32];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = warp_sum(x[threadIdx.x]);
  unsigned b = __ballot_sync(FULL, v > 0.f);
  if (lane == 31) { part[warp] = v; votes[warp] = __popc(b); }
  __syncwarp();
}
int main() {
  float *x, *o; unsigned* v;
  k<<<4, 256>>>(x, o, v);
  return 0;
}
"""


def test_every_collective_and_warpsize_is_rewritten_and_32_lane_code_is_left_as_written() -> None:
    out = default(KERNEL)
    b = body(out)
    assert "for (int o = HIPPORT_WARP_SIZE / 2; o > 0; o >>= 1) v += hipport_shfl_xor_sync(FULL, v, o);" in b
    assert "unsigned b = hipport_ballot_sync(FULL, v > 0.f);" in b
    assert "hipport_syncwarp();" in b
    # the program's own 32-lane assumptions are kept: on logical warps they are true
    assert "int lane = threadIdx.x % 32, warp = threadIdx.x / 32;" in b
    assert "if (lane == 31) { part[warp] = v; votes[warp] = __popc(b); }" in b
    assert "#define FULL 0xffffffff" in b and "__shared__ float part[32];" in b
    assert "k<<<4, 256>>>(x, o, v);" in b
    # no CUDA/HIP warp builtin is called directly, so no 32-bit mask reaches a HIP *_sync builtin
    assert not re.search(r"\b__(shfl\w*|ballot\w*|any_sync|all_sync|syncwarp|activemask)\s*\(", b)
    # the helpers: each part once, under its own guard, the fixed text of logical_warp.h
    for part in ("SIZE", "DEVICE"):
        assert out.count(helper_parts()[part]) == 1
    assert "HIPPORT_LOGICAL_WARP_HOST" not in out
    assert out.index("#include <hip/hip_runtime.h>") < out.index("#ifndef HIPPORT_WARP_SIZE")


def test_fixes_none_is_the_plain_translation() -> None:
    out = default(KERNEL, fixes="none")
    assert "hipport" not in out and "__shfl_xor_sync(FULL, v, o)" in out and "warpSize / 2" in out


@pytest.mark.parametrize("name", sorted(RENAMES))
def test_each_collective_name_maps_to_its_helper(name: str) -> None:
    text = f"__global__ void k(int* o) {{ o[0] = (int){name}(0xffffffff, 1, 2); }}\n"
    out = analyze_logical(text, 0)
    (r,) = out.rewrites
    assert text[r.edit.start:r.edit.end] == name and r.edit.replacement == "hipport_" + name[2:]
    assert r.part == "DEVICE" and r.function is not None
    # and the helper of that name exists in the fixed text (both platforms' branches)
    assert helper_parts()["DEVICE"].count(f" hipport_{name[2:]}(") >= 2


def test_names_the_program_defines_are_never_hips_warpsize() -> None:
    # cuda-samples deviceQueryDrv.cpp / MonteCarloPi.cu: a host variable named warpSize (was `int 64;`)
    host = "int main() {\n  int warpSize = 32;\n  printf(\"%d\\n\", warpSize * 2);\n}\n"
    assert body(default(host)) == default(host, fixes="none")
    # a template parameter, a function parameter, a struct member, the program's own macro
    tpl = ("template <int warpSize> __device__ int f() { return warpSize; }\n"
           "__device__ int g(int warpSize) { return warpSize + 1; }\n"
           "struct P { int warpSize; };\n"
           "__device__ int h(P p) { return p.warpSize + warpSize; }\n")
    out = body(default(tpl))
    assert "template <int warpSize> __device__ int f() { return warpSize; }" in out
    assert "__device__ int g(int warpSize) { return warpSize + 1; }" in out
    assert "struct P { int warpSize; };" in out
    assert "return p.warpSize + HIPPORT_WARP_SIZE;" in out  # a member, then the builtin
    own = "#define warpSize 32\n__global__ void k(int* o) { o[threadIdx.x % warpSize] = warpSize; }\n"
    assert body(default(own)) == default(own, fixes="none")


def test_host_queries_of_the_warp_size_answer_32() -> None:
    text = ("#include <cuda_runtime.h>\nint main() {\n  cudaDeviceProp prop;\n  cudaGetDeviceProperties(&prop, 0);\n"
            "  int ws = 0;\n  cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, 0);\n"
            "  int sms = 0;\n  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
            "  return prop.warpSize + ws + sms;\n}\n")
    out = default(text)
    b = body(out)
    assert "hipport_get_device_properties(&prop, 0);" in b
    assert "hipport_device_get_attribute(&ws, hipDeviceAttributeWarpSize, 0);" in b
    assert "hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0);" in b
    assert out.count(helper_parts()["HOST"]) == 1
    # properties that nobody reads the warp size of are not wrapped
    plain = text.replace("prop.warpSize + ", "")
    assert "hipGetDeviceProperties(&prop, 0);" in body(default(plain))


def test_cub_warp_types_get_the_logical_width_and_ptx_lane_registers_read_the_logical_lane() -> None:
    text = ("#include <cub/cub.cuh>\n"
            "__device__ unsigned lane_id() { unsigned r; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
            "__device__ unsigned lt() { unsigned m; asm(\"mov.u32 %0, %%lanemask_lt;\" : \"=r\"(m)); return m; }\n"
            "__global__ void k(float* x) {\n"
            "  typedef cub::WarpReduce<float> WR;\n  __shared__ typename WR::TempStorage t[4];\n"
            "  typedef cub::WarpReduce<float, 16> Half;\n"
            "  x[0] = WR(t[threadIdx.x / 32]).Sum(x[threadIdx.x]) + lane_id() + lt();\n}\n")
    out = default(text)
    b = body(out)
    assert "typedef hipcub::WarpReduce<float, 32> WR;" in b
    assert "typedef hipcub::WarpReduce<float, 16> Half;" in b
    assert "{ unsigned r; (r) = hipport_lane_id(); return r; }" in b
    assert "{ unsigned m; (m) = hipport_lanemask_lt(); return m; }" in b
    # the asm the port replaced is no longer reported as untranslatable
    r = port(Source.from_text(text, "k.cu"), TranslateOptions(ast="off"))
    assert not [x for x in r.reports if "asm" in x.name or "PTX" in x.message]


def test_what_cannot_be_exact_is_reported_with_its_place() -> None:
    text = ("__global__ void k(int* lock, long long* t, int* flags) {\n"
            "  while (atomicCAS(lock, 0, 1) != 0);\n"
            "  t[threadIdx.x] = clock64();\n"
            "  unsigned s; asm(\"mov.u32 %0, %%smid;\" : \"=r\"(s));\n"
            "  asm volatile(\"bar.sync 0;\");\n"
            "  auto g = cooperative_groups::coalesced_threads();\n"
            "  while (flags[threadIdx.x ^ 32] == 0);\n"
            "}\n")
    lw = analyze_logical(text, 0)
    assert [(x.kind, x.line) for x in lw.not_exact] == [
        ("lockstep-wait", 2), ("hardware", 3), ("hardware", 4), ("inline-ptx", 5), ("coalesced-group", 6),
        ("lockstep-wait", 7)]
    assert "smid" in lw.not_exact[2].message


def test_convert_summary_names_logical_wide_and_not_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "k.cu").write_text(KERNEL.replace("  __syncwarp();\n", "  __syncwarp();\n  long long c = clock64();\n"))
    assert main(["convert", str(tmp_path / "k.cu"), "-o", str(tmp_path / "k.hip"), "--ast", "off"]) == 0
    err = capsys.readouterr().err
    assert "warp code in 1 file(s) ported as logical 32-lane warps (4 rewrite(s))" in err
    assert "1 place(s) not exact (listed above)" in err
    assert re.search(r"k\.cu:14:\d+: not-exact: clock64\(\) in device code", err)
    assert "reports by kind: not-exact 1 (hardware 1)" in err
    assert main(["convert", str(tmp_path / "k.cu"), "-o", str(tmp_path / "n.hip"), "--fixes", "none",
                 "--ast", "off"]) == 0
    assert "warp code left as written (--fixes none)" in capsys.readouterr().err


SPLIT = """\
#include <cuda_runtime.h>
__global__ void wide(const float* x, float* out) {
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}
__global__ void other(const int* x, unsigned* out) {
  out[threadIdx.x / 32] = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);
}
void run(const float* x, float* o, const int* y, unsigned* b) {
  wide<<<1, 256>>>(x, o);
  other<<<1, 256>>>(y, b);
}
"""


def test_an_accepted_64_wide_group_takes_its_whole_function_and_leaves_the_others_logical() -> None:
    src = Source.from_text(SPLIT, "k.cu")
    tr = translate(src, TranslateOptions(ast="off"))
    lw = logical_port(src, tr)
    an = connected_groups(analyze(src, tr), lw)
    wide_fn = SPLIT.index("__global__ void wide")
    other_fn = SPLIT.index("__global__ void other")
    in_wide = {f.group for f in an.findings if wide_fn <= f.start < other_fn}
    in_other = {f.group for f in an.findings if f.start >= other_fn}
    assert len(in_wide) == 1 and in_wide.isdisjoint(in_other)  # one connected group per kernel
    (gid,) = in_wide
    chosen = {f.id: FixStyle.WAVE64 for f in an.findings if f.group == gid}
    c = compose(tr.edits, an, chosen, allow_review=True, logical=lw)
    from hipport.engine.edits import apply_edits

    out = apply_edits(SPLIT, c.edits)
    wide_text = out[out.index("__global__ void wide"):out.index("__global__ void other")]
    other_text = out[out.index("__global__ void other"):]
    assert "hipport_" not in wide_text and "__shfl_down_sync(0xffffffffffffffffull, v, o)" in wide_text
    assert "hipport_ballot_sync(0xffffffff, x[threadIdx.x] > 0)" in other_text
    assert c.wide_groups == (gid,) and c.logical_rewrites == 1


def test_a_kernel_launched_from_another_file_is_offered_for_review_only() -> None:
    kernel_only = SPLIT[:SPLIT.index("void run")]
    src = Source.from_text(kernel_only, "k.cu")
    tr = translate(src, TranslateOptions(ast="off"))
    an = connected_groups(analyze(src, tr), logical_port(src, tr))
    tiers = {g.tier for g in an.groups}
    assert tiers == {FixTier.REVIEW}
    assert all("launched from another file" in g.tier_reason for g in an.groups)
    held = port(src, TranslateOptions(ast="off"), style=FixStyle.WAVE64)
    assert set(held.held) == {g.id for g in an.groups} and held.wide_groups == ()
    assert body(held.text).count("hipport_") == 2  # both kernels stay logical


HECBENCH = Path(__import__("os").environ.get("HIPPORT_HECBENCH", "/work/hecbench")) / "src"


@pytest.mark.skipif(not HECBENCH.is_dir(), reason=f"HeCBench 49175104c not found at {HECBENCH} (set HIPPORT_HECBENCH)")
@pytest.mark.parametrize("bench", ["vote", "scatterAdd"])
def test_host_sizing_of_another_files_kernel_is_review_and_never_applied_alone(bench: str) -> None:
    # HeCBench vote/scatterAdd main.cu: `warp_size = 32` (thread_x = 32) lays out the launch of kernels defined
    # in another file; widening it alone broke both programs under the emulator (H200, 2026-12-02, run 1)
    main_cu = HECBENCH / f"{bench}-cuda" / "main.cu"
    res = port(Source.from_text(main_cu.read_text(), str(main_cu)), TranslateOptions(ast="off"),
               style=FixStyle.WAVE64)
    assert res.wide_groups == () and res.held
    assert all("a kernel of another file" in why for why in res.held.values())
    assert "32" in body(res.text) and body(res.text) == port(
        Source.from_text(main_cu.read_text(), str(main_cu)), TranslateOptions(ast="off"), fixes="none").text


def test_width_independent_store_race_is_fixed_in_the_default_port() -> None:
    # simpleSpmv kernels.cu:49: every lane stores the row sum that only lane 0 of the shuffle group holds
    text = ("template <int BS>\n__global__ void rows(const float* v, float* y) {\n"
            "  size_t m = blockIdx.x * blockDim.y + threadIdx.y;\n  float temp = v[threadIdx.x];\n"
            "  for (int i = BS >> 1; i > 0; i >>= 1) temp += __shfl_down_sync(0xFFFFFFFF, temp, i, BS);\n"
            "  y[m] = temp;\n}\n")
    out = body(default(text))
    assert "if (threadIdx.x % BS == 0) y[m] = temp;" in out
    assert "temp += hipport_shfl_down_sync(0xFFFFFFFF, temp, i, BS);" in out


def test_a_wave32_target_in_the_list_keeps_the_port_logical_and_correct() -> None:
    out = port(Source.from_text(SPLIT, "k.cu"), TranslateOptions(ast="off"), style=FixStyle.WAVE64,
               warp_options=__import__("hipport.engine.warp", fromlist=["WarpOptions"]).WarpOptions(
                   archs=("gfx942", "gfx1100")))
    assert out.wide_groups == () and "hipport_shfl_down_sync" in out.text


@needs_hipcc
@pytest.mark.hipcc
@pytest.mark.parametrize("rocm", ["5.2", "7.0"])
def test_default_ports_compile_for_gfx90a(tmp_path: Path, rocm: str) -> None:
    """Debian's hipcc (HIP 5.2) builds the default port whatever --rocm says: the helpers need no
    *_sync builtin and no constexpr warpSize."""
    texts = {"kernel.cu": KERNEL, "split.cu": SPLIT,
             "query.cu": "#include <cuda_runtime.h>\nint main() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);"
                         " int w; cudaDeviceGetAttribute(&w, cudaDevAttrWarpSize, 0); return p.warpSize + w; }\n"}
    for name, text in texts.items():
        out = port(Source.from_text(text, name), TranslateOptions(ast="off", rocm=tuple(map(int, rocm.split("."))))).text
        f = tmp_path / (name + ".hip")
        f.write_text(out)
        r = subprocess.run([HIPCC or "hipcc", "--offload-arch=gfx90a", "-c", str(f), "-o", str(f) + ".o"],
                           capture_output=True, text=True, env={**__import__("os").environ, "HIP_PLATFORM": "amd"},
                           timeout=300)
        assert r.returncode == 0, (name, r.stderr[-2000:])


def test_a_program_that_defines_warpsize_is_never_offered_a_safe_64_wide_rewrite() -> None:
    # issue 18: the program's own `#define warpSize 32` was taken for HIP's builtin and the host sized for 64
    text = ("#define warpSize 32\n__global__ void k(int* o) {\n  int lane = threadIdx.x % warpSize;\n"
            "  o[lane] = __shfl_xor_sync(0xffffffff, lane, 16);\n}\nvoid r(int* o) { k<<<1, 64>>>(o); }\n")
    res = port(Source.from_text(text, "k.cu"), TranslateOptions(ast="off"), style=FixStyle.WAVE64)
    assert res.wide_groups == () and any("defines warpSize itself" in why for why in res.held.values())
    assert "int lane = threadIdx.x % warpSize;" in res.text and "hipport_shfl_xor_sync(0xffffffff, lane, 16)" in res.text
