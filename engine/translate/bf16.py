"""`__nv_bfloat16` by context (data: mapping/bf16.tsv).

HIPIFY's table maps `__nv_bfloat16` to `hip_bfloat16` (hip/hip_bfloat16.h): the type hipBLAS takes, but
its float constructor is explicit, so device code written for CUDA's bf16 (`bf16 x = f;`, `x[4] = {{0}}`)
does not compile. ROCm 6.2's hip/hip_bf16.h has `__hip_bfloat16`, CUDA's type under another name, and
CUDA's bf16 function names. hipport chooses per file:
- a file that uses cuBLAS (a `cublas` name or header): HIPIFY's `hip_bfloat16`, the BLAS argument type
  (AMD's hipify unit tests expect it there);
- any other file, target ROCm >= 6.2: `__hip_bfloat16` and the rest of mapping/bf16.tsv, with hip/hip_bf16.h;
- any other file, older target: `hip_bfloat16`, with one `info` report saying what 6.2 would give.
"""

from __future__ import annotations

import functools

HIP_BF16_SINCE = (6, 2)
HIP_BF16_HEADER = "hip/hip_bf16.h"


@functools.cache
def device_names() -> dict[str, str]:
    """{CUDA name: HIP name} for device-arithmetic files at ROCm >= 6.2."""
    from ..mapping import _read_tsv

    return {r["cuda"]: r["hip"] for r in _read_tsv("bf16.tsv")}


def device_context(text: str, rocm: tuple[int, int]) -> str:
    """"device" (use mapping/bf16.tsv), "old" (device arithmetic, target before 6.2), "" (BLAS or no bf16)."""
    if "bfloat16" not in text or "cublas" in text:
        return ""
    return "device" if tuple(rocm) >= HIP_BF16_SINCE else "old"
