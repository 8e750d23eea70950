"""Translation speed and memory against the targets of issue 2. Prints figures; never fails a test run.

    .venv/bin/python bench/bench_translate.py [--corpus DIR]

Generates the >= 40,000-line corpus (bench/gen_corpus.py) into a temporary folder unless given, then:
  1. engine, token mode, one core: lines/s of translate + render           (target > 20,000)
  2. `hipport convert DIR -o OUT -j 1 --ast off`: lines/s of the process    (target > 20,000, one core)
  3. `hipport convert ... --ast on`: lines/s, and with every file parsed   (target > 2,000)
     (HIPPORT_AST_ALWAYS=1; by default only files declaring CUDA-named entities are parsed)
  4. `hipport convert` of the whole tree on all cores
  5. one 2,000-line file translated in-process                              (target < 100 ms)
  6. one-file `hipport convert` process, start to exit                      (target < 0.15 s)
Peak memory (max RSS) is printed for each process run.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_corpus import generate  # noqa: E402

HIPPORT = str(Path(sys.executable).parent / "hipport")


def count_lines(root: Path) -> int:
    return sum(p.read_bytes().count(b"\n") for p in root.rglob("*") if p.is_file())


TIME = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)


def run_process(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(wall s, cpu s, peak RSS KiB) of a child process. The RSS comes from /usr/bin/time when
    present: a child forked from this (large) process would otherwise count our pages as its own."""
    rss_file = tempfile.NamedTemporaryFile(suffix=".rss", delete=False)
    rss_file.close()
    cmd = [TIME, "-f", "%M", "-o", rss_file.name, *argv] if TIME else argv
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err}")
    rss = ru.ru_maxrss
    if TIME:
        try:
            rss = int(Path(rss_file.name).read_text().split()[-1])
        except (OSError, ValueError, IndexError):
            pass
    os.unlink(rss_file.name)
    return wall, ru.ru_utime + ru.ru_stime, rss


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", help="existing corpus folder (default: generate one)")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="hipport-bench-"))
    try:
        corpus = Path(a.corpus) if a.corpus else tmp / "corpus"
        if not a.corpus:
            generate(corpus)
        lines = count_lines(corpus)
        files = sum(1 for p in corpus.rglob("*") if p.is_file())
        print(f"corpus: {corpus} ({files} files, {lines} lines)")

        # 1. engine, in-process, token mode
        from hipport.engine.edits import apply_edits
        from hipport.engine.source import read_source
        from hipport.engine.translate.driver import translate
        from hipport.engine.translate.options import TranslateOptions

        srcs = [read_source(p) for p in sorted(corpus.rglob("*")) if p.is_file()]
        for syntax in ("chevron", "ggl"):
            opts = TranslateOptions(ast="off", launch_syntax=syntax)
            translate(srcs[0], opts)
            t0 = time.process_time()
            for s in srcs:
                apply_edits(s.text, translate(s, opts).edits)
            dt = time.process_time() - t0
            print(f"[1] engine tokens ({syntax}): {lines / dt:,.0f} lines/s on one core ({dt:.2f} s cpu; "
                  "target > 20,000)")

        # 2./3./4. the command over the corpus
        for label, extra, env in (
            ("[2] convert tokens -j 1", ["--ast", "off", "-j", "1"], None),
            ("[3] convert ast -j 1", ["--ast", "on", "-j", "1"], None),
            ("[3] convert ast -j 1, every file parsed", ["--ast", "on", "-j", "1"], {"HIPPORT_AST_ALWAYS": "1"}),
            ("[4] convert tokens, all cores", ["--ast", "off"], None),
        ):
            out = tmp / "out"
            shutil.rmtree(out, ignore_errors=True)
            wall, cpu, rss = run_process([HIPPORT, "convert", str(corpus), "-o", str(out), "-q", *extra], env)
            target = "> 2,000" if "ast" in label else "> 20,000"
            print(f"{label}: {lines / wall:,.0f} lines/s wall, {lines / cpu:,.0f} lines/s per cpu-second "
                  f"({wall:.2f} s wall, {cpu:.2f} s cpu), peak RSS {rss / 1024:.0f} MiB (target {target})")

        # 5. one 2,000-line file, in-process, warm (the app's case)
        big = read_source(corpus / "big_2000.cu")
        for mode in ("off", "on"):
            opts = TranslateOptions(ast=mode)
            translate(big, opts)
            times = []
            for _ in range(7):
                t0 = time.perf_counter()
                apply_edits(big.text, translate(big, opts).edits)
                times.append(time.perf_counter() - t0)
            print(f"[5] 2,000-line file, ast={mode}: median {statistics.median(times) * 1000:.1f} ms, "
                  f"min {min(times) * 1000:.1f} ms (target < 100 ms)")

        # 6. one-file convert process, start to exit
        one = corpus / "common_0.cuh"
        walls = []
        rss = 0
        for _ in range(9):
            w, _c, r = run_process([HIPPORT, "convert", str(one), "-q"])
            walls.append(w)
            rss = max(rss, r)
        print(f"[6] one-file `hipport convert`: median {statistics.median(walls) * 1000:.0f} ms, "
              f"min {min(walls) * 1000:.0f} ms, peak RSS {rss / 1024:.0f} MiB (target < 150 ms)")
        print(f"bench process peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
