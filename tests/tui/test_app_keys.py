"""Pilot tests: every key path of the review screen, against a real git repository and the real
engine ReviewSession (decisions, undo, persistence, writing, committing)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from apptest import git, make_project, open_session, ready
from textual.widgets import Checkbox, OptionList, TextArea

from hipport.engine.config import Config
from hipport.engine.review import Decision, FileStatus
from hipport.engine.toolchain.plan import Step, custom_plan
from hipport.tui.app import PortApp
from hipport.tui.screens.commit import CommitScreen
from hipport.tui.screens.confirm import ConfirmScreen
from hipport.tui.screens.help import HelpScreen
from hipport.tui.screens.review import ReviewScreen
from hipport.tui.widgets.diff_view import DiffView
from hipport.tui.widgets.run_pane import RunPane

SIZE = (120, 32)  # side by side (the diff is stacked below 120 columns: test_layout.py)
# warp_sum's mask and shuffle offset and the lane and warp index of gemm, which calls warp_sum: one connected
# fix group (compose.connected_groups); the stride note (performance) is a group of its own
GROUP = ("W64-02:6:5", "W64-03:7:23", "W64-01:13:30", "W64-01:14:30")
LANE = GROUP[2]
WARP = GROUP[3]
STRIDE = "W64-04:16:36"
LOGICAL_CALL = "v += hipport_shfl_down_sync(mask, v, offset);"  # warp_sum as a logical 32-lane warp
WIDE_CALL = "v += __shfl_down_sync(mask, v, offset);"  # warp_sum as a 64-wide rewrite
HELPERS = "#ifndef HIPPORT_LOGICAL_WARP_DEVICE"  # the first line of the inserted helper block


def helper_lines() -> list[str]:
    """The helper block the logical port inserts after gemm.cu's runtime include (one fixed text)."""
    from hipport.engine.warp.logical import prelude_text

    return prelude_text(["DEVICE"]).splitlines()


def make_app(root: Path, config: Config | None = None, theme: str = "hipport-dark") -> PortApp:
    return PortApp(open_session(root, config), config, theme=theme)


def gutter(screen: ReviewScreen) -> list[str]:
    dv = screen.query_one(DiffView)
    return [r.old_no and dv.marks.get(r.finding_ids[0]).decision if r.finding_ids else "" for r in dv.rows]


