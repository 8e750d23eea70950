"""Build-script porting on real Makefiles: HeCBench 49175104c (held-out benchmarks absent). Prints figures.

    .venv/bin/python bench/bench_buildsys.py [--hecbench DIR] [--build N [--offset K]] [--arch gfx90a] [--jobs J]

1. Translation: every src/*-cuda/Makefile through engine.buildsys; how many have zero `unknown` reports,
   the unknown and manual items by name, and the rules applied.
2. Build (--build N, default 0 = skip): an evenly spaced sample of N benchmarks is ported whole
   (`hipport convert --in-place --arch <arch>`: sources AND Makefile, in a temporary copy of the tree
   where the other benchmarks are linked, so `../x` paths resolve), then `make ROCM_PATH=/usr` with
   Debian's hipcc (HIP_PLATFORM=amd). The human port beside it (<name>-hip, HeCBench's own) is built the
   same way as the baseline (its Makefiles name no arch: HIPCC_COMPILE_FLAGS_APPEND=--offload-arch=<arch>).
   Each failure is classified by its first error:
     build-script  hipcc/clang rejected a flag, the linker did not find a library Debian has, make had
                   no rule for a file of the benchmark: the ported Makefile's fault
     source        a compile error in a source file (the source translation's, or HIP 5.2's, limit)
     platform      a HIP library Debian 12 does not package (hipBLAS, hipCUB, hipFFT, rocPRIM, ...)
     corpus        a file outside the benchmark that this HeCBench copy lacks (../x-sycl/...)
     not-nvcc      the Makefile builds no CUDA (Python/PyTorch benchmarks, nvc++)
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
# a header or library this machine lacks: a ROCm library Debian does not package (hipBLAS, hipCUB, rocThrust,
# hipFFT, ...), a newer HIP header than 5.2 has (cooperative_groups/reduce.h), or a third-party library
_PLATFORM = re.compile(r"fatal error: '(?:hip\w*|roc\w*|miopen|rccl|thrust|cub|cooperative_groups|gdal|mpi|boost|"
                       r"opencv\w*|cuda\w*)[/.][^']*' file not found|cannot find -l(?:hipblas|hipblaslt|hipfft|"
                       r"hipsolver|rocblas|rocfft|rocsolver|MIOpen|rccl|roctx64|mpi|gdal|boost\w*|omp)\b")
_CORPUS = re.compile(r"No rule to make target '\.\./[^']*-sycl/|No rule to make target '\.\./\.\./|"
                     r"fatal error: '\.\./[^']*-sycl/")
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


_LIBS = re.compile(r"(?<![\w-])-l(hip\w*|roc\w*|amdhip64|MIOpen|rccl|cu\w*|nv\w*|nccl)")


def library_agreement(src: Path, arch: str) -> tuple[int, int, list[str]]:
    """Benchmarks whose ported Makefile or HeCBench's own -hip Makefile links GPU libraries, how many
    link the same set, and the names of those that differ."""
    from hipport.engine.buildsys import BuildOptions, translate_build_file
    from hipport.engine.edits import apply_edits

    def libs(text: str) -> set[str]:
        return set(_LIBS.findall("\n".join(line.split("#")[0] for line in text.splitlines())))

    n = same = 0
    differ: list[str] = []
    for mk in sorted(src.glob("*-cuda/Makefile")):
        human = mk.parent.parent / (mk.parent.name[: -len("-cuda")] + "-hip") / "Makefile"
        if not human.is_file() or mk.parent.name[: -len("-cuda")] in HELD_OUT:
            continue
        text = mk.read_text(encoding="utf-8", errors="replace")
        ours = libs(apply_edits(text, translate_build_file(mk, text, BuildOptions(archs=(arch,))).edits))
        theirs = libs(human.read_text(encoding="utf-8", errors="replace"))
        if not ours and not theirs:
            continue
        n += 1
        same += ours == theirs
        if ours != theirs:
            differ.append(f"{mk.parent.name} ours={sorted(ours)} theirs={sorted(theirs)}")
    return n, same, differ


def _key(mk: Path) -> str:
    h = hashlib.sha256(mk.read_bytes())
    for f in sorted((ROOT / "engine" / "buildsys").glob("*.*")):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def classify(out: str) -> tuple[str, str]:
    """(status, first relevant line) of a failed build's output: the first line that names a cause;
    on one line, a missing library/header or corpus file outranks the generic patterns."""
    found = []
    for prio, (status, rx) in enumerate((("platform", _PLATFORM), ("corpus", _CORPUS),
                                         ("build-script", _SCRIPT_ERR), ("source", _SOURCE_ERR))):
        for m in rx.finditer(out):
            start = out.rfind("\n", 0, m.start()) + 1
            end = out.find("\n", m.start())
            found.append((start, prio, status, out[start: end if end >= 0 else len(out)]))
            break
    if not found:
        return "other", out.strip()[-300:]
    _, _, status, line = min(found)
    missing = re.search(r"fatal error: '([^']+)' file not found", line)
    if status == "platform" and missing and _installed_elsewhere(missing.group(1)):
        status = "source"  # the library is here, the source names it by another path (<hipsparse.h>)
    return status, line[-300:]


def _installed_elsewhere(header: str) -> bool:
    """A header missing by the name the source uses but installed one folder down (/usr/include/x/h)."""
    name = header.rsplit("/", 1)[-1]
    return any(p.is_file() for p in Path("/usr/include").glob(f"*/{name}"))


def _uses_nvcc(mk: Path) -> bool:
    from hipport.engine.buildsys import translate_build_file

    tr = translate_build_file(mk, mk.read_text(encoding="utf-8", errors="replace"))
    return tr.stats.get("compiler", 0) > 0


def build_one(name: str, src: Path, arch: str, cache: Path, timeout: int, human: bool) -> dict[str, str]:
    """Port <name> (a *-cuda folder) and build it; with `human`, build <name without -cuda>-hip instead."""
    target = name[: -len("-cuda")] + "-hip" if human else name
    mk = src / target / "Makefile"
    if not mk.is_file():
        return {"name": target, "status": "other", "detail": "no Makefile"}
    key = hashlib.sha256(mk.read_bytes()).hexdigest()[:16] + "-human" if human else _key(mk)
    cached = cache / f"{target}.json"
    if cached.is_file():
        data = json.loads(cached.read_text())
        if data.get("key") == key:
            if data.get("status") in ("source", "build-script", "platform", "corpus") and data.get("detail"):
                data["status"] = classify(data["detail"])[0]  # the classifier may have learnt since
            return data  # type: ignore[no-any-return]
    result = {"key": key, "name": target}
    if not human and not _uses_nvcc(mk):
        result.update(status="not-nvcc", detail="the Makefile runs no nvcc")
    else:
        with tempfile.TemporaryDirectory(prefix="bs-") as tmp:
            tree = Path(tmp) / "src"
            tree.mkdir()
            for d in src.iterdir():
                if d.name != target:
                    (tree / d.name).symlink_to(d)
            work = tree / target
            shutil.copytree(src / target, work, symlinks=True)
            env = dict(os.environ, HIP_PLATFORM="amd")
            if human:
                env["HIPCC_COMPILE_FLAGS_APPEND"] = f"--offload-arch={arch}"
                conv = None
            else:
                conv = subprocess.run([HIPPORT, "convert", str(work), "--in-place", "--no-backup", "-q",
                                       "--arch", arch], capture_output=True, text=True, env=env, timeout=timeout)
            if conv is not None and conv.returncode != 0:
                result.update(status="other", detail=("convert: " + conv.stderr.strip())[-300:])
            else:
                try:
                    mkp = subprocess.run(["nice", "-n", "15", "make", "-C", str(work), "ROCM_PATH=/usr"],
                                         capture_output=True, text=True, env=env, timeout=timeout)
                    if mkp.returncode == 0:
                        result.update(status="built", detail="")
                    else:
                        status, detail = classify(mkp.stdout + mkp.stderr)
                        result.update(status=status, detail=detail)
                except subprocess.TimeoutExpired:
                    result.update(status="other", detail=f"timeout after {timeout}s")
    cache.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(result))
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hecbench", default=os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
    ap.add_argument("--build", type=int, default=0, metavar="N", help="build a sample of N benchmarks")
    ap.add_argument("--offset", type=int, default=0, metavar="K", help="start the sample at the K-th benchmark")
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
    n_lib, same, differ = library_agreement(src, args.arch)
    print(f"  GPU libraries linked (-l): same set as HeCBench's own -hip port in {same} of {n_lib} benchmarks "
          f"that link any; differing: {differ}")
    if args.build <= 0:
        return 0
    if shutil.which("hipcc") is None:
        print("build: skipped, no hipcc")
        return 0
    names = sorted(p.parent.name for p in src.glob("*-cuda/Makefile")
                   if p.parent.name[: -len("-cuda")] not in HELD_OUT)
    step = max(1, len(names) // args.build)
    sample = names[args.offset::step][: args.build]
    cache = ROOT / ".devout" / "bench_buildsys"
    ours: list[dict[str, str]] = []
    theirs: list[dict[str, str]] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r, h in zip(pool.map(lambda nm: build_one(nm, src, args.arch, cache, args.timeout, False), sample),
                        pool.map(lambda nm: build_one(nm, src, args.arch, cache, args.timeout, True), sample),
                        strict=True):
            ours.append(r)
            theirs.append(h)
            print(f"  {r['name']:<28} port: {r['status']:<12} human -hip: {h['status']:<12} {r['detail'][:110]}",
                  flush=True)
    print(f"build sample: {len(ours)} benchmarks (every {step}th of {len(names)}), Debian hipcc 5.2, "
          f"--offload-arch={args.arch}, HeCBench 49175104c")
    print(f"  {'status':<13} {'hipport port':>12} {'human -hip':>11}")
    for status in ("built", "build-script", "source", "platform", "corpus", "not-nvcc", "other"):
        a = sum(r["status"] == status for r in ours)
        b = sum(h["status"] == status for h in theirs)
        print(f"  {status:<13} {a:>12} {b:>11}")
    both = [(r, h) for r, h in zip(ours, theirs, strict=True) if h["status"] == "built"]
    print(f"  where the human port builds here ({len(both)}): hipport's port builds in "
          f"{sum(r['status'] == 'built' for r, _ in both)}; its failures: "
          f"{dict(collections.Counter(r['status'] for r, _ in both if r['status'] != 'built'))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
