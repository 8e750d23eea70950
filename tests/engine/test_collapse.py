"""Overloads that collapse (engine/translate/collapse.py, issue 20): helper_cuda.h overloads _cudaGetErrorEnum on
cudaError_t and CUresult, which both become hipError_t. The later definition goes under #if 0 and is
reported; definitions that stay different, that were already equal in CUDA, or that sit in exclusive
#if branches are left alone. (Compiled in tests/compile/test_shims_compile.py.)"""

from __future__ import annotations

from hipport.engine.edits import apply_edits
from hipport.engine.model import ReportKind
from hipport.engine.source import Source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions

HELPER = """#include <cuda.h>
#include <cuda_runtime.h>
static const char *_cudaGetErrorEnum(cudaError_t error) {
  return cudaGetErrorName(error);
}

#ifdef CUDA_DRIVER_API
// CUDA Driver API errors
static const char *_cudaGetErrorEnum(CUresult error) {
  return "driver";
}  // trailing comment
#endif
static int other(cudaStream_t s) { return 0; }
static int other(cudaEvent_t e) { return 1; }
"""


def port(src: str) -> tuple[str, list[tuple[ReportKind, str, int]]]:
    t = translate(Source.from_text(src, "helper_cuda.h"), TranslateOptions(rocm=(5, 2), ast="off"))
    return apply_edits(src, t.edits), [(r.kind, r.name, r.line) for r in t.reports if r.kind != ReportKind.INFO]


def test_the_later_definition_is_left_out_and_reported() -> None:
    out, reports = port(HELPER)
    assert ("// CUDA Driver API errors\n#if 0 // hipport: _cudaGetErrorEnum(hipError_t error) is defined above\n"
            "static const char *_cudaGetErrorEnum(hipError_t error) {\n  return \"driver\";\n}  // trailing comment\n"
            "#endif // hipport\n#endif\n") in out
    assert out.count("#if 0") == 1  # hipStream_t and hipEvent_t stay two overloads
    assert (ReportKind.MANUAL, "_cudaGetErrorEnum", 9) in reports
    msg = translate(Source.from_text(HELPER, "h.h"), TranslateOptions(rocm=(5, 2), ast="off")).reports
    assert any("already defined at line 3" in r.message for r in msg)


def test_exclusive_branches_and_cuda_duplicates_are_left_alone() -> None:
    src = ("#include <cuda.h>\n#ifdef RUNTIME\nstatic int f(cudaError_t e) { return 0; }\n#else\n"
           "static int f(CUresult e) { return 1; }\n#endif\n"
           "namespace a { int g(cudaError_t e) { return 0; } }\nnamespace b { int g(CUresult e) { return 1; } }\n")
    out, _reports = port(src)
    assert "#if 0" not in out


def test_a_second_translation_changes_nothing() -> None:
    """In the port both definitions take hipError_t: equal in the input, so nothing to judge."""
    once, _reports = port(HELPER)
    twice, _reports = port(once)
    assert twice == once
