"""Run every benchmark script in bench/ (bench_*.py) one after another; each prints its own figures.

Benchmarks are never part of the pass/fail test run: they print numbers against the targets.
Usage: .venv/bin/python bench/run_all.py [NAME ...]   (NAME = bench_translate, bench_warp, ...)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        scripts = [s for s in scripts if s.stem in argv]
    failed = 0
    for script in scripts:
        print(f"==> {script.name}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        print(f"<== {script.name}: exit {rc}, {time.perf_counter() - t0:.1f} s\n", flush=True)
        failed += rc != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
