"""Pilot tests of the run side of the app (issue 12): `b` before `w` (write and build in one key), the trust
prompt for commands from the project's [tool.hipport.run], the run pane showing a difference from the CUDA
baseline, and a CMake-style HeCBench project (49175104c) whose port builds: through its Makefile, because
Debian's CMake cannot configure the HIP language without a ROCm install."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from apptest import open_session, ready, settle

from hipport.engine.config import Config
from hipport.engine.review import ReviewSession
from hipport.engine.toolchain.baseline import Baseline, Value
from hipport.engine.toolchain.detect import Detection, Gpu, RocmInstall
from hipport.engine.toolchain.plan import RunPlan, Step
from hipport.tui.app import PortApp
from hipport.tui.screens.confirm import ConfirmScreen
from hipport.tui.widgets.run_pane import RunPane

SIZE = (110, 32)
MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100)


def pane_text(pane: RunPane) -> str:
    return "\n".join(pane.output)


async def test_b_before_w_offers_write_and_build(project: Path) -> None:
    app = PortApp(open_session(project), None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.run_pane.detection = Detection()  # no GPU, no tools: the build is planned, not probed
        assert not (project / "gemm.hip").exists()
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = str(app.screen.query_one("#question").render())
        assert "not written yet" in question and "gemm.cu" in question and "Write them and build?" in question
        await pilot.press("y")
        await settle(pilot, lambda: not screen.run_pane.running and "▶ planning" not in
                     str(screen.run_pane.query_one("#run-status").render()))
        assert (project / "gemm.hip").is_file()  # written by the one key, then planned for the build
        assert "Cannot build yet" not in screen.last_message
        assert any(line.startswith("$ hipcc") for line in screen.run_pane.output), pane_text(screen.run_pane)


async def test_b_then_build_as_is_says_what_is_missing(project: Path) -> None:
    app = PortApp(open_session(project), None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.run_pane.detection = Detection()
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await settle(pilot, lambda: "Cannot build yet" in screen.last_message)
        assert "gemm.hip" in screen.last_message and not (project / "gemm.hip").exists()


async def test_commands_from_the_config_run_only_once_trusted(project: Path) -> None:
    marker = project / "ran.txt"
    code = f"open({str(marker)!r}, 'a').write('x')"
    config = Config(run={"run": [sys.executable, "-c", code], "arch": "gfx942"})
    # a machine with an AMD GPU (synthetic), so the plan launches the configured run command; hipcc is a
    # stand-in that creates the program (the build is not what this test is about)
    bindir = project.parent / "bin"
    bindir.mkdir()
    (bindir / "hipcc").write_text("#!/bin/sh\nexit 0\n")
    (bindir / "hipcc").chmod(0o755)
    (project / "gemm.hip").write_text("// ported\n")
    old = os.environ["PATH"]
    os.environ["PATH"] = f"{bindir}:{old}"
    try:
        app = PortApp(open_session(project, config), config)
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            screen.run_pane.detection = Detection(amd_gpus=(MI300X,), rocm=RocmInstall(hip_version="7.0.0"))
            screen.run_pane.monitor = False
            screen.run_pane.build_and_run(project, config)
            await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            question = str(app.screen.query_one("#question").render())
            assert "[tool.hipport.run]" in question and f"{sys.executable} -c" in question and "ran.txt" in question
            await pilot.press("n")
            await settle(pilot, lambda: "not trusted" in str(screen.run_pane.query_one("#run-status").render()))
            assert not marker.exists()
            screen.run_pane.build_and_run(project, config)
            await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await settle(pilot, lambda: marker.exists() and not screen.run_pane.running)
            # remembered in the person's state folder, never in the project
            assert not (project / ".hipport" / "trust.json").exists()
            records = list((Path(os.environ["XDG_STATE_HOME"]) / "hipport" / "trust").glob("*.json"))
            assert len(records) == 1 and json.loads(records[0].read_text())["project"] == str(project.resolve())
            # trusted once for this project: the next run asks nothing
            screen.run_pane.build_and_run(project, config)
            await settle(pilot, lambda: marker.read_text() == "xx" and not screen.run_pane.running)
            assert not isinstance(app.screen, ConfirmScreen)
    finally:
        os.environ["PATH"] = old


async def test_the_run_pane_shows_a_difference_from_the_cuda_baseline(project: Path) -> None:
    base = project / ".hipport" / "baseline" / "adam.json"
    Baseline("./main 10000 200 100", [Value("'<verdict>' verdict0", "PASS", None),
                                      Value("'Checksum: # #'[0]", "0.123456", 0.123456),
                                      Value("'Checksum: # #'[1]", "0.654321", 0.654321),
                                      Value("exit status", "0", None)], "NVIDIA H200 (sm_90)").save(base)
    code = "print('Average kernel execution time 0.1 (ms)'); print('PASS'); print('Checksum: 0.123456 0.7')"
    plan = RunPlan("custom", [Step("run", [sys.executable, "-c", code], project, None, "run", 60)], True, "gfx942",
                   baseline_file=base, label="HIP port")
    app = PortApp(open_session(project), None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.run_pane.monitor = False
        screen.run_pane.add_class("-visible")
        screen.run_pane.start(plan)
        await settle(pilot, lambda: not screen.run_pane.running and screen.run_pane.report is not None)
        out = pane_text(screen.run_pane)
        assert "DIFFERS from the CUDA baseline (recorded on NVIDIA H200 (sm_90)): 1 of 4 values" in out
        assert "'Checksum: # #'[1]: CUDA 0.654321, port 0.7" in out
        assert "differs from the CUDA baseline" in str(screen.run_pane.query_one("#run-status").render())


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
async def test_a_cmake_style_hecbench_project_whose_port_builds(tmp_path: Path) -> None:
    """HeCBench adam-cuda has CMakeLists.txt and a Makefile; Debian's CMake cannot configure HIP without
    ROCm, so the port is built with its ported Makefile (Makefile_hip, sibling mode) by Debian's hipcc."""
    src = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench")) / "src" / "adam-cuda"
    if not src.is_dir():
        pytest.skip("HeCBench is not here (HIPPORT_HECBENCH)")
    root = tmp_path / "adam"
    shutil.copytree(src, root)
    text = (root / "Makefile").read_text()
    text = re.sub(r"^CC\s*=\s*nvcc", "CC = hipcc", text, flags=re.M)
    text = re.sub(r"^ARCH\s*=\s*sm_\w+", "HIP_ARCH ?= gfx90a", text, flags=re.M)
    text = text.replace("-arch=$(ARCH)", "--offload-arch=$(HIP_ARCH)").replace("-Xcompiler -Wall", "-Wall")
    (root / "Makefile_hip").write_text(re.sub(r"\bmain\.cu\b", "main.hip", text))  # the ported build script
    for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", *cmd], cwd=root, check=True)
    config = Config(run={"arch": "gfx90a"})
    app = PortApp(ReviewSession.open(root, config), config)  # the real translation, not the app tests' stand-in
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.run_pane.detection = Detection(rocm=RocmInstall(root="/usr", hip_version="5.2.21153-0"))
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")  # write main.hip (and the rest of the port), then build
        # make runs Makefile_hip, which the repository provides: the project is trusted first
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                     and "make runs the recipes of Makefile_hip" in str(app.screen.query_one("#question").render()))
        assert "make -f Makefile_hip" in str(app.screen.query_one("#question").render())
        await pilot.press("y")
        await settle(pilot, lambda: screen.run_pane.report is not None and not screen.run_pane.running)
        out = pane_text(screen.run_pane)
        assert screen.run_pane.report.status == "built, not launched", out[-3000:]
        assert "$ make -f Makefile_hip -B HIP_ARCH=gfx90a" in out and "--offload-arch=gfx90a" in out
        assert "build script: the ported Makefile_hip" in out
        assert (root / "main").is_file()



