"""Warp analysis throughput over the project's corpus, against translation alone.

Target: analysis costs no more than 2x translation (translation target: 20,000 lines/s).
Prints lines/s for translate, analyze (given the translation) and the ratio. Run:
    .venv/bin/python bench/bench_warp.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hipport.engine.source import Language, Source, language_for
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions
from hipport.engine.warp import analyze

ROOT = Path(__file__).resolve().parents[1]


def corpus() -> list[Source]:
    out = []
    for folder in (ROOT / "tests" / "corpus", ROOT / "examples"):
        for p in sorted(folder.rglob("*")):
            lang = language_for(p)
            if p.is_file() and lang is not None and lang != Language.PYTHON:
                out.append(Source.from_text(p.read_text(encoding="utf-8", errors="replace"), p, lang))
    return out


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=int, default=20, help="copies of the corpus in one big file too")
    args = ap.parse_args()
    files = corpus()
    lines = sum(s.text.count("\n") + 1 for s in files)
    opts = TranslateOptions(ast="off")
    trs = [translate(s, opts) for s in files]
    t_tr = best(lambda: [translate(s, opts) for s in files], args.repeat)
    t_an = best(lambda: [analyze(s, tr) for s, tr in zip(files, trs, strict=True)], args.repeat)
    n_find = sum(len(analyze(s, tr).findings) for s, tr in zip(files, trs, strict=True))
    print(f"corpus: {len(files)} files, {lines} lines, {n_find} warp findings")
    print(f"translate (tokens): {lines / t_tr:10.0f} lines/s")
    print(f"warp analyze:       {lines / t_an:10.0f} lines/s")
    print(f"analysis / translation cost: {t_an / t_tr:.2f}x (target <= 2x)")
    big = Source.from_text("\n".join(s.text for s in files if s.language == Language.CUDA) * args.scale, "big.cu")
    big_lines = big.text.count("\n") + 1
    tr = translate(big, opts)
    t_tr = best(lambda: translate(big, opts), max(1, args.repeat // 2))
    t_an = best(lambda: analyze(big, tr), max(1, args.repeat // 2))
    print(f"one file of {big_lines} lines: translate {big_lines / t_tr:.0f} lines/s, analyze {big_lines / t_an:.0f} "
          f"lines/s, ratio {t_an / t_tr:.2f}x")


if __name__ == "__main__":
    main()
