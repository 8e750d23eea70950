"""Build-plan selection on real project trees (tmp dirs) and SYNTHETIC Detection objects."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hipport.engine.toolchain.detect import CudaInstall, Detection, Gpu, RocmInstall, TorchInfo
from hipport.engine.toolchain.plan import PlanError, plan, ported_name, shim_header

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gemm"

MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100, "0000:26:00.0")
MI300X_1 = Gpu("amd", 1, "AMD Instinct MI300X", "gfx942", 304, 2100, "0000:46:00.0")
H200 = Gpu("nvidia", 0, "NVIDIA H200", "sm_90", pci="00000000:00:06.0")
ROCM7 = RocmInstall(root="/opt/rocm", version="7.0.0", hip_version="7.0.51831", hipcc="/opt/rocm/bin/hipcc")
DEBIAN = RocmInstall(root="/usr", hip_version="5.2.21153-0", hipcc="/usr/bin/hipcc")


def sample_copy(tmp_path: Path, ported: bool) -> Path:
    dst = tmp_path / "gemm"
    shutil.copytree(SAMPLE, dst, ignore=shutil.ignore_patterns("build", "*.hip", "matmul_hip.py", "__pycache__"))
    if ported:
        (dst / "gemm.hip").write_text("// ported\n")
        (dst / "matmul_hip.py").write_text("# ported\n")
    return dst


def test_ported_names() -> None:
    assert ported_name(Path("a/gemm.cu")) == Path("a/gemm.hip")
    assert ported_name(Path("matmul_cuda.py")) == Path("matmul_hip.py")
    assert ported_name(Path("train.py")) == Path("train_hip.py")


def test_convert_first(tmp_path: Path) -> None:
    rp = plan(sample_copy(tmp_path, ported=False), detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7), env={})
    assert not rp.ready and not rp.launch
    # sibling mode (the default) writes gemm.hip with --suffix; plain `hipport convert gemm.cu` only prints
    assert rp.notes == ["convert first: gemm.hip not found (run `hipport convert --suffix gemm.cu`)"]


def test_makefile_wins_and_names_the_detected_arch(tmp_path: Path) -> None:
    rp = plan(sample_copy(tmp_path, ported=True), detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7), env={"PATH": "/x"})
    assert rp.kind == "make" and rp.arch == "gfx942" and rp.launch and rp.label == "HIP port"
    build, run = rp.steps
    assert build.argv[:4] == ["make", "-B", "HIP=1", "OFFLOAD_ARCH=gfx942"]  # variables the Makefile declares
    assert build.env["HIP_PLATFORM"] == "amd"
    assert "EXTRA_FLAGS" not in " ".join(build.argv)  # ROCm 7 has the *_sync builtins
    assert run.role == "run" and run.env["HIP_VISIBLE_DEVICES"] == "0"


def test_no_amd_gpu_builds_for_the_default_and_says_so(tmp_path: Path) -> None:
    rp7 = plan(sample_copy(tmp_path / "r7", ported=True), detection=Detection(rocm=ROCM7), env={})
    assert rp7.arch == "gfx942" and not rp7.launch
    assert rp7.notes[0] == "No AMD GPU found: built for gfx942, nothing was launched."
    # Debian's HIP 5.2 cannot target gfx942: the unchosen default falls back to gfx90a, and says so
    rp = plan(sample_copy(tmp_path, ported=True), detection=Detection(rocm=DEBIAN), env={})
    assert rp.arch == "gfx90a" and not rp.launch
    assert [s.role for s in rp.steps] == ["build"]
    assert rp.notes[0] == "No AMD GPU found: built for gfx90a, nothing was launched."
    assert any("cannot target gfx942" in n for n in rp.notes)
    # a chosen arch is never overridden
    assert plan(sample_copy(tmp_path / "c", ported=True), {"arch": "gfx942"}, detection=Detection(rocm=DEBIAN),
                env={}).arch == "gfx942"
    # Debian's HIP 5.2 has no *_sync builtins: the compatibility header is force-included
    assert f"EXTRA_FLAGS=-include {shim_header()}" in rp.steps[0].argv
    assert shim_header().is_file()
    has_hipblas = any(Path(r, "include/hipblas/hipblas.h").exists() for r in ("/usr", "/opt/rocm"))
    assert ("NO_BLAS=1" in rp.steps[0].argv) == (not has_hipblas)


def test_arch_override_config_and_validation(tmp_path: Path) -> None:
    root = sample_copy(tmp_path, ported=True)
    det = Detection(amd_gpus=(MI300X,), rocm=ROCM7)
    assert plan(root, {"arch": ["gfx90a", "gfx942"]}, detection=det, env={}).arch == "gfx90a gfx942"
    rp = plan(root, detection=det, arch="gfx90a", env={})
    assert rp.arch == "gfx90a" and any("invalid device function" in n for n in rp.notes)
    with pytest.raises(PlanError, match="not an AMD GPU target"):
        plan(root, detection=det, arch="sm_90", env={})


def test_run_arch_reads_like_the_settings_arch_list(tmp_path: Path) -> None:
    """`hipport run --arch` and [tool.hipport.run] arch go through config.parse_archs, the one arch-list
    rule of `[tool.hipport] archs` and `convert --arch`: commas, case, target-ID features, the same errors."""
    from hipport.engine.config import parse_archs

    root = sample_copy(tmp_path, ported=True)
    det = Detection(amd_gpus=(MI300X,), rocm=ROCM7)
    rp = plan(root, detection=det, arch="GFX90A:xnack-,gfx942", env={})
    assert rp.arch == " ".join(parse_archs("GFX90A:xnack-,gfx942")) == "gfx90a:xnack- gfx942"
    assert "OFFLOAD_ARCH=gfx90a:xnack- gfx942" in rp.steps[0].argv
    assert not any("invalid device function" in n for n in rp.notes)  # the MI300X's gfx942 is built
    for bad in ("9.4.2", "gfx942;gfx90a", "sm_90"):  # what the settings parser refuses, run refuses too
        with pytest.raises(ValueError):
            parse_archs(bad)
        with pytest.raises(PlanError, match="not an AMD GPU target"):
            plan(root, detection=det, arch=bad, env={})


def test_device_picker_sets_only_hip_visible_devices(tmp_path: Path) -> None:
    root = sample_copy(tmp_path, ported=True)
    det = Detection(amd_gpus=(MI300X, MI300X_1), rocm=ROCM7)
    env = {"ROCR_VISIBLE_DEVICES": "1", "CUDA_VISIBLE_DEVICES": "0", "PATH": "/x"}
    rp = plan(root, detection=det, device=1, env=env)
    run = rp.steps[-1].env
    assert run["HIP_VISIBLE_DEVICES"] == "1"
    assert "ROCR_VISIBLE_DEVICES" not in run and "CUDA_VISIBLE_DEVICES" not in run
    assert any("removed inherited ROCR_VISIBLE_DEVICES=1" in n for n in rp.notes)
    assert rp.device == MI300X_1
    with pytest.raises(PlanError, match="no AMD GPU with index 5"):
        plan(root, detection=det, device=5, env={})


def test_single_file_hip(tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text('#include <hip/hip_runtime.h>\nint main() { return 0; }\n')
    rp = plan(src, {"args": ["7"]}, detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7), env={})
    assert rp.kind == "single-file"
    assert rp.steps[0].argv == ["mkdir", "-p", "build"]
    assert rp.steps[1].argv == ["hipcc", "--offload-arch=gfx942", "-O3", "k.hip", "-o", "build/k"]
    assert rp.steps[2].argv == ["./build/k", "7"]


def test_single_cu_file_needs_its_port(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("int main() { return 0; }\n")
    rp = plan(src, detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7), env={})
    assert not rp.ready and "k.hip not found" in rp.notes[0]


def test_cmake_needs_a_run_command(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "CMakeLists.txt").write_text("project(x LANGUAGES CXX HIP)\n")
    det = Detection(amd_gpus=(MI300X,), rocm=ROCM7)
    rp = plan(root, detection=det, env={})
    assert rp.kind == "cmake" and not rp.launch and "-DCMAKE_HIP_ARCHITECTURES=gfx942" in rp.steps[0].argv
    rp2 = plan(root, {"command": "build/hipport-hip/app --n 3"}, detection=det, env={})
    assert rp2.launch and rp2.steps[-1].argv == ["build/hipport-hip/app", "--n", "3"]


def test_python_port_needs_rocm_torch(tmp_path: Path) -> None:
    root = sample_copy(tmp_path, ported=True)
    script = root / "matmul_cuda.py"
    cuda_torch = TorchInfo(found=True, version="2.11.0+cu130", cuda="13.0", available=True)
    rp = plan(script, detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7, torch=cuda_torch), env={})
    assert rp.kind == "python" and not rp.launch and any("ROCm build of PyTorch" in n for n in rp.notes)
    rocm_torch = TorchInfo(found=True, version="2.9.0+rocm7.0", hip="7.0.51831", available=True)
    rp = plan(script, {"python": "python3", "args": ["--size", "1024"]},
              detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7, torch=rocm_torch), env={})
    assert rp.launch and rp.steps[0].argv == ["python3", "matmul_hip.py", "--size", "1024"]
    assert rp.steps[0].env["PYTORCH_ROCM_ARCH"] == "gfx942"


def test_cuda_baseline(tmp_path: Path) -> None:
    root = sample_copy(tmp_path, ported=False)  # the baseline needs no port
    det = Detection(nvidia_gpus=(H200,), cuda=CudaInstall("/usr/local/cuda/bin/nvcc", "13.0.88"))
    rp = plan(root, detection=det, baseline=True, env={"PATH": "/x"})
    assert rp.label == "CUDA baseline" and rp.baseline and rp.launch and rp.arch == "sm_90"
    assert rp.steps[0].argv[:5] == ["make", "-B", "HIP=0", "CUDA_ARCH=sm_90", "BUILD=build/cuda"]
    assert rp.steps[1].env["CUDA_VISIBLE_DEVICES"] == "0"
    rp_py = plan(root / "matmul_cuda.py", {"python": "python3"}, detection=det, baseline=True, env={})
    assert rp_py.steps[0].argv == ["python3", "matmul_cuda.py"]
    no_gpu = plan(root, detection=Detection(), baseline=True, env={})
    assert not no_gpu.launch and no_gpu.notes[0].startswith("No NVIDIA GPU found")


def test_bad_paths(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="no such file"):
        plan(tmp_path / "missing", detection=Detection(), env={})
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(PlanError, match="don't know how"):
        plan(tmp_path / "notes.txt", detection=Detection(), env={})
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PlanError, match="nothing to build"):
        plan(empty, detection=Detection(), env={})



def test_an_in_place_port_counts_once_hipport_wrote_over_the_file(tmp_path: Path) -> None:
    """In-place mode: the port's path is the file itself, so "it exists" proves nothing; the plan says
    "convert first" until hipport wrote over it (keeping the original as k.cu.prehip)."""
    from hipport.engine.config import Config

    det = Detection(amd_gpus=(MI300X,), rocm=ROCM7)
    root = tmp_path / "inplace"
    root.mkdir()
    (root / "k.cu").write_text("int main() { return 0; }\n")
    inplace = Config(output_mode="in-place")
    first = plan(root, {}, detection=det, env={}, settings=inplace)
    assert not first.ready and first.notes[0] == "convert first: k.cu not found (run `hipport convert --in-place k.cu`)"
    (root / "k.cu.prehip").write_text("// the CUDA original\n")  # outputs.py's write policy
    rp = plan(root, {}, detection=det, env={}, settings=inplace)
    assert rp.ready and any("k.cu" in s.argv for s in rp.steps)


def test_one_project_kind_for_the_plan_the_run_command_and_the_build_system(tmp_path: Path) -> None:
    """buildsys.project_kind is the one decision: the plan's kind, `hipport run`'s PyTorch check
    (planned_kind, which follows [tool.hipport.run] target) and detect_build_system agree, GNUmakefile too."""
    from hipport.engine.buildsys import BuildKind, detect_build_system, project_kind
    from hipport.engine.toolchain.plan import planned_kind

    det = Detection(rocm=ROCM7)
    folders = {"gnu": {"GNUmakefile": "all:\n\thipcc k.hip -o k\n", "k.hip": "int main() {}\n"},
               "both": {"Makefile": "all:\n\thipcc k.hip -o k\n", "CMakeLists.txt": "project(k HIP)\n"},
               "cmake": {"CMakeLists.txt": "project(k HIP)\nadd_executable(k k.hip)\n"},
               "hip_and_py": {"k.hip": "int main() {}\n", "check.py": "print(1)\n"},
               "py": {"matmul_hip.py": "print(1)\n"},
               "empty": {"notes.txt": "x\n"}}
    want = {"gnu": "make", "both": "make", "cmake": "cmake", "hip_and_py": "single-file", "py": "python",
            "empty": None}
    for folder, files in folders.items():
        (tmp_path / folder).mkdir()
        for name, text in files.items():
            (tmp_path / folder / name).write_text(text)
        root = tmp_path / folder
        assert project_kind(root) == planned_kind(root, {}) == want[folder], folder
        bp = detect_build_system(root)
        assert (bp.kind if bp is not None else None) == (BuildKind(want[folder]) if want[folder] in ("make", "cmake")
                                                          else None), folder
        if want[folder] is None:
            with pytest.raises(PlanError, match="nothing to build"):
                plan(root, detection=det, env={})
        elif folder != "cmake":  # (a CMake project in sibling mode is refused before its kind is used)
            assert plan(root, detection=det, env={}).kind == want[folder], folder
    assert planned_kind(tmp_path, {"target": "py"}) == "python"  # what the run builds: the target
    assert planned_kind(tmp_path, {"target": "../elsewhere"}) is None  # the plan says why
    assert project_kind(tmp_path / "hip_and_py" / "k.hip") == "single-file"
    assert project_kind(tmp_path / "empty" / "notes.txt") is None


def test_what_counts_as_a_successful_run_is_the_reports(tmp_path: Path) -> None:
    """RunReport.succeeded: `hipport run`'s exit status 0 and the run pane's ✓ both read it."""
    from hipport.engine.toolchain.execute import NO_SELF_CHECK, RunReport
    from hipport.engine.toolchain.plan import custom_plan

    def report(status: str) -> RunReport:
        return RunReport(custom_plan([]), [], [], [], None, status)

    for status in ("passed", "built, not launched", NO_SELF_CHECK):
        assert report(status).succeeded, status
    for status in ("failed", "build failed", "differs from the CUDA baseline", "not ready"):
        assert not report(status).succeeded, status
