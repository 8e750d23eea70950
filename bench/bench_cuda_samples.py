"""Do NVIDIA's cuda-samples compile after `hipport convert`? Each in-scope sample -> hipcc gfx90a.

    .venv/bin/python bench/bench_cuda_samples.py [--only a,b] [--no-shims] [--list] [--json FILE]

A script that prints figures, never part of the test run. On a snapshot of NVIDIA/cuda-samples at
CUDA_SAMPLES_REV (brought here with the `fetch` tool to /work/.mirror/NVIDIA+cuda-samples/repo, or
--mirror / $HIPPORT_CUDA_SAMPLES_MIRROR; its files are extracted once to the cache, never committed):

1. every sample (a folder under Samples/ whose CMakeLists.txt has add_executable) is put in a scope
   (`scope()`, rules in OUT_OF_SCOPE and LIBRARIES below): out of scope (graphics interop, NVRTC,
   cubin/PTX loading, dynamic parallelism, libNVVM, NVIDIA-only libraries, platform-specific), needing
   a library Debian 12 does not package (hipBLAS, hipFFT, hipSOLVER, rocThrust, hipCUB, rocWMMA,
   libhipcxx, MPI), or in scope;
2. an in-scope sample is copied with Common/ to a temporary tree and converted the way a user ports
   it: `hipport convert <sample> <Common> --in-place --no-backup --rocm 5.2` (the default options
   otherwise; Debian ships HIP 5.2); `--no-shims` passes that option too;
3. every source its CMakeLists.txt names in add_executable is compiled with
   `HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -c -w -std=c++17`, the CMake include folders and
   -fopenmp where the sample finds OpenMP.

Prints the compile rate over the in-scope samples, the failures by class of their first error (the
first error of the first failing source, classified by CLASSES; "other" keeps the message), the
failures whose first error is on a line hipport reported (mapped back to the CUDA line through the
converted text), and with --list every failing sample with its first error.

Bounded work on the shared 2-core machine: at most 2 samples at once, each compile under
`nice -n 15`; a sample's compile results are cached (--cache, default
$TMPDIR/hipport-cuda-samples-cache) by a hash of its converted tree and flags, so a rerun after a
hipport change recompiles only the samples whose output changed.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hecbench_compile import HIPPORT, cached, first_error, hipport_rev

CUDA_SAMPLES_REV = "c94ff366aed18c797b8a85dfaac7817b0228b420"  # NVIDIA/cuda-samples master, 2025-09-05
MIRROR = Path(os.environ.get("HIPPORT_CUDA_SAMPLES_MIRROR", "/work/.mirror/NVIDIA+cuda-samples/repo"))
CACHE_VERSION = "2"
TU_SUFFIXES = (".cu", ".cpp", ".cc", ".c")
CODE_SUFFIXES = (*TU_SUFFIXES, ".cuh", ".h", ".hpp", ".inl")

# (reason, regex over the sample's CMakeLists.txt + sources, or a path test): first match wins
OUT_OF_SCOPE: list[tuple[str, str]] = [
    ("platform-specific (Tegra, Windows)", r"PATH:8_Platform_Specific/|PATH:D3D|#include\s*[<\"]d3d"),
    ("libNVVM", r"PATH:7_libNVVM/"),
    ("graphics interop", r"find_package\((?:OpenGL|GLUT|EGL|Vulkan|X11|NVSCI)\b|#include\s*[<\"](?:GL/|EGL/|vulkan/|nvsci)"),
    ("NVRTC", r"CUDA::nvrtc\b|nvrtc_helper\.h|#include\s*[<\"]nvrtc\.h"),
    ("cubin/PTX loading", r"\bcu(?:ModuleLoad\w*|LinkCreate\w*|LibraryLoad\w*)\s*\("),
    ("dynamic parallelism", r"PATH:.*/cdp\w+$"),
    ("NVIDIA-only library (NPP, nvJPEG, cuDLA, FreeImage)",
     r"CUDA::npp|CUDA::nvjpeg|#include\s*[<\"](?:npp|nvjpeg|cudla|FreeImage)"),
]
# libraries whose HIP counterpart Debian 12 does not package (it has hipRAND/rocRAND and hipSPARSE), by
# what the code includes (conjugateGradientMultiBlockCG links cuBLAS but calls none of it)
LIBRARIES: list[tuple[str, str]] = [
    ("hipBLAS", r"#include\s*[<\"]cublas"),
    ("hipSOLVER", r"#include\s*[<\"]cusolver"),
    ("hipFFT", r"#include\s*[<\"]cufft"),
    ("rocThrust", r"#include\s*[<\"]thrust/"),
    ("hipCUB", r"#include\s*[<\"]cub/"),
    ("rocWMMA", r"#include\s*[<\"]mma\.h"),
    ("libhipcxx", r"#include\s*[<\"]cuda/(?:barrier|pipeline|std/|atomic|annotated_ptr)"),
    ("MPI", r"find_package\(MPI\b|#include\s*[<\"]mpi\.h"),
]

# first-error classes (regex over the error line; first match wins)
ENVIRONMENT = "environment: omp.h (Debian's hipcc needs libomp-15-dev for -fopenmp: scripts/install-system-deps.sh)"
CLASSES: list[tuple[str, str]] = [
    (ENVIRONMENT, r"'omp\.h' file not found"),
    ("cooperative-groups features HIP lacks", r"cooperative_groups|meta_group_|thread_block_tile|tiled_partition"),
    ("inline PTX", r"invalid output constraint|invalid input constraint|unknown register|asm|instruction|PTX"),
    ("`*_sync` builtins absent in HIP 5.2", r"'__\w+_sync'"),
    ("`__grid_constant__`", r"__grid_constant__"),
    ("redefinition after translation", r"redefinition|redeclar"),
    ("ambiguous `min`/`max` against HIP headers", r"ambiguous"),
    ("C++ overloads or default arguments HIP 5.2 lacks", r"no matching function|cannot initialize|no viable conversion"),
    ("struct members HIP 5.2 lacks", r"no member named '\w+' in '(?:hip\w+|struct hip\w+)'"),
    ("NVTX header (HIP's counterpart, roctx, is a library of its own)", r"nvToolsExt"),
    ("CUDA names the target HIP lacks (left in CUDA form)",
     r"'(?:cuda|cu[A-Z]|CU_|CUDA_|CURAND_|curand|cublas|cusparse)\w*'|incomplete type 'void'"),
    ("device functions HIP 5.2 lacks", r"undeclared identifier '(?:__\w+|\w*min|\w*max|atomic\w+)'"),
    ("bfloat16 (`hip_bfloat16`)", r"bfloat16"),
    ("file not found", r"file not found"),
]


def rev_short() -> str:
    return CUDA_SAMPLES_REV[:12]


# ---------------------------------------------------------------------------------------------
# The snapshot: the files of the pinned commit that the mirror holds (a few large binaries are absent)

def snapshot(mirror: Path, cache: Path) -> Path:
    """Extract CUDA_SAMPLES_REV from the mirror into the cache once (code and CMake files only)."""
    dest = cache / f"snapshot-{rev_short()}"
    if (dest / ".complete").is_file():
        return dest
    ls = subprocess.run(["git", "--git-dir", str(mirror), "ls-tree", "-r", "-z", CUDA_SAMPLES_REV],
                        capture_output=True, check=True).stdout.decode()
    wanted = []
    for entry in ls.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        _mode, kind, obj = meta.split()
        if kind == "blob" and (path.endswith(CODE_SUFFIXES) or path.endswith("CMakeLists.txt")):
            wanted.append((obj, path))
    batch = subprocess.run(["git", "--git-dir", str(mirror), "cat-file", "--batch"],
                           input="".join(f"{o}\n" for o, _p in wanted).encode(), capture_output=True, check=True).stdout
    pos = 0
    tmp = Path(tempfile.mkdtemp(prefix="snapshot-", dir=cache))
    for _obj, path in wanted:
        eol = batch.index(b"\n", pos)
        header = batch[pos:eol].decode().split()
        pos = eol + 1
        if header[-1] == "missing":
            continue
        size = int(header[2])
        f = tmp / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(batch[pos:pos + size])
        pos += size + 1
    (tmp / ".complete").write_text(CUDA_SAMPLES_REV + "\n")
    if dest.exists():
        shutil.rmtree(dest)
    tmp.replace(dest)
    return dest


# ---------------------------------------------------------------------------------------------
# Samples: sources, flags, scope

def cmake_text(sample: Path) -> str:
    return re.sub(r"#[^\n]*", "", (sample / "CMakeLists.txt").read_text(errors="replace"))


def sources(sample: Path) -> list[str]:
    """The sources add_executable names, relative to the sample (Common's .cpp files included)."""
    out: list[str] = []
    for args in re.findall(r"add_executable\(([^)]*)\)", cmake_text(sample)):
        out += [w for w in args.split()[1:] if w.endswith(TU_SUFFIXES)]
    return list(dict.fromkeys(out))


def flags(sample: Path, root: Path) -> list[str]:
    text = cmake_text(sample)
    out = ["-std=c++17"]
    for args in re.findall(r"include_directories\(([^)]*)\)", text):
        for w in args.split()[1 if args.split()[0] == sample.name else 0:]:
            w = w.replace("${CMAKE_CURRENT_SOURCE_DIR}", ".")
            if "$" not in w and w not in ("BEFORE", "AFTER", "SYSTEM", "PRIVATE", "PUBLIC", "INTERFACE"):
                out.append("-I" + w)
    if not any(f.endswith("Common") for f in out):
        out.append("-I" + os.path.relpath(root / "Common", sample))
    if re.search(r"find_package\(OpenMP", text):
        out.append("-fopenmp")
    return out


def sample_text(sample: Path) -> str:
    parts = [cmake_text(sample)]
    for p in sorted(sample.rglob("*")):
        if p.is_file() and p.suffix in CODE_SUFFIXES:
            parts.append(p.read_text(errors="replace"))
    return "\n".join(parts)


def scope(sample: Path, root: Path) -> tuple[str, str]:
    """("out", reason) | ("library", name) | ("in", "")."""
    rel = "PATH:" + sample.relative_to(root / "Samples").as_posix()
    text = sample_text(sample)
    for reason, pat in OUT_OF_SCOPE:
        if re.search(pat, rel) or re.search(pat, text):
            return "out", reason
    libs = [name for name, pat in LIBRARIES if re.search(pat, text)]
    if libs:
        return "library", "+".join(libs)
    return "in", ""


def all_samples(root: Path) -> list[Path]:
    return sorted(p.parent for p in (root / "Samples").rglob("CMakeLists.txt")
                  if "add_executable" in cmake_text(p.parent))


# ---------------------------------------------------------------------------------------------
# Convert and compile one sample

def hipcc(cwd: Path, tu: str, fl: list[str], obj: Path, timeout: int) -> dict[str, Any]:
    """{"ok", "error": the first error line, "sites": the file:line of that error and of the notes
    after it (an error inside a HIP header is often instantiated from a line of the sample)}."""
    env = dict(os.environ, HIP_PLATFORM="amd")
    fl = [f for f in fl if not f.startswith("-std=")] if tu.endswith(".c") else fl
    cmd = ["nice", "-n", "15", "hipcc", "--offload-arch=gfx90a", "-c", "-w", *fl, tu, "-o", str(obj)]
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"error: timeout after {timeout} s", "sites": []}
    if p.returncode == 0:
        return {"ok": True, "error": "", "sites": []}
    err = first_error(p.stderr)
    lines = p.stderr.splitlines()
    sites: list[str] = []
    start = next((k for k, x in enumerate(lines) if x.strip() == err), None)
    if start is not None:
        for x in lines[start:start + 40]:
            if x is not lines[start] and " error: " in x:
                break
            m = re.match(r"([^\s:]+:\d+):\d+: (?:error|note|warning): ", x)
            if m:
                sites.append(m.group(1))
    return {"ok": False, "error": err, "sites": sites}


