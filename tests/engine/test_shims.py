"""Exact replacements for what the target ROCm lacks (engine/translate/shims.py, mapping/shims.tsv), issue 20:
inserted by default, once per file under a guard, only where the target lacks the feature, never
where the file declares the name itself, reported instead with --no-shims or where the replacement
would not be exact. (Compiled with hipcc in tests/compile/test_shims_compile.py.)"""

from __future__ import annotations

from hipport.engine.edits import apply_edits
from hipport.engine.model import ReportKind, Translation
from hipport.engine.source import Source
from hipport.engine.translate import shims
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions


def run(src: str, path: str = "x.cu", **kw: object) -> tuple[str, Translation]:
    kw.setdefault("ast", "off")
    kw.setdefault("rocm", (5, 2))
    t = translate(Source.from_text(src, path), TranslateOptions(**kw))  # type: ignore[arg-type]
    return apply_edits(src, t.edits), t


def kinds(t: Translation, name: str) -> list[ReportKind]:
    return [r.kind for r in t.reports if r.name == name]


def test_every_row_is_well_formed() -> None:
    uses = {"call", "name", "feature", "include", "overload-ptr", "overload-any", "overload-device", "ptx", "member"}
    for trigger, sh in shims.table().items():
        assert sh.use in uses or sh.use.startswith("overload-argc="), trigger
        assert sh.guard and sh.note, trigger
        assert sh.text().strip(), trigger
        block = sh.block()
        assert block.startswith(f"#ifndef {sh.guard} ") and block.endswith("#endif\n")
        assert block.count(f"#define {sh.guard}") == 1  # a macro shim is not defined twice


def test_cg_reduce_header_and_calls_on_tiles() -> None:
    src = ("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n"
           "__global__ void k(int* o) {\n  auto b = cg::this_thread_block();\n"
           "  cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);\n"
           "  o[0] = cg::reduce(w, o[1], cg::plus<int>()) + cg::reduce(w, o[2], cg::bit_xor<int>());\n}\n")
    out, t = run(src)
    assert out.count("#define HIPPORT_SHIM_CG_REDUCE") == 1  # one block for the header, both calls, both ops
    assert "/* hipport: <cooperative_groups/reduce.h> is the cg::reduce shim below hip_runtime.h */" in out
    assert out.index("#include <hip/hip_runtime.h>") < out.index("HIPPORT_SHIM_CG_REDUCE")
    assert "cg::reduce(w, o[1], cg::plus<int>())" in out  # the calls stay: the shim defines them
    assert {r.kind for r in t.reports if r.name in ("reduce", "plus", "bit_xor", "cooperative_groups/reduce.h")} \
        == {ReportKind.INFO}
    assert t.stats["shim.cg::reduce"] == 1
    out, t = run(src, shims=False)
    assert "HIPPORT_SHIM" not in out and "#include <cooperative_groups/reduce.h>" in out
    assert kinds(t, "reduce") == [ReportKind.UNSUPPORTED] * 2 and "--no-shims" in t.reports[0].message


def test_cg_reduce_on_a_coalesced_group_stays_reported() -> None:
    src = ("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n"
           "__global__ void k(int* o) {\n  cg::coalesced_group a = cg::coalesced_threads();\n"
           "  auto l = cg::labeled_partition(a, o[0]);\n"
           "  o[1] = cg::reduce(a, 1, cg::plus<int>()) + cg::reduce(l, 2, cg::greater<int>());\n}\n")
    _, t = run(src)
    bad = [r for r in t.reports if r.name == "reduce"]
    assert [r.kind for r in bad] == [ReportKind.UNSUPPORTED] * 2
    assert "`a` is a coalesced group" in bad[0].message and "`l` is a coalesced group" in bad[1].message


