"""Warp-width options shared by `convert` and `scan`, and `scan --warp` itself (not a command)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hipport.cli.main import CliError


def add_warp_options(p: argparse.ArgumentParser, fixes: bool) -> None:
    g = p.add_argument_group("warp-width analysis (wave64)")
    if fixes:
        g.add_argument("--fixes", default="all", metavar="all|none|RULE,...",
                       help="warp code: all (default: ported as logical 32-lane warps, right on every GPU), "
                            "none (the plain hipify translation, warp code untouched), or rules such as "
                            "W64-01,W64-06 (with a 64-wide --fix-style: only the groups of those rules are "
                            "rewritten 64-wide)")
        g.add_argument("--fixes-review", action="store_true",
                       help="with a 64-wide --fix-style: also rewrite fix groups of tier 'review' (a use of the "
                            "warp width the analysis could not classify; read each before building)")
    else:
        g.add_argument("--warp", action="store_true",
                       help="report warp-width findings (W64-NN) besides translation reports")
    g.add_argument("--fix-style", choices=("logical", "wave64", "portable"), default=None,
                   help="logical (default): warp code runs as logical 32-lane warps on every GPU; wave64 "
                        "(MI-series only) or portable (NVIDIA 32, RDNA 32, CDNA 64): also rewrite the SAFE "
                        "64-wide fix groups to use the whole wave (the rest stays logical). Default: "
                        "[tool.hipport] fix_style, else logical")
    g.add_argument("--arch", dest="archs", action="append", default=[], metavar="GFX",
                   help="target architecture of the fat binary, repeatable or comma-separated (default: "
                        "[tool.hipport] archs, else gfx942); with any gfx10/11/12 target no wave64 fix is offered")


def warp_settings(args: argparse.Namespace, cfg: Any) -> tuple[Any, Any, Any]:
    """(fixes, 64-wide style or None, WarpOptions or None) for pipeline.port from the parsed options and
    settings. A style of None is the default port: logical 32-lane warps only."""
    from hipport.engine.model import FixStyle

    raw = getattr(args, "fixes", "all")
    given = getattr(args, "fix_style", None)
    style: Any = (None if given == "logical" else FixStyle(given) if given
                  else cfg.fix_style if getattr(cfg, "wide_fixes", False) else None)
    if raw == "none":
        return "none", None, None
    from hipport.engine.api import warp_options
    from hipport.engine.warp.rules import RULES

    fixes: Any
    if raw == "all":
        fixes = raw
    else:
        from hipport.cli.commands.explain import normalize

        wanted = set()
        for part in raw.split(","):
            rid = normalize(part) if part.strip() else None
            if rid is None or rid not in RULES:
                raise CliError(f"--fixes: unknown rule {part.strip()!r} (all, none or {min(RULES)}..{max(RULES)})")
            wanted.add(rid)
        fixes = wanted
    return fixes, style, warp_options(cfg)


def warp_scan(args: argparse.Namespace, cfg: Any) -> int:
    """`hipport scan --warp` / `--format sarif`: warp findings and translation reports per file."""
    from hipport.engine.api import ApiError, translate_options, warp_scan
    from hipport.engine.report import render

    try:
        scan = warp_scan(args.paths, cfg, translate_options(cfg, output_mode="folder"),
                         findings=args.warp or args.format == "sarif")
    except ApiError as e:
        raise CliError(str(e)) from None
    text = render(scan.files, args.format, fix_style=scan.fix_style, root=scan.root)
    if args.output:
        from hipport.engine.fsutil import WriteError, atomic_write

        try:
            atomic_write(args.output, text.encode("utf-8"))
        except WriteError as e:
            raise CliError(str(e)) from None
    else:
        sys.stdout.write(text)
    return 1 if scan.errors else 0
