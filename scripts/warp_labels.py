#!/usr/bin/env python3
"""Precision and recall of hipport's warp findings on labelled HeCBench warp lines (issue 9).

    warp_labels.py [--hecbench DIR] [--hipport EXE] [--ports .devout/warpproof] [-v]

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
import difflib
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
    # one finding per root cause lists its other places as `uses`; a use in another role (e.g. the launch
    # size of a split warp-size constant) is not flagged
    return {(f["path"], line) for f in data["files"] for x in f["findings"] if x["severity"] in COUNTED
            for line in [x["line"]] + [u["line"] for u in x.get("uses", ()) if u.get("role", "") in ("", "lane")]}


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


def _changed(a: list[str], b: list[str]) -> set[int]:
    """1-based lines of `a` that difflib says differ in `b` (replaced or deleted)."""
    out: set[int] = set()
    for op, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            out.update(range(i1 + 1, i2 + 1))
    return out


def _to_original(orig: list[str], plain: list[str]) -> dict[int, int]:
    """plain line -> original line, through difflib's equal and same-length replace blocks."""
    m: dict[int, int] = {}
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, orig, plain, autojunk=False).get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            m.update({j1 + k + 1: i1 + k + 1 for k in range(j2 - j1)})
    return m


def edit_scores(ports: Path, labels: Path = LABELS) -> dict[str, dict[str, list[tuple[str, str, int]]]]:
    """Which labelled lines each fix style edits, from prepared ports (scripts/wave64_hecbench.sh prepare:
    PORTS/NAME/{cuda,plain,wave64,portable,review}): per style, `fixed` (a fix line edited), `wrong` (a none line
    edited: a fix that changes correct code) and `missed` (a fix line left as the plain port has it)."""
    res: dict[str, dict[str, list[tuple[str, str, int]]]] = {}
    for b, rows in load_labels(labels).items():
        if not (ports / b / "plain").is_dir():
            continue
        for style in ("wave64", "portable", "review"):
            if not (ports / b / style).is_dir():
                continue
            r = res.setdefault(style, {"fixed": [], "wrong": [], "missed": []})
            for f in sorted({x["file"] for x in rows}):
                orig = (ports / b / "cuda" / f).read_text(errors="replace").splitlines()
                plain = (ports / b / "plain" / f).read_text(errors="replace").splitlines()
                fixed_p = ports / b / style / f
                fixed = fixed_p.read_text(errors="replace").splitlines() if fixed_p.exists() else plain
                back = _to_original(orig, plain)
                edited = {back[n] for n in _changed(plain, fixed) if n in back}
                for x in rows:
                    if x["file"] != f:
                        continue
                    key = (b, f, x["line"])
                    if x["expected"] == "fix":
                        r["fixed" if x["line"] in edited else "missed"].append(key)
                    elif x["line"] in edited:
                        r["wrong"].append(key)
    return res


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hecbench", default=os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
    ap.add_argument("--hipport", default=str(Path(sys.executable).parent / "hipport"))
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--ports", help="also score the edits of prepared ports (.devout/warpproof)")
    a = ap.parse_args(argv)
    if a.ports:
        for style, r in edit_scores(Path(a.ports)).items():
            print(f"{style} edits: {len(r['fixed'])} fix lines edited, {len(r['missed'])} left, "
                  f"{len(r['wrong'])} correct lines edited")
            if a.verbose:
                for k in ("wrong", "missed"):
                    for b, f, n in r[k]:
                        print(f"{style}-{k}\t{b}/{f}:{n}")
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
