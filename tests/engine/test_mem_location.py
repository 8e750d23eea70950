"""A host cudaMemLocation on a HIP without hipMemLocationTypeHost (engine/mem_location.py, issue 20):
stored as the device number hipCpuDeviceId where only cudaMemPrefetchAsync/cudaMemAdvise read the
struct, reported at the line otherwise. (Compiled in tests/compile/test_shims_compile.py.)"""

from __future__ import annotations

from hipport.engine.edits import apply_edits
from hipport.engine.model import ReportKind, Translation
from hipport.engine.source import Source
from hipport.engine.translate import TranslateOptions, translate


def run(src: str, **kw: object) -> tuple[str, Translation]:
    kw.setdefault("ast", "off")
    kw.setdefault("rocm", (5, 2))
    t = translate(Source.from_text(src, "x.cu"), TranslateOptions(**kw))
    return apply_edits(src, t.edits), t


SRC = ("void f(float* p, size_t n, cudaStream_t s) {\n"
       "  {\n    cudaMemLocation h;\n    h.type = cudaMemLocationTypeHost;\n"
       "    cudaMemPrefetchAsync(p, n, h, 0, s);\n    cudaMemAdvise(p, n, cudaMemAdviseSetPreferredLocation, h);\n  }\n"
       "  {\n    cudaMemLocation h;\n    h.type = cudaMemLocationTypeHost;\n    cudaMemPrefetchAsync(p, n, h, 0);\n"
       "    printf(\"%d\", h.id);\n  }\n}\n")


def reports(t: Translation) -> list[tuple[int, ReportKind]]:
    return [(r.line, r.kind) for r in t.reports if r.name == "cudaMemLocationTypeHost"]


def test_a_host_location_read_only_by_prefetch_and_advise_becomes_the_cpu_device() -> None:
    out, t = run(SRC)
    assert "    h.type = (h.id = hipCpuDeviceId, hipMemLocationTypeDevice);\n    hipMemPrefetchAsync(p, n, h, 0, s);" in out
    assert "#define HIPPORT_SHIM_PREFETCH_LOCATION" in out and "#define HIPPORT_SHIM_MEMADVISE_LOCATION" in out
    # the second block's struct is read by printf: no exact replacement, reported at its line
    assert "    h.type = cudaMemLocationTypeHost;\n    hipMemPrefetchAsync(p, n, h, 0);" in out
    assert reports(t) == [(4, ReportKind.INFO), (10, ReportKind.NEEDS_NEWER_ROCM)]
    bad = next(r for r in t.reports if r.name == "cudaMemLocationTypeHost" and r.line == 10)
    assert "needs ROCm 7.1.0" in bad.message and "`h` is used on line 12" in bad.message


def test_without_shims_or_from_rocm_7_1_nothing_is_rewritten() -> None:
    out, t = run(SRC, shims=False)
    assert "hipCpuDeviceId" not in out
    assert reports(t) == [(4, ReportKind.NEEDS_NEWER_ROCM), (10, ReportKind.NEEDS_NEWER_ROCM)]
    out, t = run(SRC, rocm=(7, 1))
    assert "hipCpuDeviceId" not in out and out.count("h.type = hipMemLocationTypeHost;") == 2
