"""Translated samples must compile with Debian's hipcc (HIP 5.2, --offload-arch=gfx90a).

The samples in tests/data/translate are ordinary CUDA programs (runtime API, streams, events,
pinned memory, templates in namespaces, launches in macros, CUDA's own preprocessor macros and
include guards, fp16, occupancy). The target is --rocm 5.2, the HIP these compilers ship.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.engine.edits import apply_edits
from hipport.engine.source import read_source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions

pytestmark = [pytest.mark.hipcc,
              pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed (Debian: hipcc)")]

DATA = Path(__file__).resolve().parents[1] / "data" / "translate"


def port(path: Path, dest: Path, syntax: str) -> Path:
    src = read_source(path)
    t = translate(src, TranslateOptions(rocm=(5, 2), launch_syntax=syntax, ast="off"))
    bad = [r for r in t.reports if r.kind.value in ("unsupported", "needs-newer-rocm", "unknown", "manual")]
    assert not bad, bad
    out = dest / path.name
    out.write_bytes(src.encode(apply_edits(src.text, t.edits)))
    return out


def hipcc(path: Path) -> None:
    env = dict(os.environ, HIP_PLATFORM="amd")
    proc = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-x", "hip", "-c", str(path), "-o",
                           str(path.with_suffix(".o"))], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.parametrize("syntax", ["chevron", "ggl"])
@pytest.mark.parametrize("name", ["saxpy_streams.cu", "half_props.cu"])
def test_translated_sample_compiles(tmp_path: Path, name: str, syntax: str) -> None:
    port(DATA / "helpers.cuh", tmp_path, syntax)  # included by saxpy_streams.cu
    hipcc(port(DATA / name, tmp_path, syntax))


def test_untranslated_sample_does_not_compile(tmp_path: Path) -> None:
    """The check has teeth: the CUDA original fails under hipcc for want of translation."""
    shutil.copy(DATA / "helpers.cuh", tmp_path)
    target = tmp_path / "half_props.cu"
    shutil.copy(DATA / "half_props.cu", target)
    with pytest.raises(AssertionError):
        hipcc(target)


def test_translated_load_inline_source_compiles(tmp_path: Path) -> None:
    import ast

    py = tmp_path / "ext.py"
    py.write_text('from torch.utils.cpp_extension import load_inline\n'
                  'cuda_src = """\n#include <cuda_runtime.h>\n'
                  '__global__ void add(float* a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; '
                  'if (i < n) a[i] += 1.0f; }\n'
                  'void run(float* a, int n, cudaStream_t s) { add<<<(n + 255) / 256, 256, 0, s>>>(a, n); '
                  'cudaStreamSynchronize(s); }\n"""\n'
                  'load_inline("ext", cpp_sources="", cuda_sources=[cuda_src])\n')
    src = read_source(py)
    out = apply_edits(src.text, translate(src, TranslateOptions(launch_syntax="ggl", ast="off")).edits)
    code = next(n.value.value for n in ast.parse(out).body
                if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant))
    assert "hipLaunchKernelGGL(add" in code
    target = tmp_path / "inline.hip"
    target.write_text(code)
    hipcc(target)
