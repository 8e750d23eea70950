"""SVG snapshots of the main screens in both themes (pytest-textual-snapshot; sync tests, as
snap_compare runs its own event loop). Update with `pytest tests/tui/test_snapshots.py
--snapshot-update` after looking at snapshot_report.html."""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest import analysed, fake_analyze, merged_analyze, open_session

from hipport.engine.toolchain.plan import Step, custom_plan
from hipport.tui.app import PortApp
from hipport.tui.screens import review_panel
from hipport.tui.screens.review import ReviewScreen
from hipport.tui.widgets.run_pane import RunPane

SIZE = (120, 34)

# Fixed rule texts: the snapshots must not move when the engine's rule catalog is reworded (the
# Pilot tests check that the panel shows the catalog's real text).
RULE_TEXT = {
    "W64-01": ("Lane or warp index computed from 32", "On a 64-wide wavefront lanes 32-63 alias 0-31."),
    "W64-02": ("32-bit lane mask", "Masks passed to *_sync builtins are 64-bit on wave64."),
    "W64-03": ("Shuffle reduction starts at 16", "A tree reduction over 64 lanes starts at offset 32."),
    "W64-04": ("Loop stride of 32", "Strides of one warp are 64 on wave64."),
}


@pytest.fixture(autouse=True)
def fixed_rule_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(review_panel, "rule_text", lambda rule: RULE_TEXT.get(rule, ("", "")))
    # toasts expire after a few seconds: on a loaded machine a snapshot could catch one or not.
    # The status bar carries the same message.
    monkeypatch.setattr(ReviewScreen, "notify", lambda self, *a, **k: None)


def app_for(project: Path, theme: str, ansi: bool = False, analyze=fake_analyze) -> PortApp:  # type: ignore[no-untyped-def]
    return PortApp(open_session(project, analyze=analyze), theme=theme, ansi_color=ansi)


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    await analysed(pilot)
    await pilot.pause()


def test_main_screen_dark(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("y")  # one accepted group: ✓ marks and the new text on the right
        await settle(pilot)

    assert snap_compare(app_for(project, "hipport-dark"), run_before=run_before, terminal_size=SIZE)


def test_main_screen_light(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("s")  # portable style shown in the findings panel
        await settle(pilot)

    assert snap_compare(app_for(project, "hipport-light"), run_before=run_before, terminal_size=SIZE)


def test_main_screen_16_colours(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)

    assert snap_compare(app_for(project, "ansi-dark", ansi=True), run_before=run_before, terminal_size=SIZE)


def test_help_screen(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(app_for(project, "hipport-dark"), run_before=run_before, terminal_size=SIZE)


def test_commit_dialog_light(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("y", "n", "w")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)

    assert snap_compare(app_for(project, "hipport-light"), run_before=run_before, terminal_size=SIZE)


def test_run_pane(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ReviewScreen)
        pane = screen.query_one(RunPane)
        pane.clock = lambda: 0.0
        pane.add_class("-visible")
        # sh, not sys.executable: the echoed command line is part of the picture and must not
        # depend on where the checkout lives
        script = "echo 'hipcc --offload-arch=gfx942 -o build/gemm gemm.hip'; echo 'PASS  max_abs_err 0.0'"
        pane.start(custom_plan([Step("build", ["sh", "-c", script], project)],
                           ["no AMD GPU here: built for gfx942, not launched"]))
        await settle(pilot)
        await pilot.pause(0.1)

    assert snap_compare(app_for(project, "hipport-dark"), run_before=run_before, terminal_size=SIZE)


# Any width: stacked (CUDA line above HIP line) with the finding panel and the essential key hints at
# 80x24; side by side at 200x50; both themes each.
LONG = ("    cudaMemcpyAsync(d_partial_sums_for_every_block, h_partial_sums_for_every_block, "
        "number_of_blocks * sizeof(float), cudaMemcpyHostToDevice, stream_for_the_partial_sums);\n")


def long_line_project(project: Path) -> Path:
    src = project / "gemm.cu"
    src.write_text(src.read_text().replace("    cudaDeviceSynchronize();\n", LONG + "    cudaDeviceSynchronize();\n"))
    return project


def test_80x24_dark_stacked(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)

    assert snap_compare(app_for(long_line_project(project), "hipport-dark"), run_before=run_before,
                        terminal_size=(80, 24))


def test_80x24_light_stacked_wrapped(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("W", "end")  # wrap, and the long cudaMemcpyAsync line near the end in view
        await settle(pilot)

    assert snap_compare(app_for(long_line_project(project), "hipport-light"), run_before=run_before,
                        terminal_size=(80, 24))


def test_200x50_dark_side_by_side_wrapped(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)

    assert snap_compare(app_for(long_line_project(project), "hipport-dark"), run_before=run_before,
                        terminal_size=(200, 50))


def test_200x50_light(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)

    assert snap_compare(app_for(long_line_project(project), "hipport-light"), run_before=run_before,
                        terminal_size=(200, 50))


# A merged finding's uses (one finding per root cause): the count in the panel's header, and the list
# U opens, with the diff's cursor on the use chosen; 80x24 and 200x50, both themes.
def test_uses_80x24_dark_open(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("U", "down")  # the list open, the cursor on the mask's use in the shuffle
        await settle(pilot)

    assert snap_compare(app_for(project, "hipport-dark", analyze=merged_analyze), run_before=run_before,
                        terminal_size=(80, 24))


def test_uses_80x24_light_closed(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("j")  # the shuffle offset finding: "▸ 1 more place (U lists them)"
        await settle(pilot)

    assert snap_compare(app_for(project, "hipport-light", analyze=merged_analyze), run_before=run_before,
                        terminal_size=(80, 24))


def test_uses_200x50_dark_open(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("j", "j", "U", "down", "down")  # the lane id's second use: if (lane == 0)
        await settle(pilot)

    assert snap_compare(app_for(project, "hipport-dark", analyze=merged_analyze), run_before=run_before,
                        terminal_size=(200, 50))


def test_uses_200x50_light_open(project: Path, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("j", "j", "U")  # the lane id finding's list: itself and its two uses
        await settle(pilot)

    assert snap_compare(app_for(project, "hipport-light", analyze=merged_analyze), run_before=run_before,
                        terminal_size=(200, 50))
