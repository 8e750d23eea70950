#!/usr/bin/env python3
"""Write the docs generated from the warp rule registry (engine/warp/rules.toml, hipport.engine.warp.rules):
every rule's help page docs/rules/W64-NN.md (rules.write_docs; a page of a rule no longer registered is
removed) and the rules table of docs/warp.md, between its two markers. tests/warp/test_warp_rules.py fails
when either drifts from the registry.

Usage: scripts/gen_rule_docs.py
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from hipport.engine.warp.rules import RULES, write_docs

REPO = Path(__file__).resolve().parent.parent
RULE_PAGES = REPO / "docs" / "rules"
WARP_PAGE = REPO / "docs" / "warp.md"
TABLE_START = ("<!-- rules table: generated from engine/warp/rules.toml by scripts/gen_rule_docs.py; "
               "edit the registry, not this table -->")
TABLE_END = "<!-- end of the generated rules table -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def rules_table() -> str:
    """The rules table: each rule's help page, severity, test cases both ways, and whether it is heuristic;
    then the heuristic rules in one line."""
    # fires_on/silent_on only document the test cases: the engine's Rule does not carry them
    data = tomllib.loads((resources.files("hipport.engine.warp") / "rules.toml").read_text(encoding="utf-8"))
    lines = ["| rule | severity | fires on (W64-NN_fire) | must not fire on (W64-NN_nofire) | heuristic |",
             "|---|---|---|---|---|"]
    for rid, rule in RULES.items():
        cells = (f"[{rid}](rules/{rid}.md) {rule.title}", rule.severity, data[rid]["fires_on"],
                 data[rid]["silent_on"], "yes" if rule.heuristic else "no")
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    heuristic = ", ".join(rid for rid, rule in RULES.items() if rule.heuristic)
    lines += ["", f"Heuristic rules (can miss, or rarely over-report): {heuristic}."]
    return "\n".join(lines)


def with_rules_table(page: str) -> str:
    """`page` (docs/warp.md) with the text between the table's markers generated again."""
    head, start, rest = page.partition(TABLE_START + "\n")
    _, end, tail = rest.partition(TABLE_END)
    if not start or not end:
        raise SystemExit(f"{WARP_PAGE}: the rules table's markers are missing")
    return f"{head}{start}{rules_table()}\n{end}{tail}"


def main() -> None:
    pages = write_docs(RULE_PAGES)
    for stale in set(RULE_PAGES.glob("W64-*.md")) - set(pages):
        stale.unlink()
    WARP_PAGE.write_text(with_rules_table(WARP_PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    for path in (*pages, WARP_PAGE):
        print(path.relative_to(REPO))


if __name__ == "__main__":
    main()
