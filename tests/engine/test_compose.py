"""One composer (engine/compose.py) for `hipport convert --fixes` and the review session.

The analysis here is a fixed one (two fix groups whose edits overlap, one REVIEW-tier group) over
a real translation, so the conflict is certain; everything else is the real engine: the CLI's
pipeline path (pipeline.files.port_file), the app's ReviewSession, the report serialisers. The fixed groups all
sit in one kernel, which the logical-warp port would join into one connected group; these tests are
about holding and tiers, so they run without the logical port (tests/warp/test_logical_*.py run with it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hipport.engine.pipeline as pipeline
import hipport.engine.warp as warp
from hipport.cli.main import main
from hipport.engine.compose import choose, compose
from hipport.engine.edits import Edit, apply_edits
from hipport.engine.model import Analysis, Finding, Fix, FixGroup, FixStyle, FixTier, Severity, Translation
from hipport.engine.pipeline.files import Job, port_file
from hipport.engine.report import FileReport, to_json, to_sarif, to_text
from hipport.engine.review import Decision, GroupRefused, NeedsReview, ReviewSession
from hipport.engine.source import Source, read_source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions

SRC = """\
__global__ void k(unsigned* o) {
  unsigned m = 0xffffffff;
  int lane = threadIdx.x % 32;
  o[lane] = m;
}
void run(unsigned* o) { k<<<1, 32>>>(o); cudaDeviceSynchronize(); }
"""
WHY = "o is also read by the host at line 6"


def _finding(text: str, rule: str, needle: str, repl: str, group: str, skip: int = 0) -> Finding:
    s = text.index(needle) + skip
    e = text.index(needle) + len(needle)
    line = text.count("\n", 0, s) + 1
    col = s - (text.rfind("\n", 0, s) + 1) + 1
    return Finding(f"{rule}:{line}:{col}", rule, Severity.WRONG_RESULT, s, e, line, col, "32 lanes assumed", group,
                   (Fix(FixStyle.WAVE64, (Edit(s, e, repl, rule),), repl),))


def fixed_analysis(source: Source, translation: Translation | None = None, options: Any = None) -> Analysis:
    t = source.text
    findings = (
        _finding(t, "W64-06", "0xffffffff", "0xffffffffffffffffull", "mask"),
        _finding(t, "W64-01", "% 32", "% 64", "lane"),
        _finding(t, "W64-04", "% 32", "64", "lane-alt", skip=2),          # overlaps the "lane" fix
        _finding(t, "W64-02", "unsigned* o) {", "unsigned long long* o) {", "out"),
    )
    groups = (*(FixGroup(f.group, (f.id,), "one value") for f in findings[:3]),
              FixGroup("out", (findings[3].id,), "one value", tier=FixTier.REVIEW, tier_reason=WHY))
    return Analysis(source, tuple(sorted(findings, key=lambda f: (f.start, f.end))), groups)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "k.cu").write_text(SRC)
    monkeypatch.setattr(warp, "analyze", fixed_analysis)  # what pipeline.port and `scan --warp` call
    monkeypatch.setattr(pipeline, "logical_port", no_logical)
    return tmp_path


def no_logical(source: Source, translation: Translation) -> None:
    return None


def test_convert_holds_a_conflicting_group_instead_of_failing_the_file(project: Path) -> None:
    # before compose.py, the CLI raised EditConflict here and the file was not converted at all
    res = port_file(Job(str(project / "k.cu"), "k.cu", TranslateOptions(ast="off"), fixes="all",
                               style=FixStyle.WAVE64))
    assert res.error is None
    assert res.held == {"lane-alt": "its fix overlaps the accepted fix of group lane", "out": f"needs review: {WHY}"}
    out = (res.output or b"").decode()
    assert "% 64" in out and "0xffffffffffffffffull" in out and "hipDeviceSynchronize" in out
    assert "unsigned long long" not in out
    assert sorted(r.split(":")[0] for r in res.applied_findings) == ["W64-01", "W64-06"]


def test_cli_and_app_build_the_same_file_from_the_same_decisions(project: Path) -> None:
    cli = port_file(Job(str(project / "k.cu"), "k.cu", TranslateOptions(ast="off"), fixes="all",
                        style=FixStyle.WAVE64, allow_review=True))
    assert set(cli.held) == {"lane-alt"}
    s = ReviewSession.open(project, translate=lambda src, o: translate(src, TranslateOptions(ast="off")),
                           analyze=fixed_analysis, logical=no_logical)
    fr = s.load("k.cu")
    by_group = {f.group: f.id for f in fr.findings}
    for g in ("mask", "lane"):
        s.decide("k.cu", by_group[g], Decision.ACCEPTED)
    # the CLI's --fixes-review is the app's confirmation that the REVIEW-tier fix was read
    with pytest.raises(NeedsReview, match=f"needs review \\({WHY}\\)"):
        s.decide("k.cu", by_group["out"], Decision.ACCEPTED)
    s.decide("k.cu", by_group["out"], Decision.ACCEPTED, review_confirmed=True)
    with pytest.raises(GroupRefused, match="fix group lane-alt cannot be applied: its fix overlaps the accepted "
                                           "fix of group lane"):
        s.decide("k.cu", by_group["lane-alt"], Decision.ACCEPTED)
    assert s.result_text("k.cu").encode() == cli.output
    assert s.write("k.cu").read_bytes() == cli.output


def test_convert_applies_review_groups_only_when_asked(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = project / "out"
    assert main(["convert", str(project / "k.cu"), "-o", str(out / "a.hip"), "--fix-style", "wave64", "--ast",
                 "off"]) == 0
    err = capsys.readouterr().err
    assert "unsigned long long" not in (out / "a.hip").read_text()
    assert f"fix group out kept as logical warps, not 64-wide: needs review: {WHY}" in err
    assert "fix group lane-alt kept as logical warps, not 64-wide: its fix overlaps" in err
    assert main(["convert", str(project / "k.cu"), "-o", str(out / "b.hip"), "--fix-style", "wave64", "--fixes-review",
                 "--ast", "off"]) == 0
    assert "unsigned long long* o" in (out / "b.hip").read_text()
    assert "fix group out" not in capsys.readouterr().err


def test_compose_rules() -> None:
    src = Source.from_text(SRC, "k.cu")
    a = fixed_analysis(src)
    ids = {f.group: f.id for f in a.findings}
    # a group is applied whole or not at all; the CLI's choice is pulled out to whole groups
    assert set(choose(a, {"W64-06"}, FixStyle.WAVE64)) == {ids["mask"]}
    c = compose((), a, {ids["mask"]: FixStyle.WAVE64, ids["out"]: FixStyle.WAVE64}, allow_review=False)
    assert c.applied == (ids["mask"],) and c.held == {"out": f"needs review: {WHY}"}
    c = compose((), a, {ids["lane-alt"]: FixStyle.WAVE64}, allow_review=False)
    assert apply_edits(SRC, c.edits).count("threadIdx.x % 64") == 1 and not c.held
    # a fix overlapping the translation gives way to it
    tr = (Edit(SRC.index("% 32"), SRC.index("% 32") + 1, "&", "test"),)
    c = compose(tr, a, {ids["lane"]: FixStyle.WAVE64}, allow_review=False)
    assert c.edits == tr and c.held == {"lane": "its fix overlaps the translation"}


def test_reports_carry_the_tier(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(SRC)
    src = read_source(tmp_path / "k.cu")
    fr = FileReport("k.cu", src, fixed_analysis(src))
    j = to_json([fr])["files"][0]
    assert {g["id"]: (g["tier"], g["tier_reason"]) for g in j["groups"]}["out"] == ("review", WHY)
    assert {f["group"]: f["tier"] for f in j["findings"]} == {"mask": "safe", "lane": "safe", "lane-alt": "safe",
                                                               "out": "review"}
    sarif = to_sarif([fr])["runs"][0]["results"]
    assert [r["properties"]["tier"] for r in sarif if r["properties"]["group"] == "out"] == ["review"]
    assert f"needs review: {WHY}" in to_text([fr])
    json.dumps(to_json([fr]))  # serialisable
