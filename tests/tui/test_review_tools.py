"""Review helpers, driven by keys against the real engine session: $EDITOR with a fake editor script
that really edits the file, `/` search within and across files, review-tier fixes that need `Y`,
outside edits noticed before `w`, messages without internal ids, whole-group fix previews."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from apptest import analysed_ready as ready
from apptest import fake_analyze, fake_translate

from hipport.engine.config import Config
from hipport.engine.model import FixStyle, FixTier
from hipport.engine.review import Decision, ReviewSession
from hipport.tui.app import PortApp
from hipport.tui.widgets.diff_view import DiffView
from hipport.tui.widgets.finding_panel import FindingPanel

SIZE = (120, 34)
# one connected fix group: warp_sum's mask and offset, gemm's lane and warp index (gemm calls warp_sum)
GROUP = ("W64-02:6:5", "W64-03:7:23", "W64-01:13:30", "W64-01:14:30")
LANE = GROUP[2]
STRIDE = "W64-04:16:36"  # a performance note: a group of its own


@pytest.fixture
def no_suspend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Headless apps cannot hand the terminal over (Textual raises SuspendNotSupported): the editor
    still runs as a real process, only the terminal hand-over is skipped."""
    monkeypatch.setattr(PortApp, "suspend", lambda self: contextlib.nullcontext())


def fake_editor(tmp_path: Path, script: str) -> Path:
    path = tmp_path / "fake-editor.sh"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def make_app(project: Path, analyze: Any = fake_analyze) -> PortApp:
    session = ReviewSession.open(project, Config(), translate=fake_translate, analyze=analyze)
    return PortApp(session, theme="hipport-dark")


async def test_e_opens_the_editor_at_the_line_and_notices_the_edit(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_suspend: None) -> None:
    log = tmp_path / "editor.log"
    # the fake editor records its arguments and replaces the 32 on the line it was opened at
    editor = fake_editor(tmp_path, f'echo "$@" > {log}\nline=${{1#+}}\nsed -i "${{line}}s/% 32/% 64/" "$2"\n')
    monkeypatch.setenv("VISUAL", str(editor))
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("n", "K", "K")  # decide the group (the file then has decisions), back to the lane
        assert screen.current == LANE
        dv = screen.query_one(DiffView)
        assert dv.rows[dv.cursor].old_no == 13
        await pilot.press("e")
        await pilot.pause()
        assert log.read_text().split() == ["+13", str(project / "gemm.cu")]
        assert "threadIdx.x % 64" in (project / "gemm.cu").read_text()
        # noticed on return: the decisions are kept but not applied, and the message names the real key
        assert screen.session.load("gemm.cu").stale
        assert "press ! to re-review" in screen.last_message
        await pilot.press("w")
        assert "Press ! to re-review" in screen.last_message and "reopen" not in screen.last_message
        await pilot.press("exclamation_mark")
        await ready(pilot)
        assert not screen.session.load("gemm.cu").stale
        # the lane finding is gone (the edit fixed it); the rest of the group still matches: kept
        assert [screen.session.decision("gemm.cu", f) for f in GROUP if f != LANE] == [Decision.REJECTED] * 3


async def test_E_opens_the_written_hip_file_only_once_written(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_suspend: None) -> None:
    editor = fake_editor(tmp_path, 'echo "// checked by hand" >> "$2"\n')
    monkeypatch.setenv("VISUAL", str(editor))
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("E")
        assert "not written yet" in screen.last_message
        await pilot.press("y", "w", "E")
        await pilot.pause()
        assert (project / "gemm.hip").read_text().endswith("// checked by hand\n")
        assert "will not overwrite it without asking" in screen.last_message


