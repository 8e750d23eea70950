"""Build paths that work (issue 19 items 8 and 9): a tree converted in place without backups is a port,
a dual CUDA/HIP build file is left as it is by the translation, and a build that no write can make work
is refused up front with the command that works. Real `hipport convert`, real make, Debian's hipcc."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.engine.config import Config
from hipport.engine.toolchain.detect import Detection, Gpu, RocmInstall
from hipport.engine.toolchain.plan import plan

REPO = Path(__file__).resolve().parents[2]
PROJECTS = REPO / "tests" / "data" / "projects"
SAMPLE = REPO / "examples" / "gemm"
MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100, "0000:26:00.0")
ROCM7 = RocmInstall(root="/opt/rocm", version="7.0.0", hip_version="7.0.51831", hipcc="/opt/rocm/bin/hipcc")
needs_make_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None or shutil.which("make") is None,
                                      reason="Debian's hipcc and make are needed (scripts/install-system-deps.sh)")


def hipport(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "HIP_PLATFORM"}
    return subprocess.run([sys.executable, "-m", "hipport.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env=env)


def in_place_no_backup(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    r = hipport("convert", "--in-place", "--no-backup", "-q", ".", cwd=root)
    assert r.returncode == 0, r.stderr
    assert not list(root.glob("*.prehip"))
    return root


def test_a_tree_converted_in_place_without_backups_is_a_port(tmp_path: Path) -> None:
    root = in_place_no_backup(tmp_path, "make_saxpy")
    det = Detection(amd_gpus=(MI300X,), rocm=ROCM7)
    for settings in (Config(), Config(output_mode="in-place")):  # whatever the output mode says
        rp = plan(root, {}, detection=det, env={}, settings=settings)
        assert rp.ready, rp.notes
        assert not any(n.startswith("convert first") for n in rp.notes)
    # an untouched CUDA file is still not a port of itself
    cuda = tmp_path / "cuda"
    shutil.copytree(PROJECTS / "make_saxpy", cuda)
    (cuda / "Makefile").write_text((root / "Makefile").read_text())  # the ported Makefile, the CUDA sources
    rp = plan(cuda, {}, detection=det, env={}, settings=Config(output_mode="in-place"))
    assert not rp.ready and rp.notes[0].startswith("convert first: saxpy.cu, scale.cu not found")


def test_a_single_source_converted_in_place_is_built_under_its_own_name(tmp_path: Path) -> None:
    root = tmp_path / "one"
    root.mkdir()
    shutil.copy(SAMPLE / "gemm.cu", root / "gemm.cu")
    assert hipport("convert", "--in-place", "--no-backup", "-q", "gemm.cu", cwd=root).returncode == 0
    rp = plan(root, {}, detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7), env={})
    assert rp.ready and "gemm.cu" in rp.steps[1].argv and not (root / "gemm.hip").exists()


@needs_make_hipcc
def test_hipport_run_builds_a_tree_converted_in_place_without_backups(tmp_path: Path) -> None:
    """`hipport convert --in-place --no-backup .` then `hipport run`: real make, Debian's hipcc, gfx90a."""
    root = in_place_no_backup(tmp_path, "make_saxpy")
    r = hipport("run", ".", "--arch", "gfx90a", "--trust", cwd=root)  # its Makefile runs: trusted
    assert "convert first" not in r.stdout + r.stderr
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "status: built, not launched" in r.stdout
    assert (root / "saxpy").read_bytes()[:4] == b"\x7fELF"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is needed")
def test_the_dual_makefile_is_left_as_it_is_by_a_sibling_port(tmp_path: Path) -> None:
    """The sample's Makefile builds CUDA and HIP: its port must not turn its error text into "port gemm.hip
    first" nor its CUDA branch into hipcc. Checked with make's dry run of the written Makefile_hip."""
    root = tmp_path / "gemm"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("build", "*.hip", "__pycache__"))
    r = hipport("convert", "--suffix", "Makefile", "CMakeLists.txt", cwd=root)
    assert r.returncode == 0, r.stderr
    assert "Makefile already builds HIP" in r.stderr
    assert (root / "Makefile_hip").read_text() == (root / "Makefile").read_text()
    assert (root / "CMakeLists_hip.txt").read_text() == (root / "CMakeLists.txt").read_text()
    cuda = subprocess.run(["make", "-n", "-B", "-f", "Makefile_hip", "HIP=0", "CUDA_ARCH=sm_90"], cwd=root,
                          capture_output=True, text=True, timeout=60)
    assert cuda.returncode == 0 and "nvcc -O3 -arch=sm_90" in cuda.stdout and "hipcc" not in cuda.stdout
    missing = subprocess.run(["make", "-B", "-f", "Makefile_hip", "HIP=1"], cwd=root, capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode != 0
    assert "gemm.hip not found: port gemm.cu first (hipport convert gemm.cu)" in missing.stderr


def test_a_build_file_mentioning_hipcc_only_in_a_comment_is_still_translated() -> None:
    from hipport.engine.buildsys import BuildOptions, builds_hip, translate_build_file

    text = "# on AMD, use hipcc and --offload-arch\nall:\n\tnvcc -arch=sm_80 k.cu\n"
    assert not builds_hip("make", text)
    tr = translate_build_file("Makefile", text, BuildOptions(archs=("gfx90a",)))
    assert [e.replacement for e in tr.edits] == ["hipcc", "--offload-arch=gfx90a"]


def test_a_cmake_project_in_sibling_mode_is_refused_with_the_command_that_works(tmp_path: Path) -> None:
    """Written or not, a sibling CMakeLists_hip.txt cannot be configured; the refusal names the folder-mode
    convert and the run on that folder, and those two commands do give a ready plan (sources under their own
    names are recognised as ported by their content)."""
    root = tmp_path / "histogram"
    shutil.copytree(PROJECTS / "cmake_histogram", root)
    r = hipport("run", ".", "--dry-run", cwd=root)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "CMake reads only CMakeLists.txt" in r.stdout and "convert first" not in r.stdout
    rp = plan(root, {}, detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7), env={}, settings=Config())
    assert not rp.ready and rp.blocked.startswith("CMake reads only CMakeLists.txt")
    assert hipport("convert", "--suffix", "CMakeLists.txt", "-q", cwd=root).returncode == 0  # written anyway
    assert plan(root, {}, detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7), env={}, settings=Config()).blocked
    assert "`hipport convert -o hip .` in the project root, then `hipport run hip`" in rp.blocked
    assert hipport("convert", "-o", "hip", "-q", ".", cwd=root).returncode == 0
    r = hipport("run", "hip", "--dry-run", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cmake -S . -B build/hipport-hip" in r.stdout and "CMake reads only" not in r.stdout


def test_run_dry_run_exits_non_zero_when_its_plan_is_blocked(tmp_path: Path) -> None:
    root = tmp_path / "gemm"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("build", "*.hip", "__pycache__"))
    blocked = hipport("run", ".", "--dry-run", "--arch", "gfx90a", cwd=root)
    assert blocked.returncode == 2 and "convert first: gemm.hip not found" in blocked.stdout
    assert hipport("convert", "--suffix", "-q", "gemm.cu", cwd=root).returncode == 0
    ready = hipport("run", ".", "--dry-run", "--arch", "gfx90a", cwd=root)
    assert ready.returncode == 0 and "make -B HIP=1 OFFLOAD_ARCH=gfx90a" in ready.stdout
