"""The failure classes of real CUDA programs (issue 10, "Real projects"), one self-written sample each:
CUDA features HIP lacks are reported with file:line, CUDA 11/12 names are mapped or reported from
data, `__CUDA_ARCH__` decisions keep a branch the target can compile, includes between the files of
one --suffix conversion follow the ported names, and convert prints a summary by kind.
(Compiled with hipcc in tests/compile/test_real_code_compile.py.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hipport.engine.edits import apply_edits
from hipport.engine.model import Report, ReportKind, Translation
from hipport.engine.source import Source
from hipport.engine.translate.cuda_features import feature_of, summarize, summary_line
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions


def run(src: str, path: str = "x.cu", **kw: object) -> tuple[str, Translation]:
    kw.setdefault("ast", "off")
    t = translate(Source.from_text(src, path), TranslateOptions(**kw))  # type: ignore[arg-type]
    return apply_edits(src, t.edits), t


def found(t: Translation, kind: ReportKind | None = None) -> set[tuple[str, int]]:
    return {(r.name, r.line) for r in t.reports if kind is None or r.kind == kind}


CG = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(int* out, int v) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
  int s = cg::reduce(w, v, cg::plus<int>());
  int m = cg::reduce(w, v, cg::greater<int>());
  auto part = cg::labeled_partition(w, v & 1);
  auto big = cg::tiled_partition<128>(b);
  __shared__ cg::experimental::block_tile_memory<4, 256> scratch;
  int reduce = s + m + w.meta_group_rank();
  out[0] = reduce + std::plus<int>()(1, 2);
}
"""


def test_cooperative_groups_features_hip_lacks_are_unsupported_with_lines() -> None:
    out, t = run(CG, rocm=(5, 2), shims=False)
    assert out.count("cg::") == CG.count("cg::")  # reported, never rewritten
    got = found(t, ReportKind.UNSUPPORTED)
    assert {("cooperative_groups/reduce.h", 2), ("reduce", 7), ("plus", 7), ("reduce", 8), ("greater", 8),
            ("labeled_partition", 9), ("tiled_partition", 10), ("block_tile_memory", 11)} <= got
    # the local variable `reduce`, std::plus and the 32-wide tile are not CUDA features
    assert ("reduce", 12) not in found(t) and ("plus", 13) not in found(t) and ("tiled_partition", 6) not in found(t)
    newer = [r for r in t.reports if r.kind == ReportKind.NEEDS_NEWER_ROCM]
    assert [(r.name, r.line, r.since) for r in newer] == [("meta_group_rank", 12, "5.7.0")]
    assert ("meta_group_rank", 12) not in found(run(CG, rocm=(6, 0), shims=False)[1])


def test_cooperative_groups_through_using_namespace() -> None:
    src = ("#include <cooperative_groups.h>\nusing namespace cooperative_groups;\n"
           "__global__ void k(int* o) { auto b = this_thread_block(); auto t = tiled_partition<32>(b);\n"
           "  auto l = labeled_partition(t, o[0]); int reduce = 1; o[1] = reduce; }\n")
    _, t = run(src)
    assert found(t, ReportKind.UNSUPPORTED) == {("labeled_partition", 4)}  # bare `reduce` is no cg::reduce here


def test_grid_constant_and_inline_ptx_are_unsupported() -> None:
    src = ("__global__ void k(const __grid_constant__ int p, int* o) {\n"
           "  asm volatile(\"bar.sync 0;\");\n  o[0] = p;\n}\n")
    _, t = run(src, shims=False)
    assert found(t, ReportKind.UNSUPPORTED) == {("__grid_constant__", 1), ("asm", 2)}


