#!/usr/bin/env python3
"""Make a copy of Debian's HIP headers (HIP 5.2, MIT/Expat, libamdhip64-dev) usable with a newer nvcc.

`hipport run --platform nvidia` compiles the HIP port with nvcc through HIP's NVIDIA backend
(`hip/nvidia_detail/`). Debian's copy predates CUDA 12/13, which removed APIs its inline wrappers call
(texture references, cudaDeviceProp::clockRate, cudaLaunchCooperativeKernelMultiDevice, ...). This
script copies /usr/include/hip to DEST/hip and disables, with `#if 0 /* hipport: ... */`, every
top-level wrapper that this nvcc cannot compile, found by compiling a probe until it is clean. A
program that calls one of the disabled wrappers fails to compile (it names the wrapper): nothing is
silently changed. The licence text of the headers is kept (their opening comments stay in place).

Usage: python3 scripts/hip_nvidia_headers.py DEST [--src /usr/include/hip] [--nvcc nvcc] [--arch sm_90]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ERROR = re.compile(r"^(?P<file>[^()\s]+)\((?P<line>\d+)\): error")
PROBE = "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\nint main() { return 0; }\n"


def depths(lines: list[str]) -> list[int]:
    """Brace depth at the start of each line, not counting `extern "C" {` and `namespace x {` blocks
    (their members are top-level declarations); comments and string literals are skipped roughly."""
    out: list[int] = []
    stack: list[bool] = []  # per open brace: does it count?
    block = False
    for ln in lines:
        out.append(sum(stack))
        code = re.sub(r'"(\\.|[^"\\])*"', '""', ln)
        if block:
            if "*/" not in code:
                continue
            code, block = code.split("*/", 1)[1], False
        code = re.sub(r"/\*.*?\*/", "", code)
        if "/*" in code:
            code, block = code.split("/*", 1)[0], True
        code = code.split("//", 1)[0]
        transparent = bool(re.match(r"\s*(extern\s+\"\"|namespace\b)", code))
        for ch in code:
            if ch == "{":
                stack.append(not transparent)
            elif ch == "}" and stack:
                stack.pop()
    return out


def enclosing(lines: list[str], i: int, depth: list[int]) -> tuple[int, int]:
    """(first, last) 0-based line indices of the top-level declaration around line i."""
    start = i
    while start > 0 and depth[start] > 0:
        start -= 1
    while start > 0 and depth[start - 1] == 0:
        prev = lines[start - 1].strip()
        if not prev or prev.startswith(("#", "//", "*", "/*")) or prev.endswith(("}", "};", ";", "*/")):
            break
        start -= 1
    end = i
    while end + 1 < len(lines) and not (depth[end + 1] == 0 and depth[end] > 0) and not (
            depth[end] == 0 and lines[end].rstrip().endswith(";")):
        end += 1
    return start, end


def statement(lines: list[str], i: int, depth: list[int]) -> bool:
    """A one-line statement inside a function body (an assignment from a removed field)."""
    s = lines[i].split("//", 1)[0].strip()
    return depth[i] > 0 and s.endswith(";") and "=" in s and "{" not in s and "}" not in s and "return" not in s


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dest", type=Path)
    ap.add_argument("--src", type=Path, default=Path("/usr/include/hip"))
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args()
    out = a.dest / "hip"
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(a.src, out)
    disabled: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.cu"
        probe.write_text(PROBE)
        for _ in range(50):
            r = subprocess.run([a.nvcc, f"-arch={a.arch}", "-std=c++17", "-D__HIP_PLATFORM_NVIDIA__",
                                "-I", str(a.dest), "-c", str(probe), "-o", str(Path(tmp) / "p.o")],
                               capture_output=True, text=True)
            errs = [m for m in (ERROR.match(ln) for ln in r.stdout.splitlines() + r.stderr.splitlines()) if m]
            if r.returncode == 0:
                break
            if not errs:
                print(r.stdout + r.stderr, file=sys.stderr)
                return 1
            by_file: dict[str, set[int]] = {}
            for m in errs:
                by_file.setdefault(m["file"], set()).add(int(m["line"]) - 1)
            for name, idx in by_file.items():
                path = Path(name)
                if not path.resolve().is_relative_to(out.resolve()):
                    print(f"error outside the copied headers: {name}", file=sys.stderr)
                    return 1
                lines = path.read_text().splitlines(keepends=True)
                depth = depths(lines)
                for i in sorted(i for i in idx if statement(lines, i, depth)):
                    disabled.append(f"{path.name}:{i + 1}: field not set: {lines[i].strip()[:70]}")
                    lines[i] = f"/* hipport: not in this CUDA: {lines[i].strip().replace('*/', '')} */\n"
                spans = sorted({enclosing(lines, i, depth) for i in idx if not statement(lines, i, depth)
                                and not lines[i].startswith("/* hipport")}, reverse=True)
                for s, e in spans:
                    head = lines[s].strip()[:70]
                    disabled.append(f"{path.name}:{s + 1}: {head}")
                    lines[e] = lines[e] + "#endif\n"
                    lines[s] = "#if 0 /* hipport: needs an API this nvcc no longer has */\n" + lines[s]
                path.write_text("".join(lines))
        else:
            print("gave up after 50 rounds", file=sys.stderr)
            return 1
    (a.dest / "HIPPORT_PATCHES.txt").write_text(
        f"Copied from {a.src} (Debian libamdhip64-dev, MIT/Expat). Disabled for {a.nvcc}:\n" + "\n".join(disabled) + "\n")
    print(f"{out}: {len(disabled)} wrappers disabled (see {a.dest / 'HIPPORT_PATCHES.txt'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
