"""Build-script porting on real Makefiles: HeCBench 49175104c (held-out benchmarks absent). Prints figures.

    .venv/bin/python bench/bench_buildsys.py [--hecbench DIR] [--build N] [--arch gfx90a] [--jobs J]

1. Translation: every src/*-cuda/Makefile through engine.buildsys; how many have zero `unknown` reports,
   the unknown and manual items by name, and the rules applied.
2. Build (--build N, default 0 = skip): an evenly spaced sample of N benchmarks is ported whole
   (`hipport convert --in-place --arch <arch>`: sources AND Makefile, in a temporary copy of the tree
   where the other benchmarks are linked, so `../x` paths resolve), then `make ROCM_PATH=/usr` with
   Debian's hipcc (HIP_PLATFORM=amd). Each failure is classified by its first error:
     build-script  hipcc/clang rejected a flag, a library or file was not found by the linker,
                   make had no rule: the ported Makefile's fault
     source        a compile error in a source file (the source translation's, or HIP 5.2's, limit)
     other         anything else (timeouts included)
   Results are cached per benchmark under .devout/bench_buildsys/ (keyed by the Makefile's and the
   engine's rules' hash) so a re-run only builds what changed.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HIPPORT = str(Path(sys.executable).parent / "hipport")
HELD_OUT = {"attention", "bitpermute", "bm3d", "bmf", "btree", "cc", "collision", "degrid", "dpid",
            "floydwarshall2", "ge-spmm", "hadamard", "halo-finder", "marchingCubes", "warpexchange", "wmma",
            "rsmt", "gc", "graphB+", "mpc", "vadd", "bscan", "score", "svd3x3"}

_SCRIPT_ERR = re.compile(r"clang(?:\+\+)?(?:-\d+)?: error: (?:unknown argument|unsupported option|no such file)|"
                         r"ld(?:\.lld)?: (?:error: )?cannot find -l|No rule to make target|command not found|"
                         r"hipcc: .*not found|invalid target ID|unknown target CPU", re.I)
_SOURCE_ERR = re.compile(r"^[^\s:]+\.(?:cu|cuh|h|hpp|cpp|c|cc|hip|inl):\d+:\d+: (?:fatal )?error:", re.M)


def translate_all(src: Path, arch: str) -> tuple[int, int, collections.Counter[str], collections.Counter[str],
                                                   collections.Counter[str]]:
    from hipport.engine.buildsys import BuildOptions, translate_build_file
    from hipport.engine.edits import apply_edits

    unknown: collections.Counter[str] = collections.Counter()
    manual: collections.Counter[str] = collections.Counter()
    rules: collections.Counter[str] = collections.Counter()
    n = clean = 0
    for mk in sorted(src.glob("*-cuda/Makefile")):
        if mk.parent.name[: -len("-cuda")] in HELD_OUT:
            continue
        n += 1
        text = mk.read_text(encoding="utf-8", errors="replace")
        tr = translate_build_file(mk, text, BuildOptions(archs=(arch,)))
        apply_edits(text, tr.edits)  # raises on overlapping edits
        u = [r for r in tr.reports if r.kind.value == "unknown"]
        clean += not u
        unknown.update(r.name for r in u)
        manual.update(r.name for r in tr.reports if r.kind.value == "manual")
        rules.update(tr.stats)
    rules.pop("lines", None)
    return n, clean, unknown, manual, rules


def _key(mk: Path) -> str:
    h = hashlib.sha256(mk.read_bytes())
    for f in sorted((ROOT / "engine" / "buildsys").glob("*.*")):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def build_one(name: str, src: Path, arch: str, cache: Path, timeout: int) -> dict[str, str]:
    mk = src / name / "Makefile"
    key = _key(mk)
    cached = cache / f"{name}.json"
    if cached.is_file():
        data = json.loads(cached.read_text())
        if data.get("key") == key:
            return data  # type: ignore[no-any-return]
    with tempfile.TemporaryDirectory(prefix="bs-") as tmp:
        tree = Path(tmp) / "src"
        tree.mkdir()
        for d in src.iterdir():
            if d.name != name:
                (tree / d.name).symlink_to(d)
        work = tree / name
        shutil.copytree(src / name, work, symlinks=True)
        env = dict(os.environ, HIP_PLATFORM="amd")
        conv = subprocess.run([HIPPORT, "convert", str(work), "--in-place", "--no-backup", "-q", "--arch", arch],
                              capture_output=True, text=True, env=env, timeout=timeout)
        result = {"key": key, "name": name}
        if conv.returncode != 0:
            result.update(status="other", detail=("convert: " + conv.stderr.strip())[-400:])
        else:
            try:
                mkp = subprocess.run(["nice", "-n", "15", "make", "-C", str(work), "ROCM_PATH=/usr"],
                                     capture_output=True, text=True, env=env, timeout=timeout)
                out = mkp.stdout + mkp.stderr
                if mkp.returncode == 0:
                    result.update(status="built", detail="")
                else:
                    m = _SCRIPT_ERR.search(out)
                    s = _SOURCE_ERR.search(out)
                    if s and (not m or s.start() < m.start()):
                        line = out[s.start(): out.find("\n", s.start())]
                        result.update(status="source", detail=line[-400:])
                    elif m:
                        line = out[out.rfind("\n", 0, m.start()) + 1: out.find("\n", m.start())]
                        result.update(status="build-script", detail=line[-400:])
                    else:
                        result.update(status="other", detail=out.strip()[-400:])
            except subprocess.TimeoutExpired:
                result.update(status="other", detail=f"timeout after {timeout}s")
    cache.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(result))
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hecbench", default=os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
    ap.add_argument("--build", type=int, default=0, metavar="N", help="build a sample of N benchmarks")
    ap.add_argument("--arch", default="gfx90a")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    src = Path(args.hecbench) / "src"
    if not src.is_dir():
        print(f"bench_buildsys: {src} not found (set HIPPORT_HECBENCH); nothing measured")
        return 0
    n, clean, unknown, manual, rules = translate_all(src, args.arch)
    print(f"HeCBench 49175104c Makefiles (src/*-cuda/Makefile, held-out absent): {n}")
    print(f"  translated with zero `unknown` reports: {clean}/{n} ({100.0 * clean / max(n, 1):.1f}%)")
    print(f"  unknown items: {dict(unknown.most_common(12))}")
    print(f"  manual items (reported for a person): {dict(manual.most_common(12))}")
    print(f"  edits by rule over all files: {dict(rules.most_common())}")
    if args.build <= 0:
        return 0
    if shutil.which("hipcc") is None:
        print("build: skipped, no hipcc")
        return 0
    names = sorted(p.parent.name for p in src.glob("*-cuda/Makefile")
                   if p.parent.name[: -len("-cuda")] not in HELD_OUT)
    step = max(1, len(names) // args.build)
    sample = names[::step][: args.build]
    cache = ROOT / ".devout" / "bench_buildsys"
    results: list[dict[str, str]] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in pool.map(lambda nm: build_one(nm, src, args.arch, cache, args.timeout), sample):
            results.append(r)
            print(f"  {r['name']:<28} {r['status']:<13} {r['detail'][:150]}", flush=True)
    by = collections.Counter(r["status"] for r in results)
    print(f"build sample: {len(results)} benchmarks (every {step}th of {len(names)}), hipcc --offload-arch={args.arch}")
    for status in ("built", "build-script", "source", "other"):
        print(f"  {status:<13} {by.get(status, 0)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
