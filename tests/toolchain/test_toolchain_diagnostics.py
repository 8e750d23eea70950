"""Compiler diagnostics -> file:line entries; known runtime errors -> one line with the fix."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.engine.toolchain.diagnostics import explain_error, parse_diagnostics

# clang output shape as in llvm/llvm-project#140748: one warning per compilation (host + each arch)
CLANG = """\
gemm.hip:90:3: warning: ignoring return value of function declared with 'nodiscard' attribute [-Wunused-result]
   90 |   hipGetDeviceProperties(&prop, 0);
      |   ^~~~~~~~~~~~~~~~~~~~~~
1 warning generated when compiling for gfx90a.
gemm.hip:90:3: warning: ignoring return value of function declared with 'nodiscard' attribute [-Wunused-result]
1 warning generated when compiling for gfx942.
gemm.hip:90:3: warning: ignoring return value of function declared with 'nodiscard' attribute [-Wunused-result]
1 warning generated when compiling for host.
/opt/rocm/include/hip/amd_detail/amd_warp_sync_functions.h:30:5: error: static assertion failed due to requirement 'sizeof(unsigned int) == 8': The mask must be a 64-bit integer. Implicitly promoting a smaller integer is almost always an error.
gemm.hip:195:57: note: in instantiation of function template specialization '__shfl_down_sync<unsigned int, float>' requested here
src/k.hip:12: fatal error: 'cublas_v2.h' file not found
"""
# nvcc (EDG) output shape, as nvcc 13.0 printed it on this machine for gemm.cu
NVCC = """\
gemm.cu(307): warning #177-D: variable "alpha" was declared but never referenced
gemm.cu(307): warning #177-D: variable "alpha" was declared but never referenced
gemm.cu(12): error: identifier "foo" is undefined
"""


def test_clang_diagnostics_deduplicated_across_arches() -> None:
    diags = parse_diagnostics(CLANG.splitlines())
    assert [(d.path, d.line, d.col, d.severity) for d in diags] == [
        ("gemm.hip", 90, 3, "warning"),
        # ROCm's header asserts, the person's line 195 passed the 32-bit mask: the error is put there
        ("gemm.hip", 195, 57, "error"),
        ("src/k.hip", 12, None, "error"),
    ]
    assert diags[1].message.endswith("(in amd_warp_sync_functions.h:30)")
    assert diags[0].flag == "-Wunused-result"
    assert diags[0].message.startswith("ignoring return value")
    assert diags[0].location() == "gemm.hip:90:3"


def test_nvcc_diagnostics() -> None:
    diags = parse_diagnostics(NVCC.splitlines())
    assert len(diags) == 2
    assert (diags[0].path, diags[0].line, diags[0].severity, diags[0].flag) == ("gemm.cu", 307, "warning", "#177-D")
    assert diags[1].message == 'identifier "foo" is undefined'


def test_non_diagnostic_lines_are_ignored() -> None:
    assert parse_diagnostics(["make: *** [Makefile:45: build/gemm] Error 1", "http://x:80: y", "ok"]) == []


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("GPU error hipErrorNoBinaryForGpu: Unable to find code object for all current devices! at gemm.hip:281",
         "--offload-arch"),
        ("terminate called: hipErrorInvalidDevice: invalid device ordinal", "device index"),
        ("GPU error hipErrorInvalidDeviceFunction: invalid device function at x.hip:3", "offload-arch"),
        ("RuntimeError: No HIP GPUs are available", "/dev/kfd"),
        ("hipErrorNoDevice: no ROCm-capable device is detected", "render"),
        ("open /dev/kfd failed: Permission denied", "render"),
        ("./gemm: error while loading shared libraries: libamdhip64.so.6: cannot open shared object file: "
         "No such file or directory", "LD_LIBRARY_PATH"),
        ("error: static assertion failed ... The mask must be a 64-bit integer. Implicitly promoting", "64-bit"),
        ("error: cannot determine amdgcn architecture: /opt/rocm/llvm/bin/amdgpu-arch: ; consider passing it via "
         "'--offload-arch'", "gfx942"),
        ("gemm.hip:195:57: error: use of undeclared identifier '__shfl_down_sync'; did you mean '__shfl_down'?",
         "6.2"),
        ("error: use of undeclared identifier '__syncwarp'", "7.0"),
        ("GPU error cudaErrorInsufficientDriver: CUDA driver version is insufficient", "NVIDIA driver"),
    ],
)
def test_known_errors_are_explained(text: str, needle: str) -> None:
    msg = explain_error(text)
    assert msg is not None and needle in msg and "\n" not in msg


def test_unknown_text_has_no_explanation() -> None:
    assert explain_error("all good\nPASS") is None


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_an_error_in_hipports_compatibility_header_points_at_the_persons_line(tmp_path: Path) -> None:
    """Issue 19 item 14: a 32-bit mask hits the static_assert of hipport's *_sync compatibility header
    (force-included for HIP < 6.2, as the build plan does): the diagnostic is the .hip file's line, with
    the header's place in its message. Real hipcc (Debian HIP 5.2)."""
    from hipport.engine.toolchain.plan import shim_header

    src = tmp_path / "k.hip"
    src.write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* x) {\n    float v = x[threadIdx.x];\n"
                   "    for (int o = 16; o > 0; o /= 2)\n        v += __shfl_down_sync(0xffffffff, v, o);\n"
                   "    x[threadIdx.x] = v;\n}\n")
    proc = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-include", str(shim_header()), "-c", "k.hip",
                           "-o", "k.o"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HIP_PLATFORM": "amd"})
    assert proc.returncode != 0
    assert "hip_sync_compat.h" in proc.stderr  # the compiler itself blames the header
    errors = [d for d in parse_diagnostics(proc.stderr.splitlines()) if d.severity == "error"]
    assert [(d.path, d.line, d.col) for d in errors] == [("k.hip", 5, 14)], errors
    assert "64-bit" in errors[0].message and "hip_sync_compat.h" in errors[0].message
