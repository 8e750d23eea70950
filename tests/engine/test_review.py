"""ReviewSession with small real translate/analyze functions written here (the engine's own are tested
against it in test_review_engine.py): decisions, fix groups, undo/redo, navigation, rendering,
writing in every output mode, stale files, persistence."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from hipport.engine.config import Config
from hipport.engine.edits import Edit
from hipport.engine.fsutil import WriteError
from hipport.engine.model import Analysis, Finding, Fix, FixGroup, FixStyle, FixTier, Severity, Translation
from hipport.engine.review import (
    Decision,
    FileStatus,
    GroupRefused,
    NeedsReview,
    OutputExists,
    OutputShared,
    ReviewError,
    ReviewSession,
    StaleError,
)
from hipport.engine.review.state import StateError
from hipport.engine.source import Source

GEMM = """\
#include <cuda_runtime.h>
__global__ void k(float* x) {
  int lane = threadIdx.x % 32;
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  v += __shfl_down_sync(0xffffffff, v, 8);
  x[threadIdx.x] = v + lane;
}
int main() { float* d; cudaMalloc(&d, 4); cudaFree(d); return 0; }
"""

RENAMES = {"cudaMalloc": "hipMalloc", "cudaFree": "hipFree", "cuda_runtime.h": "hip/hip_runtime.h"}
SHARED = "typedef unsigned long long lane_mask_t;\n"


def toy_translate(source: Source, options: Any) -> Translation:
    edits = [Edit(m.start(), m.end(), RENAMES[m.group()], "api")
             for m in re.finditer("|".join(map(re.escape, RENAMES)), source.text)]
    return Translation(source, tuple(edits))


def toy_analyze(source: Source, translation: Translation, options: Any) -> Analysis:
    """`% 32` is a group of one; every 0xffffffff mask is one group that shares a typedef (portable)."""
    text = source.text
    findings: list[Finding] = []
    for m in re.finditer(r"% 32", text):
        line, col = source.line_col(m.start())
        findings.append(Finding(
            f"W64-01:{line}:{col}", "W64-01", Severity.WRONG_RESULT, m.start(), m.end(), line, col,
            "lane index assumes 32 lanes", f"lane:{line}",
            (Fix(FixStyle.WAVE64, (Edit(m.start(), m.end(), "% 64", "W64-01"),), "% 64"),
             Fix(FixStyle.PORTABLE, (Edit(m.start(), m.end(), "% warpSize", "W64-01"),), "% warpSize")),
        ))
    masks = list(re.finditer(r"0xffffffff", text))
    for m in masks:
        line, col = source.line_col(m.start())
        findings.append(Finding(
            f"W64-06:{line}:{col}", "W64-06", Severity.WRONG_RESULT, m.start(), m.end(), line, col,
            "32-bit mask", "masks",
            (Fix(FixStyle.WAVE64, (Edit(m.start(), m.end(), "0xffffffffffffffffull", "W64-06"),), "64-bit"),
             Fix(FixStyle.PORTABLE, (Edit(m.start(), m.end(), "(lane_mask_t)~0ull", "W64-06"),), "typed")),
        ))
    groups = []
    if masks:
        at = text.index("__global__")
        groups.append(FixGroup("masks", tuple(f.id for f in findings if f.group == "masks"),
                               "all masks of the reduction change together",
                               (Fix(FixStyle.PORTABLE, (Edit(at, at, SHARED, "W64-06"),), "typedef"),)))
    return Analysis(source, tuple(findings), tuple(groups))


def no_logical(source: Source, translation: Translation) -> None:
    """The toy analysis's groups share one kernel: without the logical-warp port they stay separate
    groups (the session's mechanics are tested here; its logical port with the engine's own analysis
    in test_review_engine.py)."""
    return None


def session(root: Path, config: Config | None = None, **kw: Any) -> ReviewSession:
    return ReviewSession.open(root, config, translate=toy_translate, analyze=toy_analyze, logical=no_logical, **kw)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "gemm.cu").write_text(GEMM)
    (tmp_path / "src" / "util.h").write_text("int add(int a, int b);\n")
    (tmp_path / "run_cuda.py").write_text("import torch\nprint(torch.cuda.is_available())\n")
    (tmp_path / "README.md").write_text("not source\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.cu").write_text("// generated\n")
    return tmp_path


REL = "src/gemm.cu"


def ids(s: ReviewSession) -> tuple[str, str, str]:
    fr = s.load(REL)
    lane = next(f.id for f in fr.findings if f.rule == "W64-01")
    m1, m2 = (f.id for f in fr.findings if f.rule == "W64-06")
    return lane, m1, m2


def test_open_lists_files_cheaply_without_translating(project: Path) -> None:
    calls: list[str] = []

    def counting(source: Source, options: Any) -> Translation:
        calls.append(str(source.path))
        return toy_translate(source, options)

    s = ReviewSession.open(project, translate=counting, analyze=toy_analyze)
    entries = s.files()
    assert [e.rel for e in entries] == ["run_cuda.py", "src/gemm.cu", "src/util.h"]  # build/ and .md skipped
    assert all(e.status == FileStatus.UNTRANSLATED for e in entries)
    assert calls == []
    e = s.entry(REL)
    assert e.output == "src/gemm.hip"
    s.load(REL)
    s.load(REL)
    assert len(calls) == 1  # cached
    e = s.entry(REL)
    assert (e.status, e.findings, e.decided) == (FileStatus.HAS_FINDINGS, 3, 0)
    assert s.entry("src/util.h").status == FileStatus.UNTRANSLATED


def test_decide_applies_to_the_whole_group_and_renders(project: Path) -> None:
    s = session(project)
    lane, m1, m2 = ids(s)
    ch = s.decide(REL, m1, Decision.ACCEPTED)
    assert set(ch.finding_ids) == {m1, m2} and ch.path == REL
    assert s.decision(REL, m2) == Decision.ACCEPTED
    assert s.decision(REL, lane) == Decision.PENDING
    text = s.result_text(REL)
    assert text.count("0xffffffffffffffffull") == 2
    assert "hipMalloc(&d, 4); hipFree(d)" in text and "#include <hip/hip_runtime.h>" in text
    assert "% 32" in text  # pending: plain translation
    assert s.progress(REL) == (2, 3)
    s.decide(REL, lane, Decision.REJECTED)
    assert "% 32" in s.result_text(REL)
    assert s.progress(REL) == (3, 3)
    assert s.entry(REL).status == FileStatus.REVIEWED


def test_decide_one_refuses_to_split_a_group(project: Path) -> None:
    s = session(project)
    lane, m1, _ = ids(s)
    with pytest.raises(GroupRefused, match=r"fix group masks .*all masks of the reduction"):
        s.decide_one(REL, m1, Decision.ACCEPTED)
    assert s.decision(REL, m1) == Decision.PENDING
    assert not s.can_undo()
    s.decide_one(REL, lane, Decision.ACCEPTED)  # a group of one is fine
    assert "% 64" in s.result_text(REL)


def test_portable_style_applies_shared_edit_once(project: Path) -> None:
    s = session(project)
    _, m1, m2 = ids(s)
    s.set_style(REL, FixStyle.PORTABLE, m1)
    assert s.style(REL, m2) == FixStyle.PORTABLE
    s.decide(REL, m2, Decision.ACCEPTED)
    text = s.result_text(REL)
    assert text.count(SHARED) == 1
    assert text.count("(lane_mask_t)~0ull") == 2
    assert text.index(SHARED) < text.index("__global__")


def test_undo_redo_each_decision_is_one_step(project: Path) -> None:
    s = session(project)
    lane, m1, m2 = ids(s)
    before = s.result_text(REL)
    s.decide(REL, m1, Decision.ACCEPTED)
    after_masks = s.result_text(REL)
    s.decide(REL, lane, Decision.ACCEPTED)
    s.set_style(REL, FixStyle.PORTABLE)
    assert s.style(REL, lane) == FixStyle.PORTABLE
    ch = s.undo()
    assert ch is not None and ch.message.startswith("undid: fix style")
    assert s.style(REL, lane) == FixStyle.WAVE64
    s.undo()
    assert s.result_text(REL) == after_masks
    ch = s.undo()
    assert ch is not None and set(ch.finding_ids) == {m1, m2}
    assert s.result_text(REL) == before
    assert s.undo() is None
    assert s.redo() is not None and s.decision(REL, m2) == Decision.ACCEPTED
    s.decide(REL, lane, Decision.REJECTED)  # a new step clears the redo stack
    assert s.redo() is None


def test_decide_rest_is_one_step(project: Path) -> None:
    s = session(project)
    lane, m1, m2 = ids(s)
    s.decide(REL, lane, Decision.REJECTED)
    ch = s.decide_rest(REL, Decision.ACCEPTED)
    assert set(ch.finding_ids) == {m1, m2}
    assert s.decision(REL, lane) == Decision.REJECTED
    assert s.decide_rest(REL, Decision.ACCEPTED).finding_ids == ()
    s.undo()
    assert s.decision(REL, m1) == Decision.PENDING and s.decision(REL, lane) == Decision.REJECTED


def review_tier_analyze(source: Source, translation: Translation, options: Any) -> Analysis:
    """toy_analyze with the mask group of tier REVIEW (model.FixTier), as when the host also uses a value."""
    a = toy_analyze(source, translation, options)
    groups = tuple(dataclasses.replace(g, tier=FixTier.REVIEW, tier_reason="the host reads the mask too")
                   for g in a.groups)
    return dataclasses.replace(a, groups=groups)


def test_a_review_tier_group_is_accepted_only_when_confirmed(project: Path) -> None:
    # the rule is the session's, not only the app's: any caller of decide* meets it
    s = ReviewSession.open(project, translate=toy_translate, analyze=review_tier_analyze, logical=no_logical)
    lane, m1, m2 = ids(s)
    with pytest.raises(NeedsReview, match=r"src/gemm.cu: the fix of W64-06 at line 5 needs review \(the host "
                                          r"reads the mask too\)"):
        s.decide(REL, m1, Decision.ACCEPTED)
    with pytest.raises(NeedsReview):
        s.decide_rest(REL, Decision.ACCEPTED)
    with pytest.raises(NeedsReview):
        s.decide_groups([(REL, "masks")], Decision.ACCEPTED, "accepted the masks")
    assert s.decision(REL, m1) == s.decision(REL, m2) == Decision.PENDING and not s.can_undo()
    assert "0xffffffffffffffffull" not in s.result_text(REL)
    s.decide(REL, lane, Decision.ACCEPTED)  # a SAFE group needs no confirmation
    ch = s.decide(REL, m1, Decision.ACCEPTED, review_confirmed=True)
    assert set(ch.finding_ids) == {m1, m2} and "0xffffffffffffffffull" in s.result_text(REL)
    s.undo()
    s.decide(REL, m2, Decision.REJECTED)  # rejecting needs none either
    assert s.decide_rest(REL, Decision.ACCEPTED).finding_ids == ()  # nothing pending is left to refuse


def test_next_finding_navigation(project: Path) -> None:
    s = session(project)
    lane, m1, m2 = ids(s)  # file order: lane (line 3), m1 (5), m2 (6)
    assert s.next_finding(REL, None) == lane
    assert s.next_finding(REL, lane) == m1
    assert s.next_finding(REL, m2) is None
    assert s.next_finding(REL, m2, wrap=True) == lane
    assert s.next_finding(REL, None, step=-1) == m2
    assert s.next_finding(REL, m1, step=-1) == lane
    s.decide(REL, m1, Decision.ACCEPTED)
    assert s.next_finding(REL, lane) is None            # both masks decided
    assert s.next_finding(REL, lane, undecided_only=False) == m1
    assert s.next_finding(REL, m2, step=-1) == lane
    s.decide(REL, lane, Decision.ACCEPTED)
    assert s.next_finding(REL, None) is None
    assert s.next_finding(REL, None, wrap=True) is None


def test_conflicting_fixes_refuse_the_group(project: Path) -> None:
    def analyze(source: Source, tr: Translation, options: Any) -> Analysis:
        base = toy_analyze(source, tr, options)
        at = source.text.index("% 32")
        clash = Finding("W64-99:3:20", "W64-99", Severity.PERFORMANCE, at, at + 4, 3, 20, "clash", "clash",
                        (Fix(FixStyle.WAVE64, (Edit(at, at + 4, "& 63", "W64-99"),), "mask"),))
        return Analysis(source, (*base.findings, clash), base.groups)

    s = ReviewSession.open(project, translate=toy_translate, analyze=analyze, logical=no_logical)
    lane = next(f.id for f in s.load(REL).findings if f.rule == "W64-01")
    s.decide(REL, lane, Decision.ACCEPTED)
    with pytest.raises(GroupRefused, match="fix group clash cannot be applied: its fix overlaps the accepted fix of group lane:3"):
        s.decide(REL, "W64-99:3:20", Decision.ACCEPTED)
    assert s.decision(REL, "W64-99:3:20") == Decision.PENDING
    assert "% 64" in s.result_text(REL)


def test_rows_follow_decisions(project: Path) -> None:
    s = session(project)
    _, m1, _ = ids(s)
    rows = s.rows(REL)
    row5 = next(r for r in rows if r.old_no == 5)
    assert row5.kind == "same" and row5.finding_ids == (m1,)
    s.decide(REL, m1, Decision.ACCEPTED)
    row5 = next(r for r in s.rows(REL) if r.old_no == 5)
    assert row5.kind == "change" and "0xffffffffffffffffull" in row5.new_text


def test_write_sibling_and_status(project: Path) -> None:
    s = session(project)
    lane, m1, _ = ids(s)
    s.decide(REL, m1, Decision.ACCEPTED)
    assert s.unwritten() == [REL]
    out = s.write(REL)
    assert out == project / "src" / "gemm.hip"
    assert out.read_text() == s.result_text(REL)
    assert (project / "src" / "gemm.cu").read_text() == GEMM  # original untouched
    assert s.unwritten() == []
    assert s.entry(REL).status == FileStatus.WRITTEN
    s.decide(REL, lane, Decision.ACCEPTED)
    assert s.unwritten() == [REL]
    assert s.entry(REL).status == FileStatus.REVIEWED
    s.write(REL)
    assert "% 64" in out.read_text()
    # the output is not itself listed for review
    assert "src/gemm.hip" not in [e.rel for e in s.files()]
    assert [e.rel for e in ReviewSession.open(project, translate=toy_translate, analyze=toy_analyze).files()] \
        == ["run_cuda.py", "src/gemm.cu", "src/util.h"]


def test_write_keeps_crlf_bom_and_latin1(tmp_path: Path) -> None:
    raw = ("\ufeff" + GEMM.replace("\n", "\r\n")).encode("utf-8")
    (tmp_path / "a.cu").write_bytes(raw)
    (tmp_path / "b.cu").write_bytes(GEMM.replace("int main", "// caf\xe9\nint main").encode("latin-1"))
    s = session(tmp_path)
    s.write("a.cu")
    got = (tmp_path / "a.hip").read_bytes()
    assert got.startswith(b"\xef\xbb\xbf") and b"\r\nint main() { float* d; hipMalloc" in got
    assert got.count(b"\r\n") == raw.count(b"\r\n")
    s.write("b.cu")
    assert b"// caf\xe9\nint main() { float* d; hipMalloc" in (tmp_path / "b.hip").read_bytes()


def test_write_refuses_to_clobber_a_foreign_output(project: Path) -> None:
    (project / "src" / "gemm.hip").write_text("// someone's own HIP file\n")
    s = session(project)
    assert REL in [e.rel for e in s.files()]
    with pytest.raises(OutputExists, match="already exists and was not written by hipport") as refused:
        s.write(REL)
    assert refused.value.path == "src/gemm.hip"
    assert (project / "src" / "gemm.hip").read_text() == "// someone's own HIP file\n"
    s.write(REL, overwrite=True)
    assert "hipMalloc" in (project / "src" / "gemm.hip").read_text()
    # edited after hipport wrote it: refused again
    (project / "src" / "gemm.hip").write_text("// edited\n")
    with pytest.raises(OutputExists, match="edited"):
        s.write(REL)


def test_two_files_with_one_sibling_name_are_refused(tmp_path: Path) -> None:
    (tmp_path / "gemm_cuda.py").write_text("x = 1\n")
    (tmp_path / "gemm.py").write_text("y = 2\n")
    s = session(tmp_path)
    with pytest.raises(OutputShared, match=r"gemm.py and gemm_cuda.py would both be written to gemm_hip.py"):
        s.write("gemm.py")
    assert not (tmp_path / "gemm_hip.py").exists()
    s.set_config(s.config.replace(output_mode="folder"))
    s.write("gemm.py")
    s.write("gemm_cuda.py")
    assert (tmp_path / "hip" / "gemm.py").is_file() and (tmp_path / "hip" / "gemm_cuda.py").is_file()


def test_write_folder_mode_mirrors_the_tree(project: Path) -> None:
    s = session(project, Config(output_mode="folder", output_folder="out/hip"))
    assert s.write(REL) == project / "out" / "hip" / "src" / "gemm.cu"
    assert "hipMalloc" in (project / "out/hip/src/gemm.cu").read_text()
    s.rescan()
    assert all(not e.rel.startswith("out/") for e in s.files())


def test_write_in_place_keeps_the_original_and_reopens(project: Path) -> None:
    s = session(project, Config(output_mode="in-place"))
    _, m1, m2 = ids(s)
    s.decide(REL, m1, Decision.ACCEPTED)
    assert s.write(REL) == project / REL
    assert "hipMalloc" in (project / REL).read_text()
    assert (project / (REL + ".prehip")).read_text() == GEMM  # outputs.py's one write policy
    # reopen: not stale, the diff still shows CUDA -> HIP, decisions restored
    s2 = session(project, Config(output_mode="in-place"))
    e = s2.entry(REL)
    assert e.status == FileStatus.WRITTEN
    fr = s2.load(REL)
    assert not fr.stale and fr.source.text == GEMM and fr.source.path == project / REL
    assert s2.decision(REL, m2) == Decision.ACCEPTED
    assert s2.result_text(REL) == (project / REL).read_text()
    s2.decide(REL, m1, Decision.REJECTED)
    s2.write(REL)
    assert "0xffffffff," in (project / REL).read_text()


def test_decisions_persist_and_reload(project: Path) -> None:
    s = session(project)
    lane, m1, m2 = ids(s)
    s.set_style(REL, FixStyle.PORTABLE, lane)
    s.decide(REL, lane, Decision.ACCEPTED)
    s.decide(REL, m1, Decision.REJECTED)
    state = json.loads((project / ".hipport" / "state.json").read_text())
    assert state["version"] == 1
    entry = state["files"][REL]
    rec = entry["decisions"][lane]
    assert {k: rec[k] for k in ("decision", "style", "rule")} == \
        {"decision": "accepted", "style": "portable", "rule": "W64-01"}
    assert len(rec["anchor"]) == 12
    assert entry["decisions"][m2]["decision"] == "rejected"
    assert len(entry["sha256"]) == 64
    assert (project / ".hipport" / ".gitignore").read_text().strip().endswith("*")
    s2 = session(project)
    # known before loading, from the state file
    e = s2.entry(REL)
    assert (e.status, e.findings, e.decided) == (FileStatus.REVIEWED, 3, 3)
    assert s2.decision(REL, lane) == Decision.ACCEPTED and s2.style(REL, lane) == FixStyle.PORTABLE
    assert "% warpSize" in s2.result_text(REL)
    assert s2.unwritten() == [REL]


def test_unsaveable_state_keeps_the_decision_and_says_so(project: Path) -> None:
    s = session(project)
    lane, _, _ = ids(s)
    assert not (project / ".hipport").exists()  # nothing decided yet: nothing saved
    (project / ".hipport").write_text("a file where the state folder should be\n")
    ch = s.decide(REL, lane, Decision.ACCEPTED)
    assert "decisions not saved" in ch.message and s.save_error
    assert s.decision(REL, lane) == Decision.ACCEPTED
    with pytest.raises(WriteError, match="is not a folder"):
        s.save()
    (project / ".hipport").unlink()
    assert "not saved" not in s.undo().message  # type: ignore[union-attr]
    assert s.save_error is None


def test_state_folder_linked_out_of_the_project_is_never_written_through(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".hipport").symlink_to(outside)
    s = session(project, Config(output_mode="in-place"))
    lane, _, _ = ids(s)
    ch = s.decide(REL, lane, Decision.ACCEPTED)
    assert "decisions not saved" in ch.message and "is a link" in ch.message
    s.write(REL)  # the original is kept beside the file (<file>.prehip), never under the linked .hipport
    assert (project / (REL + ".prehip")).read_text() == GEMM and "hipMalloc" in (project / REL).read_text()
    assert list(outside.iterdir()) == []


def test_a_prehip_link_is_never_written_through(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside2.txt"
    outside.write_text("someone else's file\n")
    (project / (REL + ".prehip")).symlink_to(outside)
    s = session(project, Config(output_mode="in-place"))
    with pytest.raises(WriteError, match="symbolic link"):
        s.write(REL)  # the original cannot be kept: the file is not overwritten either
    assert outside.read_text() == "someone else's file\n" and (project / REL).read_text() == GEMM


def test_two_sessions_on_one_project_keep_each_others_decisions(project: Path) -> None:
    a = session(project)
    b = session(project)
    lane, _, _ = ids(a)
    a.decide(REL, lane, Decision.ACCEPTED)
    b.write("src/util.h")        # b saves after a: a's decision must survive
    assert session(project).decision(REL, lane) == Decision.ACCEPTED
    a.decide(REL, lane, Decision.REJECTED)  # and a's next save keeps b's write
    fresh = session(project)
    assert fresh.decision(REL, lane) == Decision.REJECTED
    assert fresh.entry("src/util.h").status == FileStatus.WRITTEN
    assert b.decision(REL, lane) == Decision.ACCEPTED  # b learns of it on its next save
    b.save()
    assert b.decision(REL, lane) == Decision.REJECTED


def test_unreadable_state_written_by_another_program_is_not_overwritten(project: Path) -> None:
    s = session(project)
    lane, m1, _ = ids(s)
    s.decide(REL, lane, Decision.ACCEPTED)
    state_file = project / ".hipport" / "state.json"
    state_file.write_text('{"version": 7, "files": {}}')
    ch = s.decide(REL, m1, Decision.ACCEPTED)
    assert "not overwritten" in ch.message
    assert state_file.read_text() == '{"version": 7, "files": {}}'


def test_no_autosave_until_save(project: Path) -> None:
    s = session(project, autosave=False)
    _, m1, _ = ids(s)
    s.decide(REL, m1, Decision.ACCEPTED)
    assert not (project / ".hipport" / "state.json").exists()
    s.save()
    assert session(project).decision(REL, m1) == Decision.ACCEPTED


def test_stale_file_keeps_decisions_but_never_applies_them(project: Path) -> None:
    s = session(project)
    lane, m1, m2 = ids(s)
    s.decide(REL, m1, Decision.ACCEPTED)
    s.decide(REL, lane, Decision.REJECTED)
    changed = GEMM.replace("float v = x[threadIdx.x];", "float v = 2 * x[threadIdx.x];\n  // more")
    (project / REL).write_text(changed)
    # the running session notices on write
    with pytest.raises(StaleError):
        s.write(REL)
    assert not (project / "src" / "gemm.hip").exists()
    s2 = session(project)
    assert s2.entry(REL).status == FileStatus.STALE  # before loading
    fr = s2.load(REL)
    assert fr.stale and s2.entry(REL).status == FileStatus.STALE
    assert s2.stale_decisions(REL) == {lane: Decision.REJECTED, m1: Decision.ACCEPTED, m2: Decision.ACCEPTED}
    assert "0xffffffffffffffffull" not in s2.result_text(REL)  # plain translation only
    with pytest.raises(StaleError):
        s2.decide(REL, lane, Decision.ACCEPTED)
    with pytest.raises(StaleError):
        s2.write(REL)
    assert s2.unwritten() == []
    saved = json.loads((project / ".hipport" / "state.json").read_text())["files"][REL]["decisions"]
    assert len(saved) == 3  # kept
    ch = s2.resolve_stale(REL, keep=True)
    # lane stays at 3:...; the masks moved down a line (new ids) but their lines are the same: kept
    masks = [f.id for f in s2.load(REL).findings if f.rule == "W64-06"]
    assert masks != [m1, m2] and set(ch.finding_ids) == {lane, *masks}
    assert s2.entry(REL).status != FileStatus.STALE
    assert s2.decision(REL, lane) == Decision.REJECTED
    assert all(s2.decision(REL, m) == Decision.ACCEPTED for m in masks)
    s2.write(REL)


def test_changed_file_without_decisions_is_not_stale(project: Path) -> None:
    s = session(project)
    s.write("src/util.h")  # written, nothing decided
    (project / "src" / "util.h").write_text("int add(int a, int b);\nint mul(int, int);\n")
    s2 = session(project)
    assert s2.entry("src/util.h").status == FileStatus.TRANSLATED  # known before loading
    fr = s2.load("src/util.h")
    assert not fr.stale and "mul" in fr.source.text
    assert s2.entry("src/util.h").status == FileStatus.TRANSLATED  # the written output is outdated
    s2.write("src/util.h")
    assert "mul" in (project / "src" / "util_hip.h").read_text()
    assert session(project).entry("src/util.h").status == FileStatus.WRITTEN


def test_duplicate_finding_ids_are_made_unique(project: Path) -> None:
    def dup(source: Source, tr: Translation, options: Any) -> Analysis:
        a = toy_analyze(source, tr, options)
        f = a.findings[0]
        twin = Finding(f.id, f.rule, f.severity, f.start + 1, f.end, f.line, f.col, f.message, "twin", ())
        return Analysis(source, (*a.findings, twin), a.groups)

    s = ReviewSession.open(project, translate=toy_translate, analyze=dup, autosave=False)
    ids_ = [f.id for f in s.load(REL).findings]
    assert len(set(ids_)) == len(ids_) == 4 and any(i.endswith("#2") for i in ids_)


def test_resolve_stale_without_keeping(project: Path) -> None:
    s = session(project)
    lane, _, _ = ids(s)
    s.decide(REL, lane, Decision.ACCEPTED)
    (project / REL).write_text(GEMM + "// tail\n")
    s2 = session(project)
    s2.resolve_stale(REL, keep=False)
    assert s2.decision(REL, lane) == Decision.PENDING


@pytest.mark.parametrize("content, match", [
    ("{not json", "not valid JSON"),
    ('{"version": 99, "files": {}}', "newer hipport"),
    ('{"files": {}}', "no version"),
    ('{"version": 1, "files": {"a.cu": {"decisions": {"x": {"decision": "maybe"}}}}}', "invalid"),
    ("[1, 2]", "not a hipport state"),
])
def test_bad_state_is_refused_then_kept_aside(project: Path, content: str, match: str) -> None:
    (project / ".hipport").mkdir()
    (project / ".hipport" / "state.json").write_text(content)
    with pytest.raises(StateError, match=match) as ei:
        session(project)
    assert "\n" not in str(ei.value)
    assert (project / ".hipport" / "state.json").read_text() == content  # untouched
    s = session(project, fresh=True)
    assert s.files()
    bad = list((project / ".hipport").glob("state.json.bad-*"))
    assert len(bad) == 1 and bad[0].read_text() == content
    assert (project / REL).read_text() == GEMM


def test_load_errors_become_error_status(project: Path) -> None:
    (project / "bin.cu").write_bytes(b"\x00\x01binary")

    def broken(source: Source, tr: Translation, options: Any) -> Analysis:
        if "add" in source.text:
            raise RuntimeError("boom")
        return toy_analyze(source, tr, options)

    s = ReviewSession.open(project, translate=toy_translate, analyze=broken)
    with pytest.raises(ReviewError, match="binary"):
        s.load("bin.cu")
    with pytest.raises(ReviewError, match="warp analysis failed: RuntimeError: boom"):
        s.load("src/util.h")
    by = {e.rel: e for e in s.files()}
    assert by["bin.cu"].status == FileStatus.ERROR and "binary" in (by["bin.cu"].error or "")
    assert by["src/util.h"].status == FileStatus.ERROR
    assert by[REL].status == FileStatus.UNTRANSLATED


def test_load_from_threads_translates_once(project: Path) -> None:
    calls: list[int] = []
    gate = threading.Event()

    def slow(source: Source, options: Any) -> Translation:
        calls.append(1)
        gate.wait(2)
        return toy_translate(source, options)

    s = ReviewSession.open(project, translate=slow, analyze=toy_analyze)
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(s.load(REL))) for _ in range(4)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and len(results) == 4 and all(r is results[0] for r in results)


def test_unknown_finding_and_style_without_fix(project: Path) -> None:
    s = session(project)
    lane, _, _ = ids(s)
    with pytest.raises(ReviewError, match="no finding"):
        s.decide(REL, "W64-00:1:1", Decision.ACCEPTED)

    def only_wave64(source: Source, tr: Translation, options: Any) -> Analysis:
        a = toy_analyze(source, tr, options)
        fs = tuple(Finding(f.id, f.rule, f.severity, f.start, f.end, f.line, f.col, f.message, f.group,
                           f.fixes[:1]) if f.rule == "W64-01" else f for f in a.findings)
        return Analysis(source, fs, a.groups)

    s2 = ReviewSession.open(project, translate=toy_translate, analyze=only_wave64, autosave=False, logical=no_logical)
    with pytest.raises(ReviewError, match="no portable fix"):
        s2.set_style(REL, FixStyle.PORTABLE, lane)
    ch = s2.set_style(REL, FixStyle.PORTABLE)
    assert "1 groups have no portable fix" in ch.message
    assert s2.style(REL, lane) == FixStyle.WAVE64


def test_write_error_leaves_no_partial_file(project: Path) -> None:
    s = session(project)
    (project / "src" / "gemm.hip").mkdir()  # the output path is taken by a folder: the rename fails
    with pytest.raises(ReviewError, match="already exists"):
        s.write(REL)
    with pytest.raises(WriteError, match="original left as it was"):
        s.write(REL, overwrite=True)
    assert (project / "src" / "gemm.hip").is_dir()
    assert not [p.name for p in (project / "src").iterdir() if "hipport-tmp" in p.name]
    assert s.entry(REL).status != FileStatus.WRITTEN


def test_partly_accepted_group_from_saved_state_is_held(project: Path) -> None:
    s = session(project)
    _, m1, m2 = ids(s)
    s.decide(REL, m1, Decision.ACCEPTED)
    state_file = project / ".hipport" / "state.json"
    data = json.loads(state_file.read_text())
    del data["files"][REL]["decisions"][m2]  # as if the analysis had grown the group since
    state_file.write_text(json.dumps(data))
    s2 = session(project)
    assert s2.held(REL) == {"masks": "only 1 of its 2 findings are accepted"}
    assert "0xffffffffffffffffull" not in s2.result_text(REL)  # never half a group
    s2.decide(REL, m2, Decision.ACCEPTED)
    assert s2.held(REL) == {}
    assert s2.result_text(REL).count("0xffffffffffffffffull") == 2


def test_overlapping_translation_is_a_load_error(project: Path) -> None:
    def bad(source: Source, options: Any) -> Translation:
        return Translation(source, (Edit(0, 5, "a", "api"), Edit(3, 8, "b", "api")))

    s = ReviewSession.open(project, translate=bad, analyze=toy_analyze)
    with pytest.raises(ReviewError, match="overlapping edits"):
        s.load(REL)
    assert s.entry(REL).status == FileStatus.ERROR


def test_rescan_notices_changes_while_open(project: Path) -> None:
    s = session(project)
    lane, _, _ = ids(s)
    s.decide(REL, lane, Decision.ACCEPTED)
    before = s.load("src/util.h")
    (project / REL).write_text(GEMM + "// edited in another editor\n")
    (project / "src" / "util.h").write_text("int add(int a, int b);\nint sub(int, int);\n")
    (project / "src" / "new.cu").write_text("__global__ void k() {}\n")
    assert "src/new.cu" in s.rescan()
    assert s.entry(REL).status == FileStatus.STALE and s.load(REL).stale
    with pytest.raises(StaleError):
        s.decide(REL, lane, Decision.REJECTED)
    after = s.load("src/util.h")  # no decisions: simply translated again
    assert after is not before and "sub" in after.source.text and not after.stale


def test_unwritten_ignores_files_gone_from_disk(project: Path) -> None:
    s = session(project)
    lane, _, _ = ids(s)
    s.decide(REL, lane, Decision.ACCEPTED)
    (project / REL).unlink()
    s.rescan()
    assert s.unwritten() == []
    assert REL not in [e.rel for e in s.files()]


def test_set_config_changes_output_mode(project: Path) -> None:
    s = session(project)
    lane, _, _ = ids(s)
    s.decide(REL, lane, Decision.ACCEPTED)
    s.write(REL)
    s.write("src/util.h")
    assert s.entry(REL).status == FileStatus.WRITTEN
    s.set_config(s.config.replace(output_mode="folder"))
    assert s.output_path(REL) == project / "hip" / REL
    assert s.entry(REL).output == "hip/src/gemm.cu"
    assert s.entry(REL).status == FileStatus.HAS_FINDINGS  # not written to the new place yet
    assert s.unwritten() == [REL]
    s.set_config(s.config.replace(output_mode="in-place"))
    s.write("src/util.h")
    s.set_config(s.config.replace(output_mode="sibling"))
    assert "src/util.h" in [e.rel for e in s.files()]  # its own in-place output is still listed


TWO_KERNELS = """\
__global__ void a(float* x) {
  int lane = threadIdx.x % 32;
  x[lane] = 1;
}
__global__ void b(float* x) {
  int lane = threadIdx.x % 32;
  x[lane] = 2;
}
"""


def test_resolve_stale_matches_decisions_by_content_and_context(tmp_path: Path) -> None:
    """Issue 19 item 7: decisions follow their findings by the content and the context of their line,
    not by line number: two identical lines keep their own (different) decisions when lines are
    inserted above and between them, and an identical line that is new stays undecided."""
    (tmp_path / "k.cu").write_text(TWO_KERNELS)
    s = session(tmp_path)
    first, second = (f.id for f in s.load("k.cu").findings)
    s.decide("k.cu", first, Decision.ACCEPTED)
    s.decide("k.cu", second, Decision.REJECTED)
    third = "__global__ void c(float* x) {\n  int lane = threadIdx.x % 32;\n  x[lane] = 3;\n}\n"
    (tmp_path / "k.cu").write_text("// top\n" + TWO_KERNELS.replace("__global__ void b", third + "__global__ void b"))
    s2 = session(tmp_path)
    ch = s2.resolve_stale("k.cu", keep=True)
    assert "kept 2 of 2" in ch.message
    got = [(f.line, s2.decision("k.cu", f.id)) for f in s2.load("k.cu").findings]
    assert got == [(3, Decision.ACCEPTED), (7, Decision.PENDING), (11, Decision.REJECTED)]


def test_resolve_stale_without_saved_context_goes_by_the_shift(tmp_path: Path) -> None:
    """A state file from before decisions carried their context: identical lines are told apart by how
    far the file's lines moved."""
    (tmp_path / "k.cu").write_text(TWO_KERNELS)
    s = session(tmp_path)
    first, second = (f.id for f in s.load("k.cu").findings)
    s.decide("k.cu", first, Decision.REJECTED)
    s.decide("k.cu", second, Decision.ACCEPTED)
    state_file = tmp_path / ".hipport" / "state.json"
    state = json.loads(state_file.read_text())
    for rec in state["files"]["k.cu"]["decisions"].values():
        rec.pop("context", None)
    state_file.write_text(json.dumps(state))
    (tmp_path / "k.cu").write_text("// top\n// and one more\n" + TWO_KERNELS)
    s2 = session(tmp_path)
    s2.resolve_stale("k.cu", keep=True)
    got = [(f.line, s2.decision("k.cu", f.id)) for f in s2.load("k.cu").findings]
    assert got == [(4, Decision.REJECTED), (8, Decision.ACCEPTED)]
