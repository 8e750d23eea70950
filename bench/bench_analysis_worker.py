"""One background-analysis worker's CPU per file (engine/project/analysis.py), with Python's default cycle
collector against the worker's own settings (WORKER_GC_THRESHOLDS after gc.freeze()).

    python bench/bench_analysis_worker.py [--tree DIR] [--files 200] [--rounds 3]

Both settings run in one process, file by file interleaved, the lexer caches emptied before every call; each
file's figure is its least CPU time over the rounds (this machine's speed drifts by 15-20% from one minute
to the next, so separate runs do not compare). The summaries of the two settings must be equal. Without
--tree, a 400-file tree from gen_tree.py is made in a temporary folder.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def measure(root: Path, files: int, rounds: int) -> None:
    from hipport.engine import pyscan
    from hipport.engine.cxx import lexer
    from hipport.engine.project import analysis as pa
    from hipport.engine.review import ReviewSession

    session = ReviewSession.open(root, autosave=False)
    rels = sorted(e.rel for e in session.files())
    rels = rels[:: max(1, len(rels) // files)][:files]
    topt, wopt = session._options()
    pa._summarize(str(root), rels[0], topt, wopt)  # imports and tables loaded before timing
    gc.freeze()
    settings = {"default": gc.get_threshold(), "worker": pa.WORKER_GC_THRESHOLDS}
    best = {name: [float("inf")] * len(rels) for name in settings}
    first: dict[str, object] = {}
    for _ in range(rounds):
        for i, rel in enumerate(rels):
            for name, thresholds in settings.items():
                gc.set_threshold(*thresholds)
                lexer._recent.clear()
                pyscan._last = None
                t = time.process_time()
                summary = pa._summarize(str(root), rel, topt, wopt)[0]
                best[name][i] = min(best[name][i], time.process_time() - t)
                if first.setdefault(rel, summary) != summary:
                    raise SystemExit(f"{rel}: the summaries differ between GC settings")
    gc.set_threshold(*settings["default"])
    lines = sum((root / r).read_text(errors="replace").count("\n") for r in rels)
    d, w = sum(best["default"]), sum(best["worker"])
    print(f"{len(rels)} files, {lines:,} lines, least CPU of {rounds} rounds per file:")
    print(f"  default gc {settings['default']}: {d:.2f} s ({1000 * d / len(rels):.1f} ms/file)")
    print(f"  worker gc {settings['worker']} after gc.freeze(): {w:.2f} s ({1000 * w / len(rels):.1f} ms/file)"
          f"   {d / w:.3f}x")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if args.tree is not None:
        measure(args.tree, args.files, args.rounds)
        return 0
    from gen_tree import generate

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        generate(root, 400, 160_000)
        measure(root, args.files, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
