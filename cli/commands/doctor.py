"""`hipport doctor [PATH] [--format json]`: check what breaks first runs on ROCm machines.

Each check says pass/warn/fail and the fix; the device-ordinals check lists every hard-coded device
index as file:line (all of them in JSON, the first ones in text). Exit status 1 when a check fails, else 0.

Which sources are scanned for hard-coded device indices: PATH when given (a folder or one file). Without
PATH, the current folder, only when it is a project by the rule the app opens folders with
(engine/project/root.py: inside a git work tree, or at most 300 source files, never / or the home folder);
otherwise nothing is scanned and the check says why. Only the sources a review covers are read (no build
outputs, hidden or tool folders), at most 5,000 files.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

_MARK = {"pass": "ok  ", "warn": "WARN", "fail": "FAIL", "info": "info"}
SHOWN_PLACES = 10  # places listed in text; --format json lists them all


def register(subparsers: argparse._SubParsersAction) -> None:
    from hipport.cli.main import add_format_option

    p = subparsers.add_parser("doctor", help="check the ROCm/GPU setup for first-run problems",
                              description="Check ROCm, device access, groups, PyTorch's build, visibility "
                              "variables, HSA_OVERRIDE_GFX_VERSION and hard-coded device indices in PATH.")
    p.add_argument("path", nargs="?", default=None,
                   help="project to scan for hard-coded device indices (default: the current folder, when it is "
                   "a project: in a git work tree or with at most 300 source files; never / or the home folder)")
    add_format_option(p)
    p.add_argument("--no-torch", action="store_true", help="skip the PyTorch check (it imports torch in a subprocess)")
    p.set_defaults(func=handle)


def default_root() -> tuple[Path | None, str]:
    """The folder scanned without PATH: the current one when it is a project, else None and why not."""
    from hipport.engine.project.root import check_root

    check = check_root(Path.cwd())
    if check.verdict == "open":
        return check.root, ""
    why = check.reason.split(":")[0] if check.verdict == "refuse" else (
        f"{check.root} is not in a git work tree and holds more than 300 source files")
    return None, f"not scanned: {why}; `hipport doctor PATH` scans a project"


def handle(args: argparse.Namespace) -> int:
    from hipport.cli.main import CliError
    from hipport.engine.toolchain.detect import detect
    from hipport.engine.toolchain.doctor import run_checks

    skipped = ""
    if args.path is None:
        root, skipped = default_root()
    else:
        root = Path(args.path)
        if not root.exists():
            raise CliError(f"no such file or directory: {args.path}")
    det = detect(torch=not args.no_torch)
    checks = run_checks(det, root, skipped=skipped)
    if args.format == "json":
        print(json.dumps([{**c.__dict__, "places": list(c.places)} for c in checks], indent=2))
    else:
        width = max(len(c.name) for c in checks)
        for c in checks:
            print(f"[{_MARK[c.status]}] {c.name:<{width}}  {c.message}")
            for place in c.places[:SHOWN_PLACES]:
                print(f"       {'':<{width}}  {place}")
            if len(c.places) > SHOWN_PLACES:
                print(f"       {'':<{width}}  … and {len(c.places) - SHOWN_PLACES} more (--format json lists all)")
            if c.fix and c.status != "pass":
                print(f"       {'':<{width}}  fix: {c.fix}")
    return 1 if any(c.status == "fail" for c in checks) else 0