@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None or not Path("/usr/include/hip/nvidia_detail").is_dir(),
                    reason="needs nvcc and Debian's HIP headers (hip/nvidia_detail)")
async def test_the_run_pane_runs_the_port_on_hips_nvidia_platform_when_asked(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`P` switches the pane's runs to `hipport run --platform nvidia` (and back), as `G` picks the GPU: the
    port is built for real by hipport's hipcc for HIP's NVIDIA platform (nvcc 13 with a copy of Debian's HIP
    headers, scripts/hip_nvidia_headers.py), labelled so. The H200 is synthetic: this machine has no GPU, so
    what its launch prints proves nothing and is not checked."""
    from hipport.engine.toolchain.detect import CudaInstall
    from hipport.engine.toolchain.plan import NVIDIA_NOTE, nvidia_bin

    inc = tmp_path / "hipinc"
    r = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[2] / "scripts" / "hip_nvidia_headers.py"),
                        str(inc)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    monkeypatch.setenv("HIPPORT_HIP_INCLUDE", str(inc))
    h200 = Gpu("nvidia", 0, "NVIDIA H200", "sm_90", 132)
    app = PortApp(open_session(project), None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        pane = screen.run_pane
        pane.detection = Detection(nvidia_gpus=(h200,), cuda=CudaInstall(nvcc=shutil.which("nvcc")))
        pane.monitor = False
        assert pane.platform == "amd"
        await pilot.press("P")
        await settle(pilot, lambda: "--platform nvidia" in screen.last_message)
        assert pane.platform == "nvidia" and "32-lane warps" in screen.last_message
        await pilot.press("G")  # the GPUs of the chosen platform
        await settle(pilot, lambda: "Run on device" in screen.last_message)
        assert "NVIDIA H200" in screen.last_message and "CUDA_VISIBLE_DEVICES=0" in screen.last_message
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")  # write gemm.hip, then build (and launch) it
        await settle(pilot, lambda: pane.report is not None and not pane.running)
        report = pane.report
        out = pane_text(pane)
        assert report.plan.platform == "nvidia" and report.plan.label == "HIP port (NVIDIA platform)"
        assert "note: HIP port (NVIDIA platform): single-file build for sm_90" in out and NVIDIA_NOTE in out
        build = next(o for o in report.steps if o.step.title.startswith("hipcc"))
        assert build.exited is not None and build.exited.ok, out[-3000:]  # nvcc built the port
        assert build.step.env is not None and build.step.env["HIP_PLATFORM"] == "nvidia"
        assert build.step.env["PATH"].startswith(str(nvidia_bin()))  # hipport's hipcc: nvcc with HIP's headers
        assert (project / "build" / "gemm").is_file() and "--offload-arch" not in " ".join(build.step.argv)
        await pilot.press("P")  # and back
        await settle(pilot, lambda: "--platform amd" in screen.last_message)
        assert pane.platform == "amd" and pane.device is None