async def test_opens_first_file_with_findings_and_paints_both_columns(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.rel == "gemm.cu"
        assert screen.current == GROUP[0]
        dv = screen.query_one(DiffView)
        shown = [dv.render_line(y).text for y in range(dv.size.height)]
        # the finding is centred a third down the view: the helper block's fold row is above line 2, and
        # the HIP line numbers run on after the block
        assert any("lines inserted by hipport (helpers)" in t for t in shown)
        line2 = next(t for t in shown if "#include <cstdio>" in t)
        assert line2.count("#include <cstdio>") == 2 and f"{2 + len(helper_lines())} #include <cstdio>" in line2
        dv.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        first = dv.render_line(0).text
        assert "#include <cuda_runtime.h>" in first and "#include <hip/hip_runtime.h>" in first
        # gutter reads without colour: severity letter + decision symbol
        line6 = next(dv.render_line(y).text for y in range(dv.size.height) if "mask = 0x" in dv.render_line(y).text)
        assert line6.startswith("C?")
        files = [o.id for o in screen.query_one("#file-options", OptionList).options]
        assert files == ["gemm.cu", "model.py", "util.cuh"]


async def test_accept_decides_whole_group_and_moves_on(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        before = s.result_text("gemm.cu")  # nothing accepted: warp_sum and gemm are logical 32-lane warps
        assert LOGICAL_CALL in before and before.count(HELPERS) == 1 and "0xffffffffffffffffull" not in before
        await pilot.press("y")  # warp_sum's fix group: the connected lane/warp index of gemm comes with it
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.ACCEPTED] * 4
        assert s.decision("gemm.cu", STRIDE) == Decision.PENDING  # a performance note is not joined to it
        assert screen.current == STRIDE  # next undecided
        after = s.result_text("gemm.cu")
        # whole functions 64-wide: no logical call and no helper block is left in the file
        assert "unsigned long long mask = 0xffffffffffffffffull;" in after and "offset = 32;" in after
        assert "threadIdx.x % 64;" in after and "threadIdx.x / 64;" in after and WIDE_CALL in after
        assert "hipport_" not in after and HELPERS not in after
        assert s.held("gemm.cu") == {}
        dv = screen.query_one(DiffView)
        new_side = [r.new_text for r in dv.rows]
        assert any("0xffffffffffffffffull" in t for t in new_side)  # repainted from the session
        assert not any(r.kind == "fold" and (r.old_no or 0) < 0 for r in dv.rows)  # the helper fold is gone
        assert all(dv.marks[f].decision == "✓" for f in GROUP)
        await pilot.press("a")  # approve alias
        assert s.decision("gemm.cu", STRIDE) == Decision.ACCEPTED
        assert "k += 64)" in s.result_text("gemm.cu")
        assert "Every finding of gemm.cu is decided" in screen.last_message


async def test_reject_keys_n_and_r(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("n")
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.REJECTED] * 4
        assert screen.current == STRIDE
        await pilot.press("r")
        assert s.decision("gemm.cu", STRIDE) == Decision.REJECTED
        text = s.result_text("gemm.cu")  # rejected: the 32-bit mask stays, as a logical 32-lane warp
        assert "unsigned mask = 0xffffffff;" in text and LOGICAL_CALL in text and "k += 32)" in text
        marks = screen.query_one(DiffView).marks
        assert marks[LANE].decision == "✗" and marks[STRIDE].decision == "✗"


async def test_undo_and_redo(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("y", "n")  # accept the group, reject the stride note
        assert s.decision("gemm.cu", STRIDE) == Decision.REJECTED
        await pilot.press("u")
        assert s.decision("gemm.cu", STRIDE) == Decision.PENDING
        assert screen.current == STRIDE
        await pilot.press("u")
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.PENDING] * 4
        assert LOGICAL_CALL in s.result_text("gemm.cu")  # undone: logical warps again
        await pilot.press("u")
        assert "Nothing to undo" in screen.last_message
        await pilot.press("ctrl+r")
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.ACCEPTED] * 4
        assert WIDE_CALL in s.result_text("gemm.cu")
        assert s.decision("gemm.cu", STRIDE) == Decision.PENDING


async def test_accept_only_this_refuses_to_split_a_group(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        assert screen.current == GROUP[0]
        await pilot.press("full_stop")
        assert "must change together" in screen.last_message
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.PENDING] * 4
        await pilot.press("y")  # the whole group: gemm and warp_sum are 64-wide
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.ACCEPTED] * 4
        assert screen.current == STRIDE
        await pilot.press("full_stop")  # a group of one may be decided alone
        assert s.decision("gemm.cu", STRIDE) == Decision.ACCEPTED
        assert "k += 64)" in s.result_text("gemm.cu") and "threadIdx.x % 64;" in s.result_text("gemm.cu")
        await pilot.press("u", "u")
        assert [s.decision("gemm.cu", f) for f in (*GROUP, STRIDE)] == [Decision.PENDING] * 5
        assert screen.current == GROUP[0]
        await pilot.press("j", "j", "j", "j")  # past the group's other members to the stride note
        assert screen.current == STRIDE
        await pilot.press("full_stop")  # alone, while gemm, the function it is in, stays a logical warp
        text = s.result_text("gemm.cu")
        # gemm is never half logical, half 64-wide: its lane stays `% 32` (logical), so its stride stays 32
        mixed = "threadIdx.x % 32;" in text and "k += 64)" in text
        assert not mixed, "gemm mixes a logical lane and a 64-wide stride"
        assert s.decision("gemm.cu", STRIDE) == Decision.PENDING


