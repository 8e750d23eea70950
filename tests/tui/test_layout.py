"""The diff at any width: stacked (CUDA line above HIP line) below 120 columns, side by side above,
`v` to choose, `W` to wrap long lines with both columns kept aligned; at 80x24 the finding panel and
the essential key hints stay visible."""

from __future__ import annotations

from pathlib import Path

from apptest import analysed, analysed_ready, open_session

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
        screen = await analysed_ready(pilot)
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


WARPY = """\
#include <cuda_runtime.h>
__global__ void k(const float* in, float* out, unsigned* bits) {
    int lane = threadIdx.x % 32;
    float v = in[threadIdx.x];
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffff, v, off);
    unsigned b = __ballot_sync(0xffffffff, v > 0.0f);
    if (lane == 31) bits[blockIdx.x] = b;
    if (lane == 0) out[blockIdx.x] = v;
}
"""


async def test_finding_panel_takes_each_findings_height(tmp_path: Path) -> None:
    """j/k re-lay out the screen only when the panel's text changes height (a re-layout per key cost
    ~50 ms of CPU): every finding's text must still get exactly the lines it needs, at both sizes."""
    import subprocess

    from textual.widgets import Static

    from hipport.engine.review import ReviewSession

    (tmp_path / "k.cu").write_text(WARPY)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True)
    for size in ((80, 24), (160, 45)):
        app = PortApp(ReviewSession.open(tmp_path, autosave=False))
        async with app.run_test(size=size) as pilot:
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            while screen.loading_rel is not None or screen.current is None:
                await pilot.pause(0.05)
            body = screen.query_one("#finding-body", Static)
            heights: list[int] = []
            for _ in range(len(screen.session.load("k.cu").findings) + 1):
                await pilot.pause()
                width = body.content_region.width
                assert body.content_region.height == body.visual.get_height(body.styles, width)
                heights.append(body.content_region.height)
                await pilot.press("j")
            assert len(set(heights)) > 1, heights  # the text did change height between findings


# A line with no blank in it: every cell the pane shows is one character of the code, so the pieces the
# screen shows, joined, must give the line back exactly (issue 19 item 1: a character hid under the
# scrollbar column at every wrap point, and the HIP side was cut at other places than the CUDA side).
NO_BLANKS = "q=cudaFree+" + "+".join(f"a{i}*b{i}" for i in range(40)) + ";"


def pane_texts(app: PortApp, dv: DiffView) -> list[str]:
    """What the screen shows in the diff's text area, one string per screen line: the composited screen
    (scrollbars drawn over the widget), cut to the cells no scrollbar covers."""
    region = dv.content_region
    right = region.right
    if dv.show_vertical_scrollbar:
        right = min(right, dv.vertical_scrollbar.region.x)
    strips = app.screen._compositor.render_strips()
    bottom = region.bottom
    if dv.show_horizontal_scrollbar:
        bottom = min(bottom, dv.horizontal_scrollbar.region.y)
    return [strips[y].text[region.x:right] for y in range(region.y, bottom)]


def shown_pieces(lines: list[str], stacked: bool) -> tuple[list[str], list[str]]:
    """The CUDA and HIP pieces of the long line as drawn (each piece without the gutter and number)."""
    old: list[str] = []
    new: list[str] = []
    start = next(i for i, t in enumerate(lines) if "q=cuda" in t)
    if stacked:  # "GG NNNNN- text" (old) then "GG NNNNN+ text" (new); continuation lines carry no number
        target = old
        for t in lines[start:]:
            head, text = t[:9], t[9:]
            if head.strip() and not head.strip().endswith(("-", "+")):
                break
            if head.strip().endswith("+"):
                target = new
            elif head.strip() and target is new:
                break
            target.append(text)
        return old, new
    for t in lines[start:]:  # side by side: "GGNNNNN text│GGNNNNN text", continuation lines unnumbered
        left, sep, right = t.partition("│")
        if not sep or (old and left[:8].strip()):
            break
        old.append(left[8:])
        new.append(right[8:])
    return old, new


