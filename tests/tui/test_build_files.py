"""Build files (Makefile, CMakeLists.txt) shown in the diff with syntax colour: the engine's
Language (make/cmake) picks Pygments' make/cmake lexers through the diff view's one highlighter."""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest import repo
from test_uses import ready

from hipport.engine.config import Config
from hipport.engine.review import ReviewSession
from hipport.tui.app import PortApp
from hipport.tui.widgets.diff_view import DiffView

MAKEFILE = """\
CC        = nvcc
ARCH      = sm_60
CFLAGS    = -std=c++14 -O3 -arch=$(ARCH)

main: main.cu
\t$(CC) $(CFLAGS) -o $@ $<
"""
CMAKE = "project(x LANGUAGES CXX CUDA)\nadd_executable(x main.cu)\n"
KERNEL = "__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"


def colours(dv: DiffView, y: int) -> set[str]:
    """The distinct foreground colours of screen line y of the diff (its text, gutter and numbers)."""
    return {str(seg.style.color) for seg in dv.render_line(y) if seg.style is not None and seg.style.color}


@pytest.mark.parametrize(("rel", "language", "needle"), [("Makefile", "make", "CC"),
                                                         ("CMakeLists.txt", "cmake", "project(")])
async def test_build_files_are_highlighted(tmp_path: Path, rel: str, language: str, needle: str) -> None:
    root = repo(tmp_path / "p", {"Makefile": MAKEFILE, "CMakeLists.txt": CMAKE, "main.cu": KERNEL})
    app = PortApp(ReviewSession.open(root, Config(archs=("gfx90a",))), theme="hipport-dark")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await ready(pilot)
        screen.open_file(rel)
        await ready(pilot)
        dv = screen.query_one(DiffView)
        assert dv.language == language
        y = next(i for i, r in enumerate(dv.rows) if (r.old_text or "").startswith(needle))
        coloured = colours(dv, y)
        # the same line as plain text: the lexer's colours are what is added
        dv.language = "text"
        dv._line_cache.clear()
        dv._strip_cache.clear()
        plain = colours(dv, y)
        assert len(coloured) > len(plain), (coloured, plain)