def test_meta_group_rank_and_size_become_block_expressions() -> None:
    src = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
           "__global__ void k(int* o) {\n  cg::thread_block b = cg::this_thread_block();\n"
           "  auto t = cg::tiled_partition<16>(b);\n  auto u = cg::tiled_partition<4>(t);\n"
           "  o[t.meta_group_rank()] = t.meta_group_size() + u.meta_group_rank() + u.meta_group_size();\n}\n")
    out, t = run(src)
    assert ("o[(cooperative_groups::this_thread_block().thread_rank() / (16))] = "
            "((cooperative_groups::this_thread_block().size() + (16) - 1) / (16)) + "
            "((cooperative_groups::this_thread_block().thread_rank() % (16)) / (4)) + ((16) / (4));") in out
    assert set(kinds(t, "meta_group_rank") + kinds(t, "meta_group_size")) == {ReportKind.INFO}
    # ROCm 5.7 has the members: nothing changes
    out, t = run(src, rocm=(5, 7))
    assert "t.meta_group_rank()" in out and not kinds(t, "meta_group_rank")


def test_meta_group_rank_of_an_untraceable_tile_stays_reported() -> None:
    src = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
           "template <class G> __device__ int f(G& g) { return g.meta_group_rank(); }\n"
           "__global__ void k(int* o, int n) {\n  auto b = cg::this_thread_block();\n"
           "  auto d = cg::tiled_partition(b, n);\n  o[0] = d.meta_group_rank();\n}\n")
    out, t = run(src)
    assert out.count("meta_group_rank()") == 2
    msgs = [r.message for r in t.reports if r.name == "meta_group_rank"]
    assert len(msgs) == 2 and all("no exact replacement here" in m for m in msgs)
    assert "run-time value" in msgs[1]


TILE_SHUFFLES = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                 "struct packed { uint4 x, y; float f; };\n"
                 "__global__ void k(uint4* o, float* f, int n) {\n  const auto tile = cg::tiled_partition<32>(cg::this_thread_block());\n"
                 "  cg::thread_group g = cg::tiled_partition(cg::this_thread_block(), n);\n"
                 "  packed p = {o[0], o[1], f[0]};\n  uint4 v = o[2];\n"
                 "  p.y = tile.shfl_xor(p.y, 1);\n  v = tile.shfl(v, 0);\n  p = tile.shfl_down(p, 2);\n"
                 "  p.f = tile.shfl_up(p.f, 1) + tile.shfl_xor(f[1], 2);\n  v = g.shfl(v, 0);\n}\n")


def test_tile_shuffles_of_vector_types_and_structs_go_through_ints() -> None:
    out, t = run(TILE_SHUFFLES)
    assert "p.y = hipport_tile_shfl_xor(tile, p.y, 1);" in out  # a struct member of a vector type
    assert "v = hipport_tile_shfl(tile, v, 0);" in out  # a vector variable
    assert "p = hipport_tile_shfl_down(tile, p, 2);" in out  # a struct the file defines
    assert "tile.shfl_up(p.f, 1) + tile.shfl_xor(f[1], 2)" in out  # float, and what hipport cannot type: HIP's
    assert out.count("#define HIPPORT_SHIM_TILE_SHFL\n") == 1
    assert out.index("#define HIPPORT_SHIM_TILE_SHFL") < out.index("__global__")
    assert [r.kind for r in t.reports if r.name in ("shfl", "shfl_xor", "shfl_down", "shfl_up")] == \
        [ReportKind.INFO] * 3 + [ReportKind.UNSUPPORTED]
    bad = [r for r in t.reports if r.kind == ReportKind.UNSUPPORTED and r.name == "shfl"]
    assert len(bad) == 1 and bad[0].line == 13 and "`g` is not declared here as a thread_block_tile" in bad[0].message
    out, t = run(TILE_SHUFFLES, shims=False)
    assert "hipport_tile" not in out and "HIPPORT_SHIM_TILE_SHFL" not in out
    assert [(r.line, r.kind) for r in t.reports if r.name.startswith("shfl")] == \
        [(9, ReportKind.UNSUPPORTED), (10, ReportKind.UNSUPPORTED), (11, ReportKind.UNSUPPORTED),
         (13, ReportKind.UNSUPPORTED)]


