"""Load time of the mapping tables in a fresh process (budget: ~15-20 ms of a 0.15 s one-file convert).

Usage: .venv/bin/python bench/bench_mapping.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys

CODE = (
    "import time\n"
    "t0 = time.perf_counter()\n"
    "from hipport.engine.mapping import load\n"
    "m = load(); m.lookup('cudaMalloc')\n"
    "print((time.perf_counter() - t0) * 1000)\n"
)


def main() -> None:
    runs = [float(subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True).stdout)
            for _ in range(9)]
    print(f"import + load() + first lookup, fresh process: median {statistics.median(runs):.1f} ms, "
          f"best {min(runs):.1f} ms (9 runs)")


if __name__ == "__main__":
    main()