async def test_panes_show_exactly_the_code_at_every_width(project: Path) -> None:
    src = project / "gemm.cu"
    src.write_text(src.read_text().replace("int main() {", NO_BLANKS + "\nint main() {"))
    hip_line = NO_BLANKS.replace("cudaFree", "hipFree")
    app = PortApp(open_session(project))
    async with app.run_test(size=(130, 40)) as pilot:
        screen = await analysed_ready(pilot)
        dv = screen.query_one(DiffView)
        row = next(i for i, r in enumerate(dv.rows) if r.old_text == NO_BLANKS)
        checked = 0
        for stacked, widths in ((False, range(100, 141, 3)), (True, range(60, 101, 3))):
            screen.stacked_choice = stacked
            for wrap in (True, False):
                if dv.wrap != wrap:
                    await pilot.press("W")
                for width in widths:
                    await pilot.resize_terminal(width, 40)
                    dv.cursor = row
                    await pilot.pause()
                    assert dv.stacked == stacked
                    old, new = shown_pieces(pane_texts(app, dv), stacked)
                    assert old and new, (stacked, wrap, width)
                    for pieces, line in ((old, NO_BLANKS), (new, hip_line)):
                        if wrap:  # every piece, joined: the line, no character lost or doubled
                            assert "".join(p.rstrip() for p in pieces) == line, (stacked, width, pieces)
                        else:  # one piece, cut with … on BOTH sides
                            assert len(pieces) == 1, (stacked, width, pieces)
                            shown = pieces[0].rstrip()
                            assert shown.endswith("…") and line.startswith(shown[:-1]), (stacked, width, shown)
                    checked += 1
        assert checked == 2 * (14 + 14)


SAMPLES = [f"Samples/0_Introduction/{name}/{name}.cu" for name in (
    "matrixMul", "matrixMulDrv", "matrixMulCUBLAS", "matrixMulDynlinkJIT", "simpleAtomicIntrinsics",
    "simpleAssert", "simpleCallback", "simpleCooperativeGroups")]


def sample_tree(root: Path) -> Path:
    """Paths shaped like cuda-samples': one long common start, the file name at the end."""
    import subprocess

    for rel in SAMPLES:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("#include <cuda_runtime.h>\nint main() { cudaDeviceSynchronize(); return 0; }\n")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    return root


def screen_rows(app: PortApp, widget: object) -> list[str]:
    region = widget.content_region  # type: ignore[attr-defined]
    strips = app.screen._compositor.render_strips()
    return [strips[y].text[region.x:region.right] for y in range(region.y, region.bottom)]


async def test_file_list_tells_files_apart_and_grows(tmp_path: Path) -> None:
    """Issue 19 item 2: each row keeps the end of its path (the middle gives way), the list grows with
    the terminal, and a narrow header shows the counts before the project's name and path."""
    from hipport.tui.widgets.file_list import FileList, FileOptions

    root = sample_tree(tmp_path / "cuda-samples")
    widths: dict[int, int] = {}
    for width in (80, 120, 200):
        app = PortApp(open_session(root), root_note=f"git work tree {root} (a long path to the project)")
        async with app.run_test(size=(width, 30)) as pilot:
            screen = await analysed_ready(pilot)
            files = screen.query_one(FileList)
            widths[width] = files.region.width
            rows = [t.rstrip() for t in screen_rows(app, files.query_one(FileOptions)) if t.strip()]
            assert len(rows) == len(SAMPLES), rows
            # each row is its path with the middle left out: exactly one path fits each row, and each
            # path fits one row (rows read "▶· path state", the state word only when there is room)
            fits = []
            for t in rows:
                shown = t[3:].split(" ")[0]
                head, _, tail = shown.partition("…") if "…" in shown else (shown, "", "")
                fits.append({rel for rel in SAMPLES if rel.startswith(head) and rel.endswith(tail)
                             and ("…" in shown or rel == shown)})
            assert all(len(f) == 1 for f in fits) and len(set().union(*fits)) == len(SAMPLES), (width, rows)
            if width >= 200:  # the file's own name whole
                for rel in SAMPLES:
                    assert any(t[3:].split(" ")[0].endswith("/" + rel.rsplit("/", 1)[1]) for t in rows), rows
            status = screen_rows(app, screen.query_one("#status-bar"))[0]
            assert "decided" in status, (width, status)  # the counts are never what the width cuts
    assert widths[200] > widths[120] >= widths[80]
    assert widths[200] >= 45, widths  # a 200-column terminal gives the list room for long paths
    # the terminal grows while the app runs: the rows are made again for the new width
    app = PortApp(open_session(root))
    async with app.run_test(size=(80, 30)) as pilot:
        await analysed(pilot)
        options = app.screen.query_one(FileOptions)
        assert not any(t.rstrip().endswith(".cu") and "/matrixMulCUBLAS.cu" in t for t in screen_rows(app, options))
        await pilot.resize_terminal(200, 30)
        await pilot.pause()
        rows = screen_rows(app, options)
        assert any("/matrixMulCUBLAS.cu" in t for t in rows), rows
