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
    return subprocess.run([sys.executable, "-m", "hipport.tui.cli", *args], cwd=cwd, capture_output=True,
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
    r = hipport("run", ".", "--arch", "gfx90a", cwd=root)
    assert "convert first" not in r.stdout + r.stderr
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "status: built, not launched" in r.stdout
    assert (root / "saxpy").read_bytes()[:4] == b"\x7fELF"

