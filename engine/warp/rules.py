"""The rule catalog W64-01..W64-24, loaded from rules.toml (data), with rendered help pages.

`scripts/gen_rule_docs.py` writes docs/rules/W64-NN.md (write_docs) and the rules table of docs/warp.md
from the same data. The pages
`hipport explain`, the app and SARIF's `help.markdown` show are rendered from rules.toml, which ships in
the package: no page depends on a web address.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    title: str
    severity: str        # wrong-result | compile-error | performance
    explanation: str     # one line a person can act on
    help_markdown: str   # the help page: what, why on wave64, both fixes, before/after
    heuristic: bool = False


def _render(rid: str, d: dict[str, object]) -> str:
    heur = ("\n> Heuristic rule: it relies on names and patterns and can miss cases or, rarely, "
            "report a 32 that is not a warp width.\n" if d.get("heuristic") else "")
    return (
        f"# {rid}: {d['title']}\n\n"
        f"**Severity:** {d['severity']}\n{heur}\n"
        f"## What\n\n{d['explanation']}\n\n"
        f"## Why it breaks on wave64\n\n{d['why']}\n\n"
        f"## Fix: wave64 (MI-series only)\n\n{d['wave64']}\n\n"
        f"## Fix: portable (NVIDIA 32, RDNA 32, CDNA 64)\n\n{d['portable']}\n\n"
        f"## Before\n\n```cpp\n{d['before']}\n```\n\n"
        f"## After (portable)\n\n```cpp\n{d['after']}\n```\n"
    )


@cache
def _load() -> dict[str, Rule]:
    data = tomllib.loads((Path(__file__).with_name("rules.toml")).read_text(encoding="utf-8"))
    out: dict[str, Rule] = {}
    for rid, d in data.items():
        out[rid] = Rule(rid, str(d["title"]), str(d["severity"]), str(d["explanation"]), _render(rid, d),
                        bool(d.get("heuristic", False)))
    return out


RULES: dict[str, Rule] = _load()


def write_docs(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for rid, rule in RULES.items():
        p = folder / f"{rid}.md"
        p.write_text(rule.help_markdown, encoding="utf-8")
        paths.append(p)
    return paths