def convert_and_compile(root: Path, sample: Path, rocm: str, shims: bool, timeout: int,
                        cache: Path) -> dict[str, Any]:
    rel = sample.relative_to(root)
    res: dict[str, Any] = {"name": sample.name, "path": rel.as_posix(), "tus": {}, "reports": []}
    with tempfile.TemporaryDirectory(prefix="hipport-cs-") as tmp:
        top = Path(tmp)
        shutil.copytree(sample, top / rel)
        shutil.copytree(root / "Common", top / "Common",
                        ignore=lambda d, names: [n for n in names if n in ("GL", "lib", "UtilNPP", "data")])
        p = subprocess.run(["nice", "-n", "15", HIPPORT, "convert", str(top / rel), str(top / "Common"),
                            "--in-place", "--no-backup", "--rocm", rocm, "-j", "1",
                            *([] if shims else ["--no-shims"])],
                           capture_output=True, text=True, errors="replace", timeout=600)
        res["convert_rc"] = p.returncode
        res["reports"] = [(os.path.relpath(f, top), int(ln), kind, msg)
                          for f, ln, kind, msg in re.findall(r"^(\S+?):(\d+):\d+: ([\w-]+): (.*)$", p.stderr, re.M)]
        srcs, fl = sources(sample), flags(sample, root)
        h = hashlib.sha256(json.dumps([srcs, fl]).encode())
        ported: dict[str, str] = {}
        for f in sorted(top.rglob("*")):
            if f.is_file() and f.suffix in CODE_SUFFIXES:
                data = f.read_bytes()
                h.update(f.relative_to(top).as_posix().encode() + b"\0" + data)
                ported[f.relative_to(top).as_posix()] = data.decode(errors="replace")

        def build() -> dict[str, Any]:
            out = {}
            for k, tu in enumerate(srcs):
                out[tu] = hipcc(top / rel, tu, fl, top / f"tu{k}.o", timeout)
            return out

        res["tus"] = cached(cache, f"{CACHE_VERSION}|compile|{h.hexdigest()}", build)
        bad = [v for v in res["tus"].values() if not v["ok"]]
        res["reported"] = bool(bad) and any(was_reported(site, top / rel, top, root, ported, res["reports"])
                                            for site in bad[0]["sites"] or [bad[0]["error"]])
    res["ok"] = bool(res["tus"]) and all(t["ok"] for t in res["tus"].values())
    return res


