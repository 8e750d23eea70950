#!/usr/bin/env python3
"""The table of scripts/device_gemm.sh's run (issue 12 on the H200), from its logs folder.

Usage: python3 scripts/device_runner_summary.py LOGS
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

PROGS = ("gemm", "adam", "laplace3d", "haccmk")


def report(path: Path) -> dict[str, object]:
    try:
        text = path.read_text()
        return json.loads(text[text.index("{"):]) if "{" in text else {"status": "no report"}
    except (OSError, ValueError) as e:
        return {"status": f"no report ({e.__class__.__name__})"}


def compared(rep: dict[str, object]) -> str:
    b = rep.get("baseline")
    if not isinstance(b, dict):
        notes = rep.get("baseline_notes") or []
        return "not compared" + (f" ({notes[0]})" if notes else "")
    if b.get("matches"):
        return f"matches the CUDA baseline ({b.get('checked')} values)"
    first = (b.get("first_mismatches") or [{}])[0]
    return (f"DIFFERS: {b.get('mismatches')} of {b.get('checked')} values; first: {first.get('key')}: "
            f"CUDA {first.get('expected')}, port {first.get('got')}")


def recorded(rep: dict[str, object]) -> str:
    return "recorded" if rep.get("baseline_recorded") else "NOT recorded"


def results(path: Path) -> list[dict[str, object]]:
    out = []
    for line in path.read_text(errors="replace").splitlines() if path.is_file() else []:
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def main() -> int:
    logs = Path(sys.argv[1])
    print("## Four ways (H200; HIP port via HIP's NVIDIA platform, 32-lane warps)\n")
    print("| program | CUDA baseline | HIP port (NVIDIA platform) | comparison | deliberately wrong port |")
    print("|---|---|---|---|---|")
    for p in PROGS:
        base, port, wrong = (report(logs / f"{k}_{p}.json") for k in ("base", "port", "wrong"))
        print(f"| {p} | {base.get('status')}, {recorded(base)} | {port.get('status')} | {compared(port)} | "
              f"{wrong.get('status')}: {compared(wrong)} |")
    print("\n## GEMM 4096^3 FP32 (10 warm-ups, 50 timed launches per run; GFLOP/s at the median time)\n")
    print("| kernel | CUDA r1 | CUDA r2 | HIP port r1 | HIP port r2 | CUDA p20-p80 spread | port/CUDA |")
    print("|---|---|---|---|---|---|---|")
    rows: dict[str, dict[str, list[dict[str, object]]]] = {}
    for f in sorted(logs.glob("perf_*_r*.log")):
        _, lang, kern, _r = f.stem.split("_")
        for r in results(f):
            rows.setdefault(kern, {}).setdefault(lang, []).append(r)
    blas = [float(r["gflops"]) for r in rows.get("blas", {}).get("cuda", []) if r.get("pass")]
    blas_med = statistics.median(blas) if blas else None
    for kern, by in rows.items():
        c, h = by.get("cuda", []), by.get("hip", [])
        g = [f"{float(r['gflops']):.1f}{'' if r.get('pass') else ' FAIL'}" for r in c] + ["-"] * (2 - len(c))
        gh = [f"{float(r['gflops']):.1f}{'' if r.get('pass') else ' FAIL'}" for r in h] + ["-"] * (2 - len(h))
        spread = ", ".join(f"{100 * (float(r['time_ms_p80']) - float(r['time_ms_p20'])) / float(r['time_ms']):.1f}%"
                           for r in c if r.get("time_ms_p20") is not None)
        ratio = (statistics.median(float(r["gflops"]) for r in h) / statistics.median(float(r["gflops"]) for r in c)
                 if c and h else None)
        print(f"| {kern} | {g[0]} | {g[1]} | {gh[0]} | {gh[1]} | {spread} | "
              f"{'' if ratio is None else f'{ratio:.3f}'} |")
    if blas_med:
        print(f"\ncuBLAS median of the CUDA runs: {blas_med:.1f} GFLOP/s")
        for kern, by in rows.items():
            c = [float(r["gflops"]) for r in by.get("cuda", []) if r.get("pass")]
            h = [float(r["gflops"]) for r in by.get("hip", []) if r.get("pass")]
            if kern != "blas" and c:
                print(f"  {kern}: CUDA {100 * statistics.median(c) / blas_med:.1f}% of cuBLAS"
                      + (f", HIP port {100 * statistics.median(h) / blas_med:.1f}%" if h else ""))
    for p in PROGS:
        for k in ("base", "port", "wrong"):
            rep = report(logs / f"{k}_{p}.json")
            if rep.get("status") not in ("passed",) and k != "wrong":
                err = (logs / f"{k}_{p}.err").read_text(errors="replace")[-1500:] if (logs / f"{k}_{p}.err").is_file() else ""
                print(f"\n--- {k}_{p}: {rep.get('status')} {rep.get('explanation') or ''}\n{err}")
    steps = logs / "steps.txt"
    if steps.is_file():
        print("\n" + steps.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
