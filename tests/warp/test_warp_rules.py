"""The rule catalog: 24 rules with data, help pages, docs in sync, and `hipport explain`."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.cli.main import main
from hipport.engine.warp.rules import RULES

ROOT = Path(__file__).resolve().parents[2]


def test_catalog_has_all_24_rules_with_valid_severity() -> None:
    assert list(RULES) == [f"W64-{i:02d}" for i in range(1, 25)]
    for r in RULES.values():
        assert r.severity in {"wrong-result", "compile-error", "performance"}
        assert r.title and r.explanation and "\n" not in r.explanation
        for section in ("## What", "## Why it breaks on wave64", "## Fix: wave64", "## Fix: portable",
                        "## Before", "## After"):
            assert section in r.help_markdown, (r.id, section)


def test_docs_rules_match_the_catalog() -> None:
    for rid, r in RULES.items():
        page = ROOT / "docs" / "rules" / f"{rid}.md"
        assert page.read_text(encoding="utf-8") == r.help_markdown, f"regenerate: python -m hipport.engine.warp.rules docs/rules ({rid})"


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
