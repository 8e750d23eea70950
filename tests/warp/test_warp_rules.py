"""The rule catalog (engine/warp/rules.toml) with data, help pages, docs in sync, and `hipport explain`."""

from __future__ import annotations

from pathlib import Path

import pytest
from script_module import load_script

from hipport.cli.main import main
from hipport.engine.warp.rules import RULES

ROOT = Path(__file__).resolve().parents[2]


def test_catalog_rules_are_numbered_in_order_with_valid_severity() -> None:
    assert list(RULES) == [f"W64-{i:02d}" for i in range(1, len(RULES) + 1)]  # W64-01, W64-02, ... no gap
    for r in RULES.values():
        assert r.severity in {"wrong-result", "compile-error", "performance"}
        assert r.title and r.explanation and "\n" not in r.explanation
        for section in ("## What", "## Why it breaks on wave64", "## Fix: wave64", "## Fix: portable",
                        "## Before", "## After"):
            assert section in r.help_markdown, (r.id, section)


def test_docs_rules_match_the_catalog() -> None:
    for rid, r in RULES.items():
        page = ROOT / "docs" / "rules" / f"{rid}.md"
        assert page.read_text(encoding="utf-8") == r.help_markdown, f"regenerate: scripts/gen_rule_docs.py ({rid})"
    assert {p.stem for p in (ROOT / "docs" / "rules").glob("*.md")} == set(RULES), "regenerate: scripts/gen_rule_docs.py"


def test_docs_warp_rules_table_matches_the_catalog() -> None:
    gen = load_script("gen_rule_docs")
    page = (ROOT / "docs" / "warp.md").read_text(encoding="utf-8")
    assert gen.with_rules_table(page) == page, "regenerate: scripts/gen_rule_docs.py"
    for rid, rule in RULES.items():
        row = next(line for line in page.splitlines() if line.startswith(f"| [{rid}](rules/{rid}.md) "))
        assert f" {rule.title} | {rule.severity} | " in row and row.endswith("| yes |" if rule.heuristic else "| no |")


@pytest.mark.parametrize("arg", ["W64-06", "w64-6", "6"])
def test_explain_prints_the_help_page(arg: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", arg]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# W64-06: Shuffle reduction")
    assert "## Fix: portable" in out and "http" not in out  # the shipped page, no web address


def test_explain_unknown_rule_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "W64-99"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown rule" in err


def test_explain_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 24 and out[0].startswith("W64-01")
