"""Load run: `hipport scan` and `hipport convert` over a generated 5,000-file / 2-million-line tree, each
run twice; prints wall time, peak memory and whether the two runs gave identical results.

    python bench/bench_load.py [--files 5000] [--lines 2000000] [--jobs N] [--keep DIR]

Peak memory is measured two ways: the largest RSS of any single process (ru_maxrss of the children,
i.e. the main process or one pool worker) and the largest sum of RSS over the whole process tree,
sampled every 20 ms with psutil (pool workers share the mapping tables copy-on-write, so the sum
over-counts shared pages). "stable" means: scan's JSON is byte-identical across the two runs, and
convert's output trees have identical file lists and contents.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_tree import generate

CLI = [sys.executable, "-m", "hipport.cli"]
# runs argv[2:] and writes the largest RSS (KB) of any process in its tree to argv[1]
WRAP = ("import resource, subprocess, sys\n"
        "rc = subprocess.call(sys.argv[2:])\n"
        "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.exit(rc)\n")


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def measure(argv: list[str], cwd: Path) -> tuple[float, float, float, int, bytes, bytes]:
    """(seconds, peak single-process RSS MB, peak tree RSS MB, exit code, stdout, stderr)."""
    rss_file = cwd / ".maxrss"
    t = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", WRAP, str(rss_file), *argv], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    peak_tree = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak_tree
        try:
            root = psutil.Process(proc.pid)
        except psutil.NoSuchProcess:
            return
        while not stop.is_set():
            try:
                procs = [root, *root.children(recursive=True)]
                total = 0
                for p in procs:
                    try:
                        total += p.memory_info().rss
                    except psutil.NoSuchProcess:
                        pass
                peak_tree = max(peak_tree, total)
            except psutil.NoSuchProcess:
                return
            stop.wait(0.02)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate()
    seconds = time.monotonic() - t
    stop.set()
    th.join()
    single = int(rss_file.read_text()) / 1024  # the largest single process (main or a pool worker)
    return seconds, single, peak_tree / 2**20, proc.returncode, out, err


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--jobs", type=int, default=None, help="-j for hipport (default: its own choice)")
    ap.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it")
    a = ap.parse_args(argv)
    work = a.keep or Path(tempfile.mkdtemp(prefix="hipport-load-"))
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "tree"
    if not tree.exists():
        t = time.monotonic()
        n, lines, size = generate(tree, a.files, a.lines)
        print(f"tree: {n} files, {lines} lines, {size / 1e6:.1f} MB (generated in {time.monotonic() - t:.1f} s)")
    jobs = ["-j", str(a.jobs)] if a.jobs else []
    print(f"machine: {os.cpu_count()} CPUs; python {sys.version.split()[0]}")
    results: dict[str, list[tuple[float, float, float, int, str]]] = {"scan": [], "convert": []}
    for run in (1, 2):
        s, single, total, rc, out, err = measure([*CLI, "scan", "--format", "json", *jobs, str(tree)], work)
        results["scan"].append((s, single, total, rc, hashlib.sha256(out).hexdigest()))
        print(f"scan    run {run}: {s:6.1f} s  peak RSS {single:6.0f} MB (largest process), "
              f"{total:6.0f} MB (whole tree)  exit {rc}  json {len(out) / 1e6:.1f} MB")
        outdir = work / f"out{run}"
        s, single, total, rc, out, err = measure([*CLI, "convert", "-q", *jobs, "-o", str(outdir), str(tree)], work)
        results["convert"].append((s, single, total, rc, tree_digest(outdir)))
        print(f"convert run {run}: {s:6.1f} s  peak RSS {single:6.0f} MB (largest process), "
              f"{total:6.0f} MB (whole tree)  exit {rc}  {err.decode(errors='replace').strip().splitlines()[-1]}")
    for name, runs in results.items():
        stable = runs[0][4] == runs[1][4] and runs[0][3] == runs[1][3]
        print(f"{name}: results {'stable (identical)' if stable else 'DIFFER between runs'}")
    if a.keep is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    ok = all(r[0][4] == r[1][4] and r[0][3] == 0 for r in results.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