def test_cuda12_names_mapped_or_reported_from_overrides() -> None:
    src = ("void f(cudaStream_t s) {\n  cudaStreamAttrValue v;\n  cudaStreamAttrID id;\n"
           "  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);\n  cudaGraphConditionalHandle h;\n}\n")
    out, t = run(src, rocm=(7, 1))
    assert "hipStreamAttrValue v;" in out and "hipStreamAttrID id;" in out
    assert found(t, ReportKind.UNSUPPORTED) == {("cudaLimitPersistingL2CacheSize", 4), ("cudaGraphConditionalHandle", 5)}
    _, old = run(src, rocm=(5, 2))
    newer = {(r.name, r.since) for r in old.reports if r.kind == ReportKind.NEEDS_NEWER_ROCM}
    assert ("cudaStreamAttrValue", "7.1.0") in newer and ("cudaStreamAttrID", "7.1.0") in newer


def test_bf16_header_follows_the_renamed_type() -> None:
    out, _t = run("#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16* p) { p[0] = __nv_bfloat16(1.0f); }\n",
                  rocm=(6, 1))
    assert "#include <hip/hip_bfloat16.h>" in out and "cuda_bf16" not in out
    assert "hip_bfloat16* p" in out


ARCH = """__device__ unsigned total(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int o = 32; o > 0; o /= 2) v += __shfl_down(v, o);
  return v;
#endif
}
"""


def test_arch_decision_keeps_the_fallback_the_target_can_compile() -> None:
    out, t = run(ARCH, rocm=(5, 2))
    assert "#if 0 /* hipport: __CUDA_ARCH__ >= 800 */" in out
    info = [r.message for r in t.reports if r.kind == ReportKind.INFO]
    assert any("__reduce_add_sync, which ROCm 5.2 lacks" in m for m in info)
    assert not found(t, ReportKind.NEEDS_NEWER_ROCM)  # the dropped branch is not reported as if it ran
    out7, _ = run(ARCH, rocm=(7, 0))
    assert "#if defined(__HIP_DEVICE_COMPILE__) /* hipport: __CUDA_ARCH__ >= 800 */" in out7


def test_arch_decision_without_fallback_is_reported() -> None:
    src = ARCH.replace("#else\n  for (int o = 32; o > 0; o /= 2) v += __shfl_down(v, o);\n  return v;\n", "")
    _, t = run(src, rocm=(5, 2))
    manual = [r for r in t.reports if r.kind == ReportKind.MANUAL]
    assert [(r.name, r.line) for r in manual] == [("__CUDA_ARCH__", 2)]
    assert "no #else branch" in manual[0].message
    assert ("__reduce_add_sync", 3) in found(t, ReportKind.NEEDS_NEWER_ROCM)


def test_summary_line_by_kind_and_feature() -> None:
    _, t = run(CG + 'void h() { asm("nop"); cudaGraphConditionalHandle c; }\n', rocm=(5, 2), shims=False)
    line = summary_line(summarize(t.reports))
    assert line.startswith("unsupported 10 (cooperative groups 8, graph conditional nodes 1, inline PTX 1)")
    assert "needs-newer-rocm 1 (cooperative groups 1)" in line
    assert summarize([{"kind": "info", "name": "x"}]) == {}
    assert feature_of("unsupported", "cudaLimitPersistingL2CacheSize") == "runtime API"
    r = Report(ReportKind.UNSUPPORTED, "asm", 0, 3, 1, 1, "m")
    assert summary_line(summarize([r])) == "unsupported 1 (inline PTX 1)"


