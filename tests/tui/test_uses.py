"""A merged finding's uses (issue 13 "Noise": one finding per root cause, its uses expandable), driven by
keys and clicks. The first tests run the real engine (translation + warp analysis) on a small kernel and
on real public code (HeCBench 49175104c); the app shows the engine's `Finding.uses` as they are."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from apptest import analysed_ready as ready
from apptest import repo

from hipport.engine.config import Config
from hipport.engine.review import ReviewSession
from hipport.tui.app import PortApp
from hipport.tui.screens.review import ReviewScreen
from hipport.tui.widgets.diff_view import DiffView
from hipport.tui.widgets.finding_panel import FindingPanel

SIZE = (160, 44)

# Three shuffles with the same 32-bit mask: the engine merges them into one finding with two uses.
KERNEL = """\
#include <cuda_runtime.h>

template <typename T>
__device__ void reduce3(T &a, T &b, int &n) {
  for (int i = warpSize / 2; i > 0; i >>= 1) {
    auto a2 = __shfl_down_sync(0xffffffff, a, i);
    auto b2 = __shfl_down_sync(0xffffffff, b, i);
    auto n2 = __shfl_down_sync(0xffffffff, n, i);
    a += a2; b += b2; n += n2;
  }
}

__global__ void k(float *x, int *c) {
  float a = x[threadIdx.x], b = a * a;
  int n = 1;
  reduce3(a, b, n);
  if (threadIdx.x % 32 == 0) { x[threadIdx.x / 32] = a; c[threadIdx.x / 32] = n; }
}
"""


def cursor_line(screen: ReviewScreen) -> int | None:
    dv = screen.query_one(DiffView)
    return dv.rows[dv.cursor].old_no


def option_texts(panel: FindingPanel) -> list[str]:
    uses = panel.uses_list
    return [str(uses.get_option_at_index(i).prompt) for i in range(uses.option_count)]


async def test_uses_expand_jump_and_collapse_with_keys_and_clicks(tmp_path: Path) -> None:
    root = repo(tmp_path / "p", {"k.cu": KERNEL})
    app = PortApp(ReviewSession.open(root, Config()), theme="hipport-dark")
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        panel = screen.query_one(FindingPanel)
        fr = screen.session.load("k.cu")
        merged = fr.by_id[screen.current or ""]
        assert [u.line for u in merged.uses] == [7, 8]  # the engine's merge: one finding, its two uses
        body = str(screen.query_one("#finding-body").render())
        assert "▸ 2 more places (U lists them)" in body
        assert not panel.uses_open and not panel.uses_list.display

        await pilot.press("U")
        assert panel.uses_open and panel.uses_list.has_focus
        texts = option_texts(panel)
        assert len(texts) == 3
        assert "this finding" in texts[0] and "6:" in texts[0]
        assert texts[1].split()[0] == "7:32" and "auto b2 = __shfl_down_sync(0xffffffff, b, i);" in texts[1]
        assert texts[2].split()[0] == "8:32"
        assert "▾ 2 more places (U closes)" in str(screen.query_one("#finding-body").render())

        await pilot.press("down")  # moving through the list moves the diff's cursor to each use
        await pilot.pause()
        assert cursor_line(screen) == 7 and screen.current == merged.id
        await pilot.press("down", "enter")
        await pilot.pause()
        assert cursor_line(screen) == 8 and screen.current == merged.id
        await pilot.press("up", "up")
        await pilot.pause()
        assert cursor_line(screen) == merged.line

        await pilot.press("escape")  # closes; the diff has the focus again
        await pilot.pause()
        assert not panel.uses_open and screen.query_one(DiffView).has_focus

        # a click on the header's count opens the list; a click on an entry jumps to its line
        body_widget = screen.query_one("#finding-body")
        first_line = str(body_widget.render()).split("\n")[0]
        await pilot.click("#finding-body", offset=(first_line.index("▸") + 2, 0))
        await pilot.pause()
        assert panel.uses_open
        await pilot.click("#finding-uses", offset=(4, 1))
        await pilot.pause()
        assert cursor_line(screen) == 7 and screen.current == merged.id
        await pilot.press("U")
        await pilot.pause()
        assert not panel.uses_open and not panel.uses_list.display

        # the next finding (lane id % 32) has no other places: no count, and U says so
        await pilot.press("j")
        await pilot.pause()
        assert screen.current != merged.id and not fr.by_id[screen.current or ""].uses
        assert "more place" not in str(screen.query_one("#finding-body").render())
        await pilot.press("U")
        assert not panel.uses_open and "no other places" in screen.last_message


async def test_list_closes_when_the_finding_changes(tmp_path: Path) -> None:
    root = repo(tmp_path / "p", {"k.cu": KERNEL})
    app = PortApp(ReviewSession.open(root, Config()), theme="hipport-dark")
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        panel = screen.query_one(FindingPanel)
        first = screen.current
        await pilot.press("U")
        assert panel.uses_open
        await pilot.press("j")  # j is the screen's key even while the list has the focus
        await pilot.pause()
        assert screen.current != first and not panel.uses_open
        assert screen.query_one(DiffView).has_focus
        await pilot.press("k")  # back on the merged finding: closed until U again
        await pilot.pause()
        assert screen.current == first and not panel.uses_open


HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))


async def test_uses_of_real_code_hecbench_wedford(tmp_path: Path) -> None:
    src = HECBENCH / "src" / "wedford-cuda" / "main.cu"
    if not src.is_file():
        pytest.skip(f"HeCBench 49175104c not found at {HECBENCH} (set HIPPORT_HECBENCH)")
    root = tmp_path / "wedford"
    root.mkdir()
    shutil.copy(src, root / "main.cu")
    root = repo(tmp_path / "w", {"main.cu": (root / "main.cu").read_text()})
    app = PortApp(ReviewSession.open(root, Config()), theme="hipport-dark")
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        fr = screen.session.load("main.cu")
        merged = [f for f in fr.findings if f.uses]
        assert merged, "the engine merged no finding of wedford main.cu"
        target = merged[0]
        for _ in range(len(fr.findings)):
            if screen.current == target.id:
                break
            await pilot.press("J")
        assert screen.current == target.id
        await pilot.press("U")
        panel = screen.query_one(FindingPanel)
        texts = option_texts(panel)
        assert [int(t.split(":")[0]) for t in texts] == [target.line, *(u.line for u in target.uses)]
        for use in target.uses:
            await pilot.press("down")
            await pilot.pause()
            assert cursor_line(screen) == use.line
