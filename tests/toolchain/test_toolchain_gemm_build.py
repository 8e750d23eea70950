"""CI: port the bundled GEMM sample with the engine and build it for gfx90a with Debian's hipcc,
without the vendor BLAS (Debian has no hipBLAS). Nothing can be launched here: the report says so."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.engine.model import FixStyle
from hipport.engine.pipeline import port
from hipport.engine.source import read_source

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gemm"
needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc not installed (Debian package hipcc)")


def ported_sample(tmp_path: Path, fixes: str, style: FixStyle = FixStyle.WAVE64) -> Path:
    dst = tmp_path / "gemm"
    shutil.copytree(SAMPLE, dst, ignore=shutil.ignore_patterns("build", "__pycache__"))
    result = port(read_source(dst / "gemm.cu"), fixes=fixes, style=style)
    (dst / "gemm.hip").write_text(result.text, encoding="utf-8")
    return dst


def hipport_run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "HIP_PLATFORM"}  # hipport must set it itself
    return subprocess.run([sys.executable, "-m", "hipport.cli", "run", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def test_sample_has_real_warp_findings() -> None:
    # the W64 role analysis runs for the 64-wide offers (pipeline.port): the default logical-warp port of a
    # Python file does not analyse it
    result = port(read_source(SAMPLE / "gemm.cu"), fixes="all", style=FixStyle.WAVE64)
    assert result.analysis is not None
    rules = {f.rule for f in result.analysis.findings}
    assert {"W64-03", "W64-06"} <= rules  # 32-bit shuffle masks and the offset-16 reduction in row_sums
    py = port(read_source(SAMPLE / "matmul_cuda.py"), fixes="all", style=FixStyle.WAVE64)
    assert py.analysis is not None and "W64-11" in {f.rule for f in py.analysis.findings}  # block_size = 32
    assert "torch.cuda" in py.text and "torch.hip" not in py.text and "torch.backends.rocm" not in py.text
    compile(py.text, "matmul_hip.py", "exec")


@needs_hipcc
@pytest.mark.hipcc
@pytest.mark.parametrize("style", [FixStyle.WAVE64, FixStyle.PORTABLE])
def test_ported_gemm_builds_for_gfx90a_not_launched(tmp_path: Path, style: FixStyle) -> None:
    root = ported_sample(tmp_path, "all", style)
    cp = hipport_run(str(root), "--arch", "gfx90a", "--json", "--trust")  # the sample's Makefile runs: trusted
    assert cp.returncode == 0, cp.stderr[-2000:]
    report = json.loads(cp.stdout)
    assert report["status"] == "built, not launched"
    assert report["arch"] == "gfx90a" and not report["launched"]
    assert report["notes"][0] == "No AMD GPU found: built for gfx90a, nothing was launched."
    assert [s["role"] for s in report["steps"]] == ["build"] and report["steps"][0]["exit_code"] == 0
    binary = root / "build" / "gemm"
    assert binary.read_bytes()[:4] == b"\x7fELF"
    assert b"amdgcn-amd-amdhsa--gfx90a" in binary.read_bytes()  # the offload bundle is for the asked arch


@needs_hipcc
@pytest.mark.hipcc
def test_unfixed_port_fails_like_rocm7_with_a_located_explained_error(tmp_path: Path) -> None:
    root = ported_sample(tmp_path, "none")
    cp = hipport_run(str(root), "--arch", "gfx90a", "--json", "--trust")
    assert cp.returncode == 1
    report = json.loads(cp.stdout)
    assert report["status"] == "build failed"
    assert "64-bit lane mask" in report["explanation"]
    located = [d for d in report["diagnostics"] if d["path"] == "gemm.hip"]
    assert located and all(d["line"] > 0 for d in located)


def test_run_says_convert_first(tmp_path: Path) -> None:
    dst = tmp_path / "gemm"
    shutil.copytree(SAMPLE, dst, ignore=shutil.ignore_patterns("build", "*.hip", "__pycache__"))
    cp = hipport_run(str(dst))
    assert cp.returncode == 2
    assert "convert first: gemm.hip not found" in cp.stderr and "Traceback" not in cp.stderr


def test_run_dry_run_and_bad_input(tmp_path: Path) -> None:
    root = tmp_path / "k"
    root.mkdir()
    (root / "k.hip").write_text("int main() { return 0; }\n")
    cp = hipport_run(str(root), "--dry-run", "--arch", "gfx942")
    assert cp.returncode == 0 and "hipcc --offload-arch=gfx942 -O3" in cp.stdout
    bad = hipport_run(str(root), "--arch", "sm_90")
    assert bad.returncode == 2 and "not an AMD GPU target" in bad.stderr
    missing = hipport_run(str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists(),
                    reason="nvcc not installed")
def test_original_gemm_compiles_with_nvcc_without_blas(tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cp = subprocess.run([nvcc, "-O3", "-arch=sm_90", "-DGEMM_NO_BLAS", "-c", str(SAMPLE / "gemm.cu"),
                         "-o", str(tmp_path / "gemm.o")], capture_output=True, text=True, timeout=300)
    assert cp.returncode == 0, cp.stderr
