#!/usr/bin/env python3
"""Generate engine/mapping/apis.json from AMD's HIPIFY tables (data/hipify-tables: ROCm/HIPIFY docs/tables
at the commit in its SOURCE-COMMIT, MIT, LICENSE.txt beside them).

Table format (read from ROCm/HIPIFY src/CUDA2HIP_Doc.cpp, which writes these files):
  |CUDA|A|D|C|R|HIP|A|D|C|R|E|[ROC or MIOPEN|A|D|C|R|E|]
  CUDA A/D/C/R: CUDA version that added / deprecated / changed / removed the name.
  HIP (ROC, MIOPEN) A/D/C/R/E: HIP (= ROCm) version that added / deprecated / changed / removed
  the replacement, and the version since which it is experimental. An empty HIP cell means HIPIFY
  marks the name HIP_UNSUPPORTED; its versions are then empty too.
  A section whose title contains "type" lists types, enums, enumerators and defines ("type");
  the others list functions ("function") - the same test HIPIFY uses (isTypeSection).

The joint tables (HIP and ROC / HIP and MIOPEN) are the source of the rows; the HIP-only and
ROC/MIOPEN-only tables of the same library are parsed too and must agree with them, row for row.

Usage: scripts/gen_mapping.py [--tables DIR] [--out FILE] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

GENERATOR_VERSION = "gen_mapping 1"
REPO = Path(__file__).resolve().parent.parent
DEFAULT_TABLES = REPO / "data" / "hipify-tables"
DEFAULT_OUT = REPO / "engine" / "mapping" / "apis.json"

sys.path.insert(0, str(REPO))
from engine.mapping import FAMILIES  # noqa: E402 (the one family order: lookup priority, first wins)

# (family, main table, HIP-only table to cross-check, second-library-only table to cross-check)
TABLES: tuple[tuple[str, str, str, str], ...] = (
    ("runtime", "CUDA_Runtime_API_functions_supported_by_HIP.md", "", ""),
    ("driver", "CUDA_Driver_API_functions_supported_by_HIP.md", "", ""),
    ("device", "CUDA_Device_API_supported_by_HIP.md", "", ""),
    ("complex", "cuComplex_API_supported_by_HIP.md", "", ""),
    ("rtc", "CUDA_RTC_API_supported_by_HIP.md", "", ""),
    ("blas", "CUBLAS_API_supported_by_HIP_and_ROC.md", "CUBLAS_API_supported_by_HIP.md",
     "CUBLAS_API_supported_by_ROC.md"),
    ("rand", "CURAND_API_supported_by_HIP_and_ROC.md", "CURAND_API_supported_by_HIP.md",
     "CURAND_API_supported_by_ROC.md"),
    ("fft", "CUFFT_API_supported_by_HIP.md", "", ""),
    ("sparse", "CUSPARSE_API_supported_by_HIP_and_ROC.md", "CUSPARSE_API_supported_by_HIP.md",
     "CUSPARSE_API_supported_by_ROC.md"),
    ("solver", "CUSOLVER_API_supported_by_HIP_and_ROC.md", "CUSOLVER_API_supported_by_HIP.md",
     "CUSOLVER_API_supported_by_ROC.md"),
    ("dnn", "CUDNN_API_supported_by_HIP_and_MIOPEN.md", "CUDNN_API_supported_by_HIP.md",
     "CUDNN_API_supported_by_MIOPEN.md"),
    ("cub", "CUB_API_supported_by_HIP.md", "", ""),
)

# Namespaces HIPIFY renames wholesale (CUDA2HIP_CUB_API_types.cpp: CUDA_CUB_NAMESPACE_MAP
# {"cub" -> "hipcub"}); the tables list only CUB's macros, so a qualified name such as
# cub::BlockReduce resolves through this map at lookup time.
NAMESPACES: tuple[tuple[str, str, str], ...] = (("cub", "hipcub", "cub"),)

COLUMNS = ("cuda", "hip", "roc", "family", "kind", "status", "section",
           "cuda_added", "cuda_deprecated", "cuda_changed", "cuda_removed",
           "hip_added", "hip_deprecated", "hip_changed", "hip_removed", "experimental",
           "roc_added", "roc_deprecated", "roc_changed", "roc_removed", "roc_experimental")
SEP = "|"  # column cell separator in apis.json (never part of a C identifier or version)
INDEXED = {"family", "kind", "status", "section"}  # stored as indexes into a list of values
KINDS = ("function", "type", "namespace")
STATUSES = ("supported", "unsupported", "deprecated", "removed")

_NAME = re.compile(r"^`([^`]+)`$")
_VERSION = re.compile(r"^\d+(\.\d+)*$")


class TableError(Exception):
    pass


@dataclass(frozen=True)
class Row:
    cuda: str
    section: str
    cells: dict[str, str]  # "HIP", "HIP.A", ..., "CUDA.A", ... -> cell text


def _cell_name(text: str, where: str) -> str:
    text = text.strip()
    if not text:
        return ""
    m = _NAME.match(text)
    if not m:
        raise TableError(f"{where}: expected a `name` cell, got {text!r}")
    return m.group(1)


def _cell_versions(text: str, where: str) -> str:
    text = text.strip()
    parts = [p.strip() for p in text.split(",")] if text else []
    for p in parts:
        if not _VERSION.match(p):
            raise TableError(f"{where}: expected a version, got {text!r}")
    return ",".join(parts)


def parse_table(path: Path) -> list[Row]:
    rows: list[Row] = []
    section = ""
    header: list[str] | None = None
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{lineno}"
        if line.startswith("## "):
            section = re.sub(r"^\d+\.\s*", "", line[3:].strip().strip("*").strip())
            header = None
            continue
        if not line.startswith("|"):
            continue
        cells = line.strip().strip("|").split("|")
        if cells[0].startswith("**"):
            # Header: CUDA A D C R <LIB> A D C R E [<LIB2> A D C R E]; qualify A/D/... by library.
            header = []
            lib = ""
            for c in cells:
                name = c.strip().strip("*")
                if len(name) == 1:
                    header.append(f"{lib}.{name}")
                else:
                    lib = name
                    header.append(lib)
            if header[0] != "CUDA":
                raise TableError(f"{where}: header does not start with CUDA")
            continue
        if cells[0].startswith(":"):
            continue
        if header is None or len(cells) != len(header):
            raise TableError(f"{where}: row has {len(cells)} cells, header {header}")
        values: dict[str, str] = {}
        for key, c in zip(header, cells, strict=True):
            values[key] = _cell_versions(c, where) if "." in key else _cell_name(c, where)
        if not values["CUDA"]:
            raise TableError(f"{where}: empty CUDA name")
        rows.append(Row(values["CUDA"], section, values))
    if not rows:
        raise TableError(f"{path.name}: no rows")
    return rows


def _family_for(family: str, section: str) -> str:
    # cuBLASLt rows live in the cuBLAS tables, in their own sections.
    if family == "blas" and "blaslt" in section.lower():
        return "blaslt"
    return family


def _second_lib(row: Row) -> str:
    for lib in ("ROC", "MIOPEN"):
        if lib in row.cells:
            return lib
    return ""


def _cross_check(main: list[Row], other: list[Row], lib: str, table: str) -> None:
    """The single-library table must list the same names, sections and cells as the joint one."""
    if [(r.cuda, r.section) for r in main] != [(r.cuda, r.section) for r in other]:
        raise TableError(f"{table}: names/sections differ from the joint table")
    src = _second_lib(other[0]) if lib != "HIP" else "HIP"
    for a, b in zip(main, other, strict=True):
        for suffix in ("", ".A", ".D", ".C", ".R", ".E"):
            if a.cells.get(lib + suffix, "") != b.cells.get(src + suffix, ""):
                raise TableError(f"{table}: {a.cuda} {lib}{suffix} differs from the joint table")


def _status(name: str, deprecated: str, removed: str) -> str:
    if not name:
        return "unsupported"
    if removed:
        return "removed"
    if deprecated:
        return "deprecated"
    return "supported"


def build_records(tables: Path) -> tuple[list[dict[str, str]], list[str]]:
    records: list[dict[str, str]] = []
    sections: list[str] = []
    for family, main_name, hip_only, lib_only in TABLES:
        rows = parse_table(tables / main_name)
        if hip_only:
            _cross_check(rows, parse_table(tables / hip_only), "HIP", hip_only)
        if lib_only:
            _cross_check(rows, parse_table(tables / lib_only), _second_lib(rows[0]), lib_only)
        seen: set[str] = set()
        for r in rows:
            if r.cuda in seen:
                raise TableError(f"{main_name}: {r.cuda} listed twice")
            seen.add(r.cuda)
            lib = _second_lib(r)
            c = r.cells
            if r.section not in sections:
                sections.append(r.section)
            records.append({
                "cuda": r.cuda, "hip": c["HIP"], "roc": c.get(lib, ""),
                "family": _family_for(family, r.section),
                "kind": "type" if "type" in r.section.lower() else "function",
                "status": _status(c["HIP"], c["HIP.D"], c["HIP.R"]),
                "section": r.section,
                "cuda_added": c["CUDA.A"], "cuda_deprecated": c["CUDA.D"],
                "cuda_changed": c["CUDA.C"], "cuda_removed": c["CUDA.R"],
                "hip_added": c["HIP.A"], "hip_deprecated": c["HIP.D"], "hip_changed": c["HIP.C"],
                "hip_removed": c["HIP.R"], "experimental": c["HIP.E"],
                "roc_added": c.get(lib + ".A", ""), "roc_deprecated": c.get(lib + ".D", ""),
                "roc_changed": c.get(lib + ".C", ""), "roc_removed": c.get(lib + ".R", ""),
                "roc_experimental": c.get(lib + ".E", ""),
            })
    section = "Namespaces (CUDA2HIP_*_API_types.cpp)"
    sections.append(section)
    for cuda, hip, family in NAMESPACES:
        rec = dict.fromkeys(COLUMNS, "")
        rec.update(cuda=cuda, hip=hip, family=family, kind="namespace", status="supported",
                   section=section)
        records.append(rec)
    return records, sections


def read_headers(tables: Path) -> list[list[str]]:
    rows: list[list[str]] = []
    lines = [ln for ln in (tables / "headers.tsv").read_text(encoding="utf-8").splitlines()
             if ln.strip() and not ln.startswith("#")]
    if lines[0].split("\t") != ["cuda_header", "hip_header", "roc_header", "kind", "api", "status"]:
        raise TableError(f"headers.tsv: unexpected columns {lines[0]!r}")
    for ln in lines[1:]:
        cells = ln.split("\t")
        if len(cells) != 6 or not cells[0]:
            raise TableError(f"headers.tsv: bad row {ln!r}")
        cells[5] = cells[5].lower()
        rows.append(cells)
    return rows


def build(tables: Path) -> bytes:
    """The whole generated file: deterministic bytes for a given set of tables."""
    records, sections = build_records(tables)
    source_commit = (tables / "SOURCE-COMMIT").read_text(encoding="utf-8").split()[0]
    values = {"family": list(FAMILIES), "kind": list(KINDS), "status": list(STATUSES),
              "section": sections}
    # One "|"-joined string per column: json parses a few long escape-free strings far faster
    # than 190k short ones, and the loader splits a column only when it is first needed.
    columns: dict[str, str] = {}
    for col in COLUMNS:
        if col in INDEXED:
            cells = [str(values[col].index(r[col])) for r in records]
        else:
            cells = [r[col] for r in records]
        bad = next((c for c in cells if SEP in c or "\\" in c or '"' in c), None)
        if bad is not None:
            raise TableError(f"column {col}: cell {bad!r} holds a separator or JSON escape")
        columns[col] = SEP.join(cells)
    doc = {
        "format": 3,
        "generator": GENERATOR_VERSION,
        "source_commit": source_commit,
        "source": "ROCm/HIPIFY docs/tables (MIT), see SOURCE-COMMIT",
        "values": values,
        "sep": SEP,
        "namespaces": {r["cuda"]: i for i, r in enumerate(records) if r["kind"] == "namespace"},
        "columns": columns,
        "headers": read_headers(tables),
    }
    return (json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=Path, default=DEFAULT_TABLES)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="exit 1 if --out differs from a fresh build")
    args = ap.parse_args(argv)
    try:
        data = build(args.tables)
    except (OSError, TableError) as e:
        print(f"gen_mapping: {e}", file=sys.stderr)
        return 2
    if args.check:
        same = args.out.exists() and args.out.read_bytes() == data
        print(f"{args.out}: {'up to date' if same else 'differs from the tables'}")
        return 0 if same else 1
    from engine.fsutil import atomic_write  # the repo's own writer: temp + fsync + rename

    atomic_write(args.out, data)
    print(f"wrote {args.out} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
