"""The bundled GEMM's register-blocked kernel computes C = A * B in every --variant shape, checked on the CPU:
the kernel's own source (examples/gemm/gemm.cu) is compiled with g++ -fopenmp, one OpenMP thread per GPU
thread of a block, `__shared__` as function-static storage the block's threads share and `__syncthreads()`
as an OpenMP barrier. This checks the index math, the thread mappings and the two-stage pipeline before
any GPU run (the H200 measures speed); a broken pipeline (a stage not flipped) is caught."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gemm" / "gemm.cu"

PRELUDE = r"""
#include <cmath>
#include <cstdio>
#include <vector>
#include <omp.h>
struct float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
struct uint3 { unsigned x, y, z; };
static thread_local uint3 threadIdx;
static uint3 blockIdx, gridDim;
using std::min;
#define __global__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __syncthreads() _Pragma("omp barrier")
"""

HARNESS = r"""
template <int BM, int BN, int BK, int TM, int TN, int GX_, int MINB, int SWZ>
static double check(int M, int N, int K) {
    std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N, NAN);
    gridDim = {(unsigned)(N / BN), (unsigned)(M / BM), 1};
    for (size_t i = 0; i < A.size(); ++i) A[i] = (float)((i * 7919) % 13) / 13.0f - 0.3f;
    for (size_t i = 0; i < B.size(); ++i) B[i] = (float)((i * 104729) % 17) / 17.0f - 0.4f;
    for (int by = 0; by < M / BM; ++by)
        for (int bx = 0; bx < N / BN; ++bx) {
            blockIdx = {(unsigned)bx, (unsigned)by, 0};
#pragma omp parallel num_threads((BM / TM) * (BN / TN))
            {
                threadIdx = {(unsigned)omp_get_thread_num(), 0, 0};
                sgemm_regblock<BM, BN, BK, TM, TN, GX_, MINB, SWZ>(M, N, K, A.data(), B.data(), C.data());
            }
        }
    double worst = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double r = 0;
            for (int k = 0; k < K; ++k) r += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            double e = std::fabs(r - C[(size_t)i * N + j]);
            if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;  // an unwritten output (NaN) stays a failure
        }
    return worst;
}
int main() {
    omp_set_dynamic(0);
"""


def build_and_run(tmp_path: Path, source: str) -> list[float]:
    kernel = source[source.index("constexpr int GROUP = 32;"):source.index("// The shapes `--variant` chooses from")]
    variants = re.findall(r"sgemm_regblock<([\d, ]+)><<<", source)
    assert len(variants) == 6, variants
    # 256^3/4: one block-row group; 1280 x 256: ten block rows, so the swizzled order has a partial group
    body = "".join(f'    printf("%.3e\\n", check<{v}>({m}, 256, {k}));\n' for v in variants for m, k in ((256, 64), (1280, 16)))
    (tmp_path / "emu.cpp").write_text(PRELUDE + kernel + HARNESS + body + "    return 0;\n}\n")
    subprocess.run(["g++", "-O1", "-fopenmp", "-std=c++17", "emu.cpp", "-o", "emu"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    out = subprocess.run(["./emu"], cwd=tmp_path, check=True, capture_output=True, text=True, timeout=300,
                         env={"OMP_WAIT_POLICY": "passive", "PATH": "/usr/bin:/bin"})
    return [float(x) for x in out.stdout.split()]


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_every_variant_computes_the_product(tmp_path: Path) -> None:
    errors = build_and_run(tmp_path, SAMPLE.read_text())
    assert len(errors) == 12 and all(e < 1e-5 for e in errors), errors


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_emulation_catches_a_broken_block_order(tmp_path: Path) -> None:
    broken = SAMPLE.read_text().replace("bx = pid % per_group / rows;", "bx = pid % per_group % rows;", 1)
    assert broken != SAMPLE.read_text()
    errors = build_and_run(tmp_path, broken)
    assert min(errors[10:]) > 1e-2 and max(errors[:10]) < 1e-5, errors  # only the swizzled variant


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_the_emulation_catches_a_broken_pipeline(tmp_path: Path) -> None:
    broken = SAMPLE.read_text().replace("stage ^= 1;", "", 1)  # the next tile lands in the stage not read
    assert broken != SAMPLE.read_text()
    errors = build_and_run(tmp_path, broken)
    assert all(e > 1e-2 for e in errors[::2]), errors  # K = 64: several k-tiles (K = 16 is one tile for BK 16)
