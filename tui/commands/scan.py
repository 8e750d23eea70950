"""`hipport scan PATH... [--format text|json]`: what would not translate, per file, with statistics.

The counterpart of hipify-perl's `-examine`: nothing is written. Every report (unsupported,
needs-newer-rocm, deprecated, unknown, manual, python, info) is listed as file:line:col, followed by
per-file statistics (converted references per API family, unconverted references, lines) and totals.
The JSON schema ("hipport.scan/1") is documented in docs/translate.md and kept stable.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from hipport.tui.cli import CliError
from hipport.tui.commands.convert import add_translate_options, translate_options

SCHEMA = "hipport.scan/1"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("scan", help="list what would not translate, with per-file statistics",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH", help="CUDA/C++/Python files or folders")
    p.add_argument("--format", choices=sorted([*FORMATS, "sarif"]), default="text",
                   help="output format (default: text; sarif: SARIF 2.1.0 with warp findings)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report here instead of stdout (atomically)")
    add_translate_options(p)
    from hipport.tui.commands._warp import add_warp_options  # `--warp`: engine/warp findings

    add_warp_options(p, fixes=False)
    p.set_defaults(func=handle)


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """Translate (without writing) every file and gather the scan document (the JSON shape)."""
    from hipport.engine.translate_batch import Job, port_files
    from hipport.engine.walk import WalkError, walk

    options = translate_options(args)
    try:
        items = walk(args.paths)
    except WalkError as e:
        raise CliError(str(e)) from None
    if not items:
        raise CliError("no CUDA, C++ or Python files under " + ", ".join(args.paths))
    jobs = [Job(str(it.path), it.rel, options, render=False) for it in items]
    files: list[dict[str, Any]] = []
    totals: dict[str, Any] = {"files": 0, "errors": 0, "lines": 0, "converted": 0, "unconverted": 0,
                              "reports": {}, "families": {}}
    modes: set[str] = set()
    for res in port_files(jobs, args.jobs):
        entry: dict[str, Any] = {"path": res.path, "language": res.language, "error": res.error}
        totals["files"] += 1
        if res.error:
            totals["errors"] += 1
            files.append(entry)
            continue
        modes.add(res.mode)
        families = {k.split(".", 1)[1]: v for k, v in sorted(res.stats.items()) if k.startswith("family.")}
        converted = res.stats.get("converted", 0)
        unconverted = res.stats.get("unconverted", 0)
        lines = res.stats.get("lines", 0)
        by_kind: dict[str, int] = {}
        for r in res.reports:
            by_kind[r["kind"]] = by_kind.get(r["kind"], 0) + 1
        entry.update({
            "mode": res.mode,
            "stats": {
                "lines": lines,
                "changed_lines": res.changed_lines,
                "bytes": res.bytes_in,
                "replaced_bytes": res.replaced_bytes,
                "converted": converted,
                "unconverted": unconverted,
                "conversion_percent": round(100.0 * converted / (converted + unconverted), 1)
                if converted + unconverted else 100.0,
                "families": families,
                "edits": {k: res.stats.get(k, 0) for k in ("api", "include", "launch", "preproc")},
                "reports": by_kind,
            },
            "reports": res.reports,
        })
        files.append(entry)
        totals["lines"] += lines
        totals["converted"] += converted
        totals["unconverted"] += unconverted
        for k, v in by_kind.items():
            totals["reports"][k] = totals["reports"].get(k, 0) + v
        for k, v in families.items():
            totals["families"][k] = totals["families"].get(k, 0) + v
    from hipport.engine.mapping import load

    return {
        "schema": SCHEMA,
        "tool": {"name": "hipport", "version": _version()},
        "rocm": ".".join(map(str, options.rocm)),
        "mode": "/".join(sorted(modes)) or "-",
        "mapping_commit": load().source_commit,
        "files": files,
        "totals": totals,
    }


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("hipport")
    except Exception:
        return "0.1.0"


def emit_json(doc: dict[str, Any], out: TextIO) -> None:
    json.dump(doc, out, indent=2, sort_keys=False)
    out.write("\n")


def emit_text(doc: dict[str, Any], out: TextIO) -> None:
    """hipify-perl -examine style: findings as file:line:col, then statistics per file and in total."""
    w = out.write
    for f in doc["files"]:
        if f.get("error"):
            w(f"{f['path']}: error: {f['error']}\n")
            continue
        for r in f["reports"]:
            w(f"{f['path']}:{r['line']}:{r['col']}: {r['kind']}: {r['message']}\n")
    for f in doc["files"]:
        if f.get("error"):
            continue
        s = f["stats"]
        w(f"\n[HIPPORT] info: file '{f['path']}' statistics (mode: {f['mode']}):\n")
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
FORMATS: dict[str, Callable[[dict[str, Any], TextIO], None]] = {"text": emit_text, "json": emit_json}


def handle(args: argparse.Namespace) -> int:
    if args.warp or args.format == "sarif":
        from hipport.tui.commands._warp import warp_scan

        return warp_scan(args, translate_options(args))
    doc = collect(args)
    emit = FORMATS[args.format]
    if args.output:
        import io

        from hipport.engine.fsutil import WriteError, atomic_write

        buf = io.StringIO()
        emit(doc, buf)
        try:
            atomic_write(args.output, buf.getvalue().encode("utf-8"))
        except WriteError as e:
            raise CliError(str(e)) from None
    else:
        emit(doc, sys.stdout)
    return 1 if doc["totals"]["errors"] else 0
