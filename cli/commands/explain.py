"""`hipport explain W64-06`: print the help page of a warp-width rule (`--list` lists them all)."""

from __future__ import annotations

import argparse
import re
from typing import Any

from hipport.cli.main import CliError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("explain", help="explain a warp-width rule (e.g. W64-06)", description=__doc__)
    p.add_argument("rule", nargs="?", metavar="RULE", help="rule id: W64-06, w64-6 or 6")
    p.add_argument("--list", action="store_true", help="list every rule with its severity and title")
    p.set_defaults(func=handle)


def normalize(text: str) -> str | None:
    m = re.fullmatch(r"(?i)\s*(?:w64-?)?0*(\d{1,2})\s*", text)
    return f"W64-{int(m.group(1)):02d}" if m else None


def handle(args: argparse.Namespace) -> int:
    from hipport.engine.warp.rules import RULES

    if args.list or not args.rule:
        for rid, r in RULES.items():
            print(f"{rid}  {r.severity:<13}  {r.title}{'  (heuristic)' if r.heuristic else ''}")
        return 0
    rid = normalize(args.rule)
    if rid is None or rid not in RULES:
        raise CliError(f"unknown rule {args.rule!r}: rules are W64-01..W64-{len(RULES):02d} (hipport explain --list)")
    print(RULES[rid].help_markdown, end="")
    return 0
