"""hipport against hipify-perl on AMD's hipify-clang unit-test tree (issue 10's speed target).

    .venv/bin/python bench/bench_hipify_tests.py [--repeat N]

Side by side in one run, on the same files (ROCm/HIPIFY tests/unit_tests, the reference copy in
../shared/reference/hipify-unit-tests, or $HIPPORT_HIPIFY_TESTS):
  1. one `hipport convert TREE -o OUT -q` process over the whole tree (how a person ports a tree);
  2. hipify-perl run once per file with -quiet-warnings (how hipify-perl is used on a tree).
The ratio of the wall times is printed (target <= 0.10), and of the CPU times, which a busy machine
disturbs less. hipify-perl is taken from the HIPIFY mirror
at the tables' commit (`git show 014177bc:bin/hipify-perl`) into a temporary folder for the run and
never kept. Skips, saying why, when the mirror, perl or the test tree is absent.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HIPPORT = str(Path(sys.executable).parent / "hipport")
MIRROR = Path(os.environ.get("HIPPORT_HIPIFY_MIRROR", "/work/.mirror/ROCm+HIPIFY/repo"))
COMMIT = "014177bc"
# ../shared beside the checkout, unless HIPPORT_HIPIFY_TESTS says otherwise
TESTS = Path(os.environ.get("HIPPORT_HIPIFY_TESTS",
                            Path(__file__).resolve().parents[2] / "shared" / "reference" / "hipify-unit-tests")) / "unit_tests"
SUFFIXES = {".cu", ".cuh", ".cpp", ".c", ".hpp", ".h"}  # lit.cfg's suffixes


def hipify_perl(into: Path) -> Path | None:
    if not (MIRROR / "HEAD").exists():
        return None
    r = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"{COMMIT}:bin/hipify-perl"],
                       capture_output=True)
    if r.returncode != 0:
        return None
    p = into / "hipify-perl"
    p.write_bytes(r.stdout)
    return p


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each side; the fastest counts (default 3)")
    args = ap.parse_args(argv)
    perl = shutil.which("perl")
    if not TESTS.is_dir() or perl is None:
        print(f"skip: {'perl not installed' if perl is None else f'no test tree at {TESTS}'}")
        return 0
    with tempfile.TemporaryDirectory(prefix="hipport-bench-") as tmp:
        work = Path(tmp)
        script = hipify_perl(work)
        if script is None:
            print(f"skip: hipify-perl not readable from {MIRROR} at {COMMIT}")
            return 0
        tree = work / "unit_tests"
        shutil.copytree(TESTS, tree)
        files = sorted(p for p in tree.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        print(f"tree: {len(files)} files, {lines} lines ({TESTS})")
        hip_times, perl_times, hip_cpu, perl_cpu = [], [], [], []
        port_times, port_cpu = [], []
        for k in range(args.repeat):
            # like for like: hipify-perl translates only, as `--fixes none` does; the default port (logical
            # warps) is timed beside it
            for opts, times, cpu, name in ((["--fixes", "none"], hip_times, hip_cpu, "hip"),
                                           ([], port_times, port_cpu, "port")):
                out = work / f"{name}{k}"
                t0, c0 = time.perf_counter(), _children_cpu()
                r = subprocess.run([HIPPORT, "convert", str(tree), "-o", str(out), "-q", *opts], capture_output=True)
                times.append(time.perf_counter() - t0)
                cpu.append(_children_cpu() - c0)
                if r.returncode not in (0, 1):
                    print(f"hipport convert failed ({r.returncode}): {r.stderr.decode()[-500:]}")
                    return 1
            pout = work / f"perl{k}"
            pout.mkdir()
            t0, c0 = time.perf_counter(), _children_cpu()
            for i, f in enumerate(files):
                subprocess.run([perl, str(script), "-quiet-warnings", str(f), f"-o={pout / f'{i}{f.suffix}'}"],
                               capture_output=True)
            perl_times.append(time.perf_counter() - t0)
            perl_cpu.append(_children_cpu() - c0)
        hip, pl = min(hip_times), min(perl_times)
        print(f"hipport convert --fixes none, one process  : {hip:6.2f} s wall, {min(hip_cpu):6.2f} s cpu "
              f"({lines / hip:,.0f} lines/s)")
        print(f"hipport convert (default: logical warps)   : {min(port_times):6.2f} s wall, {min(port_cpu):6.2f} s cpu "
              f"({lines / min(port_times):,.0f} lines/s)")
        print(f"hipify-perl, once per file (-quiet-warnings): {pl:6.2f} s wall, {min(perl_cpu):6.2f} s cpu "
              f"({lines / pl:,.0f} lines/s)")
        ratio = hip / pl
        print(f"ratio hipport / hipify-perl, wall: {ratio:.3f}x  (target <= 0.10x: {'met' if ratio <= 0.10 else 'NOT met'}); "
              f"cpu: {min(hip_cpu) / min(perl_cpu):.3f}x  (wall times on a loaded machine vary by run)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
