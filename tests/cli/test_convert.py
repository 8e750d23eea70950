"""`hipport convert`: outputs, atomic writes, backups, diffs, options, errors, trees, parallel runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.cli.main import main

CU = ("#include <cuda_runtime.h>\n"
      "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n"
      "int main() { float* p; cudaMalloc(&p, 4); k<<<1, 64>>>(p); cudaDeviceSynchronize(); return 0; }\n")
HIP = ("#include <hip/hip_runtime.h>\n"
       "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n"
       "int main() { float* p; hipMalloc(&p, 4); k<<<1, 64>>>(p); hipDeviceSynchronize(); return 0; }\n")


def write(p: Path, text: str | bytes) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def test_one_file_to_stdout(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    f = write(tmp_path / "a.cu", CU)
    assert main(["convert", str(f), "--ast", "off"]) == 0
    cap = capsysbinary.readouterr()
    assert cap.out.decode() == HIP
    assert b"mode: tokens" in cap.err
    assert f.read_text() == CU  # input untouched


def test_output_file_and_ggl(tmp_path: Path) -> None:
    f = write(tmp_path / "a.cu", CU)
    out = tmp_path / "out" / "a.hip"
    assert main(["convert", str(f), "-o", str(out), "--hip-kernel-execution-syntax", "-q", "--ast", "off"]) == 0
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, p);" in out.read_text()
    assert not [p for p in out.parent.iterdir() if p.name.endswith(".hipport-tmp")]


def make_tree(root: Path) -> None:
    write(root / "src" / "a.cu", CU)
    write(root / "src" / "b.cuh", "#pragma once\n__device__ int lane() { return threadIdx.x; }\n")
    write(root / "src" / "plain.cpp", "int add(int a, int b) { return a + b; }\n")
    write(root / "py" / "ext.py", "import torch\nx = torch.zeros(1, device='cuda')\n")
    write(root / "README.md", "cudaMalloc\n")
    write(root / ".git" / "x.cu", CU)
    write(root / "build" / "gen.cu", CU)


def test_tree_to_output_folder_mirrors_and_skips(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    make_tree(root)
    outside = write(tmp_path / "outside" / "o.cu", CU)
    os.symlink(outside.parent, root / "linkdir")
    os.symlink(outside, root / "src" / "link.cu")
    out = tmp_path / "hip"
    assert main(["convert", str(root), "-o", str(out), "-q", "--ast", "off"]) == 0
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == ["py/ext.py", "src/a.cu", "src/b.cuh", "src/plain.cpp"]
    assert (out / "src" / "a.cu").read_text() == HIP
    assert (out / "src" / "b.cuh").read_text().startswith("#pragma once\n#include <hip/hip_runtime.h>\n")
    assert (out / "src" / "plain.cpp").read_bytes() == (root / "src" / "plain.cpp").read_bytes()


def test_output_folder_inside_input_is_not_walked(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    make_tree(root)
    for _ in range(2):  # the second run must not translate the first run's outputs
        assert main(["convert", str(root), "-o", str(root / "hip-out"), "-q", "--ast", "off"]) == 0
    assert not (root / "hip-out" / "hip-out").exists()


def test_in_place_keeps_backup_unless_told(tmp_path: Path) -> None:
    f = write(tmp_path / "a.cu", CU)
    plain = write(tmp_path / "p.cpp", "int x;\n")
    before = plain.stat().st_mtime_ns
    assert main(["convert", str(tmp_path), "--in-place", "-q", "--ast", "off"]) == 0
    assert f.read_text() == HIP
    assert (tmp_path / "a.cu.prehip").read_text() == CU
    assert plain.stat().st_mtime_ns == before and not (tmp_path / "p.cpp.prehip").exists()
    g = write(tmp_path / "sub" / "g.cu", CU)
    assert main(["convert", str(g), "--in-place", "--no-backup", "-q", "--ast", "off"]) == 0
    assert g.read_text() == HIP and not (tmp_path / "sub" / "g.cu.prehip").exists()


def test_suffix_writes_beside(tmp_path: Path) -> None:
    write(tmp_path / "gemm.cu", CU)
    write(tmp_path / "util.h", "#include <cuda_runtime.h>\n")
    assert main(["convert", str(tmp_path), "--suffix", "-q", "--ast", "off"]) == 0
    assert (tmp_path / "gemm.hip").read_text() == HIP
    assert (tmp_path / "util_hip.h").read_text() == "#include <hip/hip_runtime.h>\n"
    assert (tmp_path / "gemm.cu").read_text() == CU


def test_diff_prints_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path / "a.cu", CU)
    assert main(["convert", str(f), "--diff", "--ast", "off"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"--- {f}\n+++ {f}\n")
    assert "-#include <cuda_runtime.h>\n+#include <hip/hip_runtime.h>\n" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.cu"]


def test_reports_go_to_stderr_with_positions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write(tmp_path / "a.cpp", "void f() {\n  cudaGraphInstantiateWithParams(0, 0, 0);\n}\n")
    assert main(["convert", str(f), "--rocm", "6.0", "--ast", "off"]) == 0
    err = capsys.readouterr().err
    assert f"{f}:2:3: needs-newer-rocm: cudaGraphInstantiateWithParams -> hipGraphInstantiateWithParams " \
           "needs ROCm 6.2.0" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["convert", "/nonexistent/x.cu"], "no such file or folder"),
    (["convert", "{tmp}"], "several files"),
    (["convert", "{tmp}/a.cu", "--rocm", "seven"], "--rocm"),
    (["convert", "{tmp}/a.cu", "--no-backup", "-o", "{tmp}/o.cu"], "--no-backup"),
    (["convert", "{tmp}/a.cu", "-o", "{tmp}/a.cu"], "overwrite its input"),
])
def test_user_errors_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                    message: str) -> None:
    write(tmp_path / "a.cu", CU)
    write(tmp_path / "b.cu", CU)
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_ast_on_unavailable_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from hipport.engine.translate import semantic

    f = write(tmp_path / "a.cu", CU)
    monkeypatch.setenv("HIPPORT_NO_AST", "1")
    semantic.unavailable_reason.cache_clear()
    try:
        assert main(["convert", str(f), "--ast", "on"]) == 2
        assert "AST mode unavailable" in capsys.readouterr().err
    finally:
        semantic.unavailable_reason.cache_clear()


def test_binary_and_unwritable_files_fail_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path / "src" / "a.cu", CU)
    write(tmp_path / "src" / "bin.cu", b"\x00\x01\x02cudaMalloc")
    out = tmp_path / "out"
    (out / "ro").mkdir(parents=True)
    write(tmp_path / "src" / "ro" / "c.cu", CU)
    existing = write(out / "ro" / "c.cu", "old\n")
    os.chmod(existing, 0o444)
    os.chmod(out / "ro", 0o555)
    try:
        rc = main(["convert", str(tmp_path / "src"), "-o", str(out), "-q", "--ast", "off"])
    finally:
        os.chmod(out / "ro", 0o755)
    assert rc == 1
    err = capsys.readouterr().err
    assert "binary" in err
    assert (out / "a.cu").read_text() == HIP
    assert existing.read_text() == "old\n"  # never a partial write
    assert not list(out.rglob("*.hipport-tmp"))


def test_parallel_run_matches_serial(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for i in range(12):
        write(src / f"d{i % 3}" / f"f{i}.cu", CU.replace("k", f"k{i}") * (1 + i % 4))
    assert main(["convert", str(src), "-o", str(tmp_path / "serial"), "-j", "1", "-q", "--ast", "off"]) == 0
    assert main(["convert", str(src), "-o", str(tmp_path / "par"), "-j", "2", "-q", "--ast", "off"]) == 0
    a = {p.relative_to(tmp_path / "serial"): p.read_bytes() for p in (tmp_path / "serial").rglob("*.cu")}
    b = {p.relative_to(tmp_path / "par"): p.read_bytes() for p in (tmp_path / "par").rglob("*.cu")}
    assert len(a) == 12 and a == b


def test_real_process_exit_codes_and_stdout(tmp_path: Path) -> None:
    f = write(tmp_path / "a.cu", CU)
    exe = [str(Path(sys.executable).parent / "hipport")]  # the installed console script
    ok = subprocess.run([*exe, "convert", str(f), "--ast", "off"], capture_output=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.decode() == HIP
    bad = subprocess.run([*exe, "convert", str(tmp_path / "missing.cu")], capture_output=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.decode().startswith("hipport: ")


def test_hipify_clang_options_and_clang_arguments(tmp_path: Path) -> None:
    """hipify-clang's option set, and `-- ARGS` for clang: -D counts for the skipped #if branches, the
    rest (-x cuda, -Xclang X, -ferror-limit=N, -v) is accepted and ignored."""
    src = write(tmp_path / "a.cu", "#ifdef USE_X\nvoid a() { cudaDeviceReset(); }\n#else\n"
                "void b() { cudaDeviceReset(); }\n#endif\n#if CUDA_VERSION < 12000\nvoid c() { cudaFree(0); }\n#endif\n"
                'const char* s = "cudaFree failed";\n')
    out = tmp_path / "o.cu"
    rc = main(["convert", str(src), "-o", str(out), "--skip-excluded-preprocessor-conditional-blocks",
               "--cuda-kernel-execution-syntax", "--use-hip-data-types", "--", "-x", "cuda", "-DUSE_X",
               "-Xclang", "-fcuda-allow-variadic-functions", "-ferror-limit=500", "-v"])
    assert rc == 0
    text = out.read_text()
    assert "void a() { hipDeviceReset(); }" in text and "void b() { cudaDeviceReset(); }" in text
    assert "void c() { cudaFree(0); }" in text  # CUDA 12.6 headers: CUDA_VERSION < 12000 is false
    assert '"hipFree failed"' in text
    rc = main(["convert", str(src), "-o", str(out), "--default-preprocessor", "--amap", "--no-translate-strings"])
    text = out.read_text()
    assert rc == 0 and "void b() { hipDeviceReset(); }" in text and "void c() { hipFree(0); }" in text
    assert '"cudaFree failed"' in text
