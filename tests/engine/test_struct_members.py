"""Members of CUDA structs the target's HIP struct lacks (engine/translate/struct_members.py, issue 20): reported
where they are used on a variable of that CUDA type, with the HIP version that has them."""

from __future__ import annotations

from hipport.engine.model import ReportKind
from hipport.engine.source import Source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions

SRC = """#include <cuda_runtime.h>
int f(const cudaDeviceProp& p, cudaDeviceProp* q, cudaDeviceProp all[2], CUmemAllocationProp* m, Other o) {
  int x = p.unifiedAddressing + q->maxTexture1DLayered[0] + all[1].sharedMemPerMultiprocessor + p.major;
  m->allocFlags.compressionType = 0;
  return x + o.unifiedAddressing + p.deviceNumaId;
}
"""


def reports(rocm: tuple[int, int]) -> list[tuple[ReportKind, str, int, str]]:
    t = translate(Source.from_text(SRC, "a.cu"), TranslateOptions(rocm=rocm, ast="off", shims=False))
    return [(r.kind, r.name, r.line, r.since) for r in t.reports if r.kind != ReportKind.INFO]


def test_members_hip_lacks_are_reported_on_cuda_struct_variables() -> None:
    got = reports((5, 2))
    newer = ReportKind.NEEDS_NEWER_ROCM
    assert got == [(newer, "unifiedAddressing", 3, "6.0.0"), (newer, "maxTexture1DLayered", 3, "6.0.0"),
                   (newer, "sharedMemPerMultiprocessor", 3, "6.0.0"), (newer, "allocFlags", 4, "6.0.0"),
                   (ReportKind.UNSUPPORTED, "deviceNumaId", 5, "")]  # o.unifiedAddressing: not a CUDA struct
    assert reports((6, 0)) == [(ReportKind.UNSUPPORTED, "deviceNumaId", 5, "")]
