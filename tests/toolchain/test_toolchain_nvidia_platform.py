"""`hipport run --platform nvidia`: the HIP port built with HIP's NVIDIA platform (hipport's hipcc for
nvcc, engine/toolchain/nvidia_hipcc.py) and labelled so. Compiles for real where nvcc and Debian's HIP
headers (hip/nvidia_detail/) are present; nothing here launches (no GPU on this machine)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.engine.toolchain.detect import CudaInstall, Detection, Gpu
from hipport.engine.toolchain.nvidia_hipcc import translate
from hipport.engine.toolchain.plan import NVIDIA_NOTE, nvidia_bin, plan

REPO = Path(__file__).resolve().parents[2]
HIP_INC = Path("/usr/include")
HAS_HIP_NV = (HIP_INC / "hip" / "nvidia_detail").is_dir()
H200 = Gpu("nvidia", 0, "NVIDIA H200", "sm_90", 132)


def test_hipcc_options_become_nvcc_options() -> None:
    env = {"HIPPORT_HIP_INCLUDE": str(HIP_INC), "HIPPORT_CUDA_ARCH": "sm_90"}
    if not HAS_HIP_NV:
        pytest.skip("Debian's HIP headers (hip/nvidia_detail) are not installed")
    [cmd] = translate(["--offload-arch=gfx90a", "-O3", "-fPIC", "-munsafe-fp-atomics", "main.hip", "-o", "main",
                       "-lhipblas", "-lamdhip64"], env)
    assert cmd[0] == "nvcc" and "-arch=sm_90" in cmd and "-D__HIP_PLATFORM_NVIDIA__" in cmd
    assert not any("gfx" in a or "unsafe-fp" in a or a == "-lamdhip64" for a in cmd)
    assert cmd[cmd.index("-fPIC") - 1] == "-Xcompiler" and "-lcublas" in cmd
    assert cmd[-5:] == ["-x", "cu", "main.hip", "-o", "main"]
    # objects and sources together: nvcc's -x would apply to the objects too, so compile, then link
    cmds = translate(["util.o", "k.hip", "-o", "app"], env)
    assert len(cmds) == 2 and cmds[0][-5:-2] == ["-x", "cu", "k.hip"] and "util.o" in cmds[1]


def test_the_plan_uses_hipports_hipcc_and_says_what_it_proves(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n")
    (tmp_path / "k.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n")
    det = Detection(nvidia_gpus=(H200,), cuda=CudaInstall(nvcc="/usr/local/bin/nvcc", version="13.0"))
    (tmp_path / "inc" / "hip" / "nvidia_detail").mkdir(parents=True)  # where HIP's NVIDIA headers would be
    rp = plan(tmp_path, {}, detection=det, platform="nvidia",
              env={"PATH": "/usr/bin:/bin", "HIPPORT_HIP_INCLUDE": str(tmp_path / "inc")})
    assert rp.label == "HIP port (NVIDIA platform)" and rp.platform == "nvidia" and rp.vendor == "nvidia"
    assert NVIDIA_NOTE in rp.notes and rp.launch
    build = next(s for s in rp.steps if s.title.startswith("hipcc"))
    assert build.argv[0] == "hipcc" and "k.hip" in build.argv and not any("offload" in a for a in build.argv)
    assert build.env is not None and build.env["PATH"].startswith(str(nvidia_bin()))
    assert build.env["HIP_PLATFORM"] == "nvidia" and build.env["HIPPORT_CUDA_ARCH"] == "sm_90"
    run = next(s for s in rp.steps if s.role == "run")
    assert run.env is not None and run.env["CUDA_VISIBLE_DEVICES"] == "0"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None or not HAS_HIP_NV, reason="needs nvcc and Debian's HIP headers")
def test_a_hecbench_port_compiles_through_the_nvidia_platform(tmp_path: Path) -> None:
    """HeCBench 49175104c adam-cuda, ported by `hipport convert`, built by `hipport run --platform nvidia`'s
    hipcc with a copy of Debian's HIP headers made nvcc-13-clean by scripts/hip_nvidia_headers.py."""
    src = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench")) / "src" / "adam-cuda" / "main.cu"
    if not src.is_file():
        pytest.skip("HeCBench is not here (HIPPORT_HECBENCH)")
    inc = tmp_path / "hipinc"
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "hip_nvidia_headers.py"), str(inc)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    patches = (inc / "HIPPORT_PATCHES.txt").read_text()
    assert "hipBindTexture" in patches and " hipGetDeviceProperties(" not in patches  # fields, not the function
    for f in src.parent.iterdir():
        shutil.copy(f, tmp_path / f.name)
    r = subprocess.run([sys.executable, "-m", "hipport.cli", "convert", "-q", "--suffix", "main.cu"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and (tmp_path / "main.hip").is_file(), r.stderr
    assert "cudaMalloc" not in (tmp_path / "main.hip").read_text()
    env = {**os.environ, "PATH": f"{nvidia_bin()}:{os.environ['PATH']}", "HIPPORT_PYTHON": sys.executable,
           "HIPPORT_HIP_INCLUDE": str(inc)}
    r = subprocess.run(["hipcc", "-O3", "-std=c++17", "--offload-arch=gfx90a", "main.hip", "-o", "main"], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / "main").is_file()


NVCC = shutil.which("nvcc")
# nvcc 13 on Debian's HIP 5.2 headers (hip/nvidia_detail), as the run pane showed it
OLD_HEADERS = ('/usr/include/hip/nvidia_detail/nvidia_hip_runtime_api.h(1268): error: class "cudaDeviceProp" '
               'has no member "clockRate"')
SAMPLE = REPO / "examples" / "gemm"


def test_a_system_folder_of_hip_headers_is_not_named_with_isystem(tmp_path: Path) -> None:
    """`-isystem /usr/include` moves the system folder ahead of libstdc++'s, and <cmath>'s `#include_next
    <math.h>` then fails ("math.h: No such file or directory"): a system folder is left where it is."""
    (tmp_path / "hip" / "nvidia_detail").mkdir(parents=True)
    [own] = translate(["k.hip", "-o", "k"], {"HIPPORT_HIP_INCLUDE": str(tmp_path)})
    assert own[own.index("-isystem") + 1] == str(tmp_path)
    if not HAS_HIP_NV:
        pytest.skip("Debian's HIP headers (hip/nvidia_detail) are not installed")
    [system] = translate(["k.hip", "-o", "k"], {})
    assert "-isystem" not in system and "/usr/include" not in system


@pytest.mark.skipif(NVCC is None or not HAS_HIP_NV, reason="needs nvcc and Debian's HIP headers")
def test_hipports_nvidia_hipcc_compiles_cmath_and_prints_the_nvcc_command(tmp_path: Path) -> None:
    """Through the real shim (shims/nvidia/bin/hipcc) and nvcc, with HIP's headers found in /usr/include:
    <cmath> compiles, and the log shows the nvcc command that ran."""
    (tmp_path / "k.hip").write_text("#include <cmath>\n__global__ void k(float* p) { p[0] = std::sqrt(2.0f); }\n")
    env = {**os.environ, "PATH": f"{nvidia_bin()}:{os.environ['PATH']}", "HIPPORT_PYTHON": sys.executable}
    env.pop("HIPPORT_HIP_INCLUDE", None)
    r = subprocess.run(["hipcc", "--offload-arch=gfx942", "-c", "k.hip", "-o", "k.o"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert "math.h: No such file" not in r.stderr
    assert r.returncode == 0, r.stderr[-2000:]
    assert "hipcc (HIP_PLATFORM=nvidia) runs: nvcc " in r.stderr
    assert "-D__HIP_PLATFORM_NVIDIA__" in r.stderr and "gfx942" not in r.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="make is needed")
def test_the_nvidia_build_of_the_sample_echoes_no_amd_command(tmp_path: Path) -> None:
    """The sample's Makefile under the NVIDIA plan: make's echo of the compile line (make -n, real make)
    names neither HIP_PLATFORM=amd nor an --offload-arch=gfx target."""
    root = tmp_path / "gemm"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("build", "__pycache__"))
    (root / "gemm.hip").write_text("// ported\n")
    (tmp_path / "inc" / "hip" / "nvidia_detail").mkdir(parents=True)
    det = Detection(nvidia_gpus=(H200,), cuda=CudaInstall(nvcc="/usr/local/bin/nvcc", version="13.0"))
    env = {"PATH": os.environ["PATH"], "HIPPORT_HIP_INCLUDE": str(tmp_path / "inc")}
    rp = plan(root, {}, detection=det, platform="nvidia", env=env)
    build = rp.steps[0]
    assert build.argv[:4] == ["make", "-B", "HIP=1", "OFFLOAD_ARCH="]
    r = subprocess.run([*build.argv, "-n"], cwd=build.cwd, env=build.env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    compile_line = next(ln for ln in r.stdout.splitlines() if "gemm.hip -o" in ln)
    assert compile_line.startswith("hipcc ") and "offload-arch" not in compile_line
    assert "HIP_PLATFORM=amd" not in r.stdout


def test_missing_hip_nvidia_headers_block_the_plan_and_name_the_variable(tmp_path: Path) -> None:
    (tmp_path / "k.hip").write_text("#include <hip/hip_runtime.h>\nint main() { return 0; }\n")
    det = Detection(nvidia_gpus=(H200,), cuda=CudaInstall(nvcc="/usr/local/bin/nvcc", version="13.0"))
    rp = plan(tmp_path, {}, detection=det, platform="nvidia",
              env={"PATH": "/usr/bin:/bin", "HIPPORT_HIP_INCLUDE": str(tmp_path / "nowhere")})
    assert not rp.ready and rp.steps == []
    assert rp.blocked.startswith("HIP's NVIDIA headers (hip/nvidia_detail/) were not found in HIPPORT_HIP_INCLUDE=")
    assert "set HIPPORT_HIP_INCLUDE" in rp.blocked and rp.notes[0] == rp.blocked
    env = {**os.environ, "HIPPORT_HIP_INCLUDE": str(tmp_path / "nowhere")}
    r = subprocess.run([sys.executable, "-m", "hipport.cli", "run", "--platform", "nvidia", str(tmp_path)],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2 and "set HIPPORT_HIP_INCLUDE" in r.stderr


def test_old_hip_nvidia_headers_are_explained_with_the_variable() -> None:
    from hipport.engine.toolchain.diagnostics import explain_error

    hint = explain_error(OLD_HEADERS)
    assert hint is not None and "HIPPORT_HIP_INCLUDE" in hint and "hip_nvidia_headers.py" in hint