async def test_next_previous_undecided_and_any(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("j")
        assert screen.current == GROUP[1]
        await pilot.press("j", "j")
        assert screen.current == WARP
        await pilot.press("k")
        assert screen.current == LANE
        await pilot.press("n")  # reject LANE's group (all of GROUP) -> moves to the stride note
        assert screen.current == STRIDE
        await pilot.press("k")  # previous undecided: every other finding of the project is decided
        assert "No other undecided finding or report in the project" in screen.last_message
        assert screen.current == STRIDE
        await pilot.press("K")  # any state: STRIDE -> WARP (decided)
        assert screen.current == WARP
        await pilot.press("K", "K", "K")
        assert screen.current == GROUP[0]
        # the diff cursor follows the finding
        dv = screen.query_one(DiffView)
        assert GROUP[0] in dv.rows[dv.cursor].finding_ids
        # before the first: on through the project's other files (none has findings) and around its end
        await pilot.press("K")
        assert "back to the end of gemm.cu, the only file with one" in screen.last_message
        assert screen.current == screen.session.load("gemm.cu").findings[-1].id == STRIDE
        await pilot.press("J")  # after the last: around to the top
        assert "back to the top of gemm.cu, the only file with one" in screen.last_message
        assert screen.current == GROUP[0]


async def test_file_switch_with_braces(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("right_curly_bracket")
        await ready(pilot)
        assert screen.rel == "model.py"
        await pilot.press("right_curly_bracket")
        await ready(pilot)
        assert screen.rel == "util.cuh"
        dv = screen.query_one(DiffView)
        assert any("hipError_t" in r.new_text for r in dv.rows)
        await pilot.press("left_curly_bracket", "left_curly_bracket")
        await ready(pilot)
        assert screen.rel == "gemm.cu"


async def test_fold_and_unfold(tmp_path: Path) -> None:
    root = make_project(tmp_path / "big", extra_lines=200)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        dv = screen.query_one(DiffView)
        # the helper block (one fold row keyed by minus its first new line), then the 200 unchanged lines
        unchanged = [i for i, r in enumerate(dv.rows) if r.kind == "fold" and (r.old_no or 0) > 0]
        assert [r.old_no for r in dv.rows if r.kind == "fold" and (r.old_no or 0) < 0] == [-2]
        assert unchanged and dv.rows[unchanged[0]].hidden >= 190
        before = len(dv.rows)
        dv.cursor = unchanged[0]
        await pilot.press("space")
        assert len(dv.rows) >= before + 190
        assert not any(r.kind == "fold" and r.hidden >= 190 and (r.old_no or 0) > 0 for r in dv.rows)
        assert any(r.kind == "fold" and r.old_no == -2 for r in dv.rows)  # the helpers stay folded
        await pilot.press("space")  # off a fold row: fold everything again
        assert len(dv.rows) == before
        painted = "".join(dv.render_line(y).text for y in range(dv.size.height))
        assert "⋯" in painted or unchanged[0] > dv.size.height


async def test_helper_block_is_one_fold_row_that_space_expands(project: Path) -> None:
    helpers = helper_lines()
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        dv = screen.query_one(DiffView)
        include = ("#include <cuda_runtime.h>", "#include <hip/hip_runtime.h>")
        assert (dv.rows[0].old_text, dv.rows[0].new_text) == include
        fold = dv.rows[1]  # right after the runtime include: every helper line in one row
        assert (fold.kind, fold.old_no, fold.new_no, fold.hidden) == ("fold", -2, 2, len(helpers))
        assert not any(r.old_no is None and r.new_no is not None for r in dv.rows)  # nothing else inserted
        assert (dv.rows[2].old_no, dv.rows[2].new_no) == (2, 2 + len(helpers))  # HIP lines shift by the block
        screen_text = "".join(dv.render_line(y).text for y in range(dv.size.height))
        assert f"⋯ {len(helpers)} lines inserted by hipport (helpers) (space to expand) ⋯" in screen_text
        before = len(dv.rows)
        dv.cursor = 1
        await pilot.press("space")
        assert len(dv.rows) == before - 1 + len(helpers)
        shown = dv.rows[1:1 + len(helpers)]
        assert [(r.kind, r.old_no, r.old_text) for r in shown] == [("change", None, "")] * len(helpers)
        assert [r.new_no for r in shown] == list(range(2, 2 + len(helpers)))
        assert [r.new_text for r in shown] == helpers
        assert not any(r.kind == "fold" and (r.old_no or 0) < 0 for r in dv.rows)
        dv.cursor = 0
        await pilot.press("space")  # off a fold row: fold everything again
        assert len(dv.rows) == before and dv.rows[1] == fold


async def test_switch_fix_style_per_finding_and_per_file(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("s")  # the whole group: mask, offset, lane and warp index
        assert [s.style("gemm.cu", f).value for f in GROUP] == ["portable"] * 4
        assert s.style("gemm.cu", STRIDE).value == "wave64"
        panel_text = str(screen.query_one("#finding-body").render())
        assert "[portable]" in panel_text and "__activemask()" in panel_text
        await pilot.press("j", "j", "j", "j")
        assert screen.current == STRIDE
        await pilot.press("S")  # whole file: from STRIDE's wave64 to portable
        assert all(s.style("gemm.cu", f).value == "portable" for f in (*GROUP, STRIDE))
        assert LOGICAL_CALL in s.result_text("gemm.cu")  # a style is not a decision
        await pilot.press("A")
        text = s.result_text("gemm.cu")
        assert "unsigned long long mask = __activemask();" in text and "threadIdx.x % warpSize;" in text
        assert "k += warpSize)" in text and "hipport_" not in text


async def test_accept_and_reject_rest_of_file(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("A")
        assert s.progress("gemm.cu") == (5, 5)
        assert all(s.decision("gemm.cu", f) == Decision.ACCEPTED for f in (*GROUP, STRIDE))
        wide = s.result_text("gemm.cu")
        assert WIDE_CALL in wide and "k += 64)" in wide and "hipport_" not in wide
        await pilot.press("u", "R")
        assert s.progress("gemm.cu") == (5, 5)
        assert all(s.decision("gemm.cu", f) == Decision.REJECTED for f in (*GROUP, STRIDE))
        rejected = s.result_text("gemm.cu")  # rejected: written as logical 32-lane warps, like pending
        assert LOGICAL_CALL in rejected and rejected.count(HELPERS) == 1 and "k += 32)" in rejected
        await pilot.press("u")
        assert s.progress("gemm.cu") == (0, 5) and screen.current == GROUP[0]
        await pilot.press("n", "A")  # the group rejected: A takes the stride note in gemm, a logical warp
        text = s.result_text("gemm.cu")
        assert LOGICAL_CALL in text and "threadIdx.x % 32;" in text
        # gemm is never half logical, half 64-wide: its stride stays 32 while its lane does
        assert "k += 64)" not in text, "gemm mixes a logical lane and a 64-wide stride"
        assert s.decision("gemm.cu", STRIDE) == Decision.PENDING


async def test_write_puts_result_beside_the_source(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("w")  # nothing decided: the logical-warp port
        out = project / "gemm.hip"
        assert out.read_text() == screen.session.result_text("gemm.cu")
        assert LOGICAL_CALL in out.read_text() and out.read_text().count(HELPERS) == 1
        assert "hipMalloc" in out.read_text() and "0xffffffffffffffffull" not in out.read_text()
        assert "Wrote gemm.hip" in screen.last_message
        await pilot.press("A", "w")  # every group accepted: the 64-wide rewrite replaces it
        assert out.read_text() == screen.session.result_text("gemm.cu")
        assert "0xffffffffffffffffull" in out.read_text() and "hipMalloc" in out.read_text()
        assert "hipport_" not in out.read_text()
        assert (project / "gemm.cu").read_text().count("cudaMalloc") == 1  # original untouched
        assert screen.session.entry("gemm.cu").status == FileStatus.WRITTEN
        assert "Wrote gemm.hip" in screen.last_message


async def test_write_over_a_foreign_output_asks_first(project: Path) -> None:
    # the engine raises OutputExists (a type, not a message the screen matches on); the app asks
    (project / "gemm.hip").write_text("// someone's own HIP file\n")
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("y", "w")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert (project / "gemm.hip").read_text() == "// someone's own HIP file\n"
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert (project / "gemm.hip").read_text() == screen.session.result_text("gemm.cu")


async def test_commit_dialog_commits_exactly_the_written_file(project: Path) -> None:
    (project / "notes.txt").write_text("other staged work\n")
    git(project, "add", "notes.txt")
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("c")
        assert "Nothing to commit" in screen.last_message
        await pilot.press("n", "w", "c")  # the group rejected (written as logical warps), the note pending
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CommitScreen)
        assert "gemm.cu -> gemm.hip" in dialog.message
        message = dialog.message
        rejected = message[message.index("rejected"):]
        assert "W64-01 x2" in rejected and "W64-02 x1" in rejected and "W64-03 x1" in rejected
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Committed" in screen.last_message
    log = git(project, "log", "--format=%s", "-n", "2").splitlines()
    assert log == ["Port 1 file to HIP with hipport", "initial CUDA"]
    shown = git(project, "show", "--name-only", "--format=", "HEAD").split()
    assert shown == ["gemm.hip"]
    body = git(project, "show", "HEAD:gemm.hip")
    assert LOGICAL_CALL in body and body.count(HELPERS) == 1 and "0xffffffffffffffffull" not in body
    assert git(project, "diff", "--cached", "--name-only").split() == ["notes.txt"]  # still staged, untouched
    assert git(project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    # a rejected 64-wide rewrite leaves its code as logical 32-lane warps (as committed), not as translated
    assert "logical" in rejected and "left as translated" not in message, message


async def test_commit_on_a_new_hipport_branch(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("A", "w", "c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CommitScreen)
        dialog.query_one("#new-branch", Checkbox).value = True
        dialog.query_one("#commit-message", TextArea).text = "Port gemm to HIP (edited)\n\nby hand"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "hipport/port" in screen.last_message
    assert git(project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "hipport/port"
    assert git(project, "log", "-1", "--format=%B").strip() == "Port gemm to HIP (edited)\n\nby hand"
    assert git(project, "log", "--format=%s", "-n", "1", "main").strip() == "initial CUDA"


async def test_commit_refused_on_detached_head(project: Path) -> None:
    git(project, "checkout", "-q", "--detach")
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("y", "w", "c")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Not committed" in screen.last_message and "detached" in screen.last_message
    assert git(project, "log", "--format=%s").splitlines() == ["initial CUDA"]


async def test_commit_refused_when_target_has_unrelated_edits(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("y", "w")
        with (project / "gemm.hip").open("a") as f:
            f.write("// edited by hand\n")
        await pilot.press("c")
        await pilot.pause()
        assert "Nothing to commit" in screen.last_message  # hipport's bytes are gone: not committable
    assert git(project, "log", "--format=%s").splitlines() == ["initial CUDA"]


async def test_decisions_survive_closing_and_reopening(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("n", "s")  # reject the group, then the stride note's style
    state = (project / ".hipport" / "state.json").read_text()
    assert '"version": 1' in state and '"rejected"' in state and '"portable"' in state
    app2 = make_app(project)
    async with app2.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.REJECTED] * 4
        assert s.decision("gemm.cu", STRIDE) == Decision.PENDING
        assert s.style("gemm.cu", STRIDE).value == "portable" and s.style("gemm.cu", LANE).value == "wave64"
        assert screen.current == STRIDE  # the first undecided
        marks = screen.query_one(DiffView).marks
        assert marks[GROUP[0]].decision == "✗" and marks[STRIDE].decision == "?"
        assert LOGICAL_CALL in s.result_text("gemm.cu")  # the rejected group: logical warps


async def test_file_changed_on_disk_shows_stale_decisions(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("A")  # every group accepted (the stride note too)
    src = project / "gemm.cu"
    src.write_text(src.read_text().replace("float acc = 0.0f;", "float acc = 0.0f; // changed"))
    app2 = make_app(project)
    async with app2.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        assert s.entry("gemm.cu").status == FileStatus.STALE
        marks = screen.query_one(DiffView).marks
        assert marks[GROUP[0]].decision == "~" and marks[STRIDE].decision == "~"
        title = str(screen.query_one("#diff-title").render())
        assert "STALE" in title
        assert "0xffffffffffffffffull" not in s.result_text("gemm.cu")  # never silently applied
        await pilot.press("y")
        assert "changed on disk" in screen.last_message
        await pilot.press("w")
        assert not (project / "gemm.hip").exists()
        await pilot.press("exclamation_mark")  # re-review: keep decisions that still match
        assert s.entry("gemm.cu").status != FileStatus.STALE
        assert [s.decision("gemm.cu", f) for f in (*GROUP, STRIDE)] == [Decision.ACCEPTED] * 5
        assert "0xffffffffffffffffull" in s.result_text("gemm.cu")  # applied again once re-reviewed


async def test_quit_with_unwritten_decisions_asks(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("n", "q")  # a rejection is a decision too
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "not written" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen) and app.is_running
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert app.return_value == 0


async def test_quit_without_unwritten_decisions_exits_at_once(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("y", "w", "q")
        await pilot.pause()
        assert not app.is_running


async def test_keys_remapped_by_binding_id_from_config(project: Path) -> None:
    config = Config(keymap={"review.accept": "x", "nav.next_undecided": "ctrl+n"})
    app = make_app(project, config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("y")
        assert s.decision("gemm.cu", GROUP[0]) == Decision.PENDING  # y no longer accepts
        await pilot.press("x")
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.ACCEPTED] * 4
        assert screen.current == STRIDE  # x moved on like y
        await pilot.press("K", "K", "ctrl+n")  # from LANE (decided) to the next undecided
        assert screen.current == STRIDE
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        body = str(app.screen.query_one("#help-body Static").render())
        assert "x " in body and "[review.accept]" in body and "ctrl+n" in body


async def test_help_screen_lists_every_binding(project: Path) -> None:
    from hipport.tui.keymap import REVIEW_KEYS

    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        body = str(app.screen.query_one("#help-body Static").render())
        for key in REVIEW_KEYS:
            assert f"[{key.id}]" in body
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)


async def test_theme_key_cycles_dark_light_and_16_colour_themes(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        seen = [app.theme]
        for _ in range(4):
            await pilot.press("t")
            await pilot.pause()
            seen.append(app.theme)
        assert seen == ["hipport-dark", "hipport-light", "ansi-dark", "ansi-light", "hipport-dark"]


async def test_sixteen_colour_terminal_keeps_symbols(project: Path) -> None:
    app = PortApp(open_session(project), theme="ansi-dark", ansi_color=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        dv = screen.query_one(DiffView)
        text = [dv.render_line(y).text for y in range(dv.size.height)]
        assert any(t.startswith("C?") for t in text) and any(t.startswith("W?") for t in text)
        await pilot.press("A")
        text = [dv.render_line(y).text for y in range(dv.size.height)]
        assert any(t.startswith("C✓") for t in text) and any(t.startswith("P✓") for t in text)
        assert not any(t[:2] in ("C?", "W?", "P?") for t in text)


async def test_output_mode_switch_writes_in_place_and_keeps_original(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("o")
        assert screen.session.config.output_mode == "in-place"
        await pilot.press("y", "w")
        assert "hipMalloc" in (project / "gemm.cu").read_text()
        kept = project / "gemm.cu.prehip"
        assert "cudaMalloc" in kept.read_text()
        await pilot.press("o")
        assert screen.session.config.output_mode == "folder"


async def test_filter_and_pick_a_file(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("f")
        await pilot.press(*"utl")
        await pilot.pause()
        assert [it.rel for it in screen.file_list.shown_items()] == ["util.cuh"]
        await pilot.press("escape")  # back to the diff: keys decide again
        assert isinstance(app.focused, DiffView)
        await pilot.press("f", "enter")
        await ready(pilot)
        assert screen.rel == "util.cuh"


async def test_command_palette_has_an_entry_per_action(project: Path) -> None:
    from hipport.tui.keymap import REVIEW_KEYS

    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        titles = {c.title for c in app.get_system_commands(screen)}
        for key in REVIEW_KEYS:
            assert key.description in titles
        command = next(c for c in app.get_system_commands(screen) if c.title == "Accept fix")
        result = command.callback()
        if result is not None:
            await result
        await pilot.pause()
        assert [screen.session.decision("gemm.cu", f) for f in GROUP] == [Decision.ACCEPTED] * 4


async def test_run_pane_streams_and_stops(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        pane = screen.query_one(RunPane)
        pane.add_class("-visible")
        code = "import sys,time\nfor i in range(3): print('line', i, flush=True)\nsys.exit(3)"
        pane.start(custom_plan([Step("py", [sys.executable, "-c", code], project)], ["a note"]))
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert pane.output[:1] == ["note: a note"] and "line 2" in pane.output
        assert "failed (exit 3)" in str(pane.query_one("#run-status").render())
        assert "failed (exit 3)" in screen.last_message
        sleeper = "import time\nprint('started', flush=True)\ntime.sleep(60)"
        pane.start(custom_plan([Step("sleep", [sys.executable, "-c", sleeper], project)]))
        for _ in range(100):
            await pilot.pause(0.05)
            if "started" in pane.output:
                break
        await pilot.press("ctrl+k")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "stopped" in str(pane.query_one("#run-status").render())
        out = subprocess.run(["pgrep", "-f", "time.sleep\\(60\\)"], capture_output=True, text=True)
        assert out.stdout.strip() == ""


async def test_findings_panel_shows_the_rule_catalog_text(project: Path) -> None:
    from hipport.engine.warp.rules import RULES

    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("j", "j")
        assert screen.current == LANE
        body = str(screen.query_one("#finding-body").render())
        rule = RULES["W64-01"]
        assert rule.title in body
        assert "[wave64]" in body and "- " in body and "% 64;" in body  # the fix as its own small diff


async def wait_run(pilot, pane: RunPane) -> None:  # type: ignore[no-untyped-def]
    for _ in range(600):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)
        if not pane.running:
            return


async def test_build_before_writing_says_convert_first(project: Path) -> None:
    from hipport.engine.toolchain.detect import Detection

    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.run_pane.detection = Detection()  # a machine with no GPU and no tools, without probing this one
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)  # "write and build" offered (tests/tui/test_run_flow.py)
        await pilot.press("n")  # build as it is
        await wait_run(pilot, screen.run_pane)
        assert "Cannot build yet" in screen.last_message and "gemm.hip" in screen.last_message
        assert screen.run_pane.has_class("-visible")


async def test_build_diagnostics_jump_to_the_hip_line(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("w", "right_curly_bracket")  # the logical port: the helper block shifts HIP lines
        await ready(pilot)
        assert screen.rel == "model.py"
        at = 13 + len(helper_lines())  # gemm.cu:13, `int lane = threadIdx.x % 32;`
        assert (project / "gemm.hip").read_text().splitlines()[at - 1] == "    int lane = threadIdx.x % 32;"
        code = f"print('gemm.hip:{at}:16: error: use of undeclared identifier lane')"
        screen.run_pane.start(custom_plan([Step("build", [sys.executable, "-c", code], project)]))
        await wait_run(pilot, screen.run_pane)
        assert any("press x" in line for line in screen.run_pane.output)
        await pilot.press("x")
        await ready(pilot)
        assert screen.rel == "gemm.cu", screen.last_message
        dv = screen.query_one(DiffView)
        assert (dv.rows[dv.cursor].old_no, dv.rows[dv.cursor].new_no) == (13, at)
        assert f"gemm.hip:{at}:16" in screen.last_message


async def test_doctor_and_device_picker_without_a_gpu(project: Path) -> None:
    from hipport.engine.toolchain.detect import Detection

    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.run_pane.detection = Detection()
        await pilot.press("D")
        await wait_run(pilot, screen.run_pane)
        out = "\n".join(screen.run_pane.output)
        assert "fail" in out or "warn" in out
        await pilot.press("G")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "No AMD GPU here" in screen.last_message and screen.run_pane.device is None


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
async def test_build_key_compiles_the_written_hip_file_with_hipcc(project: Path) -> None:
    config = Config(run={"arch": "gfx90a"})  # Debian's HIP 5.2 clang knows gfx90a, not gfx942
    (project / "build").mkdir()  # the single-file plan links to build/<name> without creating build/
    app = make_app(project, config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("A", "w", "b")
        await pilot.pause()
        if isinstance(app.screen, ConfirmScreen):  # util.cuh and model.py are not written yet: write them too
            await pilot.press("y")
        await wait_run(pilot, screen.run_pane)
        out = "\n".join(screen.run_pane.output)
        assert "--offload-arch=gfx90a" in out
        assert "Built in" in screen.last_message and "nothing was run" in screen.last_message, out[-3000:]
        assert (project / "build" / "gemm").exists()


async def test_enter_opens_the_rules_help_page(project: Path) -> None:
    from hipport.engine.warp.rules import RULES
    from hipport.tui.screens.rule_help import RuleHelpScreen

    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("j", "j", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RuleHelpScreen)
        assert app.screen.rule_id == "W64-01"
        assert app.screen.markdown == RULES["W64-01"].help_markdown
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_commit_refused_during_a_merge(project: Path) -> None:
    git(project, "checkout", "-q", "-b", "other")
    (project / "notes.txt").write_text("theirs\n")
    git(project, "add", "notes.txt")
    git(project, "commit", "-q", "-m", "other notes")
    git(project, "checkout", "-q", "main")
    (project / "notes.txt").write_text("ours\n")
    git(project, "add", "notes.txt")
    git(project, "commit", "-q", "-m", "our notes")
    subprocess.run(["git", "merge", "-q", "other"], cwd=project, capture_output=True)  # conflicts
    assert (project / ".git" / "MERGE_HEAD").exists()
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("y", "w", "c")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Not committed" in screen.last_message and "merge" in screen.last_message
    assert git(project, "log", "-1", "--format=%s").strip() == "our notes"


async def test_a_file_that_cannot_be_read_is_shown_as_such(project: Path) -> None:
    (project / "blob.cu").write_bytes(b"\x00\x01\x02binary\x00" * 50)
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        screen.open_file("blob.cu")
        await ready(pilot)
        assert screen.failed is not None
        assert "cannot be reviewed" in str(screen.query_one("#diff-title").render())
        assert screen.session.entry("blob.cu").status == FileStatus.ERROR
        # none of these may crash (o changes the output mode: the session forgets its loads, the
        # background analysis still knows the file fails)
        await pilot.press("y", "space", "s", "w", "o", "j")
        assert app.is_running and screen.failed is not None
        item = next(it for it in screen.file_list.items if it.rel == "blob.cu")
        assert item.symbol == "✗"
        await pilot.press("left_curly_bracket")
        await ready(pilot)
        assert screen.rel == "util.cuh" and screen.failed is None


async def test_sixteen_colour_cursor_row_is_reversed_not_tinted(project: Path) -> None:
    app = PortApp(open_session(project), theme="ansi-dark", ansi_color=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        dv = screen.query_one(DiffView)
        cursor = list(dv.render_line(dv.cursor - int(dv.scroll_y)))
        other = list(dv.render_line(dv.cursor - int(dv.scroll_y) + 1))
        assert all(seg.style is not None and seg.style.reverse for seg in cursor if seg.text.strip())
        assert not any(seg.style is not None and seg.style.reverse for seg in other)
        await pilot.press("t")  # to ansi-light: still reversed
        await pilot.pause()
        cursor = list(dv.render_line(dv.cursor - int(dv.scroll_y)))
        assert all(seg.style is not None and seg.style.reverse for seg in cursor if seg.text.strip())


async def test_a_partly_accepted_group_from_saved_state_is_shown_held(project: Path) -> None:
    import json

    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("A")  # the whole mask group and the stride note
    state_file = project / ".hipport" / "state.json"
    state = json.loads(state_file.read_text())
    del state["files"]["gemm.cu"]["decisions"][GROUP[1]]  # as if saved by an analysis without it
    state_file.write_text(json.dumps(state))
    app2 = make_app(project)
    async with app2.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        assert "mask" in s.held("gemm.cu")
        text = s.result_text("gemm.cu")
        assert "0xffffffffffffffffull" not in text  # never half-applied: the group stays a logical warp
        assert LOGICAL_CALL in text and "% 64" not in text
        marks = screen.query_one(DiffView).marks
        assert marks[GROUP[0]].decision == "!"
        assert "held back" in str(screen.query_one("#diff-title").render())
        assert screen.current == GROUP[1]  # the one without a decision
        await pilot.press("K")
        assert screen.current == GROUP[0]
        assert "NOT applied" in str(screen.query_one("#finding-body").render())
        # gemm stays a logical warp (its lane `% 32`): the accepted stride note must not make it half 64-wide
        assert "k += 64)" not in text, "gemm mixes a logical lane and a 64-wide stride"