def test_driver_error_strings_before_rocm_5_4() -> None:
    src = ("#include <cuda.h>\nconst char* f(CUresult e) {\n  const char* s;\n  cuGetErrorString(e, &s);\n"
           "  cuGetErrorName(e, &s);\n  return s;\n}\n")
    out, t = run(src)
    assert out.count("#define HIPPORT_SHIM_DRV_ERROR_STRINGS\n") == 1 and "cuGetErrorString(e, &s);" in out
    assert set(kinds(t, "cuGetErrorString") + kinds(t, "cuGetErrorName")) == {ReportKind.INFO}
    out, t = run(src, rocm=(5, 4))  # HIP's own functions from ROCm 5.4
    assert "HIPPORT_SHIM" not in out and "hipDrvGetErrorString(e, &s);" in out and "hipDrvGetErrorName(e, &s);" in out
    out, t = run(src, shims=False)
    assert kinds(t, "cuGetErrorString") == [ReportKind.NEEDS_NEWER_ROCM]


def test_device_functions_and_atomics_hip_lacks() -> None:
    src = ("__global__ void k(unsigned* c, long long* l) {\n  c[0] = umax(c[1], c[2]);\n"
           "  atomicInc_system(c, 4u); atomicDec_system(c, 4u);\n  atomicAdd_block(l, 1ll); atomicCAS_block(c, 1u, 2u);\n"
           "  l[1] = llmin(l[2], l[3]);\n}\n")
    out, t = run(src)
    for guard in ("UMAX", "ATOMICINC_SYSTEM", "ATOMICDEC_SYSTEM", "ATOMIC_BLOCK", "LLMIN"):
        assert out.count(f"#define HIPPORT_SHIM_{guard}\n") == 1, guard
    assert "HIPPORT_SHIM_UMIN" not in out  # only what the file uses
    assert all(r.kind == ReportKind.INFO for r in t.reports)
    _, t = run(src, shims=False)
    assert kinds(t, "atomicInc_system") == [ReportKind.UNSUPPORTED]  # reported, not passed over silently
    assert kinds(t, "atomicAdd_block") == [ReportKind.UNSUPPORTED]


def test_a_name_the_file_declares_itself_gets_no_shim() -> None:
    src = ("__device__ unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }\n"
           "__global__ void k(unsigned* c) { c[0] = umin(c[1], c[2]); c[1] = obj.umax(1, 2); }\n")
    out, _t = run(src)
    assert "HIPPORT_SHIM" not in out


def test_macro_shims_callbacks_and_grid_constant() -> None:
    src = ("void CUDART_CB cb(cudaStream_t s, cudaError_t e, void* d) {}\n"
           "__global__ void k(const __grid_constant__ int p, int* o) { o[0] = p; }\n")
    out, t = run(src)
    assert "#ifndef CUDART_CB // hipport shim (--no-shims leaves it out)\n#define CUDART_CB\n#endif\n" in out
    assert "#ifndef __grid_constant__ // hipport shim (--no-shims leaves it out)\n#define __grid_constant__\n" in out
    assert all(r.kind == ReportKind.INFO for r in t.reports)
    own = "#define CUDART_CB __attribute__((x))\nvoid CUDART_CB cb(void*) {}\n"
    assert "hipport shim" not in run(own)[0]  # the file's own macro


def test_overloads_and_default_arguments_hip_lacks() -> None:
    src = ("void h(cudaStream_t s, cudaEvent_t e) {\n  float *p, *d; size_t pitch;\n"
           "  cudaHostGetDevicePointer(&d, p, 0); cudaHostGetDevicePointer((void**)&d, p, 0);\n"
           "  cudaMallocPitch(&d, &pitch, 4, 4);\n  cudaStreamWaitEvent(s, e); cudaStreamWaitEvent(s, e, 0);\n}\n")
    out, t = run(src)
    for guard in ("HOSTGETDEVICEPOINTER_T", "MALLOCPITCH_T", "STREAMWAITEVENT_2"):
        assert out.count(f"#define HIPPORT_SHIM_{guard}\n") == 1, guard
    # only the calls that need them: the void** call and the 3-argument call are HIP's own
    assert [r.col for r in t.reports if r.name == "cudaHostGetDevicePointer"] == [3]
    assert [r.col for r in t.reports if r.name == "cudaStreamWaitEvent"] == [3]
    out, _t = run(src, rocm=(6, 1))  # HIP 6.1's flags default to 0
    assert "STREAMWAITEVENT_2" not in out and "HOSTGETDEVICEPOINTER_T" in out


