#!/usr/bin/env python3
"""Precision and recall of hipport's warp findings on labelled HeCBench warp lines (issue 9).

    warp_labels.py [--hecbench DIR] [--hipport EXE] [-v]

Labels: tests/data/warp_labels/NAME.toml (HeCBench 49175104c), one [[line]] per warp line with
`expected = "fix"` (breaks on a 64-lane wavefront) or `"none"` (correct as written). A line counts as
flagged when `hipport scan --warp --format json` reports a wrong-result or compile-error finding on it
(performance findings, W64-12/W64-19, are about speed, not breakage, and are not counted).
  true positive   flagged and labelled fix
  false positive  flagged and labelled none, or flagged and not labelled (printed: label it)
  false negative  labelled fix and not flagged
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "tests" / "data" / "warp_labels"
COUNTED = {"wrong-result", "compile-error"}


@dataclass
class Score:
    tp: list[tuple[str, str, int]] = field(default_factory=list)
    fp: list[tuple[str, str, int]] = field(default_factory=list)
    fn: list[tuple[str, str, int]] = field(default_factory=list)
    unlabelled: list[tuple[str, str, int]] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        n = len(self.tp) + len(self.fp)
        return len(self.tp) / n if n else 1.0

    @property
    def recall(self) -> float:
        n = len(self.tp) + len(self.fn)
        return len(self.tp) / n if n else 1.0


def load_labels(labels: Path = LABELS) -> dict[str, list[dict]]:
    out = {}
    for p in sorted(labels.glob("*.toml")):
        d = tomllib.loads(p.read_text())
        out[d["benchmark"]] = d["line"]
    return out


def flagged_lines(bench_dir: Path, hipport: str) -> set[tuple[str, int]]:
    r = subprocess.run([hipport, "scan", "--warp", "--format", "json", str(bench_dir)],
                       capture_output=True, text=True, check=False)
    if not r.stdout.strip():
        raise RuntimeError(f"hipport scan {bench_dir}: exit {r.returncode}: {r.stderr[-500:]}")
    data = json.loads(r.stdout)
    return {(f["path"], x["line"]) for f in data["files"] for x in f["findings"] if x["severity"] in COUNTED}


def score(hecbench: Path, hipport: str, labels: Path = LABELS, jobs: int = 2) -> tuple[Score, dict[str, Score]]:
    lab = load_labels(labels)
    dirs = {b: hecbench / "src" / f"{b}-cuda" for b in lab}
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        flags = dict(zip(dirs, ex.map(lambda d: flagged_lines(d, hipport), dirs.values()), strict=True))
    total, per = Score(), {}
    for b, rows in lab.items():
        s = per.setdefault(b, Score())
        labelled = {(r["file"], r["line"]): r for r in rows}
        for (f, n), r in labelled.items():
            src = (dirs[b] / f).read_text(errors="replace").splitlines()
            if n > len(src) or src[n - 1].strip() != r["code"]:
                s.stale.append(f"{b}/{f}:{n}: label code {r['code']!r} is not the source line")
            hit = (f, n) in flags[b]
            if r["expected"] == "fix":
                (s.tp if hit else s.fn).append((b, f, n))
            elif hit:
                s.fp.append((b, f, n))
        for f, n in sorted(flags[b] - set(labelled)):
            s.fp.append((b, f, n))
            s.unlabelled.append((b, f, n))
        for k in ("tp", "fp", "fn", "unlabelled", "stale"):
            getattr(total, k).extend(getattr(s, k))
    return total, per


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hecbench", default=os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
    ap.add_argument("--hipport", default=str(Path(sys.executable).parent / "hipport"))
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    total, per = score(Path(a.hecbench), a.hipport)
    print("benchmark\tTP\tFP\tFN")
    for b, s in per.items():
        print(f"{b}\t{len(s.tp)}\t{len(s.fp)}\t{len(s.fn)}")
    print(f"TOTAL\t{len(total.tp)}\t{len(total.fp)}\t{len(total.fn)}")
    print(f"precision {total.precision:.3f}  recall {total.recall:.3f}  "
          f"({len(total.tp) + len(total.fn)} labelled breaking lines, {len(total.tp) + len(total.fp)} flagged lines)")
    if a.verbose:
        for k in ("fp", "fn", "unlabelled"):
            for b, f, n in getattr(total, k):
                print(f"{k}\t{b}/{f}:{n}")
    for m in total.stale:
        print("STALE", m)
    return 1 if total.stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
