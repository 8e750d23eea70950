"""The app on a big tree (3,000 files, bench/gen_tree.py): opening translates only the file shown, the
file list is one virtualised widget (not one widget per file), and key presses are handled promptly.
The real engine translates and analyses; the wrappers only count calls."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from hipport.engine.config import Config
from hipport.engine.review import ReviewSession
from hipport.engine.review.session import _default_analyze, _default_translate
from hipport.tui.app import PortApp
from hipport.tui.screens.review import ReviewScreen

REPO = Path(__file__).resolve().parents[2]
N_FILES = 3000


def _gen_tree() -> Any:
    spec = importlib.util.spec_from_file_location("gen_tree", REPO / "bench" / "gen_tree.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bigtree")
    _gen_tree().generate(root, files=N_FILES, lines=60_000, seed=6)
    return root


class Counting:
    def __init__(self) -> None:
        self.translated: list[str] = []
        self.analyzed: list[str] = []

    def translate(self, source: Any, options: Any) -> Any:
        self.translated.append(str(source.path))
        return _default_translate(source, options)

    def analyze(self, source: Any, tr: Any, options: Any) -> Any:
        self.analyzed.append(str(source.path))
        return _default_analyze(source, tr, options)


async def test_opening_a_3000_file_tree_is_lazy_and_keys_stay_prompt(big_tree: Path) -> None:
    counts = Counting()
    t0 = time.monotonic()
    session = ReviewSession.open(big_tree, Config(), translate=counts.translate, analyze=counts.analyze)
    assert len(session.files()) == N_FILES
    open_s = time.monotonic() - t0
    assert counts.translated == []  # opening the session reads no file
    assert open_s < 10, open_s

    # analysis=False: this test is about the lazy diff view; the background project analysis (which
    # would translate every file through these counting wrappers) is measured by bench/bench_app.py
    app = PortApp(session, Config(), analysis=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        first_paint = time.monotonic() - t0
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        # only the shown file was translated and analysed
        assert len(counts.translated) <= 2 and len(counts.analyzed) <= 2, (counts.translated, counts.analyzed)
        options = screen.query_one("#file-options", OptionList)
        assert options.option_count == N_FILES
        # virtualised: the DOM does not grow with the file count (one OptionList, no widget per file)
        assert len(list(screen.query("*"))) < 300
        assert first_paint < 30, first_paint

        # key presses: next finding, next file (translates that one file only), filter the list.
        # Measured as CPU time of this process (the app, its workers and the engine all run here), so
        # a busy machine does not make the test flaky; wall time is reported too.
        cpu: dict[str, float] = {}
        wall: dict[str, float] = {}
        for key in ("j", "j", "k", "}", "}", "{", "f", "f", "0", "0", "0", "1", "escape"):
            t, c = time.monotonic(), time.process_time()
            await pilot.press(key)
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            cpu[key] = max(cpu.get(key, 0.0), time.process_time() - c)
            wall[key] = max(wall.get(key, 0.0), time.monotonic() - t)
            if key == "1":
                assert 0 < options.option_count < N_FILES  # the filter narrowed the list
        print(f"\n3,000-file tree: session open {open_s:.2f} s, first paint {first_paint:.2f} s; "
              f"per key CPU max {max(cpu.values()):.3f} s, wall max {max(wall.values()):.3f} s")
        assert len(counts.translated) <= 5, counts.translated
        assert all(v < 1.0 for v in cpu.values()), cpu
        assert all(v < 10.0 for v in wall.values()), wall
