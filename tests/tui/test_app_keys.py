"""Pilot tests: every key path of the review screen, against a real git repository and the real
engine ReviewSession (decisions, undo, persistence, writing, committing)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from apptest import git, make_project, open_session
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
GROUP = ("W64-02:6:5", "W64-03:7:23")  # mask + shuffle offset: one fix group
LANE = "W64-01:13:30"
WARP = "W64-01:14:30"
STRIDE = "W64-04:16:36"


def make_app(root: Path, config: Config | None = None, theme: str = "hipport-dark") -> PortApp:
    return PortApp(open_session(root, config), config, theme=theme)


async def ready(pilot) -> ReviewScreen:  # type: ignore[no-untyped-def]
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


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
        await pilot.press("y")
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.ACCEPTED] * 2
        assert screen.current == LANE  # next undecided
        assert "0xffffffffffffffffull" in s.result_text("gemm.cu")
        dv = screen.query_one(DiffView)
        new_side = [r.new_text for r in dv.rows]
        assert any("0xffffffffffffffffull" in t for t in new_side)  # repainted from the session
        assert dv.marks[GROUP[0]].decision == "✓"
        await pilot.press("a")  # approve alias
        assert s.decision("gemm.cu", LANE) == Decision.ACCEPTED
        assert screen.current == WARP


async def test_reject_keys_n_and_r(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("n")
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.REJECTED] * 2
        await pilot.press("r")
        assert s.decision("gemm.cu", LANE) == Decision.REJECTED
        assert "0xffffffff;" in s.result_text("gemm.cu")
        assert screen.query_one(DiffView).marks[LANE].decision == "✗"


async def test_undo_and_redo(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("y", "n")
        assert s.decision("gemm.cu", LANE) == Decision.REJECTED
        await pilot.press("u")
        assert s.decision("gemm.cu", LANE) == Decision.PENDING
        assert screen.current == LANE
        await pilot.press("u")
        assert s.decision("gemm.cu", GROUP[0]) == Decision.PENDING
        await pilot.press("u")
        assert "Nothing to undo" in screen.last_message
        await pilot.press("ctrl+r")
        assert s.decision("gemm.cu", GROUP[0]) == Decision.ACCEPTED
        assert s.decision("gemm.cu", LANE) == Decision.PENDING


async def test_accept_only_this_refuses_to_split_a_group(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        assert screen.current == GROUP[0]
        await pilot.press("full_stop")
        assert "must change together" in screen.last_message
        assert [s.decision("gemm.cu", f) for f in GROUP] == [Decision.PENDING] * 2
        await pilot.press("j", "j")  # skip the group's second member, then to the lane finding
        assert screen.current == LANE
        await pilot.press("full_stop")  # a group of one may be decided alone
        assert s.decision("gemm.cu", LANE) == Decision.ACCEPTED


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
        await pilot.press("y")  # accept LANE -> moves to WARP
        assert screen.current == WARP
        await pilot.press("k")  # previous undecided skips the decided LANE
        assert screen.current == GROUP[1]
        await pilot.press("J")  # any state: GROUP[1] -> LANE (decided)
        assert screen.current == LANE
        await pilot.press("K", "K")
        assert screen.current == GROUP[0]
        # the diff cursor follows the finding
        dv = screen.query_one(DiffView)
        assert GROUP[0] in dv.rows[dv.cursor].finding_ids
        # before the first: on through the project's other files (none has findings) and around its end
        await pilot.press("K")
        assert "back to the end of gemm.cu, the only file with one" in screen.last_message
        assert screen.current == screen.session.load("gemm.cu").findings[-1].id


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
        folds = [i for i, r in enumerate(dv.rows) if r.kind == "fold"]
        assert folds and dv.rows[folds[0]].hidden >= 190
        before = len(dv.rows)
        dv.cursor = folds[0]
        await pilot.press("space")
        assert len(dv.rows) >= before + 190
        assert not any(r.kind == "fold" and r.hidden >= 190 for r in dv.rows)
        await pilot.press("space")  # off a fold row: fold everything again
        assert len(dv.rows) == before
        assert "⋯" in "".join(dv.render_line(y).text for y in range(dv.size.height)) or folds[0] > dv.size.height


async def test_switch_fix_style_per_finding_and_per_file(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("s")
        assert s.style("gemm.cu", GROUP[0]).value == "portable"
        assert s.style("gemm.cu", LANE).value == "wave64"
        panel_text = str(screen.query_one("#finding-body").render())
        assert "[portable]" in panel_text and "__activemask()" in panel_text
        await pilot.press("y")
        assert "__activemask()" in s.result_text("gemm.cu")
        await pilot.press("S")  # whole file: from LANE's wave64 to portable
        assert all(s.style("gemm.cu", f).value == "portable" for f in (LANE, WARP, STRIDE))


async def test_accept_and_reject_rest_of_file(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("n", "A")
        assert s.progress("gemm.cu") == (5, 5)
        assert s.decision("gemm.cu", GROUP[0]) == Decision.REJECTED
        assert s.decision("gemm.cu", STRIDE) == Decision.ACCEPTED
        await pilot.press("u", "R")
        assert s.decision("gemm.cu", STRIDE) == Decision.REJECTED


async def test_write_puts_result_beside_the_source(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("y", "w")
        out = project / "gemm.hip"
        assert out.read_text() == screen.session.result_text("gemm.cu")
        assert "0xffffffffffffffffull" in out.read_text() and "hipMalloc" in out.read_text()
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
        await pilot.press("y", "n", "w", "c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CommitScreen)
        assert "gemm.cu -> gemm.hip" in dialog.message and "W64-02 (wave64)" in dialog.message
        assert "rejected" in dialog.message
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Committed" in screen.last_message
    log = git(project, "log", "--format=%s", "-n", "2").splitlines()
    assert log == ["Port 1 file to HIP with hipport", "initial CUDA"]
    shown = git(project, "show", "--name-only", "--format=", "HEAD").split()
    assert shown == ["gemm.hip"]
    body = git(project, "show", "HEAD:gemm.hip")
    assert "0xffffffffffffffffull" in body
    assert git(project, "diff", "--cached", "--name-only").split() == ["notes.txt"]  # still staged, untouched
    assert git(project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"


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
        await pilot.press("y", "n", "s")
    state = (project / ".hipport" / "state.json").read_text()
    assert '"version": 1' in state and '"accepted"' in state
    app2 = make_app(project)
    async with app2.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        assert s.decision("gemm.cu", GROUP[0]) == Decision.ACCEPTED
        assert s.decision("gemm.cu", LANE) == Decision.REJECTED
        assert s.style("gemm.cu", WARP).value == "portable"
        assert screen.current == WARP  # the first undecided
        marks = screen.query_one(DiffView).marks
        assert marks[GROUP[0]].decision == "✓" and marks[LANE].decision == "✗"


async def test_file_changed_on_disk_shows_stale_decisions(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("y")
    src = project / "gemm.cu"
    src.write_text(src.read_text().replace("float acc = 0.0f;", "float acc = 0.0f; // changed"))
    app2 = make_app(project)
    async with app2.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        assert s.entry("gemm.cu").status == FileStatus.STALE
        marks = screen.query_one(DiffView).marks
        assert marks[GROUP[0]].decision == "~" and marks[LANE].decision == "?"
        title = str(screen.query_one("#diff-title").render())
        assert "STALE" in title
        assert "0xffffffffffffffffull" not in s.result_text("gemm.cu")  # never silently applied
        await pilot.press("y")
        assert "changed on disk" in screen.last_message
        await pilot.press("w")
        assert not (project / "gemm.hip").exists()
        await pilot.press("exclamation_mark")  # re-review: keep decisions that still match
        assert s.entry("gemm.cu").status != FileStatus.STALE
        assert s.decision("gemm.cu", GROUP[0]) == Decision.ACCEPTED


async def test_quit_with_unwritten_decisions_asks(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("y", "q")
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
        assert s.decision("gemm.cu", GROUP[0]) == Decision.ACCEPTED
        await pilot.press("ctrl+n")
        assert screen.current == WARP
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
        await pilot.press("y")
        dv = screen.query_one(DiffView)
        text = [dv.render_line(y).text for y in range(dv.size.height)]
        assert any(t.startswith("W?") for t in text)
        await pilot.press("K", "K")
        text = [dv.render_line(y).text for y in range(dv.size.height)]
        assert any(t.startswith("C✓") for t in text)


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
        assert screen.session.decision("gemm.cu", GROUP[0]) == Decision.ACCEPTED


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
        await pilot.press("y", "w", "right_curly_bracket")
        await ready(pilot)
        assert screen.rel == "model.py"
        code = "print('gemm.hip:13:16: error: use of undeclared identifier lane')"
        screen.run_pane.start(custom_plan([Step("build", [sys.executable, "-c", code], project)]))
        await wait_run(pilot, screen.run_pane)
        assert any("press x" in line for line in screen.run_pane.output)
        await pilot.press("x")
        await ready(pilot)
        assert screen.rel == "gemm.cu", screen.last_message
        dv = screen.query_one(DiffView)
        assert dv.rows[dv.cursor].new_no == 13
        assert "gemm.hip:13:16" in screen.last_message


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
        await pilot.press("y")  # the whole mask group
    state_file = project / ".hipport" / "state.json"
    state = json.loads(state_file.read_text())
    del state["files"]["gemm.cu"]["decisions"][GROUP[1]]  # as if saved by an analysis without it
    state_file.write_text(json.dumps(state))
    app2 = make_app(project)
    async with app2.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        assert s.held("gemm.cu")
        assert "0xffffffffffffffffull" not in s.result_text("gemm.cu")  # never half-applied
        marks = screen.query_one(DiffView).marks
        assert marks[GROUP[0]].decision == "!"
        assert "held back" in str(screen.query_one("#diff-title").render())
        assert screen.current == GROUP[1]  # the first undecided
        await pilot.press("K")
        assert screen.current == GROUP[0]
        assert "NOT applied" in str(screen.query_one("#finding-body").render())