async def test_an_outside_edit_is_noticed_before_w(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("n")
        screen.watch_disk()  # first look: remembers the file's stat
        src = project / "gemm.cu"
        src.write_text(src.read_text().replace("threadIdx.x / 32", "threadIdx.x / 32 + 0"))
        os.utime(src, ns=(1, 1))  # a different mtime even on a coarse clock
        screen.watch_disk()  # what the 2 s timer does
        await pilot.pause()
        assert screen.session.load("gemm.cu").stale
        assert "changed on disk (outside hipport)" in screen.last_message and "press !" in screen.last_message


async def test_search_within_the_file_then_across_files(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("slash", *"cudamemset", "enter")  # smart case: lower case ignores case
        dv = screen.query_one(DiffView)
        row = dv.rows[dv.cursor]
        assert "cudaMemset" in row.old_text, row
        assert screen.search.query == "cudamemset"
        assert "match 1/1 in gemm.cu" in screen.last_message
        assert screen.session.decision("gemm.cu", GROUP[0]) == Decision.PENDING  # n moves, does not reject
        await pilot.press("escape")
        assert screen.search.query is None
        await pilot.press("slash", *"cudaError", "enter")  # only in util.cuh: the search moves there
        await ready(pilot)
        assert screen.rel == "util.cuh"
        assert "cudaError" in dv.rows[dv.cursor].old_text
        await pilot.press("n")  # one match in the project: wraps, stays
        assert screen.rel == "util.cuh" and "wrapped" in screen.last_message
        await pilot.press("slash", *"hipMalloc", "enter")  # the HIP side of gemm.cu
        await ready(pilot)
        assert screen.rel == "gemm.cu" and "hipMalloc" in dv.rows[dv.cursor].new_text
        await pilot.press("escape", "n")  # search over: n rejects again
        assert screen.session.decision("gemm.cu", GROUP[0]) == Decision.REJECTED


def review_tier(source: Any, translation: Any, options: Any = None) -> Any:
    an = fake_analyze(source, translation, options)
    groups = tuple(dataclasses.replace(g, tier=FixTier.REVIEW, tier_reason="mask also sizes a shared array at "
                                       "gemm.cu:40") for g in an.groups)
    return dataclasses.replace(an, groups=groups)


async def test_review_tier_fix_is_marked_and_needs_Y(project: Path) -> None:
    app = make_app(project, analyze=review_tier)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert screen.current == GROUP[0]
        panel = str(screen.query_one("#finding-body").render())
        assert "[REVIEW]" in panel and "mask also sizes a shared array at gemm.cu:40" in panel
        await pilot.press("y")
        assert screen.session.decision("gemm.cu", GROUP[0]) == Decision.PENDING
        assert "needs review" in screen.last_message and "press Y" in screen.last_message
        await pilot.press("A")  # accept-rest does not sweep a review fix along
        assert screen.session.decision("gemm.cu", GROUP[0]) == Decision.PENDING
        await pilot.press("Y")
        assert [screen.session.decision("gemm.cu", f) for f in GROUP] == [Decision.ACCEPTED] * 4
        assert screen.current == STRIDE
        panel = str(screen.query_one("#finding-body").render())
        assert "[safe]" in panel  # a group of one with no review tier


async def test_group_preview_shows_every_edit_and_status_has_no_internal_ids(project: Path) -> None:
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        data = screen.query_one(FindingPanel).data
        assert data is not None and data.finding.id == GROUP[0]
        text = str(screen.query_one("#finding-body").render())
        # the mask finding's preview also shows its group partners' edits (offset 16 -> 32, gemm's lane and
        # warp index), under the new title, and says what the code is until the rewrite is accepted
        assert "unsigned long long mask" in text and "offset = 32" in text
        assert "threadIdx.x % 64" in text and "threadIdx.x / 64" in text
        assert "64-wide rewrite [wave64]" in text
        assert "Until accepted, this code is written as logical 32-lane warps" in text
        await pilot.press("full_stop")  # accept only this one: refused, the group changes together
        status = str(screen.query_one("#status-bar").render())
        assert "W64-02 at line 6" in status and ":6:5" not in status, status


async def test_apply_to_identical_findings_counts_confirms_and_undoes_as_one_step(project: Path) -> None:
    from apptest import GEMM_CU

    (project / "kernels").mkdir()
    (project / "kernels" / "gemm2.cu").write_text(GEMM_CU)
    (project / "kernels" / "gemm3.cu").write_text(GEMM_CU)
    copies = ("kernels/gemm2.cu", "kernels/gemm3.cu")
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        s = screen.session
        await pilot.press("I")
        assert "Decide this finding first" in screen.last_message
        await pilot.press("n")  # the connected group (W64-02, W64-03, 2x W64-01): rejected
        assert s.decision("gemm.cu", LANE) == Decision.REJECTED
        assert screen.current == STRIDE
        await pilot.press("I")  # the stride note is still pending
        assert "Decide this finding first" in screen.last_message
        await pilot.press("K", "K", "K", "K")
        assert screen.current == GROUP[0]
        await pilot.press("I")
        await app.workers.wait_for_complete()
        await pilot.pause()
        question = str(app.screen.query_one("#question").render())
        # the same rules with the same fix texts: the whole group in each copy, nothing else
        assert "Reject 2 more W64-02 fix group(s)" in question and "in 2 file(s)" in question, question
        await pilot.press("y")
        await pilot.pause()
        for rel in copies:
            assert [s.decision(rel, f) for f in GROUP] == [Decision.REJECTED] * 4
            assert s.decision(rel, STRIDE) == Decision.PENDING  # other groups untouched
        assert "rejected 2 identical W64-02 fix group(s) in 2 file(s)" in screen.last_message
        await pilot.press("u")  # one undo step takes back both
        for rel in copies:
            assert [s.decision(rel, f) for f in GROUP] == [Decision.PENDING] * 4
        assert s.decision("gemm.cu", LANE) == Decision.REJECTED  # the earlier n stays
        await pilot.press("ctrl+r")
        assert all(s.decision(rel, f) == Decision.REJECTED for rel in copies for f in GROUP)


async def test_overview_lists_every_finding_by_rule_filters_and_jumps(project: Path) -> None:
    from apptest import GEMM_CU
    from textual.widgets import DataTable

    from hipport.tui.screens.overview import OverviewScreen

    (project / "gemm2.cu").write_text(GEMM_CU)
    app = make_app(project)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await ready(pilot)
        await pilot.press("n")  # the connected group of gemm.cu: 4 findings rejected
        await pilot.press("O")
        await app.workers.wait_for_complete()
        await pilot.pause()
        ov = app.screen
        assert isinstance(ov, OverviewScreen)
        table = ov.query_one(DataTable)
        assert table.row_count == 10  # 5 findings in each of the two files, none left out
        rules = [r.rule for r in ov.shown]
        assert rules == sorted(rules)  # by rule
        summary = str(ov.query_one("#overview-summary").render())
        assert "W64-01 2/4 · W64-02 1/2 · W64-03 1/2 · W64-04 0/2" in summary, summary
        await pilot.press(*"gemm2 w64-04")  # typed in the table, it goes to the filter; every word must match
        await pilot.pause()
        assert [(r.rel, r.rule) for r in ov.shown] == [("gemm2.cu", "W64-04")]
        await pilot.press("enter", "enter")  # leave the filter, pick the row
        await ready(pilot)
        assert app.screen is screen
        assert screen.rel == "gemm2.cu" and screen.current == "W64-04:16:36"


async def test_a_line_inserted_above_keeps_the_decisions(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_suspend: None) -> None:
    """Issue 19 item 7 (llm.c's attention_forward.cu, reproduced on the sample): accept a finding, insert
    one line at the top with `e`, re-review with `!`: the decisions follow their findings one line down
    (matched by content and context, as the help promises), none is dropped."""
    editor = fake_editor(tmp_path, 'sed -i "1i // a comment added at the top" "$2"\n')
    monkeypatch.setenv("VISUAL", str(editor))
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await pilot.press("s")  # the connected group (W64-02, W64-03, 2x W64-01) in the portable style
        await pilot.press("A")  # it and the stride note accepted
        s = screen.session
        decided = [(f.rule, f.col, s.decision("gemm.cu", f.id), s.style("gemm.cu", f.id))
                   for f in s.load("gemm.cu").findings]
        assert [d[2:] for d in decided] == [(Decision.ACCEPTED, FixStyle.PORTABLE)] * 4 + [
            (Decision.ACCEPTED, FixStyle.WAVE64)]
        await pilot.press("e")
        await pilot.pause()
        assert (project / "gemm.cu").read_text().startswith("// a comment added at the top\n")
        assert s.load("gemm.cu").stale
        await pilot.press("exclamation_mark")
        await ready(pilot)
        assert "kept 5 of 5 decisions" in screen.last_message, screen.last_message
        fr = s.load("gemm.cu")
        assert [f.id for f in fr.findings if f.rule == "W64-03"] == ["W64-03:8:23"]  # one line lower
        after = [(f.rule, f.col, s.decision("gemm.cu", f.id), s.style("gemm.cu", f.id)) for f in fr.findings]
        assert after == decided
        assert s.decision("gemm.cu", "W64-03:8:23") == Decision.ACCEPTED
        text = s.result_text("gemm.cu")  # applied again: 64-wide, no logical call left
        assert "unsigned long long mask = __activemask();" in text and "k += 64)" in text
        assert "hipport_" not in text
