"""Compiler diagnostics -> file:line entries; known runtime errors -> one line with the fix."""

from __future__ import annotations

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
        ("gemm.hip", 195, 57, "error"),  # ROCm's header raised it; the user's line asked for it
        ("src/k.hip", 12, None, "error"),
    ]
    assert diags[1].message.endswith("almost always an error. (raised in amd_warp_sync_functions.h:30)")
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


@pytest.mark.skipif(__import__("shutil").which("hipcc") is None, reason="hipcc not installed (Debian package hipcc)")
def test_an_error_in_hipports_compatibility_header_points_at_the_users_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Debian's hipcc (HIP 5.2) with hipport's force-included *_sync header, a 32-bit mask at k.hip:3: the
    diagnostic is k.hip:3, not the header's static_assert line."""
    import subprocess

    from hipport.engine.toolchain.plan import shim_header

    (tmp_path / "k.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* p) {\n"
                                    "  p[0] = __shfl_down_sync(0xffffffff, p[0], 1);\n}\n")
    r = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-include", str(shim_header()), "-c", "k.hip", "-o", "k.o"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300, env={"HIP_PLATFORM": "amd",
                                                                                        "PATH": "/usr/bin:/bin"})
    assert r.returncode != 0 and "hip_sync_compat.h" in r.stderr
    diags = parse_diagnostics(r.stderr.splitlines())
    errors = [d for d in diags if d.severity == "error"]
    assert [(d.path, d.line) for d in errors] == [("k.hip", 3)]
    assert "The mask must be a 64-bit integer" in errors[0].message and "(raised in hip_sync_compat.h:" in errors[0].message
    assert not any("shims" in d.path for d in diags)
