"""Does hipport's translation of real CUDA programs compile? HeCBench `*-cuda` -> hipcc gfx90a.

    .venv/bin/python bench/bench_hecbench_compile.py [--all | --every N | --only a,b] [--mode inplace|suffix]

A script that prints figures, never part of the test run. For each HeCBench benchmark (ORNL/HeCBench
49175104c under $HIPPORT_HECBENCH/src, default /work/hecbench/src; the held-out benchmarks are absent
there and are never fetched):

1. copy `<name>-cuda` (and the `-I../X` folders its Makefile names) to a temporary folder;
2. translate it the way a user ports a project: `hipport convert <copy> --in-place --no-backup
   --rocm 5.2` (names kept, which is what folder mode `-o OUT` gives too; Debian ships HIP 5.2).
   `--mode suffix` instead runs `hipport convert <copy> --suffix` and compiles the sibling outputs
   (`main.cu` -> `main.hip`, `util.cuh` -> `util_hip.cuh`), the mode a user picks to keep the CUDA
   files beside the port. `--no-shims` and `--fixes` pass those convert options (the exact
   replacements for what HIP 5.2 lacks are made by default since issue 20; the warp fixes, whose
   prelude also supplies the *_sync builtins that HIP < 7 lacks);
3. compile every translation unit its Makefile lists (`source = ...`; all *.cu/*.cpp/*.c otherwise)
   with `HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -c -w`, adding the Makefile's -I, -D, -std and
   -fopenmp flags;
4. the baseline: the human port `<name>-hip` compiled the same way, where it exists. A benchmark whose
   translation fails while the human port fails too is counted as "environment" (libraries Debian's
   HIP 5.2 lacks: hipBLAS, hipCUB, rocThrust, MPI, ...), not as a hipport failure.

Prints the compile rate (benchmarks whose every TU compiles / all in the sample), the rate without
the environment failures, and the failures bucketed by hipcc's first error, normalised (location
dropped, quoted names kept in the detailed list and blanked in the class list).

Sample: by default every 3rd benchmark in alphabetical order starting with the first (`--every 3`,
~166 of 497 here); `--all` for all of them. On the shared 2-core machine a cold run of every 3rd took
hours (hipcc ~30 s a file under load), so the recorded figures use `--every 12` (42 benchmarks). Results are cached per benchmark under --cache
(default $TMPDIR/hipport-hecbench-cache), keyed by a hash of the benchmark's files and hipport's git
revision (plus a hash of uncommitted engine changes); the baseline is keyed by its files only.
Compiles run under `nice -n 15` with at most 2 workers (the machine is shared).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HIPPORT = str(Path(sys.executable).parent / "hipport")
TU_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")
CACHE_VERSION = "5"  # bump when the result format changes


def hipport_rev() -> str:
    """HEAD of the hipport checkout, plus a hash of uncommitted changes to engine/ and tui/."""
    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *a], capture_output=True, text=True).stdout
    rev = git("rev-parse", "HEAD").strip() or "unknown"
    dirty = git("diff", "HEAD", "--", "engine", "tui")
    return rev + ("-dirty-" + hashlib.sha256(dirty.encode()).hexdigest()[:12] if dirty else "")


# ---------------------------------------------------------------------------------------------
# The Makefile: variables, sources, flags (nvcc flags we do not understand are left out)

def make_vars(text: str) -> dict[str, str]:
    text = re.sub(r"\\\n", " ", text)
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\+=|:=|\?=|=)\s*(.*)$", line)
        if not m or line.startswith("\t"):
            continue
        name, op, val = m.group(1), m.group(2), m.group(3).split("#")[0].strip()
        if op == "+=":
            out[name] = (out.get(name, "") + " " + val).strip()
        elif op == "?=":
            out.setdefault(name, val)
        else:
            out[name] = val
    return out


def expand(val: str, env: dict[str, str], depth: int = 0) -> str:
    if depth > 8:
        return val
    return re.sub(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]", lambda m: expand(env.get(m.group(1), ""), env, depth + 1), val)


def makefile_plan(bench: Path) -> tuple[list[str], list[str]]:
    """(translation units relative to bench, compiler flags) as the benchmark's Makefile says:
    the `source` variable; else the wildcards of *SRC* variables; else the files compiled with -c
    in its recipes; else every *.cu/*.cpp/*.cc/*.c file."""
    mk = bench / "Makefile"
    text = mk.read_text(errors="replace") if mk.is_file() else ""
    text = re.sub(r"\\\n", " ", text)
    text = "\n".join(line.split("#")[0] if not line.lstrip().startswith("#") else "" for line in text.splitlines())
    env = make_vars(text)
    return _makefile_sources(bench, text, env), _makefile_flags(text, env)


def _makefile_sources(bench: Path, text: str, env: dict[str, str]) -> list[str]:
    def wild(val: str) -> list[str]:
        out: list[str] = []
        for m in re.finditer(r"\$\(wildcard\s+([^)]+)\)", val):
            for pat in expand(m.group(1), env).split():
                out += sorted(p.relative_to(bench).as_posix() for p in bench.glob(pat.removeprefix("./")))
        return out

    def words(val: str) -> list[str]:
        return [w.removeprefix("./") for w in expand(val, env).split() if w.endswith(TU_SUFFIXES) and "$" not in w]

    srcs: list[str] = []
    named = next((var for var in ("source", "SOURCE", "SRC", "src", "SOURCES", "sources") if var in env), None)
    if named is not None:
        srcs = words(env[named]) + wild(env[named])
    if not srcs:
        srcs = [w for var, val in env.items() if "SRC" in var.upper() or "SOURCE" in var.upper() for w in wild(val)]
    if not srcs:
        srcs = [w for line in text.splitlines() if line.startswith("\t") and re.search(r"\s-c\b", line)
                for w in words(line)]
    srcs = [s for s in dict.fromkeys(srcs) if (bench / s).is_file()]
    return srcs or sorted(p.relative_to(bench).as_posix() for p in bench.rglob("*") if p.suffix in TU_SUFFIXES)


def _makefile_flags(text: str, env: dict[str, str]) -> list[str]:
    flags_text = " ".join([expand(v, env) for v in env.values()]
                          + [expand(line, env) for line in text.splitlines() if line.startswith("\t")])
    flags: list[str] = []
    std = "-std=c++17"
    for m in re.finditer(r"(?<!\S)(--?std=c\+\+\w+|-I\s*[^\s$<>]+|-D[^\s$]+|-fopenmp|-Xcompiler\s+-fopenmp)(?!\S)",
                         flags_text):
        w = m.group(1)
        if "std=" in w:
            std = "-std=" + w.split("=", 1)[1]
            continue
        flag = "-I" + w[2:].strip() if w.startswith("-I") else w if w.startswith("-D") else "-fopenmp"
        if flag not in flags and flag != "-DDEBUG":
            flags.append(flag)
    return [std, *flags]


# Never read, even from the mirror (TEAM.md: held out of all tuning).
HELD_OUT = frozenset("attention bitpermute bm3d bmf btree cc collision degrid dpid floydwarshall2 ge-spmm "
                     "hadamard halo-finder marchingCubes warpexchange wmma rsmt gc graphB+ mpc vadd bscan "
                     "score svd3x3".split())
MIRROR = Path(os.environ.get("HIPPORT_HECBENCH_MIRROR", "/work/.mirror/ORNL+HeCBench/repo"))
HECBENCH_REV = "49175104c"


def extra_dirs(bench: Path, flags: list[str]) -> list[str]:
    """Sibling folders the benchmark needs (`-I../X` in its Makefile, `#include "../X/..."`)."""
    out = {m.group(1) for f in flags if (m := re.match(r"-I\.\./([^/\s]+)", f))}
    for p in bench.rglob("*"):
        if p.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp"):
            out.update(re.findall(r'#\s*include\s*"\.\./([A-Za-z0-9_+-]+)/', p.read_text(errors="replace")))
    # (blas-gemmBatched-cuda names its own folder with -I../blas-gemmBatched-cuda)
    return sorted(d for d in out if d not in ("include", bench.name) and d.rsplit("-", 1)[0] not in HELD_OUT)


def provide(src_root: Path, d: str, dest: Path) -> None:
    """Copy sibling folder d; the snapshot drops the -sycl/-omp folders, so take them from the
    HeCBench mirror at the same commit when it is there (never a held-out benchmark)."""
    if (src_root / d).is_dir():
        shutil.copytree(src_root / d, dest / d, symlinks=True)
    elif MIRROR.is_dir():
        arch = subprocess.run(["git", "--git-dir", str(MIRROR), "archive", HECBENCH_REV, f"src/{d}"],
                              capture_output=True)
        if arch.returncode == 0:
            subprocess.run(["tar", "-x", "--strip-components=1", "-C", str(dest)], input=arch.stdout)


def tree_hash(bench: Path, extras: list[str]) -> str:
    h = hashlib.sha256()
    for d in [bench, *(bench.parent / e for e in extras)]:
        for p in sorted(d.rglob("*")) if d.is_dir() else []:
            if p.is_file():
                h.update(p.relative_to(bench.parent).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:20]


# ---------------------------------------------------------------------------------------------
# Compiling

_LOC = re.compile(r"^(?:[^\s:]+:\d+:\d+: |[^\s:]+: )")


def first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if " error: " in line or line.startswith("error: ") or "fatal error:" in line:
            return line.strip()
    lines = [x for x in stderr.splitlines() if x.strip()]
    return lines[-1].strip() if lines else "unknown failure"


def normalise(msg: str, blank_names: bool) -> str:
    m = re.search(r"(?:fatal )?error: (.*)", msg)
    msg = m.group(1) if m else _LOC.sub("", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    if blank_names:
        # file names of missing headers are kept: they ARE the class
        if "file not found" not in msg:
            msg = re.sub(r"'[^']*'", "'…'", msg)
        msg = re.sub(r"\(aka '…'\)", "", msg)
    return msg.strip()


def hipcc(work: Path, bench_dir: Path, tu: str, flags: list[str], timeout: int) -> tuple[bool, str]:
    env = dict(os.environ, HIP_PLATFORM="amd")
    obj = work / "obj" / (tu.replace("/", "_") + ".o")
    obj.parent.mkdir(parents=True, exist_ok=True)
    if tu.endswith(".c"):  # C: compiled as C, like nvcc's host compiler does
        flags = [f for f in flags if not f.startswith("-std=")]
    cmd = ["nice", "-n", "15", "hipcc", "--offload-arch=gfx90a", "-c", "-w", *flags, tu, "-o", str(obj)]
    try:
        p = subprocess.run(cmd, cwd=bench_dir, capture_output=True, text=True, env=env, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return False, f"error: timeout after {timeout} s"
    return p.returncode == 0, "" if p.returncode == 0 else first_error(p.stderr)


def compile_tree(src_root: Path, name: str, translate_mode: str | None, rocm: str, timeout: int,
                 cache: Path, no_shims: bool = False, fixes: bool = False) -> dict[str, Any]:
    """Copy src_root/name (+ -I../X folders) to a temp dir, translate if asked, compile every TU.
    Compiles are cached by a hash of the tree as compiled (the translation's output), so a hipport
    change that leaves a benchmark's output alone costs no compile."""
    bench = src_root / name
    srcs, flags = makefile_plan(bench)
    extras = extra_dirs(bench, flags)
    res: dict[str, Any] = {"name": name, "tus": {}, "reports": {}}
    with tempfile.TemporaryDirectory(prefix="hipport-hec-") as tmp:
        work = Path(tmp)
        top = work / "src"
        top.mkdir()
        for d in [name, *extras]:
            provide(src_root, d, top)
        if (src_root / "include").is_dir() and not (top / "include").exists():
            shutil.copytree(src_root / "include", top / "include", symlinks=True)
        if translate_mode is not None:
            paths = [str(top / d) for d in [name, *extras] if d.endswith("-cuda")]
            mode = ["--in-place", "--no-backup"] if translate_mode == "inplace" else ["--suffix"]
            p = subprocess.run(["nice", "-n", "15", HIPPORT, "convert", *paths, *mode, "--rocm", rocm, "-j", "1",
                                *(["--no-shims"] if no_shims else []), *(["--fixes", "all"] if fixes else [])],
                               capture_output=True, text=True, errors="replace", timeout=600)
            found = re.findall(r"^(\S+?):(\d+):\d+: ([\w-]+): ", p.stderr, re.M)
            res["reports"] = dict(collections.Counter(k for _f, _l, k in found))
            # where hipport said something: a failure whose first error is on such a line was reported
            res["report_lines"] = sorted({f"{os.path.relpath(f, top / name)}:{ln}" for f, ln, k in found
                                          if k != "info"})
            res["convert_rc"] = p.returncode
            if translate_mode == "suffix":
                from hipport.engine.outputs import sibling_name

                srcs = [str(Path(s).with_name(sibling_name(Path(s).name))) for s in srcs]
        h = hashlib.sha256(json.dumps([srcs, flags]).encode())
        for f in sorted(top.rglob("*")):
            # build scripts (which convert also ports) are not compiled: flags come from the original
            if f.is_file() and not (f.name.startswith(("Makefile", "CMakeLists")) or f.suffix == ".cmake"):
                h.update(f.relative_to(top).as_posix().encode() + b"\0" + f.read_bytes())

        def build() -> dict[str, Any]:
            return {tu: dict(zip(("ok", "error"), hipcc(work, top / name, tu, flags, timeout), strict=True))
                    for tu in srcs}

        res["tus"] = cached(cache, f"{CACHE_VERSION}|compile|{h.hexdigest()}", build)
    res["ok"] = bool(res["tus"]) and all(t["ok"] for t in res["tus"].values())
    return res


def cached(cache: Path, key: str, fn: Any) -> dict[str, Any]:
    f = cache / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".json")
    if f.is_file():
        try:
            data: dict[str, Any] = json.loads(f.read_text())
            return data
        except (OSError, ValueError):
            pass
    data = fn()
    tmp = f.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(f)
    return data


# ---------------------------------------------------------------------------------------------

Result = tuple[str, dict[str, Any], dict[str, Any] | None]  # name, translated tree, human port (or None)


def _arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=os.path.join(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"), "src"))
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--all", action="store_true", help="every *-cuda benchmark")
    g.add_argument("--every", type=int, default=3, help="every Nth benchmark alphabetically (default 3)")
    g.add_argument("--only", default="", help="comma-separated benchmark names (without -cuda)")
    ap.add_argument("--offset", type=int, default=0, help="with --every: start at this index (default 0)")
    ap.add_argument("--reverse", action="store_true",
                    help="work through the sample from the end (two runs sharing --cache, one reversed, split "
                         "the compiles between them: the cache is keyed by the compiled tree)")
    ap.add_argument("--mode", choices=("inplace", "suffix"), default="inplace")
    ap.add_argument("--rocm", default="5.2")
    ap.add_argument("--workers", type=int, default=2, help="parallel benchmarks (at most 2)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per hipcc call")
    ap.add_argument("--no-shims", action="store_true",
                    help="convert with --no-shims (no exact replacements for what the target ROCm lacks)")
    ap.add_argument("--fixes", action="store_true",
                    help="convert with --fixes all (the wave64 warp fixes; at --rocm < 7 they also bring the *_sync "
                         "prelude)")
    ap.add_argument("--no-baseline", action="store_true", help="do not compile the human *-hip ports")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "hipport-hecbench-cache"))
    ap.add_argument("--json", metavar="FILE", help="also write every result as JSON")
    ap.add_argument("--list", action="store_true", help="list the failing benchmarks with their first error")
    return ap.parse_args()


def _sample(args: argparse.Namespace, names: list[str]) -> list[str]:
    if args.only:
        want = [n.strip().removesuffix("-cuda") for n in args.only.split(",") if n.strip()]
        return [n for n in want if n in names]
    return names if args.all else names[args.offset:: max(1, args.every)]


def _compile_sample(args: argparse.Namespace, src: Path, sample: list[str], rev: str) -> list[Result]:
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    order = list(reversed(sample)) if args.reverse else sample
    workers = max(1, min(2, args.workers))

    def one(n: str) -> Result:
        cu = src / f"{n}-cuda"
        _s, fl = makefile_plan(cu)
        h = tree_hash(cu, extra_dirs(cu, fl))
        key = f"{CACHE_VERSION}|cuda|{n}|{h}|{rev}|{args.mode}|{args.rocm}|noshims={args.no_shims}|{args.fixes}"
        t = cached(cache, key, lambda: compile_tree(src, f"{n}-cuda", args.mode, args.rocm, args.timeout, cache,
                                                    args.no_shims, args.fixes))
        b = None
        hp = src / f"{n}-hip"
        # the human port only classifies failures: compiled when the translation fails
        if not t["ok"] and not args.no_baseline and hp.is_dir():
            b = compile_tree(src, f"{n}-hip", None, args.rocm, args.timeout, cache)
        return n, t, b

    results: list[Result] = []
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        for k, r in enumerate(ex.map(one, order), 1):
            results.append(r)
            print(f"[{k}/{len(sample)}] {r[0]}: {'ok' if r[1]['ok'] else 'FAIL'}"
                  + ("" if r[2] is None else f" (hip port {'ok' if r[2]['ok'] else 'fails'})"),
                  file=sys.stderr, flush=True)
    return sorted(results, key=lambda r: r[0])


def _first_errors(items: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    out = []
    for n, t in items:
        errs = [v["error"] for v in t["tus"].values() if not v["ok"]]
        out.append((n, errs[0] if errs else "no translation unit"))
    return out


def _was_reported(translated: dict[str, Any], err: str) -> bool:
    m = re.match(r"(?:\./)?([^\s:]+):(\d+):", err)
    if not m:
        return False
    # report lines are the CUDA file's; the port may have a few inserted lines above (includes)
    lines = set(translated.get("report_lines", []))
    return any(f"{os.path.normpath(m.group(1))}:{int(m.group(2)) - k}" in lines for k in range(4))


def _print_rates(args: argparse.Namespace, src: Path, rev: str, results: list[Result], env: list[str],
                 bad: list[tuple[str, dict[str, Any]]]) -> None:
    ok = [n for n, t, _b in results if t["ok"]]
    total = len(results)
    sample = "all" if args.all else ("only" if args.only else f"every {args.every}th from #{args.offset}")
    print(f"hipport {rev}; HeCBench at {src}; sample: {sample} ({total} benchmarks); "
          f"mode {args.mode}; --rocm {args.rocm}{' --no-shims' if args.no_shims else ''}"
          f"{' --fixes all' if args.fixes else ''}; hipcc --offload-arch=gfx90a")
    print(f"compile rate: {len(ok)}/{total} = {100 * len(ok) / max(1, total):.1f}% of benchmarks compile "
          "(every translation unit)")
    measurable = total - len(env)
    print(f"  environment (the human -hip port fails too): {len(env)}; "
          f"hipport failures: {len(bad)}; rate without environment: {len(ok)}/{measurable} = "
          f"{100 * len(ok) / max(1, measurable):.1f}%")
    reps: collections.Counter[str] = collections.Counter()
    for _n, t, _b in results:
        reps.update(t.get("reports", {}))
    print("  convert reports over the sample: " + ", ".join(f"{k} {v}" for k, v in reps.most_common()))


def _print_classes(args: argparse.Namespace, results: list[Result], env: list[str],
                   bad: list[tuple[str, dict[str, Any]]]) -> None:
    fb = _first_errors(bad)
    translated = {n: t for n, t, _b in results}
    rep_n = sum(1 for n, e in fb if _was_reported(translated[n], e))
    print(f"  hipport failures whose first error is on a line hipport reported: {rep_n} of {len(fb)} "
          "(the rest failed without a report there)")
    for title, blank in (("error classes (hipport failures, first error of the first failing TU)", True),
                         ("detailed", False)):
        print(f"\n{title}:")
        c = collections.Counter(normalise(e, blank) for _n, e in fb)
        for msg, cnt in c.most_common(40 if not blank else 25):
            who = [n for n, e in fb if normalise(e, blank) == msg]
            print(f"  {cnt:3d}  {msg[:150]}   [{', '.join(who[:4])}{', ...' if len(who) > 4 else ''}]")
    envc = collections.Counter(normalise(e, True) for _n, e in _first_errors([(n, t) for n, t, _b in results
                                                                              if n in env]))
    print("\nenvironment classes (translation and human port both fail):")
    for msg, cnt in envc.most_common(12):
        print(f"  {cnt:3d}  {msg[:150]}")
    if args.list:
        print("\nfailing benchmarks:")
        for n, e in fb:
            print(f"  {n}: {e[:220]}")


def main() -> int:
    args = _arguments()
    src = Path(args.src)
    if not src.is_dir():
        print(f"no HeCBench at {src} (set HIPPORT_HECBENCH)", file=sys.stderr)
        return 2
    if shutil.which("hipcc") is None:
        print("hipcc not found (Debian: apt install hipcc)", file=sys.stderr)
        return 2
    rev = hipport_rev()
    names = sorted(p.name[:-5] for p in src.glob("*-cuda") if p.is_dir())
    results = _compile_sample(args, src, _sample(args, names), rev)
    env = [n for n, t, b in results if not t["ok"] and b is not None and not b["ok"]]
    bad = [(n, t) for n, t, b in results if not t["ok"] and n not in env]
    _print_rates(args, src, rev, results, env, bad)
    _print_classes(args, results, env, bad)
    if args.json:
        Path(args.json).write_text(json.dumps({"rev": rev, "mode": args.mode, "results": [
            {"name": n, "translated": t, "baseline": b} for n, t, b in results]}, indent=1))
    return 0

if __name__ == "__main__":
    sys.exit(main())
