"""__nv_bfloat16 by context (engine/translate/bf16.py, mapping/bf16.tsv; issue 20): files that do bf16 device
arithmetic get ROCm 6.2's CUDA-compatible __hip_bfloat16 and CUDA's bf16 function names from
hip/hip_bf16.h; files that use cuBLAS keep HIPIFY's hip_bfloat16 (the type hipBLAS takes, and what
AMD's hipify unit tests expect); older targets keep hip_bfloat16 and say what 6.2 would give."""

from __future__ import annotations

from hipport.engine.edits import apply_edits
from hipport.engine.model import ReportKind
from hipport.engine.source import Source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions

DEVICE = ("#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16* p, float f) {\n"
          "  __nv_bfloat16 x[4] = {{0}}; x[0] = f;\n  p[0] = __float2bfloat16(__bfloat162float(x[0]) + 1.0f);\n"
          "  nv_bfloat162 y = __halves2bfloat162(x[0], x[1]);\n}\n")
BLAS = ("#include <cublas_v2.h>\n#include <cuda_bf16.h>\n"
        "void f(cublasHandle_t h, const __nv_bfloat16* a) { __nv_bfloat16* b = nullptr; }\n")


def port(src: str, rocm: tuple[int, int]) -> tuple[str, list[tuple[ReportKind, str]]]:
    t = translate(Source.from_text(src, "k.cu"), TranslateOptions(rocm=rocm, ast="off"))
    return apply_edits(src, t.edits), [(r.kind, r.name) for r in t.reports]


def test_device_arithmetic_gets_cudas_type_from_rocm_62() -> None:
    out, reports = port(DEVICE, (6, 2))
    assert out.startswith("#include <hip/hip_runtime.h>\n#include <hip/hip_bf16.h>\n")
    assert "__hip_bfloat16 x[4] = {{0}}; x[0] = f;" in out
    assert "p[0] = __float2bfloat16(__bfloat162float(x[0]) + 1.0f);" in out
    assert "__hip_bfloat162 y = __halves2bfloat162(x[0], x[1]);" in out
    assert not reports


def test_blas_files_keep_hipifys_type() -> None:
    out, _reports = port(BLAS, (7, 0))
    assert "const hip_bfloat16* a" in out and "hip_bfloat16* b" in out and "__hip_bfloat16" not in out


def test_older_targets_keep_hip_bfloat16_and_say_why() -> None:
    out, reports = port(DEVICE, (6, 1))
    assert "hip_bfloat16 x[4]" in out and "hip/hip_bfloat16.h" in out and "__hip_bfloat16" not in out
    assert reports[0] == (ReportKind.INFO, "__nv_bfloat16")
    newer = {name for kind, name in reports if kind == ReportKind.NEEDS_NEWER_ROCM}
    assert newer == {"__float2bfloat16", "__bfloat162float", "nv_bfloat162", "__halves2bfloat162"}
