"""The diff at any width: stacked (CUDA line above HIP line) below 120 columns, side by side above,
`v` to choose, `W` to wrap long lines with both columns kept aligned; at 80x24 the finding panel and
the essential key hints stay visible."""

from __future__ import annotations

from pathlib import Path

from apptest import analysed, open_session

from hipport.tui.app import PortApp
from hipport.tui.screens.review import ReviewScreen
from hipport.tui.widgets.diff_view import DiffView
from hipport.tui.widgets.finding_panel import FindingPanel
from hipport.tui.widgets.review_footer import ReviewFooter

LONG = ("    cudaMemcpyAsync(d_partial_sums_for_every_block, h_partial_sums_for_every_block, "
        "number_of_blocks * sizeof(float), cudaMemcpyHostToDevice, stream_for_the_partial_sums);\n")


def with_long_line(project: Path) -> Path:
    src = project / "gemm.cu"
    src.write_text(src.read_text().replace("    cudaDeviceSynchronize();\n", LONG + "    cudaDeviceSynchronize();\n"))
    return project


def screen_lines(dv: DiffView) -> list[str]:
    return [dv.render_line(y).text for y in range(dv.size.height)]


async def test_80x24_is_stacked_and_keeps_panel_and_key_hints(project: Path) -> None:
    app = PortApp(open_session(with_long_line(project)))
    async with app.run_test(size=(80, 24)) as pilot:
        await analysed(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        dv = screen.query_one(DiffView)
        assert dv.stacked and not dv.wrap
        panel = screen.query_one(FindingPanel)
        assert panel.region.height >= 5 and panel.region.bottom <= 23  # visible above the footer
        footer = screen.query_one(ReviewFooter)
        shown = {k.action for k in footer.query("FooterKey")}
        assert {"accept", "undo", "next_undecided", "search", "write", "commit", "help", "quit_app"} <= shown
        assert "build_run" not in shown  # still bound, listed by ? and the palette
        total_width = sum(w.region.width for w in footer.children)
        assert total_width <= 80, total_width
        # a changed line is shown as its CUDA line above its HIP line, each on the whole width
        dv.cursor = next(i for i, r in enumerate(dv.rows) if r.kind == "change" and "cudaFree" in r.old_text)
        await pilot.pause()
        lines = screen_lines(dv)
        i = next(k for k, t in enumerate(lines) if "cudaFree(d)" in t)
        assert "-" in lines[i][:10] and "hipFree(d)" in lines[i + 1] and "+" in lines[i + 1][:10]
        await pilot.press("v")  # the person's choice wins over the width
        assert not dv.stacked


async def test_wrap_keeps_both_columns_aligned_side_by_side(project: Path) -> None:
    app = PortApp(open_session(with_long_line(project)))
    async with app.run_test(size=(200, 50)) as pilot:
        await analysed(pilot)
        dv = app.screen.query_one(DiffView)
        assert not dv.stacked
        row = next(i for i, r in enumerate(dv.rows) if "cudaMemcpyAsync" in r.old_text)
        dv.cursor = row
        await pilot.pause()
        lines = screen_lines(dv)
        assert any("…" in t and "cudaMemcpyAsync" in t for t in lines)  # cut before wrapping
        await pilot.press("W")
        await pilot.pause()
        assert dv.wrap
        lines = screen_lines(dv)
        top = dv.visual_top(row) - int(dv.scroll_y)
        first, second = lines[top], lines[top + 1]
        assert "cudaMemcpyAsync" in first and "hipMemcpyAsync" in first
        # the continuation line carries the next piece of BOTH sides, under their own columns
        half = len(second) // 2
        assert "number_of_blocks" in second[:half] and "number_of_blocks" in second[half:], second
        assert not any("…" in t for t in lines)
        dv.cursor = row + 1  # moving past a wrapped row lands on the next row, not inside the wrap
        await pilot.pause()
        assert dv.rows[dv.cursor].old_text.strip().startswith("cudaDeviceSynchronize")