def original_lines(port_text: str, orig_text: str, line: int) -> range:
    """The CUDA lines that port line `line` (1-based) comes from: its own line where the text around
    it is unchanged, the whole changed block where hipport replaced or inserted lines."""
    a, b = orig_text.splitlines(), port_text.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if j1 < line <= j2 or (j1 == j2 == line - 1):
            if tag == "equal":
                return range(i1 + line - j1, i1 + line - j1 + 1)
            return range(i1 + 1, max(i2, i1 + 1) + 1)
    return range(0)


def was_reported(site: str, cwd: Path, top: Path, root: Path, ported: dict[str, str],
                 reports: list[tuple[str, int, str, str]]) -> bool:
    """Is `site` (file:line of the port) a line of the CUDA file where hipport reported something other
    than info?"""
    m = re.match(r"([^\s:]+):(\d+)", site)
    if not m:
        return False
    path = os.path.relpath(os.path.normpath(cwd / m.group(1)), top)
    orig = root / path
    if path not in ported or not orig.is_file():
        return False
    lines = original_lines(ported[path], orig.read_text(errors="replace"), int(m.group(2)))
    return any(f == path and ln in lines and kind != "info" for f, ln, kind, _msg in reports)


# ---------------------------------------------------------------------------------------------

def classify(err: str) -> str:
    msg = re.sub(r"^.*?error: ", "", err)
    for name, pat in CLASSES:
        if re.search(pat, msg):
            return name
    return "other"