def test_cuda_integer_min_max_overloads_in_device_code_only() -> None:
    src = "__global__ void k(unsigned r, int* o) { o[0] = min(r, blockDim.x); o[1] = std::max(1, 2); }\n"
    out, t = run(src)
    assert out.count("#define HIPPORT_SHIM_MIXED_MINMAX\n") == 1 and kinds(t, "min") == [ReportKind.INFO]
    assert not kinds(t, "max")  # std::max is the standard library's
    plain = "__global__ void k(int* o, int a) { o[0] = min(a, 3); o[1] = max((int)blockDim.x - a, 1); }\n"
    assert "HIPPORT_SHIM" not in run(plain)[0]  # two ints: HIP's own min(int, int)
    assert "HIPPORT_SHIM_MIXED_MINMAX" in run("__global__ void k(int* o, int a) { o[0] = min(a, 3u); }\n")[0]
    host = "#include <algorithm>\nint f(unsigned a, int b) { return min(a, b); }\n"
    assert "HIPPORT_SHIM" not in run(host, "util.cpp")[0]  # plain C++ gets no device overloads
    own = "template <class T> __device__ T min(T a, T b) { return a < b ? a : b; }\n" + src
    assert "HIPPORT_SHIM_MIXED_MINMAX" not in run(own)[0]


def test_cuda12_memory_location_overloads() -> None:
    src = ("void h(int* p, cudaStream_t s) {\n  cudaMemLocation loc; loc.type = cudaMemLocationTypeDevice; loc.id = 0;\n"
           "  cudaMemAdvise(p, 4, cudaMemAdviseSetReadMostly, loc);\n  cudaMemPrefetchAsync(p, 4, loc, 0, s);\n"
           "  cudaMemAdvise(p, 4, cudaMemAdviseSetReadMostly, 0);\n}\n")
    out, _t = run(src)
    assert out.count("#define HIPPORT_SHIM_MEMADVISE_LOCATION\n") == 1
    assert out.count("#define HIPPORT_SHIM_PREFETCH_LOCATION\n") == 1
    assert "hipMemAdvise(p, 4, hipMemAdviseSetReadMostly, loc);" in out  # the call stays; the overload is added


def test_a_second_translation_changes_nothing() -> None:
    """A port translated again (hipport's idempotence): the blocks it has are not inserted twice."""
    src = ("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n"
           "void CUDART_CB cb(cudaStream_t s, cudaError_t e, void* d) {}\n"
           "__global__ void k(const __grid_constant__ int n, unsigned* c, float* f) {\n"
           "  auto b = cg::this_thread_block();\n  auto w = cg::tiled_partition<32>(b);\n"
           "  c[0] = cg::reduce(w, c[1], cg::plus<unsigned>()) + umin(c[2], blockDim.x) + w.meta_group_rank();\n"
           "  atomicInc_system(c, 3u); f[0] = __fadd_rd(f[1], f[2]);\n"
           "  asm(\"bfe.u32 %0, %1, 4, 4;\" : \"=r\"(c[3]) : \"r\"(c[4]));\n}\n"
           "void h(float* p) { float* d; cudaHostGetDevicePointer(&d, p, 0); }\n")
    once, t = run(src)
    assert len({r.name for r in t.reports if r.kind == ReportKind.INFO}) >= 9
    twice, _t = run(once, "x.hip")
    assert twice == once
