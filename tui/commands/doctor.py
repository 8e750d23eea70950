"""`hipport doctor [PATH] [--json]`: check what breaks first runs on ROCm machines.

Each check says pass/warn/fail and the fix. Exit status 1 when a check fails, else 0.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

_MARK = {"pass": "ok  ", "warn": "WARN", "fail": "FAIL", "info": "info"}


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("doctor", help="check the ROCm/GPU setup for first-run problems",
                              description="Check ROCm, device access, groups, PyTorch's build, visibility "
                              "variables, HSA_OVERRIDE_GFX_VERSION and hard-coded device indices in PATH.")
    p.add_argument("path", nargs="?", default=".", help="project to scan for hard-coded device indices (default: .)")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.add_argument("--no-torch", action="store_true", help="skip the PyTorch check (it imports torch in a subprocess)")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from hipport.engine.toolchain.detect import detect
    from hipport.engine.toolchain.doctor import run_checks
    from hipport.tui.cli import CliError

    root = Path(args.path)
    if not root.exists():
        raise CliError(f"no such file or directory: {args.path}")
    det = detect(torch=not args.no_torch)
    checks = run_checks(det, root)
    if args.json:
        print(json.dumps([c.__dict__ for c in checks], indent=2))
    else:
        width = max(len(c.name) for c in checks)
        for c in checks:
            print(f"[{_MARK[c.status]}] {c.name:<{width}}  {c.message}")
            if c.fix and c.status != "pass":
                print(f"       {'':<{width}}  fix: {c.fix}")
    return 1 if any(c.status == "fail" for c in checks) else 0
