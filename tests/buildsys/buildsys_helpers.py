"""Helpers for building ported projects with Debian 12's HIP toolchain (hipcc 5.2, clang 15, CMake 3.25).

Debian's CMake CAN configure the HIP language without a ROCm install, given four things (verified
here by hand first, then by these tests):
- CMAKE_HIP_COMPILER=clang++-15 (CMake drives clang, not the hipcc wrapper);
- CMAKE_HIP_COMPILER_ROCM_ROOT=<a prefix whose lib/cmake/ holds hip-lang etc.>: CMake 3.25 looks only in
  <root>/lib/cmake, Debian installs to lib/x86_64-linux-gnu/cmake (CMake issue 24562, fixed in 3.27);
  the prefix is a folder of symbolic links made in the test's temporary folder;
- CMAKE_PREFIX_PATH in the ENVIRONMENT (CMake's compiler-check projects do not inherit the cache);
- CMAKE_HIP_FLAGS=--rocm-path=/usr --hip-device-lib-path=<Debian's amdgcn bitcode> (what hipcc adds).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

DEBIAN_CMAKE_DIR = Path("/usr/lib/x86_64-linux-gnu/cmake")
DEBIAN_BITCODE = Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")
CLANG = "/usr/bin/clang++-15"
ARCH = "gfx90a"  # Debian's HIP 5.2 predates gfx942


def need_hipcc() -> None:
    if shutil.which("hipcc") is None or shutil.which("make") is None:
        pytest.skip("Debian's hipcc and make are needed (scripts/install-system-deps.sh)")


def need_debian_cmake() -> None:
    need_hipcc()
    if shutil.which("cmake") is None or not Path(CLANG).exists() or not (DEBIAN_CMAKE_DIR / "hip-lang").is_dir():
        pytest.skip("CMake, clang++-15 and Debian's hip-lang CMake package are needed")


def hip_env() -> dict[str, str]:
    env = dict(os.environ)
    env["HIP_PLATFORM"] = "amd"
    return env


@pytest.fixture(scope="session")
def rocm_shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A prefix with lib/cmake/<pkg> -> Debian's lib/x86_64-linux-gnu/cmake/<pkg> (see the module doc)."""
    root = tmp_path_factory.mktemp("rocm-shim")
    (root / "lib" / "cmake").mkdir(parents=True)
    if DEBIAN_CMAKE_DIR.is_dir():
        for d in DEBIAN_CMAKE_DIR.iterdir():
            (root / "lib" / "cmake" / d.name).symlink_to(d)
    return root


@pytest.fixture
def cmake_build(rocm_shim: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Configure and build the CMake project in `src` (build folder src/build); returns the last step."""

    def run(src: Path, extra_flags: str = "") -> subprocess.CompletedProcess[str]:
        need_debian_cmake()
        env = hip_env()
        env["CMAKE_PREFIX_PATH"] = str(rocm_shim)
        bdir = src / "build"
        conf = subprocess.run(
            ["cmake", "-S", str(src), "-B", str(bdir), "-DCMAKE_BUILD_TYPE=Release",
             f"-DCMAKE_HIP_COMPILER={CLANG}", f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={rocm_shim}",
             f"-DCMAKE_HIP_FLAGS=--rocm-path=/usr --hip-device-lib-path={DEBIAN_BITCODE} {extra_flags}".rstrip()],
            env=env, capture_output=True, text=True, timeout=300)
        if conf.returncode != 0:
            return conf
        return subprocess.run(["cmake", "--build", str(bdir), "-j", "2"], env=env, capture_output=True,
                              text=True, timeout=600)

    return run
