"""Ported build scripts build: three real project shapes (tests/data/projects, self-written), each
ported by `hipport convert` (sources AND build script), then built with Debian's HIP toolchain for
gfx90a: the Makefile with `make` (hipcc), the CMake projects with Debian's CMake 3.25 (see conftest:
it CAN configure HIP without ROCm, with four settings). Nothing is run: there is no AMD GPU here.

Library availability on Debian 12 (apt-cache search, checked): hipRAND/rocRAND and hipSPARSE/rocSPARSE
are packaged (libhiprand-dev, librocrand-dev, libhipsparse-dev, librocsparse-dev); hipBLAS, rocBLAS,
hipFFT are NOT, so the cuBLAS project's port is proven by text here and builds only where hipBLAS is
found (skipped otherwise, saying so).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from buildsys_helpers import ARCH, hip_env, need_debian_cmake, need_hipcc

from hipport.cli.main import main

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"


def port(name: str, tmp_path: Path) -> Path:
    """`hipport convert <project> --arch gfx90a -o <out>`: sources and build scripts."""
    out = tmp_path / name
    assert main(["convert", str(PROJECTS / name), "--arch", ARCH, "-o", str(out), "-q"]) == 0
    return out


def test_plain_makefile_ports_and_builds(tmp_path: Path) -> None:
    need_hipcc()
    out = port("make_saxpy", tmp_path)
    mk = (out / "Makefile").read_text()
    assert "nvcc" not in mk.replace("# (relocatable device code, linked by nvcc)", "")
    assert "ROCM_PATH ?= /opt/rocm" in mk and "$(ROCM_PATH)/bin/hipcc -fgpu-rdc" in mk
    assert "SM        ?= gfx90a" in mk and "--offload-arch=$(SM)" in mk
    assert "-ffast-math -gline-tables-only -Wall -Wextra\n" in mk
    assert "-L$(ROCM_PATH)/lib -lhiprand\n" in mk and "-lcudart" not in mk
    assert "-fgpu-rdc -c $< -o $@" in mk
    # ROCM_PATH=/usr: Debian installs hipcc as /usr/bin/hipcc (a ROCm install needs nothing)
    r = subprocess.run(["make", "-C", str(out), "ROCM_PATH=/usr", "saxpy"], env=hip_env(), capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "--offload-arch=gfx90a" in r.stdout and "-lhiprand" in r.stdout
    assert (out / "saxpy").is_file()


def test_cmake_project_cuda_ports_and_builds(tmp_path: Path, cmake_build: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    out = port("cmake_histogram", tmp_path)
    cm = (out / "CMakeLists.txt").read_text()
    assert "project(histogram LANGUAGES CXX HIP)" in cm
    assert 'set(CMAKE_HIP_ARCHITECTURES "gfx90a" CACHE STRING "AMD GPU targets")\nproject(' in cm
    assert "cmake_minimum_required(VERSION 3.21)" in cm
    assert "set(CMAKE_HIP_STANDARD 17)" in cm and "set(CMAKE_HIP_ARCHITECTURES gfx90a)" in cm
    assert "find_package(hip REQUIRED)" in cm and "hip::host" in cm
    assert "set_source_files_properties(histogram.cu PROPERTIES LANGUAGE HIP)" in cm
    assert "target_link_options(histogram PUBLIC $<$<LINK_LANGUAGE:HIP>:-fgpu-rdc>)" in cm
    assert "CUDA" not in cm.replace("# Histogram", "")
    r = cmake_build(out)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert (out / "build" / "histogram").is_file()


def test_cmake_enable_language_with_libraries_ports_and_builds(
        tmp_path: Path, cmake_build: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    out = port("cmake_spmv", tmp_path)
    cm = (out / "CMakeLists.txt").read_text()
    assert "enable_language(HIP)" in cm
    assert "find_package(hip REQUIRED)\nfind_package(hipsparse REQUIRED)\nfind_package(hiprand REQUIRED)" in cm
    assert "target_link_libraries(spmv PRIVATE roc::hipsparse hip::hiprand)" in cm
    assert "HIP_ARCHITECTURES gfx90a HIP_STANDARD 14" in cm and "${hip_INCLUDE_DIRS}" in cm
    # the source port includes <hipsparse.h> (HIPIFY's header table); Debian 12 installs it as
    # /usr/include/hipsparse/hipsparse.h and its hipsparse CMake target does not add that folder
    # (ROCm's does). That is a source/packaging matter, not the CMake port's: the folder is given here.
    r = cmake_build(out, "-I/usr/include/hipsparse")
    if r.returncode != 0 and "Could not find a package configuration file provided by \"hip" in r.stderr:
        pytest.skip("hipSPARSE/hipRAND CMake packages missing: apt-get install libhipsparse-dev libhiprand-dev "
                    "librocsparse-dev librocrand-dev")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert (out / "build" / "spmv").is_file()


def test_cmake_cublas_port_text_and_build_where_hipblas_exists(
        tmp_path: Path, cmake_build: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    out = port("cmake_sgemm", tmp_path)
    cm = (out / "CMakeLists.txt").read_text()
    assert "enable_language(HIP)\nfind_package(hip REQUIRED)\nfind_package(hipblas REQUIRED)\n" in cm
    assert "target_link_libraries(sgemm PRIVATE roc::hipblas hip::host)" in cm
    assert "set_property(TARGET sgemm PROPERTY HIP_ARCHITECTURES gfx90a)" in cm
    assert "$<$<COMPILE_LANGUAGE:HIP>:-Wall>" in cm
    need_debian_cmake()
    if not any(Path(p).is_file() for p in ("/usr/lib/x86_64-linux-gnu/cmake/hipblas/hipblas-config.cmake",
                                           "/opt/rocm/lib/cmake/hipblas/hipblas-config.cmake")):
        pytest.skip("hipBLAS is not installed (Debian 12 packages no hipBLAS/rocBLAS): the cuBLAS port is "
                    "checked by text above; the CMake build needs ROCm's hipBLAS")
    r = cmake_build(out)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_cmake_sibling_outputs_name_hip_sources(tmp_path: Path) -> None:
    """--suffix mode is not what CMake reads (CMakeLists_hip.txt); the engine says so, and in sibling
    mode the script names gemm.hip, not gemm.cu."""
    from hipport.engine.buildsys import BuildOptions, translate_build_file
    from hipport.engine.edits import apply_edits

    text = (PROJECTS / "cmake_sgemm" / "CMakeLists.txt").read_text()
    tr = translate_build_file("CMakeLists.txt", text, BuildOptions(archs=(ARCH,), output_mode="sibling"))
    out = apply_edits(text, tr.edits)
    assert "add_executable(sgemm sgemm.hip)" in out and "LANGUAGE HIP" not in out
    assert any(r.kind.value == "info" and "CMakeLists_hip.txt" in r.message for r in tr.reports)


def test_makefile_ported_beside_the_sources_builds(tmp_path: Path) -> None:
    """`hipport convert --suffix`: Makefile -> Makefile_hip naming the sibling outputs (saxpy.hip,
    scale_hip.cuh: the same names the sources' includes now use), built with `make -f Makefile_hip`."""
    need_hipcc()
    proj = tmp_path / "saxpy"
    shutil.copytree(PROJECTS / "make_saxpy", proj)
    assert main(["convert", str(proj), "--suffix", "--arch", ARCH, "-q"]) == 0
    mk = (proj / "Makefile_hip").read_text()
    assert "%.o: %.hip scale_hip.cuh Makefile\n" in mk
    assert '#include "scale_hip.cuh"' in (proj / "saxpy.hip").read_text()
    r = subprocess.run(["make", "-C", str(proj), "-f", "Makefile_hip", "ROCM_PATH=/usr", "saxpy"], env=hip_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "-c saxpy.hip" in r.stdout and (proj / "saxpy").is_file()


def test_the_command_a_sibling_cmake_refusal_names_builds_with_cmake(
        tmp_path: Path, cmake_build: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    """Issue 19 item 9: `hipport run` refuses a CMake project in sibling mode and names what works; that
    command, run as named, gives a tree Debian's CMake configures and builds (HIP language, gfx90a)."""
    import re

    proj = tmp_path / "histogram"
    shutil.copytree(PROJECTS / "cmake_histogram", proj)
    r = subprocess.run([sys.executable, "-m", "hipport.cli", "run", ".", "--dry-run"], cwd=proj,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "CMake reads only CMakeLists.txt" in r.stdout, r.stdout + r.stderr
    named = re.search(r"`hipport (convert -o (\S+) \.)` in the project root, then `hipport run (\S+)`", r.stdout)
    assert named is not None and named.group(2) == named.group(3) == "hip"
    conv = subprocess.run([sys.executable, "-m", "hipport.cli", *named.group(1).split(), "--arch", ARCH, "-q"],
                          cwd=proj, capture_output=True, text=True, timeout=300)
    assert conv.returncode == 0, conv.stderr
    built = cmake_build(proj / "hip")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert (proj / "hip" / "build" / "histogram").is_file()
