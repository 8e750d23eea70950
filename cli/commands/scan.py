"""`hipport scan PATH... [--format text|json]`: what would not translate, per file, with statistics.

The counterpart of hipify-perl's `-examine`: nothing is written. Every report (unsupported,
needs-newer-rocm, deprecated, unknown, manual, python, info) is listed as file:line:col, followed by
per-file statistics (converted references per API family, unconverted references, lines) and totals.
The JSON schema ("hipport.scan/2"; /1 named a report's HIP name "hip") is documented in docs/translate.md and kept stable.
JSON and SARIF paths are relative to the repository root (the git work tree holding the first PATH, else the
current folder; SARIF's %SRCROOT%); text shows them relative to the current folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from hipport.cli.commands.convert import add_translate_options, cli_settings, translate_options
from hipport.cli.main import CliError, add_format_option


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("scan", help="list what would not translate, with per-file statistics",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH", help="CUDA/C++/Python files or folders")
    add_format_option(p, sorted([*FORMATS, "sarif"]),
                      "output format (default: text; sarif: SARIF 2.1.0 with warp findings)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report here instead of stdout (atomically)")
    add_translate_options(p)
    from hipport.cli.commands._warp import add_warp_options  # `--warp`: engine/warp findings

    add_warp_options(p, fixes=False)
    p.set_defaults(func=handle)


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """The scan document (engine/api.scan_document) for the parsed arguments."""
    from hipport.engine.api import ApiError, scan_document

    try:
        return scan_document(args.paths, translate_options(args), args.jobs)
    except ApiError as e:
        raise CliError(str(e)) from None


def emit_json(doc: dict[str, Any], out: TextIO, root: Path | None = None) -> None:
    json.dump(doc, out, indent=2, sort_keys=False)
    out.write("\n")


def emit_text(doc: dict[str, Any], out: TextIO, root: Path | None = None) -> None:
    """hipify-perl -examine style: findings as file:line:col, then statistics per file and in total.
    `root`: what the document's paths are relative to (shown relative to the current folder)."""
    from hipport.engine.messages import one_line  # a file named `a\nb.cu` must not split its lines
    from hipport.engine.report import shown_path

    w = out.write

    def shown(f: dict[str, Any]) -> str:
        return shown_path(f["path"], root) if root is not None else str(f["path"])

    for f in doc["files"]:
        if f.get("error"):
            w(one_line(f"{shown(f)}: error: {f['error']}") + "\n")
            continue
        for r in f["reports"]:
            w(one_line(f"{shown(f)}:{r['line']}:{r['col']}: {r['kind']}: {r['message']}") + "\n")
    for f in doc["files"]:
        if f.get("error"):
            continue
        s = f["stats"]
        w(f"\n[HIPPORT] info: file '{one_line(shown(f))}' statistics (mode: {f['mode']}):\n")
        w(f"  CONVERTED refs count: {s['converted']}\n")
        w(f"  UNCONVERTED refs count: {s['unconverted']}\n")
        w(f"  CONVERSION %: {s['conversion_percent']}\n")
        w(f"  REPLACED bytes: {s['replaced_bytes']}\n")
        w(f"  TOTAL bytes: {s['bytes']}\n")
        w(f"  CHANGED lines of code: {s['changed_lines']}\n")
        w(f"  TOTAL lines of code: {s['lines']}\n")
        if s["families"]:
            w("  CONVERTED refs by API family: "
              + ", ".join(f"{k}: {v}" for k, v in sorted(s["families"].items())) + "\n")
        if s["reports"]:
            w("  REPORTS by kind: " + ", ".join(f"{k}: {v}" for k, v in sorted(s["reports"].items())) + "\n")
    t = doc["totals"]
    w(f"\n[HIPPORT] info: TOTAL statistics (ROCm {doc['rocm']}, mode: {doc['mode']}):\n")
    w(f"  FILES: {t['files']} ({t['errors']} with errors)\n")
    w(f"  CONVERTED refs count: {t['converted']}\n")
    w(f"  UNCONVERTED refs count: {t['unconverted']}\n")
    w(f"  TOTAL lines of code: {t['lines']}\n")
    if t["families"]:
        w("  CONVERTED refs by API family: " + ", ".join(f"{k}: {v}" for k, v in sorted(t["families"].items())) + "\n")
    if t["reports"]:
        w("  REPORTS by kind: " + ", ".join(f"{k}: {v}" for k, v in sorted(t["reports"].items())) + "\n")


# Output formats by name; another format (e.g. SARIF) is one more entry here.
FORMATS: dict[str, Callable[[dict[str, Any], TextIO, Path | None], None]] = {"text": emit_text, "json": emit_json}


def handle(args: argparse.Namespace) -> int:
    if args.warp or args.format == "sarif":
        from hipport.cli.commands._warp import warp_scan

        return warp_scan(args, cli_settings(args))
    from hipport.engine.report import source_root

    doc = collect(args)
    emit = FORMATS[args.format]
    root = source_root(args.paths)
    if args.output:
        import io

        from hipport.engine.fsutil import WriteError, atomic_write

        buf = io.StringIO()
        emit(doc, buf, root)
        try:
            atomic_write(args.output, buf.getvalue().encode("utf-8"))
        except WriteError as e:
            raise CliError(str(e)) from None
    else:
        emit(doc, sys.stdout, root)
    return 1 if doc["totals"]["errors"] else 0
