"""pyproject's package list against setuptools' rule for data folders: `make setup`/`make demo` printed a
long "Package would be ignored" warning for every folder of package data (shims/, examples/gemm) that
Python sees as an importable package but `packages` did not list. Checked here by that rule (setuptools'
build_py, _IncludePackageDataAbuse: a data file in a subfolder whose dotted name is importable needs the
subfolder listed), without a network build; and every file the code opens at run time is package data."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def folder(package: str) -> Path:
    """The source folder of a package, by package-dir (hipport.engine.x -> engine/x)."""
    for prefix, where in sorted(SETUPTOOLS["package-dir"].items(), key=lambda kv: -len(kv[0])):
        if package == prefix or package.startswith(prefix + "."):
            rest = package[len(prefix):].lstrip(".")
            return REPO / where / Path(*rest.split(".")) if rest else REPO / where
    raise AssertionError(f"{package}: no package-dir")


def shipped() -> dict[Path, str]:
    """Every package-data file -> the package that ships it."""
    out: dict[Path, str] = {}
    for package, globs in SETUPTOOLS["package-data"].items():
        for pattern in globs:
            for f in folder(package).glob(pattern):
                if f.is_file() and "__pycache__" not in f.parts:
                    out[f] = package
    return out


def test_every_folder_holding_package_data_is_a_listed_package() -> None:
    listed = set(SETUPTOOLS["packages"])
    unlisted = []
    for f, package in shipped().items():
        parts = f.parent.relative_to(folder(package)).parts
        dotted = ".".join([package, *parts]) if parts else package
        if all(p.isidentifier() for p in parts) and dotted not in listed:
            unlisted.append(f"{f.relative_to(REPO)} ({dotted})")
    assert unlisted == []


def test_the_files_opened_at_run_time_are_shipped() -> None:
    files = shipped()
    for rel in ("engine/toolchain/shims/hip_sync_compat.h", "engine/toolchain/shims/nvidia/bin/hipcc",
                "engine/toolchain/shims/nvidia/include/hipblas.h",
                "engine/toolchain/shims/nvidia/include/hipblas/hipblas.h", "engine/toolchain/peaks.toml",
                "examples/gemm/gemm.cu", "examples/gemm/Makefile", "examples/gemm/CMakeLists.txt",
                "examples/gemm/matmul_cuda.py", "examples/gemm/.gitignore", "examples/gemm/README.md"):
        assert REPO / rel in files, rel