def _hipport(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "hipport"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_suffix_mode_points_includes_at_the_ported_files(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "main.cu").write_text('#include "kernels.cuh"\n#include "inc/util.h"\n#include "absent.h"\n'
                                      "int main() { launch(); return 0; }\n")
    (tmp_path / "kernels.cuh").write_text('#pragma once\n#include "inc/util.h"\n'
                                          "__global__ void k(float* p) { p[0] = twice(1.0f); }\n"
                                          "inline void launch() { k<<<1, 1>>>(nullptr); cudaDeviceSynchronize(); }\n")
    (tmp_path / "inc" / "util.h").write_text("#pragma once\n__host__ __device__ inline float twice(float x) "
                                             "{ return 2 * x; }\n")
    p = _hipport("convert", ".", "--suffix", "--ast", "off", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    main = (tmp_path / "main.hip").read_text()
    assert '#include "kernels_hip.cuh"\n#include "inc/util_hip.h"\n#include "absent.h"\n' in main
    assert '#include "inc/util_hip.h"' in (tmp_path / "kernels_hip.cuh").read_text()
    # folder mode keeps every name: nothing to rewrite
    p = _hipport("convert", ".", "-o", "out", "--ast", "off", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert '#include "kernels.cuh"' in (tmp_path / "out" / "main.cu").read_text()


def test_convert_prints_the_summary_line(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(CG)
    p = _hipport("convert", "a.cu", "-o", "b.cu", "--rocm", "5.2", "--ast", "off", "--no-shims", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last == ("hipport convert: reports by kind: unsupported 8 (cooperative groups 8); "
                    "needs-newer-rocm 1 (cooperative groups 1)")
    # by default the exact replacements are made, and listed with the files that got each
    p = _hipport("convert", "a.cu", "-o", "c.cu", "--rocm", "5.2", "--ast", "off", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    *_, kinds, last = p.stderr.strip().splitlines()
    assert kinds == "hipport convert: reports by kind: unsupported 3 (cooperative groups 3)"
    assert last == ("hipport convert: exact replacements for what ROCm 5.2 lacks (--no-shims leaves them out): "
                    "cg::reduce (1 file), meta_group_rank (1 file)")


VEC = """#include <cuda_runtime.h>
// helper_math.h style: CUDA's vector types have no operators
inline __host__ __device__ float4 operator+(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
inline __host__ __device__ void operator+=(float4 &a, float4 b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }
inline __host__ __device__ float4 lerp(float4 a, float4 b, float t) { return a + (b - a) * t; }
struct Acc { float v; };
inline __host__ __device__ Acc operator+(Acc a, float4 b) { return Acc{a.v + b.x}; }
"""


def test_vector_type_operators_are_left_to_hip_on_amd() -> None:
    out, t = run(VEC, "helper_math.h")
    lines = out.splitlines()
    i = lines.index("#if !defined(__HIP_PLATFORM_AMD__) // hipport: HIP's vector types define these operators")
    assert lines[i + 1].startswith("inline __host__ __device__ float4 operator+(float4 a, float4 b)")
    assert lines[i + 5].startswith("inline __host__ __device__ void operator+=(float4 &a")
    assert lines[i + 6] == "#endif // !defined(__HIP_PLATFORM_AMD__)"  # one #if for both adjacent definitions
    assert out.count("#if !defined(__HIP_PLATFORM_AMD__)") == 1  # lerp and the user type's operator stay
    assert [(r.kind, r.line) for r in t.reports if r.name == "operator"] == [(ReportKind.INFO, 3)]


def test_shims_inserted_by_default_and_reported_with_no_shims() -> None:
    src = ("#include <cuda_runtime.h>\n__global__ void k(unsigned* p) { p[0] = umin(p[1], p[2]); }\n"
           "void h() { int* a; cudaHostAlloc(&a, 64, cudaHostAllocDefault); float* b; "
           "cudaHostAlloc((void**)&b, 4, 0); }\n")
    out, t = run(src, rocm=(5, 2), shims=False)
    assert "HIPPORT_SHIM" not in out
    offered = {(r.name, r.kind) for r in t.reports if "--no-shims" in r.message}
    assert offered == {("umin", ReportKind.UNSUPPORTED), ("cudaHostAlloc", ReportKind.MANUAL)}
    assert [r.col for r in t.reports if r.name == "cudaHostAlloc"] == [20]  # the (void**) call needs none
    out, t = run(src, rocm=(5, 2))
    head = out.split("__global__")[0]
    assert head.startswith("#include <hip/hip_runtime.h>\n#ifndef HIPPORT_SHIM_UMIN // hipport shim")
    assert "template <class T> static inline hipError_t hipHostAlloc(T** p" in head
    assert {r.kind for r in t.reports if r.name in ("umin", "cudaHostAlloc")} == {ReportKind.INFO}
    assert t.stats["shim.umin"] == 1 and t.stats["shim.hipHostAlloc(T**)"] == 1
    # the target decides: ROCm 6.3 has hipHostAlloc(T**) itself, and a second template would be a redefinition
    out, t = run(src, rocm=(6, 3))
    assert "hipHostAlloc(T** p" not in out and "HIPPORT_SHIM_UMIN" in out
    assert not [r for r in t.reports if r.name == "cudaHostAlloc"]


def test_renamed_type_brings_its_header_without_the_cuda_one() -> None:
    src = "#include <cuda_fp16.h>\n__global__ void k(__nv_bfloat16* p) { p[0] = __nv_bfloat16(1.0f); }\n"
    out, _t = run(src, rocm=(6, 1))
    assert out.startswith("#include <hip/hip_runtime.h>\n#include <hip/hip_bfloat16.h> // hipport: for hip_bfloat16\n")
    out, _t = run(src)  # ROCm 7.0: device arithmetic gets CUDA's type, __hip_bfloat16 (engine/translate/bf16.py)
    assert out.startswith("#include <hip/hip_runtime.h>\n#include <hip/hip_bf16.h> // hipport: for __hip_bfloat16")
    out, _t = run("#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16* p) {}\n", rocm=(6, 1))
    assert out.count("hip/hip_bfloat16.h") == 1  # the mapped include is enough
    out, _t = run("#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16* p) {}\n")
    assert out.count("hip/hip_bf16.h") == 1 and "bfloat16.h" not in out


def test_tree_conversion_knows_the_projects_own_cuda_looking_names(tmp_path: Path) -> None:
    (tmp_path / "util.h").write_text("#pragma once\n#include <cstdio>\n"
                                     "#define CUDA_CHECK(x) do { if ((x) != cudaSuccess) puts(#x); } while (0)\n"
                                     "static inline void cudaCheckLast(const char* w)\n{ CUDA_CHECK(cudaGetLastError()); }\n")
    (tmp_path / "main.cu").write_text('#include "util.h"\nint main() { CUDA_CHECK(cudaDeviceSynchronize()); '
                                      'cudaCheckLast("main"); cudaNotAnApi(); return 0; }\n')
    (tmp_path / "out").mkdir()
    # one file alone: the header it includes with quotes is the project's too (issue 19 item 4)
    one = _hipport("convert", "main.cu", "-o", "out/one.cu", "--ast", "off", cwd=tmp_path)
    assert {line.split("unknown: ")[1].split()[0] for line in one.stderr.splitlines() if ": unknown: " in line} \
        == {"cudaNotAnApi"}
    tree = _hipport("convert", ".", "-o", "out", "--ast", "off", cwd=tmp_path)
    unknown = [line for line in tree.stderr.splitlines() if ": unknown: " in line]
    assert len(unknown) == 1 and "cudaNotAnApi" in unknown[0]
    # without the include, main.cu alone cannot know util.h's names
    (tmp_path / "alone.cu").write_text((tmp_path / "main.cu").read_text().replace('#include "util.h"', ""))
    alone = _hipport("convert", "alone.cu", "-o", "out/alone.cu", "--ast", "off", cwd=tmp_path)
    assert {"CUDA_CHECK", "cudaCheckLast", "cudaNotAnApi"} <= {
        line.split("unknown: ")[1].split()[0] for line in alone.stderr.splitlines() if ": unknown: " in line}


def test_app_sibling_mode_points_includes_at_the_ported_files(tmp_path: Path) -> None:
    from hipport.engine.review import ReviewSession

    (tmp_path / "main.cu").write_text('#include "kernels.cuh"\nint main() { launch(); return 0; }\n')
    (tmp_path / "kernels.cuh").write_text("#pragma once\n__global__ void k() {}\n"
                                          "inline void launch() { k<<<1, 1>>>(); cudaDeviceSynchronize(); }\n")
    s = ReviewSession.open(tmp_path)
    s.set_config(s.config.replace(output_mode="folder"))
    assert '#include "kernels.cuh"' in s.result_text("main.cu")  # folder mode: names kept
    s.set_config(s.config.replace(output_mode="sibling"))
    assert '#include "kernels_hip.cuh"' in s.result_text("main.cu")
    assert s.write("main.cu") == tmp_path / "main.hip"


def test_nvtx_headers_are_reported_where_they_are_included() -> None:
    """cuda-samples' cudaGraphsPerfScaling: NVTX has no HIP counterpart in HIP itself (roctx is a library)."""
    src = "#include <cuda_runtime.h>\n#include <nvtx3/nvToolsExt.h>\nvoid f() { nvtxRangePushA(\"x\"); }\n"
    _, t = run(src)
    assert ("nvtx3/nvToolsExt.h", 2) in found(t, ReportKind.UNSUPPORTED)


# CUDA 11/12 names of NVIDIA's cuda-samples (issue 20): mapped with the HIP version that adds each, so the
# target ROCm decides; those HIP has in no release are reported by name
SAMPLE_NAMES = [  # (CUDA, HIP, the HIP release that has it; "" = none)
    ("cudaGraphAddMemAllocNode", "hipGraphAddMemAllocNode", "5.5.0"),
    ("cudaGraphAddMemFreeNode", "hipGraphAddMemFreeNode", "5.5.0"),
    ("cudaGraphMemAttributeType", "hipGraphMemAttributeType", "5.3.0"),
    ("cudaGraphInstantiateWithParams", "hipGraphInstantiateWithParams", "6.2.0"),
    ("cudaStreamAttrValue", "hipStreamAttrValue", "7.1.0"),
    ("cudaStreamSetAttribute", "hipStreamSetAttribute", "7.1.0"),
    ("cudaDeviceSetLimit", "hipDeviceSetLimit", "5.3.0"),
    ("cudaLimitStackSize", "hipLimitStackSize", "5.3.0"),
    ("cuGetErrorString", "hipDrvGetErrorString", "5.4.0"),
    ("cuGetErrorName", "hipDrvGetErrorName", "5.4.0"),
    ("curandStateSobol64", "hiprandStateSobol64", "6.2.0"),
    ("curandStateScrambledSobol64", "hiprandStateScrambledSobol64", "6.2.0"),
    ("CURAND_ORDERING_QUASI_DEFAULT", "HIPRAND_ORDERING_QUASI_DEFAULT", "6.2.0"),
    ("cudaGraphConditionalHandle", "", ""),
    ("cudaLimitPersistingL2CacheSize", "", ""),
]


def test_cuda_11_12_names_of_the_samples_follow_the_target() -> None:
    src = "".join(f"void f{k}() {{ (void){cuda}; }}\n" for k, (cuda, _h, _v) in enumerate(SAMPLE_NAMES))
    _, old = run(src, rocm=(5, 2))
    new_out, new = run(src, rocm=(7, 1))
    for k, (cuda, hip, since) in enumerate(SAMPLE_NAMES):
        line = k + 1
        if hip:
            assert (cuda, line, ReportKind.NEEDS_NEWER_ROCM, since) in {
                (r.name, r.line, r.kind, r.since) for r in old.reports}, cuda
            assert f"void f{k}() {{ (void){hip}; }}" in new_out.splitlines(), cuda
        else:
            assert (cuda, line) in found(old, ReportKind.UNSUPPORTED) and (cuda, line) in found(
                new, ReportKind.UNSUPPORTED), cuda
