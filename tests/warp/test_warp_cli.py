"""`hipport scan --warp` (text, JSON, SARIF 2.1.0) and `hipport convert --fixes/--fix-style`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hipport.cli.main import main
from hipport.engine.warp.rules import RULES

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "warp"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("W64-06_fire.cu", "W64-03_fire.cu", "sgemm_tiled_nofire.cu", "W64-11_fire.py"):
        shutil.copy(CORPUS / name, tmp_path / name)
    return tmp_path


def test_scan_warp_text(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--warp", str(project)]) == 0
    out = capsys.readouterr().out
    assert "W64-06_fire.cu:8:21: wrong-result: W64-06" in out
    assert "W64-03_fire.cu:9:" in out and "compile-error: W64-03" in out
    assert "sgemm_tiled_nofire.cu" not in out


def test_scan_warp_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--warp", "--format", "json", str(project)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "hipport.warp/1"
    files = {f["path"]: f for f in doc["files"]}
    f6 = files["W64-06_fire.cu"]["findings"]
    assert [f["rule"] for f in f6] == ["W64-06"]
    assert set(f6[0]["fixes"]) == {"wave64", "portable"}
    assert files["sgemm_tiled_nofire.cu"]["findings"] == []


def test_scan_sarif_2_1_0(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "warp.sarif"
    out.parent.mkdir()
    assert main(["scan", "--format", "sarif", "-o", str(out), str(project)]) == 0
    doc = json.loads(out.read_text())
    assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids[:len(RULES)] == list(RULES)  # the registry's rules first, in its order
    for r in rules[:len(RULES)]:
        assert "helpUri" not in r  # the page itself is embedded; no address that does not exist
        assert r["help"]["markdown"].startswith(f"# {r['id']}")
        assert r["defaultConfiguration"]["level"] in ("error", "warning")
    assert run["results"], "expected findings"
    for res in run["results"]:
        assert ids[res["ruleIndex"]] == res["ruleId"]
        region = res["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
    w06 = next(r for r in run["results"] if r["ruleId"] == "W64-06")
    assert w06["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == "32"  # default --fix-style wave64


def test_convert_fixes_and_styles(project: Path, tmp_path: Path) -> None:
    src = project / "W64-06_fire.cu"
    for style, expect in (("wave64", "offset = 32;"), ("portable", "offset = (warpSize / 2);")):
        out = tmp_path / f"{style}.hip"
        assert main(["convert", "--fixes", "all", "--fix-style", style, str(src), "-o", str(out), "-q"]) == 0
        assert expect in out.read_text()
    # the default port: logical 32-lane warps, the loop still starts at 16
    out = tmp_path / "default.hip"
    assert main(["convert", str(src), "-o", str(out), "-q"]) == 0
    text = out.read_text()
    assert "#ifndef HIPPORT_LOGICAL_WARP_DEVICE\n" in text
    assert "offset = 16; offset > 0; offset >>= 1) v += hipport_shfl_down_sync(hipport_activemask(), v, offset);" in text
    # --fixes none: hipify's translation only
    out = tmp_path / "none.hip"
    assert main(["convert", "--fixes", "none", str(src), "-o", str(out), "-q"]) == 0
    text = out.read_text()
    assert "offset = 16;" in text and "v += __shfl_down_sync(__activemask(), v, offset);" in text
    assert "hipport_" not in text
    # rules alone choose nothing 64-wide: the port stays logical; with a 64-wide style only their groups
    out = tmp_path / "rule.hip"
    assert main(["convert", "--fixes", "w64-6", str(src), "-o", str(out), "-q"]) == 0
    assert "offset = 16;" in out.read_text() and "hipport_shfl_down_sync(" in out.read_text()
    assert main(["convert", "--fixes", "w64-6", "--fix-style", "wave64", str(src), "-o", str(out), "-q"]) == 0
    assert "offset = 32;" in out.read_text() and "hipport_" not in out.read_text()


def test_convert_rejects_unknown_rules(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", "--fixes", "W64-77", str(project / "W64-06_fire.cu")]) == 2
    assert "unknown rule" in capsys.readouterr().err


def test_convert_with_rdna_in_fat_binary_applies_no_wave64_fix(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.hip"
    assert main(["convert", "--fixes", "all", "--arch", "gfx942", "--arch", "gfx1100", str(project / "W64-06_fire.cu"),
                 "-o", str(out), "-q"]) == 0
    assert "offset = 16;" in out.read_text()
    assert main(["convert", "--fixes", "all", "--fix-style", "portable", "--arch", "gfx942", "--arch", "gfx1100",
                 str(project / "W64-06_fire.cu"), "-o", str(out), "-q"]) == 0
    assert "offset = (warpSize / 2);" in out.read_text()


def test_arch_list_with_rdna_offers_no_wave64_fix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `--arch gfx942,gfx1100` is two targets, one of them wave32: no fix may hard-code 64
    assert main(["scan", "--warp", "--format", "json", "--arch", "gfx942,gfx1100", str(project)]) == 0
    doc = json.loads(capsys.readouterr().out)
    f6 = {f["path"]: f for f in doc["files"]}["W64-06_fire.cu"]["findings"]
    assert f6 and all("wave64" not in f["fixes"] for f in f6)
    assert main(["scan", "--warp", "--arch", "gfx942;rm", str(project)]) == 2
