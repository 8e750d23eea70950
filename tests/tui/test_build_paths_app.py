"""Issue 19 item 9 in the app: `b` offers to write only the files the build reads (the demo's dual Makefile
is used as it is; a make build reads no CMake port and no Python script), and a CMake project in sibling
mode is refused up front with the command that works, before anything is written. Real translation."""

from __future__ import annotations

import shutil
from pathlib import Path

from apptest import ready, settle

from hipport.cli.commands.demo import prepare
from hipport.engine.config import Config
from hipport.engine.review import ReviewSession
from hipport.engine.toolchain.detect import Detection
from hipport.tui.app import PortApp
from hipport.tui.screens.confirm import ConfirmScreen

SIZE = (110, 32)
PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"


async def test_b_in_the_demo_offers_only_the_files_the_build_reads(tmp_path: Path) -> None:
    root = prepare(tmp_path / "demo")
    app = PortApp(ReviewSession.open(root, Config()), None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.run_pane.detection = Detection()
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = str(app.screen.query_one("#question").render())
        assert "1 file(s) of the port are not written yet: gemm.cu." in question, question
        for unused in ("Makefile", "CMakeLists", "matmul_cuda.py"):
            assert unused not in question
        await pilot.press("y")
        await settle(pilot, lambda: (root / "gemm.hip").is_file() and not screen.run_pane.running)
    assert not (root / "Makefile_hip").exists() and not (root / "CMakeLists_hip.txt").exists()


async def test_b_on_a_cmake_project_in_sibling_mode_is_refused_before_writing(tmp_path: Path) -> None:
    root = tmp_path / "histogram"
    shutil.copytree(PROJECTS / "cmake_histogram", root)
    app = PortApp(ReviewSession.open(root, Config()), None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.run_pane.detection = Detection()
        await pilot.press("b")
        await settle(pilot, lambda: "Cannot build" in screen.last_message)
        assert not isinstance(app.screen, ConfirmScreen)
        assert "CMake reads only CMakeLists.txt" in screen.last_message
        assert "`hipport convert -o hip .` in the project root, then `hipport run hip`" in screen.last_message
    assert sorted(p.name for p in root.iterdir()) == ["CMakeLists.txt", "histogram.cu", "histogram.cuh", "main.cu"]
