#!/usr/bin/env python3
"""HeCBench four-way proof of hipport's warp fixes (issue 9); helper of scripts/wave64_hecbench.sh.

    wave64_hecbench.py prepare OUTDIR [NAME...]   here (needs hipport): per benchmark, the CUDA original
                                                   and three ports (plain, --fixes all wave64, portable),
                                                   each flattened into one unit for the oracle
    wave64_hecbench.py judge NAME NATIVE_LOG NATIVE_RC LOG RC
                                                   prints PASS or FAIL <why> for one run
    wave64_hecbench.py table WORKDIR               the TSV table from the per-run verdict files
    wave64_hecbench.py markdown TSV                that table for a lab note, docs/lab/ (short verdicts, totals)

The benchmark list is scripts/wave64_hecbench.list (data). Only the standard library is used in
`judge` and `table`, so they run on the device machine's plain python3.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIST = HERE / "wave64_hecbench.list"
HECBENCH_COMMIT = "49175104c"
VARIANTS = ("logical", "safe64", "all64")
COLUMNS = ("native", "logical", "logical-native", "safe64", "all64")
# the hipport convert options of each port (the default port is logical 32-lane warps)
VARIANT_OPTIONS = {"logical": [], "safe64": ["--fix-style", "wave64"],
                   "all64": ["--fix-style", "wave64", "--fixes-review"]}
FAIL_RE = re.compile(r"FAIL|Mismatch|mismatch|Check failed|\bfailed\b|W64-ERROR")
TIMING_RE = re.compile(
    r"time|Time|TIME|\bms\b|\(s\)|\bsec|\bus\b|GB/s|GFLOP|throughput|Throughput|bandwidth|Bandwidth|"
    r"elapsed|Elapsed|[0-9]{2}:[0-9]{2}:[0-9]{2}"
)
NUM_RE = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)", re.IGNORECASE)
# Harness workarounds applied to the flattened oracle units only (never to hipport's outputs), each a
# gap outside the warp analysis that would stop a port from compiling before any warp code runs:
#   hip_math_constants.h  the oracle has no <hip/hip_math_constants.h>; CUDA's header and the HIP_* names
#                (wave64_hecbench_runtime.h) stand in for it.
#   <omp.h>      the oracle cannot pass -fopenmp; a unit that includes <omp.h> gets one-thread stubs.
HARNESS_FIXES = (
    (re.compile(r"^\s*#\s*include\s*<hip/hip_math_constants\.h>", re.M),
     "#include <math_constants.h>  /* harness: was hip/hip_math_constants.h */"),
)
OMP_STUBS = """
#if defined(_OMP_H) && !defined(_OPENMP)  /* harness: no -fopenmp under the oracle: one host thread */
extern "C" int omp_get_thread_num(void) __GOMP_NOTHROW { return 0; }
extern "C" int omp_get_num_threads(void) __GOMP_NOTHROW { return 1; }
#endif
"""
SOURCE_EXT = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".c", ".cc", ".inl")


@dataclass(frozen=True)
class Bench:
    name: str
    sources: tuple[str, ...]
    args: str
    judge: str
    flags: str
    setup: str
    why: str


def read_list(path: Path = LIST) -> list[Bench]:
    out = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        f = [x.strip() for x in line.split("|")]
        if len(f) != 7:
            raise SystemExit(f"{path}: 7 fields expected: {line}")
        out.append(Bench(f[0], tuple(f[1].split()), f[2], f[3], f[4], f[5], f[6]))
    return out


# ---------------------------------------------------------------------------------------------
# prepare (here)
# ---------------------------------------------------------------------------------------------
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
DEFINE_RE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)")


def flatten(root: Path, sources: tuple[str, ...]) -> str:
    """One translation unit for the oracle (run_wave64.sh takes one file and instruments the
    kernels it sees): the sources in order, each local #include "..." inlined at its first use
    (later uses dropped, as include guards would), with #line directives so messages name the
    original file and line."""
    seen: set[Path] = set()
    out: list[str] = ['#include "wave64_hecbench_runtime.h"  /* harness: HIP runtime names the oracle lacks */']
    defined: list[str] = []  # macros #defined in .cu/.cpp text of the current translation unit
    in_headers: set[str] = set()  # macros a header defines (kept: the header is not inlined again)

    def emit(path: Path) -> None:
        rel = path.relative_to(root).as_posix()
        out.append(f'#line 1 "{rel}"')
        for i, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            m = INCLUDE_RE.match(line)
            target = (path.parent / m.group(1)).resolve() if m else None
            if m and target is not None and not target.is_file():
                target = (root / m.group(1)).resolve()
            if m and target is not None and target.is_file() and root in target.parents:
                if target not in seen:
                    seen.add(target)
                    emit(target)
                out.append(f'#line {i + 1} "{rel}"')
                continue
            d = DEFINE_RE.match(line)
            if d and path.suffix in (".cu", ".cpp", ".cc", ".c"):
                defined.append(d.group(1))
            elif d:
                in_headers.add(d.group(1))
            out.append(line)

    for s in sources:
        p = (root / s).resolve()
        if p in seen:  # already inlined by an earlier source (split: main.cu includes verify.cu)
            continue
        seen.add(p)
        emit(p)
        # a macro a source file defines ends with its translation unit (hexciton: sigma_id)
        out.extend(f"#undef {m}" for m in dict.fromkeys(defined) if m not in in_headers)
        defined.clear()
    return "\n".join(out) + "\n"


def prepare(outdir: Path, names: list[str], hecbench: Path, hipport: str) -> int:
    benches = [b for b in read_list() if not names or b.name in names]
    outdir.mkdir(parents=True, exist_ok=True)
    shutil.copy(LIST, outdir / "bench.list")
    for script in ("wave64_hecbench.sh", "wave64_hecbench.py", "wave64_hecbench_runtime.h"):
        shutil.copy(HERE / script, outdir / script)
    bad = 0
    for b in benches:
        src = hecbench / "src" / f"{b.name}-cuda"
        dst = outdir / b.name
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(src, dst / "cuda")
        for v, opts in VARIANT_OPTIONS.items():
            r = subprocess.run([hipport, "convert", str(src), "-o", str(dst / v), "-q", *opts],
                               capture_output=True, text=True)
            (dst / f"{v}.convert.log").write_text(r.stdout + r.stderr)
            if r.returncode != 0:
                print(f"{b.name}: hipport convert ({v}) exit {r.returncode}: {r.stderr.strip()[:300]}")
                bad += 1
                continue
            # headers hipport did not write (none expected) come from the original
            for p in src.rglob("*"):
                q = dst / v / p.relative_to(src)
                if p.is_file() and p.suffix in SOURCE_EXT and not q.exists():
                    q.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(p, q)
            unit = flatten((dst / v).resolve(), b.sources)
            for pat, rep in HARNESS_FIXES:
                unit = pat.sub(rep, unit)
            if "<omp.h>" in unit:
                unit += OMP_STUBS
            (dst / f"{v}.hip").write_text(unit)
        print(f"{b.name}: prepared")
    return 1 if bad else 0


# ---------------------------------------------------------------------------------------------
# judge and table (device machine: standard library only)
# ---------------------------------------------------------------------------------------------
def _numbers_match(a: str, b: str, tol: float) -> bool:
    na, nb = NUM_RE.findall(a), NUM_RE.findall(b)
    if NUM_RE.sub("#", a).split() != NUM_RE.sub("#", b).split() or len(na) != len(nb):
        return False
    for x, y in zip(na, nb, strict=True):
        fx, fy = float(x), float(y)
        if fx != fx or fy != fy:  # nan
            if not (fx != fx and fy != fy):
                return False
            continue
        if abs(fx - fy) > tol * max(abs(fx), abs(fy)) + (1e-6 if tol else 0.0):
            return False
    return True


def _payload(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip() and not TIMING_RE.search(ln)]


def judge(bench: Bench, native: str, native_rc: int, out: str, rc: int) -> str:
    """Verdict of one run: PASS, or FAIL with the reason."""
    fail = FAIL_RE.search(out)
    if fail:
        line = next(ln for ln in out.splitlines() if FAIL_RE.search(ln))
        return f"FAIL {line.strip()[:120]}"
    if rc != 0:
        return f"FAIL exit {rc}"
    kind, _, arg = bench.judge.partition(":")
    if kind == "exit":
        return "PASS"
    if kind == "pass":
        return "PASS" if re.search(arg, out) else "FAIL no '" + arg + "' line"
    if kind == "compare":
        if native_rc != 0:
            return "FAIL the CUDA original failed"
        tol = float(arg) if arg else 1e-3
        a, b = _payload(native), _payload(out)
        if not a:
            return "FAIL the CUDA original printed no result to compare"
        if len(a) != len(b):
            return f"FAIL {len(b)} result lines, CUDA printed {len(a)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if not _numbers_match(x, y, tol):
                return f"FAIL differs from CUDA at result line {i + 1}: {y.strip()[:80]!r} vs {x.strip()[:80]!r}"
        return "PASS"
    return f"FAIL unknown judge {bench.judge}"


def table(work: Path) -> str:
    """TSV: benchmark, then one verdict per column (PASS, FAIL, COMPILE-ERROR, HANG, CRASH, -)."""
    rows = ["benchmark\t" + "\t".join(COLUMNS)]
    for b in read_list(work / "bench.list"):
        cells = []
        for c in COLUMNS:
            f = work / "res" / f"{b.name}.{c}"
            cells.append(f.read_text().strip().replace("\t", " ") if f.exists() else "-")
        rows.append(b.name + "\t" + "\t".join(cells))
    return "\n".join(rows) + "\n"


def short(cell: str) -> str:
    """A verdict cell for docs: the verdict word and, for failures, a few words of why."""
    if cell.startswith("COMPILE-ERROR"):
        if "64-bit integer" in cell:
            return "COMPILE-ERROR (32-bit mask)"
        m = re.search(r'identifier "(\w+)" is undefined', cell)
        if m:
            return f"COMPILE-ERROR ({m.group(1)} undefined)"
        if "__ffsll" in cell:
            return "COMPILE-ERROR (__ffsll ambiguous)"
        if "expected an identifier" in cell or "may not be initialized" in cell:
            return "COMPILE-ERROR (declarator rewritten)"
        return "COMPILE-ERROR"
    if cell.startswith("FAIL"):
        if "differs" in cell or "result lines" in cell:
            return "FAIL (output differs from CUDA)"
        if "illegal memory access" in cell:
            return "FAIL (illegal memory access)"
        if "from device failed" in cell:
            return "FAIL (kernel error)"
        return "FAIL"
    return cell.split()[0] if cell else "-"


def markdown(tsv: Path) -> str:
    """The table with short verdicts, totals and the issue's targets."""
    rows = [ln.split("\t") for ln in tsv.read_text().splitlines() if ln and not ln.startswith("#")][1:]
    titles = ["CUDA native", "logical (default) / oracle", "logical / HIP on NVIDIA", "SAFE 64-wide / oracle",
              "all 64-wide / oracle"]
    ncol = len(rows[0]) - 1 if rows else len(titles)
    out = ["| benchmark | " + " | ".join(titles[:ncol]) + " |", "|---" * (ncol + 1) + "|"]
    out += ["| " + " | ".join([r[0]] + [short(c) for c in r[1:]]) + " |" for r in rows]
    n = len(rows)
    word = "BUILD-OK" if any(c.startswith("BUILD-OK") for r in rows for c in r[1:]) else "PASS"
    passes = [sum(1 for r in rows if r[i].startswith(word)) for i in range(1, ncol + 1)]
    out.append(f"| **{word}** | " + " | ".join(f"**{p}/{n}**" for p in passes) + " |")
    ok = lambda r, i: len(r) > i and r[i].startswith(word)  # noqa: E731
    default_miss = [r[0] for r in rows if ok(r, 1) and not ok(r, 2)]
    safe_broke = [r[0] for r in rows if ok(r, 2) and not ok(r, 4)]
    out.append("")
    out.append(f"CUDA {word} but the default (logical) port not: {len(default_miss)} "
               f"({', '.join(default_miss) or 'none'}).")
    out.append(f"SAFE 64-wide groups that turned a default {word} into a non-{word}: {len(safe_broke)} "
               f"({', '.join(safe_broke) or 'none'}).")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "prepare":
        import os
        hec = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
        hipport = os.environ.get("HIPPORT", str(HERE.parent / ".venv" / "bin" / "hipport"))
        return prepare(Path(argv[1]), argv[2:], hec, hipport)
    if len(argv) == 6 and argv[0] == "judge":
        lst = Path(__file__).resolve().parent / "bench.list"
        bench = next(b for b in read_list(lst if lst.exists() else LIST) if b.name == argv[1])
        rd = lambda p: Path(p).read_text(errors="replace") if Path(p).exists() else ""  # noqa: E731
        print(judge(bench, rd(argv[2]), int(argv[3]), rd(argv[4]), int(argv[5])))
        return 0
    if len(argv) == 2 and argv[0] == "markdown":
        sys.stdout.write(markdown(Path(argv[1])))
        return 0
    if len(argv) == 2 and argv[0] == "table":
        sys.stdout.write(table(Path(argv[1])))
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
