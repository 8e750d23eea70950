"""Warp analysis and `convert --fixes all` per MB of input: time and memory, and how they grow.

Issue 22, item 13: one long statement made the analysis quadratic (4,000 nested shuffles: 27 s; 8,000
summed shuffles in a kernel: a 150 MB output) and a 50 MB dense file took 86 s and 2 GB. Three inputs,
each at growing sizes, each measured in a fresh process (peak RSS is per process):
- dense:  the project's CUDA corpus and examples repeated (ordinary code, many short statements);
- nested: one statement of N nested `__shfl_down_sync` calls;
- summed: one statement summing N shuffles in a kernel (every 16th starts an unrolled chain at 16).
Printed per input and size: seconds for analysis alone and for the whole port (token translation,
analysis, every fix applied), both per MB, and the peak memory the port added, per MB. `growth` is the
exponent of time against size between the two largest sizes: 1.0 is linear, 2.0 quadratic.
Target: growth <= 1.2 for all three. Run:
    .venv/bin/python bench/bench_warp_scale.py [--mb 0.25 0.5 1]
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def dense(size: int) -> str:
    parts = []
    for folder in (ROOT / "tests" / "corpus", ROOT / "examples"):
        parts += [p.read_text(encoding="utf-8", errors="replace") for p in sorted(folder.rglob("*.cu"))]
    unit = "\n".join(parts)
    return (unit * (size // len(unit) + 1))[:size].rsplit("\n}\n", 1)[0] + "\n}\n"


def nested(size: int) -> str:
    call_len = len("__shfl_down_sync(0xffffffff, , 1)")
    n = max(1, size // call_len)
    return ("__global__ void k(float* out, const float* in) {\n    int lane = threadIdx.x % 32;\n"
            "    float v = in[threadIdx.x];\n    float s = " + "__shfl_down_sync(0xffffffff, " * n + "v"
            + ", 1)" * n + ";\n    if (lane == 0) out[threadIdx.x / 32] = s;\n}\n")


def summed(size: int) -> str:
    n = max(1, size // len(" + __shfl_down_sync(0xffffffff, v, 16)"))
    terms = " + ".join(f"__shfl_down_sync(0xffffffff, v, {i % 16 + 1})" for i in range(n))
    return ("__global__ void k(float* out, const float* in) {\n    int lane = threadIdx.x % 32;\n"
            "    float v = in[threadIdx.x];\n    unsigned m = __ballot_sync(0xffffffff, v > 0);\n"
            f"    float s = {terms};\n    if (lane == 0) out[threadIdx.x / 32] = s + m;\n}}\n")


INPUTS = {"dense": dense, "nested": nested, "summed": summed}


def child(kind: str, size: int) -> None:
    """One measurement in this process; prints a JSON line."""
    from hipport.engine.pipeline import port
    from hipport.engine.source import Language, Source
    from hipport.engine.translate.driver import translate
    from hipport.engine.translate.options import TranslateOptions
    from hipport.engine.warp import analyze

    text = INPUTS[kind](size)
    src = Source.from_text(text, "bench.cu", Language.CUDA)
    opts = TranslateOptions(ast="off")
    tr = translate(src, opts)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    analysis = analyze(src, tr)
    t_an = time.perf_counter() - t0
    del analysis
    t0 = time.perf_counter()
    out = port(src, opts, fixes="all")
    t_port = time.perf_counter() - t0
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"bytes": len(text.encode()), "analyze_s": t_an, "port_s": t_port,
                      "added_rss_mb": (rss1 - rss0) / 1024, "out_bytes": len(out.text)}))


def measure(kind: str, size: int, runs: int = 2) -> dict[str, float]:
    """The best of `runs` fresh processes, figure by figure (a shared machine's noise only adds)."""
    best: dict[str, float] = {}
    for _ in range(runs):
        p = subprocess.run([sys.executable, __file__, "--child", kind, str(size)], capture_output=True, text=True,
                           cwd=ROOT, check=True)
        got = json.loads(p.stdout.strip().splitlines()[-1])
        best = {k: min(v, best.get(k, v)) for k, v in got.items()}
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, nargs="+", default=[0.25, 0.5, 1.0])
    ap.add_argument("--child", nargs=2, metavar=("KIND", "BYTES"))
    args = ap.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    worst = 0.0
    for kind in INPUTS:
        rows = []
        for mb in args.mb:
            r = measure(kind, int(mb * (1 << 20)))
            mbs = r["bytes"] / (1 << 20)
            rows.append((mbs, r))
            print(f"{kind:7s} {mbs:6.2f} MB: analyze {r['analyze_s'] / mbs:6.2f} s/MB, port {r['port_s'] / mbs:6.2f} "
                  f"s/MB, +{r['added_rss_mb'] / mbs:6.1f} MB RSS per MB, output {r['out_bytes'] / r['bytes']:.2f}x "
                  "the input", flush=True)
        (m1, r1), (m2, r2) = rows[-2], rows[-1]
        growth = math.log(max(r2["port_s"], 1e-6) / max(r1["port_s"], 1e-6)) / math.log(m2 / m1)
        worst = max(worst, growth)
        print(f"{kind:7s} growth of the port's time from {m1:.2f} to {m2:.2f} MB: {growth:.2f} (1.0 linear, 2.0 "
              "quadratic)", flush=True)
    print(f"worst growth {worst:.2f} (target <= 1.2)")


if __name__ == "__main__":
    main()
