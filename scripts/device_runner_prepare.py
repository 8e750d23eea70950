#!/usr/bin/env python3
"""Prepare, on this CPU machine, everything the H200 run of issue 12 needs (scripts/device_gemm.sh runs it):

    DEST/hipinc/            Debian's HIP headers made nvcc-13-clean (scripts/hip_nvidia_headers.py)
    DEST/good/<name>/       the CUDA original + hipport's port written beside it (sibling mode:
                            main.hip, Makefile_hip, ...), for the GEMM sample and three HeCBench programs
    DEST/wrong/<name>/      the same with one deliberate bug in the port (a differential check must
                            catch it); WRONG below says which

The ports are `hipport convert --suffix` of every CUDA source, header and Makefile of the program; the
GEMM sample's with `--fixes all --fix-style portable` (its row checksum uses warp shuffles). HeCBench
at 49175104c (HIPPORT_HECBENCH, default /work/hecbench); the programs use no warp-level code and no
external library. DEST is an ignored folder (.devout/runner): nothing here is committed.

Usage: python3 scripts/device_runner_prepare.py [DEST]
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench")) / "src"
PROGRAMS = ("adam", "laplace3d", "haccmk")
# (file, regex, replacement): one wrong operation in each port
WRONG = {
    "gemm": ("gemm.hip", r"for \(int k = 0; k < TILE; \+\+k\) acc \+=", "for (int k = 1; k < TILE; ++k) acc +="),
    "adam": ("main.hip", r"m\[j\] = b1\*m\[j\]", "m[j] = b2*m[j]"),
    "laplace3d": ("kernel_hip.h", r"\) \* sixth;", ") * 0.16f;"),
    "haccmk": ("haccmk.hip", r"xi = xi \+ f \* dxc;", "xi = xi + f * dyc;"),
}


def hipport(*args: str, cwd: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "hipport.cli", *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"hipport {' '.join(args)} in {cwd}: {r.stderr[-2000:]}")


def port_program(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst)
    files = sorted(p.name for p in dst.iterdir() if p.suffix in (".cu", ".h", ".cuh") or p.name == "Makefile")
    hipport("convert", "-q", "--suffix", *files, cwd=dst)
    (dst / "CMakeLists.txt").unlink(missing_ok=True)  # the Makefile builds it (Debian CMake has no HIP)


def port_gemm(dst: Path) -> None:
    dst.mkdir(parents=True)
    for name in ("gemm.cu", "Makefile"):
        shutil.copy(REPO / "examples" / "gemm" / name, dst / name)
    hipport("convert", "-q", "--fixes", "all", "--fix-style", "portable", "gemm.cu", "-o", "gemm.hip", cwd=dst)
    # the sample's Makefile builds both (HIP=1 selects the port); link the vendor BLAS in both builds
    (dst / "pyproject.toml").write_text('[tool.hipport.run]\nmake_args = ["NO_BLAS=0"]\n'
                                        'args = ["4096", "--repeats", "30", "--warmup", "5"]\n')


def break_port(root: Path, name: str) -> None:
    fname, pattern, repl = WRONG[name]
    path = root / fname
    text = path.read_text()
    new, n = re.subn(pattern, repl, text, count=1)
    if n != 1:
        sys.exit(f"{name}: the deliberate bug found no place in {fname} ({pattern})")
    path.write_text(new)


def main() -> int:
    dest = Path(sys.argv[1] if len(sys.argv) > 1 else REPO / ".devout" / "runner").resolve()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    subprocess.run([sys.executable, str(REPO / "scripts" / "hip_nvidia_headers.py"), str(dest / "hipinc")], check=True)
    port_gemm(dest / "good" / "gemm")
    for name in PROGRAMS:
        port_program(HECBENCH / f"{name}-cuda", dest / "good" / name)
    for name in ("gemm", *PROGRAMS):
        shutil.copytree(dest / "good" / name, dest / "wrong" / name)
        break_port(dest / "wrong" / name, name)
    print(f"prepared {dest}: {', '.join(sorted(p.name for p in (dest / 'good').iterdir()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
