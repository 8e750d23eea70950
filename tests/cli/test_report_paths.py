"""Issue 19 item 12: SARIF URIs are repository-relative with uriBaseId %SRCROOT% (as CodeQL writes them, so
GitHub code scanning places the results), and `scan --format json` and `scan --warp --format json` name the
same paths; text output stays relative to the current folder. A real git repository, scanned from a
subfolder that is neither its top nor the scanned folder."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.cli.main import main

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "warp"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    top = tmp_path / "repo"
    (top / "apps" / "scan").mkdir(parents=True)
    (top / "docs").mkdir()
    shutil.copy(CORPUS / "W64-06_fire.cu", top / "apps" / "scan" / "shfl_scan.cu")
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    monkeypatch.chdir(top / "docs")  # neither the top nor the scanned folder
    return top


def test_sarif_uris_are_repository_relative_under_srcroot(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--warp", "--format", "sarif", "../apps/scan"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["artifacts"] == [{"location": {"uri": "apps/scan/shfl_scan.cu", "uriBaseId": "%SRCROOT%"}}]
    locations = [loc["physicalLocation"]["artifactLocation"] for r in run["results"] for loc in r["locations"]]
    assert locations and all(a == {"uri": "apps/scan/shfl_scan.cu", "uriBaseId": "%SRCROOT%"} for a in locations)
    fixes = [c["artifactLocation"] for r in run["results"] for f in r.get("fixes", []) for c in f["artifactChanges"]]
    assert fixes and all(a["uriBaseId"] == "%SRCROOT%" for a in fixes)


def test_json_names_the_same_paths_as_sarif(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--format", "json", "../apps/scan"]) == 0
    assert [f["path"] for f in json.loads(capsys.readouterr().out)["files"]] == ["apps/scan/shfl_scan.cu"]
    assert main(["scan", "--warp", "--format", "json", "../apps/scan/shfl_scan.cu"]) == 0
    assert [f["path"] for f in json.loads(capsys.readouterr().out)["files"]] == ["apps/scan/shfl_scan.cu"]
    # text is for a terminal, openable from the current folder: relative under it, else absolute
    assert main(["scan", "--warp", "../apps/scan"]) == 0
    assert capsys.readouterr().out.startswith(f"{repo / 'apps/scan/shfl_scan.cu'}:8:21: wrong-result: W64-06")
    assert main(["scan", "--warp", str(repo / "docs")]) == 2  # no sources there (one line, not a crash)
    capsys.readouterr()
    (repo / "docs" / "k.cu").write_text((repo / "apps/scan/shfl_scan.cu").read_text())
    assert main(["scan", "--warp", "."]) == 0
    assert capsys.readouterr().out.startswith("k.cu:8:21: wrong-result: W64-06")
