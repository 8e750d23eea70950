"""A host cudaMemLocation on a HIP without hipMemLocationTypeHost (engine/translate/name_rewrites.py, issue 20):
stored as the device number hipCpuDeviceId where only cudaMemPrefetchAsync/cudaMemAdvise read the
struct, reported at the line otherwise. (Compiled in tests/compile/test_shims_compile.py.)"""

from __future__ import annotations

from hipport.engine.edits import apply_edits
from hipport.engine.model import ReportKind, Translation
from hipport.engine.source import Source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions


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


ORDERING = ("void f(float* d, int n, bool big) {\n  curandGenerator_t q;\n"
            "  if (big) curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL64);\n"
            "  else curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL32);\n"
            "  curandSetQuasiRandomGeneratorDimensions(q, 2);\n"
            "  curandStatus_t r = curandSetGeneratorOrdering(q, CURAND_ORDERING_QUASI_DEFAULT);\n"
            "  curandGenerateUniform(q, d, n);\n  curandSetGeneratorOrdering(q, CURAND_ORDERING_QUASI_DEFAULT);\n"
            "  curandGenerator_t p;\n  curandCreateGenerator(&p, CURAND_RNG_PSEUDO_XORWOW);\n"
            "  curandSetGeneratorOrdering(p, CURAND_ORDERING_QUASI_DEFAULT);\n}\n")


def test_the_default_ordering_of_a_fresh_quasirandom_generator_is_success() -> None:
    out, t = run(ORDERING)
    assert "curandStatus_t r = ((void)q, HIPRAND_STATUS_SUCCESS);" in out.replace("hiprandStatus_t", "curandStatus_t")
    got = [(r.line, r.name, r.kind) for r in t.reports if r.name.startswith(("curandSetGeneratorOrdering", "CURAND_ORD"))]
    assert got == [(6, "curandSetGeneratorOrdering", ReportKind.INFO),  # its argument went with it
                   (8, "curandSetGeneratorOrdering", ReportKind.NEEDS_NEWER_ROCM),
                   (8, "CURAND_ORDERING_QUASI_DEFAULT", ReportKind.NEEDS_NEWER_ROCM),
                   (11, "curandSetGeneratorOrdering", ReportKind.NEEDS_NEWER_ROCM),
                   (11, "CURAND_ORDERING_QUASI_DEFAULT", ReportKind.NEEDS_NEWER_ROCM)]
    why = {r.line: r.message for r in t.reports if r.name == "curandSetGeneratorOrdering"}
    assert "`q` has generated numbers before this call" in why[8]
    assert "`p` is set other than by curandCreateGenerator(&p, CURAND_RNG_QUASI_...)" in why[11]
    out, t = run(ORDERING, shims=False)
    assert "HIPRAND_STATUS_SUCCESS)" not in out
    out, t = run(ORDERING, rocm=(6, 2))  # hipRAND's own call
    assert out.count("hiprandSetGeneratorOrdering(") == 3
