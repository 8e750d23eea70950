"""The whole-project view: background analysis with a progress label and exact counts, real file
states in the list, and the project-root rule as the header and the CLI show it."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from apptest import fake_analyze, fake_translate

from hipport.cli.main import main
from hipport.engine.config import Config
from hipport.engine.review import ReviewSession
from hipport.tui.app import PortApp
from hipport.tui.screens.review import ReviewScreen
from hipport.tui.widgets.file_list import FileList

SIZE = (120, 34)


def status_text(screen: ReviewScreen) -> str:
    return str(screen.query_one("#status-bar").render())


async def test_background_analysis_labels_progress_then_gives_exact_counts(project: Path) -> None:
    gate = threading.Event()

    def slow_translate(source: Any, options: Any = None) -> Any:
        if source.path is not None and Path(source.path).name == "model.py":
            gate.wait(30)  # model.py is still being analysed while we look
        return fake_translate(source, options)

    session = ReviewSession.open(project, Config(), translate=slow_translate, analyze=fake_analyze)
    app = PortApp(session, theme="hipport-dark", root_note="git work tree (test)")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        for _ in range(100):  # gemm.cu (opened) is counted; model.py blocks
            await pilot.pause(0.05)
            if "analysing…" in status_text(screen) and screen.rel == "gemm.cu" and screen.loading_rel is None:
                break
        text = status_text(screen)
        assert "analysing… 1/3 files: 0/5+ decided" in text, text
        assert "git work tree (test)" in text  # the header says why this folder is the project
        files = screen.query_one(FileList)
        states = {it.rel: it.state for it in files.items}
        assert states["model.py"] == "not analysed yet" and states["gemm.cu"] == "findings"
        assert "analysing… 1/3" in str(files.border_title)
        await pilot.press("n")  # keys work while the analysis runs: the connected group of 4 findings
        assert "4/5" in status_text(screen)
        gate.set()
        for _ in range(100):
            await pilot.pause(0.05)
            if "all " in status_text(screen):
                break
        text = status_text(screen)
        assert "all 4/5 decided" in text, text
        states = {it.rel: (it.state, it.symbol) for it in files.items}
        assert states == {"gemm.cu": ("findings", "!"), "model.py": ("nothing to port", " "),
                          "util.cuh": ("translated", "·")}
        assert files.border_title == "Files (3)"


def test_cli_refuses_the_file_system_root_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    t = time.monotonic()
    assert main(["/"]) == 2
    assert time.monotonic() - t < 5  # refused by rule, not after walking the disk
    err = capsys.readouterr().err
    assert "file-system root" in err and "--any-folder" in err


def test_cli_refuses_home_and_asks_before_a_large_plain_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "a.cu").write_text("\n")
    assert main([str(tmp_path)]) == 2
    assert "home folder" in capsys.readouterr().err
    big = tmp_path / "big"
    big.mkdir()
    for i in range(301):
        (big / f"k{i}.cu").write_text("\n")
    assert main([str(big)]) == 2  # stdin is not a terminal under pytest: the answer is no
    err = capsys.readouterr().err
    assert "Open it as one project?" in err and "--any-folder" in err


POOL_APP = r"""
import asyncio, sys
from pathlib import Path
from hipport.engine.review import ReviewSession
from hipport.tui.app import PortApp

async def main():
    app = PortApp(ReviewSession.open(Path(sys.argv[1])))
    async with app.run_test(size=(120, 34)) as pilot:
        a = app.analysis
        for _ in range(1200):
            if a.finished or a.error:
                break
            await pilot.pause(0.1)
        app.screen._analysis_tick()
        print(a.use_pool, a.error, a.done, a.total, app.screen.project_rows.view().findings)

if __name__ == "__main__":
    asyncio.run(main())
"""


def test_large_project_is_analysed_by_the_process_pool_inside_the_running_app(tmp_path: Path) -> None:
    """In a fresh process, as `hipport PATH` runs it: the pool's helper processes must start while
    Textual holds stdout/stderr (a bug once made every file fail there)."""
    import subprocess
    import sys

    from hipport.engine.project.analysis import POOL_MIN_FILES

    root = tmp_path / "many"
    root.mkdir()
    kernel = ("__global__ void k(float* o) {\n  int lane = threadIdx.x % 32;\n"
              "  o[lane] = __shfl_down_sync(0xffffffff, o[lane], 16);\n}\n")
    for i in range(POOL_MIN_FILES + 2):
        (root / f"k{i:03d}.cu").write_text(kernel)
    proc = subprocess.run([sys.executable, "-c", POOL_APP, str(root)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    use_pool, error, done, total, findings = proc.stdout.split()[-5:]
    truth = ReviewSession.open(root, autosave=False)
    per_file = len(truth.load("k000.cu").findings)
    assert per_file > 0
    assert (use_pool, error, done, total) == ("True", "None", str(POOL_MIN_FILES + 2), str(POOL_MIN_FILES + 2))
    assert int(findings) == per_file * (POOL_MIN_FILES + 2)


async def test_file_rows_streaming_in_repaint_only_when_visible_and_show_their_new_state() -> None:
    """The background analysis replaces rows all the time; a row off screen must cost no repaint of
    the list (on 5,000 files that repaint took 12% of a core from the workers), and still show its new
    state when scrolled to."""
    from textual.app import App, ComposeResult

    from hipport.tui.widgets.file_list import FileItem

    class ListApp(App[None]):
        def compose(self) -> ComposeResult:
            yield FileList(id="files")

    def item(i: int, state: str, counts: str = "") -> FileItem:
        return FileItem(f"k{i:03d}.cu", state, "!" if counts else " ", counts)

    def line(files: FileList, index: int) -> str:
        opts = files.options
        return opts.render_line(index - opts.scroll_offset.y).text

    app = ListApp()
    async with app.run_test(size=(140, 20)) as pilot:  # the list at its widest, 34 columns
        files = app.query_one(FileList)
        files.set_items([item(i, "not analysed yet") for i in range(100)], None)
        await pilot.pause()
        opts = files.options
        assert line(files, 0).startswith("   k000.cu")
        refreshed: list[object] = []
        real_refresh = opts.refresh
        opts.refresh = lambda *a, **k: (refreshed.append(a), real_refresh(*a, **k))[1]  # type: ignore[method-assign]
        files.update_items({"k090.cu": item(90, "findings", "0/7")}, None)  # off screen
        assert refreshed == []
        files.update_items({"k000.cu": item(0, "findings", "0/3")}, None)  # on screen
        assert len(refreshed) == 1
        await pilot.pause()
        assert line(files, 0).startswith(" ! k000.cu 0/3")
        opts.scroll_to(y=85, animate=False)
        await pilot.pause()
        assert line(files, 90).startswith(" ! k090.cu 0/7")
