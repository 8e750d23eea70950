"""The run builds the PORTED project with its ported build script, never the CUDA original in its place
(engine/toolchain/buildscript.py + plan.py), on real HeCBench 49175104c projects (Makefile + CMakeLists.txt,
nvcc). The ported Makefiles here are written the way the build-script translation writes them (nvcc ->
hipcc, -arch -> --offload-arch, main.cu -> main.hip); the translation itself is engine/buildsys/'s and
tested there. Debian's CMake cannot configure the HIP language without a ROCm install, so the HeCBench
port is built through its Makefile (HeCBench ships both)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.engine.config import Config
from hipport.engine.toolchain.buildscript import declares, find_script, has_target, ignore_proposal
from hipport.engine.toolchain.detect import CudaInstall, Detection, Gpu, RocmInstall
from hipport.engine.toolchain.execute import run_events
from hipport.engine.toolchain.plan import plan

HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100)
DEBIAN = RocmInstall(root="/usr", hip_version="5.2.21153-0", hipcc="/usr/bin/hipcc")


def hecbench(tmp_path: Path, name: str) -> Path:
    src = HECBENCH / "src" / name
    if not src.is_dir():
        pytest.skip(f"HeCBench is not here ({HECBENCH}; set HIPPORT_HECBENCH)")
    dst = tmp_path / name
    shutil.copytree(src, dst)
    subprocess.run(["git", "init", "-q", str(dst)], check=True)
    subprocess.run(["git", "-C", str(dst), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(dst), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "cuda"],
                   check=True)
    return dst


def port_sources(root: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "hipport.cli", "convert", "-q", "--suffix",
                        *[p.name for p in root.glob("*.cu")]], cwd=root, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def ported_makefile(text: str, arch: str = "gfx90a") -> str:
    """What the build-script port of a HeCBench Makefile looks like (fixture, see the module docstring)."""
    text = re.sub(r"^CC\s*=\s*nvcc", "CC        = hipcc", text, flags=re.M)
    text = re.sub(r"^ARCH\s*=\s*sm_\w+", f"HIP_ARCH  ?= {arch}", text, flags=re.M)
    text = text.replace("-arch=$(ARCH)", "--offload-arch=$(HIP_ARCH)").replace("-Xcompiler -Wall", "-Wall")
    return re.sub(r"\b(\w+)\.cu\b", r"\1.hip", text)


def test_an_unported_makefile_is_never_built_as_the_port(tmp_path: Path) -> None:
    root = hecbench(tmp_path, "adam-cuda")
    port_sources(root)  # main.hip exists, the Makefile still says nvcc main.cu
    rp = plan(root, detection=Detection(amd_gpus=(MI300X,), rocm=DEBIAN), env={}, settings=Config())
    assert not rp.ready and rp.steps == []
    assert rp.notes[0].startswith("convert first: Makefile still builds CUDA")
    assert "Makefile_hip" in rp.notes[0] and "does not build the CUDA original as the port" in rp.notes[0]
    # the hint is the call that writes what the run looks for (sibling mode: --suffix, with the sources)
    hint = re.search(r"`(hipport convert [^`]*)`", rp.notes[0])
    assert hint is not None and hint.group(1) == "hipport convert --suffix Makefile main.cu"
    r = subprocess.run([sys.executable, "-m", "hipport.cli", *hint.group(1).split()[1:]], cwd=root,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    ready = plan(root, detection=Detection(amd_gpus=(MI300X,), rocm=DEBIAN), env={}, settings=Config())
    assert ready.ready and ready.steps[0].argv[:3] == ["make", "-f", "Makefile_hip"]


def test_the_ported_makefile_is_found_by_output_mode(tmp_path: Path) -> None:
    root = hecbench(tmp_path, "adam-cuda")
    text = (root / "Makefile").read_text()
    (root / "Makefile_hip").write_text(ported_makefile(text))  # sibling mode's name for the port
    s = find_script("make", root, root, "sibling", "hip")
    assert s.path == root / "Makefile_hip" and s.make_file_args == ["-f", "Makefile_hip"]
    (root / "hip").mkdir()
    (root / "hip" / "Makefile").write_text(ported_makefile(text))
    f = find_script("make", root, root, "folder", "hip")
    assert f.path == root / "hip" / "Makefile" and f.cwd == root / "hip" and f.make_file_args == []
    assert find_script("make", root, root, "in-place", "hip").path is None  # Makefile itself still says nvcc
    assert declares(text, "ARCH") and not declares(text, "HIP") and has_target(text, "run")


def test_plan_runs_the_ported_makefile_with_the_variables_it_declares(tmp_path: Path) -> None:
    root = hecbench(tmp_path, "adam-cuda")
    port_sources(root)
    (root / "Makefile_hip").write_text(ported_makefile((root / "Makefile").read_text()))
    rp = plan(root, detection=Detection(amd_gpus=(MI300X,), rocm=DEBIAN), env={}, settings=Config(),
              arch="gfx90a")
    build, run = rp.steps
    assert build.argv == ["make", "-f", "Makefile_hip", "-B", "HIP_ARCH=gfx90a"]
    assert run.argv == ["make", "-f", "Makefile_hip", "--no-print-directory", "run", "HIP_ARCH=gfx90a"]
    assert any(n == "build script: the ported Makefile_hip" for n in rp.notes)
    # the CUDA baseline builds the original Makefile, for the NVIDIA GPU's arch (ARCH is what it declares)
    h200 = Gpu("nvidia", 0, "NVIDIA H200", "sm_90")
    base = plan(root, detection=Detection(nvidia_gpus=(h200,)), env={}, settings=Config(), baseline=True)
    assert base.steps[0].argv == ["make", "-B", "ARCH=sm_90"] and base.steps[0].cwd == root


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_the_hecbench_port_builds_with_its_ported_makefile_and_gitignore_is_proposed(tmp_path: Path) -> None:
    """Debian's hipcc (HIP 5.2) for gfx90a, no GPU: built, not launched; the build left the program `main`
    in the repository, untracked and not ignored, and the run proposes a .gitignore line for it."""
    root = hecbench(tmp_path, "adam-cuda")
    port_sources(root)
    (root / "Makefile_hip").write_text(ported_makefile((root / "Makefile").read_text()))
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "port"],
                   check=True)
    det = Detection(rocm=DEBIAN)
    rp = plan(root, detection=det, settings=Config(), arch="gfx90a")
    report = run_events(rp, det, lambda e: None, monitor=False)
    out = "\n".join(ln.text for o in report.steps for ln in o.lines)
    assert report.status == "built, not launched", out[-3000:]
    assert "hipcc" in out and "--offload-arch=gfx90a" in out and "nvcc" not in out
    assert (root / "main").is_file()
    assert "/main" in report.ignore_proposal and all(p.startswith("/main") for p in report.ignore_proposal)
    assert "proposed .gitignore lines: /main" in "\n".join(report.verdict_lines())


def test_ignore_proposal_collapses_folders() -> None:
    assert ignore_proposal({"a.cu"}, {"a.cu", "build/x.o", "build/app", "out.txt"}) == ["/build/", "/out.txt"]
    assert ignore_proposal(None, {"x"}) == []


def test_hipport_converts_makefile_and_the_run_builds_that_port(tmp_path: Path) -> None:
    """End to end with engine/buildsys: `hipport convert --suffix main.cu Makefile` writes main.hip and
    Makefile_hip (keeping HeCBench's ARCH variable, now read by --offload-arch); the plan runs Makefile_hip
    and sets the variable that --offload-arch reads."""
    root = hecbench(tmp_path, "adam-cuda")
    r = subprocess.run([sys.executable, "-m", "hipport.cli", "convert", "-q", "--suffix", "main.cu", "Makefile"],
                       cwd=root, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "--offload-arch=$(ARCH)" in (root / "Makefile_hip").read_text()
    rp = plan(root, detection=Detection(amd_gpus=(MI300X,), rocm=DEBIAN), env={}, settings=Config(), arch="gfx90a")
    assert rp.steps[0].argv == ["make", "-f", "Makefile_hip", "-B", "ARCH=gfx90a"]
    (tmp_path / "inc" / "hip" / "nvidia_detail").mkdir(parents=True)  # where HIP's NVIDIA headers would be
    nv = plan(root, detection=Detection(nvidia_gpus=(Gpu("nvidia", 0, "NVIDIA H200", "sm_90"),),
                                        cuda=CudaInstall(nvcc="/usr/local/bin/nvcc", version="13.0")),
              env={"HIPPORT_HIP_INCLUDE": str(tmp_path / "inc")}, settings=Config(), platform="nvidia")
    # the AMD arch variable emptied: no gfx target for nvcc (hipport's hipcc picks sm_90)
    assert nv.steps[0].argv == ["make", "-f", "Makefile_hip", "-B", "ARCH="]


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_the_apps_sibling_mode_ports_the_headers_the_makefile_names_and_the_port_builds(tmp_path: Path) -> None:
    """HeCBench 49175104c axpby-cuda: its Makefile names the header (`%.o: %.cu multi_tensor_apply.cuh`).
    Written by the app's review session in sibling mode (ReviewSession.write, not convert), Makefile_hip
    names the ported header as main.hip includes it, and the run builds it with Debian's hipcc."""
    from hipport.engine.review import ReviewSession

    root = hecbench(tmp_path, "axpby-cuda")
    session = ReviewSession.open(root, Config(archs=("gfx90a",)))
    assert session.config.output_mode == "sibling"
    for rel in ("Makefile", "main.cu", "multi_tensor_apply.cuh"):
        session.write(rel)
    assert "%.o: %.hip multi_tensor_apply_hip.cuh Makefile" in (root / "Makefile_hip").read_text()
    assert '#include "multi_tensor_apply_hip.cuh"' in (root / "main.hip").read_text()
    rp = plan(root, detection=Detection(rocm=DEBIAN), env=dict(os.environ), settings=session.config)
    assert rp.steps[0].argv[:3] == ["make", "-f", "Makefile_hip"]
    report = run_events(rp, Detection(rocm=DEBIAN), lambda e: None, monitor=False)
    assert report.status == "built, not launched", [ln.text for o in report.steps for ln in o.lines][-20:]
    assert (root / "main").is_file()
