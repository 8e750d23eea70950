"""Warp-width options shared by `convert` and `scan`, and `scan --warp` itself (not a command)."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from hipport.tui.cli import CliError


def add_warp_options(p: argparse.ArgumentParser, fixes: bool) -> None:
    g = p.add_argument_group("warp-width analysis (wave64)")
    if fixes:
        g.add_argument("--fixes", default="none", metavar="all|none|RULE,...",
                       help="apply warp-width fixes: all, none (default) or rules such as W64-01,W64-06 "
                            "(whole fix groups are applied; groups that need review are held unless "
                            "--fixes-review)")
        g.add_argument("--fixes-review", action="store_true",
                       help="with --fixes: also apply fix groups of tier 'review' (a use of the warp width "
                            "the analysis could not classify; read each before building)")
    else:
        g.add_argument("--warp", action="store_true",
                       help="report warp-width findings (W64-NN) besides translation reports")
    g.add_argument("--fix-style", choices=("wave64", "portable"), default="wave64",
                   help="wave64: MI-series only (64, 64-bit masks); portable: NVIDIA 32, RDNA 32 and CDNA 64")
    g.add_argument("--arch", dest="archs", action="append", default=[], metavar="GFX",
                   help="target architecture of the fat binary, repeatable (default gfx942); with any "
                        "gfx10/11/12 target no wave64 fix is offered")


def warp_settings(args: argparse.Namespace, rocm: tuple[int, int]) -> tuple[Any, Any, Any]:
    """(fixes, style, WarpOptions) for pipeline.port from the parsed options."""
    from hipport.engine.model import FixStyle

    raw = getattr(args, "fixes", "none")
    if raw == "none" and not args.archs and not getattr(args, "warp", False) \
            and getattr(args, "format", "") != "sarif":
        return "none", FixStyle(args.fix_style), None  # keep a plain convert free of the warp imports
    from hipport.engine.warp import WarpOptions
    from hipport.engine.warp.rules import RULES

    fixes: Any
    if raw in ("none", "all"):
        fixes = raw
    else:
        from hipport.tui.commands.explain import normalize

        wanted = set()
        for part in raw.split(","):
            rid = normalize(part) if part.strip() else None
            if rid is None or rid not in RULES:
                raise CliError(f"--fixes: unknown rule {part.strip()!r} (all, none or W64-01..W64-23)")
            wanted.add(rid)
        fixes = wanted
    # repeatable and comma-separated (`--arch gfx942,gfx1100`), target-ID features allowed (gfx90a:xnack-)
    archs = tuple(a.strip() for raw_arch in args.archs for a in raw_arch.split(",") if a.strip()) or ("gfx942",)
    for a in archs:
        if not re.fullmatch(r"gfx[0-9a-f]+(:[a-z0-9_-]+[+-])*", a.lower()):
            raise CliError(f"--arch: {a!r} is not a gfx target (e.g. gfx942, gfx90a, gfx1100)")
    return fixes, FixStyle(args.fix_style), WarpOptions(rocm=rocm, archs=archs)


def warp_scan(args: argparse.Namespace, options: Any) -> int:
    """`hipport scan --warp` / `--format sarif`: warp findings and translation reports per file."""
    from hipport.engine.report import FileReport, render
    from hipport.engine.source import SourceError, read_source
    from hipport.engine.translate import translate
    from hipport.engine.walk import WalkError, walk
    from hipport.engine.warp import analyze

    _fixes, style, wopts = warp_settings(args, options.rocm)
    try:
        items = walk(args.paths)
    except WalkError as e:
        raise CliError(str(e)) from None
    if not items:
        raise CliError("no CUDA, C++ or Python files under " + ", ".join(args.paths))
    files: list[FileReport] = []
    errors = 0
    for it in items:
        try:
            src = read_source(it.path)
        except SourceError as e:
            errors += 1
            from hipport.engine.source import Source

            files.append(FileReport(it.rel if it.root is not None else str(it.path), Source(""), error=str(e)))
            continue
        tr = translate(src, options)
        an = analyze(src, tr, wopts) if (args.warp or args.format == "sarif") else None
        files.append(FileReport(it.rel if it.root is not None else str(it.path), src, an, tr.reports))
    text = render(files, args.format, fix_style=style)
    if args.output:
        from hipport.engine.fsutil import WriteError, atomic_write

        try:
            atomic_write(args.output, text.encode("utf-8"))
        except WriteError as e:
            raise CliError(str(e)) from None
    else:
        sys.stdout.write(text)
    return 1 if errors else 0