def _arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", default=str(MIRROR), help="git directory of a NVIDIA/cuda-samples clone or mirror")
    ap.add_argument("--only", default="", help="comma-separated sample names")
    ap.add_argument("--rocm", default="5.2")
    ap.add_argument("--no-shims", action="store_true", help="convert with --no-shims")
    ap.add_argument("--workers", type=int, default=2, help="samples at once (at most 2)")
    ap.add_argument("--timeout", type=int, default=400, help="seconds per hipcc call")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "hipport-cuda-samples-cache"))
    ap.add_argument("--json", metavar="FILE", help="also write every result as JSON")
    ap.add_argument("--list", action="store_true", help="list every failing sample with its first error")
    ap.add_argument("--scopes", action="store_true", help="list every sample with its scope and stop")
    return ap.parse_args()


def _print_scopes(root: Path, samples: list[Path], scopes: dict[Path, tuple[str, str]], every: bool) -> None:
    if every:
        for s in samples:
            print(f"{scopes[s][0]:8s} {s.relative_to(root / 'Samples')}  {scopes[s][1]}")
    by = collections.Counter(k for k, _r in scopes.values())
    print(f"cuda-samples {rev_short()}: {len(samples)} samples: {by['in']} in scope, {by['library']} need a "
          f"library Debian 12 lacks, {by['out']} out of scope")
    print("  out of scope: " + ", ".join(f"{r} {n}" for r, n in collections.Counter(
        r for k, r in scopes.values() if k == "out").most_common()))
    print("  libraries: " + ", ".join(f"{r} {n}" for r, n in collections.Counter(
        r for k, r in scopes.values() if k == "library").most_common()))


