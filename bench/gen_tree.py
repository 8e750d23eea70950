"""Generate a large CUDA project tree for load tests: N files, about L lines in total, deterministic.

    python bench/gen_tree.py OUT [--files 5000] [--lines 2000000] [--seed 6]

Files are a realistic mix (by count): 60 % .cu kernels with warp reductions and runtime calls, 25 %
.cuh/.h headers, 10 % .cpp host code, 5 % .py scripts (PyTorch + an inline extension), spread over
nested folders (lib/<a>/<b>/...). Each file is built from blocks (kernels, host functions, comments,
tables) until it reaches its share of the line budget, so sizes vary like in a real tree.
Prints one line: files, lines, bytes, seconds.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

KERNEL = """\
__global__ void {name}(const float* __restrict__ a, float* __restrict__ out, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    float v = i < n ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    unsigned ballot = __ballot_sync(0xffffffff, v > 0.0f);
    if (lane == 0) out[warp] = v + __popc(ballot);
}}

"""
HOST = """\
void run_{name}(const float* h, float* r, int n) {{
    float *d_a = nullptr, *d_o = nullptr;
    CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CHECK(cudaMalloc(&d_o, n * sizeof(float)));
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemcpyAsync(d_a, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    {kernel}<<<(n + 255) / 256, 256, 0, s>>>(d_a, d_o, n);
    cudaMemcpyAsync(r, d_o, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    cudaFree(d_a); cudaFree(d_o);
}}

"""
PLAIN = """\
static inline int clamp_{name}(int x, int lo, int hi) {{
    // plain C++: nothing to translate here (cudaMalloc in a comment stays)
    return x < lo ? lo : (x > hi ? hi : x);
}}

"""
TABLE_ROW = "    {a}.0f, {b}.5f, -{c}.25f, {d}.125f,\n"
PY = '''\
import torch
from torch.utils.cpp_extension import load_inline

SRC_{n} = """
__global__ void k_{n}(float* x) {{ x[threadIdx.x] += __shfl_xor_sync(0xffffffff, x[threadIdx.x], 16); }}
"""


def run_{n}():
    x = torch.randn(1024, device="cuda")
    if torch.cuda.is_available():
        return x.sum()
    return None

'''


def header(kind: str) -> str:
    if kind == "cu":
        return ("#include <cuda_runtime.h>\n#include <cstdio>\n#define CHECK(x) do { cudaError_t e = (x); "
                "if (e != cudaSuccess) printf(\"%s\\n\", cudaGetErrorString(e)); } while (0)\n\n")
    if kind in ("cuh", "h"):
        return "#pragma once\n#include <cuda_runtime.h>\n\n"
    if kind == "cpp":
        return "#include <vector>\n#include <cstdio>\n\n"
    return ""


def body(kind: str, rng: random.Random, lines: int, uid: str) -> str:
    parts: list[str] = [header(kind)]
    n = parts[0].count("\n")
    i = 0
    while n < lines:
        name = f"{uid}_{i}"
        if kind == "py":
            block = PY.format(n=name)
        else:
            r = rng.random()
            if kind in ("cu", "cuh") and r < 0.4:
                block = KERNEL.format(name=f"k_{name}")
            elif kind == "cu" and r < 0.7:
                block = KERNEL.format(name=f"k_{name}") + HOST.format(name=name, kernel=f"k_{name}")
            elif r < 0.85:
                block = PLAIN.format(name=name)
            else:
                rows = rng.randint(8, 40)
                block = (f"static const float table_{name}[] = {{\n"
                         + "".join(TABLE_ROW.format(a=rng.randint(0, 99), b=rng.randint(0, 99),
                                                    c=rng.randint(0, 99), d=rng.randint(0, 99))
                                   for _ in range(rows)) + "};\n\n")
        parts.append(block)
        n += block.count("\n")
        i += 1
    return "".join(parts)


def generate(out: Path, files: int = 5000, lines: int = 2_000_000, seed: int = 6) -> tuple[int, int, int]:
    """Write the tree; return (files, lines, bytes)."""
    rng = random.Random(seed)
    kinds = ["cu"] * 60 + ["cuh"] * 13 + ["h"] * 12 + ["cpp"] * 10 + ["py"] * 5
    # file sizes: a long tail (most files small, some large), scaled to the line budget
    weights = [rng.paretovariate(1.6) for _ in range(files)]
    scale = lines / sum(weights)
    total_lines = total_bytes = 0
    for f in range(files):
        kind = kinds[f % len(kinds)]
        depth = rng.randint(0, 3)
        folder = out.joinpath(*(f"lib{rng.randint(0, 9)}" for _ in range(depth)))
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"f{f:05d}" + ("_cuda" if kind == "py" else "")
        text = body(kind, rng, max(4, int(weights[f] * scale)), f"{f}")
        data = text.encode()
        (folder / f"{stem}.{kind}").write_bytes(data)
        total_lines += text.count("\n")
        total_bytes += len(data)
    return files, total_lines, total_bytes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=6)
    a = ap.parse_args(argv)
    if a.out.exists() and any(a.out.iterdir()):
        print(f"gen_tree: {a.out} is not empty", file=sys.stderr)
        return 2
    t = time.monotonic()
    n, lines, size = generate(a.out, a.files, a.lines, a.seed)
    print(f"gen_tree: {n} files, {lines} lines, {size / 1e6:.1f} MB in {time.monotonic() - t:.1f} s -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