def _compile_samples(args: argparse.Namespace, root: Path, todo: list[Path], rev: str) -> list[dict[str, Any]]:
    cache = Path(args.cache)
    shims = not args.no_shims

    def one(s: Path) -> dict[str, Any]:
        h = hashlib.sha256()
        for p in sorted([*s.rglob("*"), *(root / "Common").glob("*")]):
            if p.is_file():
                h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
        key = f"{CACHE_VERSION}|sample|{h.hexdigest()}|{rev}|{args.rocm}|{shims}"
        return cached(cache, key, lambda: convert_and_compile(root, s, args.rocm, shims, args.timeout, cache))

    results: list[dict[str, Any]] = []
    with concurrent.futures.ThreadPoolExecutor(max(1, min(2, args.workers))) as ex:
        for k, r in enumerate(ex.map(one, todo), 1):
            results.append(r)
            print(f"[{k}/{len(todo)}] {r['name']}: {'ok' if r['ok'] else 'FAIL'}", file=sys.stderr, flush=True)
    return results


def _first_error(r: dict[str, Any]) -> str:
    errs = [v["error"] for v in r["tus"].values() if not v["ok"]]
    return errs[0] if errs else "no source"


def _print_results(args: argparse.Namespace, rev: str, results: list[dict[str, Any]]) -> None:
    ok = [r for r in results if r["ok"]]
    bad = [r for r in results if not r["ok"]]
    print(f"hipport {rev}; hipport convert --rocm {args.rocm}{' --no-shims' if args.no_shims else ''}; "
          "HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -c")
    print(f"compile: {len(ok)} of {len(results)} in-scope samples (every source of the sample)")
    print(f"  failures whose first error is on a line hipport reported: {sum(r['reported'] for r in bad)} "
          f"of {len(bad)}")
    classes: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for r in bad:
        classes[classify(_first_error(r))].append(r)
    print("\n| class | samples | examples |\n|---|---|---|")
    for cls, rs in sorted(classes.items(), key=lambda x: (-len(x[1]), x[0])):
        names = ", ".join(f"{r['name']} ({_short(_first_error(r))})" for r in rs[:4])
        print(f"| {cls} | {len(rs)} | {names}{', ...' if len(rs) > 4 else ''} |")
    if args.list:
        print("\nfailing samples:")
        for r in bad:
            print(f"  {r['path']}: {'reported' if r['reported'] else 'NOT reported'}: {_first_error(r)[:240]}")


def main() -> int:
    args = _arguments()
    mirror = Path(args.mirror)
    if not (mirror / "objects").is_dir() and not (mirror / ".git").is_dir():
        print(f"no cuda-samples mirror at {mirror} (fetch NVIDIA/cuda-samples; set HIPPORT_CUDA_SAMPLES_MIRROR)",
              file=sys.stderr)
        return 2
    if shutil.which("hipcc") is None and not args.scopes:
        print("hipcc not found (Debian: apt install hipcc)", file=sys.stderr)
        return 2
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    root = snapshot(mirror, cache)
    samples = all_samples(root)
    scopes = {s: scope(s, root) for s in samples}
    _print_scopes(root, samples, scopes, args.scopes)
    if args.scopes:
        return 0
    todo = [s for s in samples if scopes[s][0] == "in"]
    if args.only:
        want = {w.strip() for w in args.only.split(",")}
        todo = [s for s in todo if s.name in want]
    rev = hipport_rev()
    results = _compile_samples(args, root, todo, rev)
    _print_results(args, rev, results)
    if args.json:
        Path(args.json).write_text(json.dumps({"rev": rev, "cuda_samples": CUDA_SAMPLES_REV, "results": results},
                                              indent=1))
    return 0


def _short(err: str) -> str:
    m = re.search(r"error: (.*)", err)
    msg = m.group(1) if m else err
    return msg[:90].replace("|", "\\|")


if __name__ == "__main__":
    sys.exit(main())
