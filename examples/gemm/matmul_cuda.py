"""matmul_cuda.py: the GEMM sample as a PyTorch script with a CUDA extension built by load_inline.

The same kernels as gemm.cu (shared-memory tiled, register-blocked, and the warp-shuffle row
checksum), launched with `block_size = 32` launch math from Python, compared with torch.matmul.
Uses the torch.cuda API throughout: on ROCm builds of PyTorch it is the same API (the device is
still 'cuda'; torch.version.hip tells the builds apart).

Output: one JSON line per kernel, the same fields as gemm.cu:
  {"kernel", "M", "N", "K", "dtype", "time_ms", "gflops", "max_rel_err", "checksum_rel_err",
   "reference", "pass"}
Exit status: 0 when every kernel passed, 1 when one failed, 2 when no GPU is usable.

    python3 matmul_cuda.py [--size 4096 | M N K] [--repeats 20] [--warmup 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

import torch
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_runtime.h>

// Shared-memory tiling. The tile side is the block's x size (block_size from Python: one warp-wide
// row of threads); the block has block_size / 4 rows of threads and each thread computes 4 outputs.
constexpr int TILED_ROWS = 4;

__global__ void sgemm_tiled(int M, int N, int K, const float* __restrict__ A,
                            const float* __restrict__ B, float* __restrict__ C) {
    extern __shared__ float smem[];
    const int T = blockDim.x, H = blockDim.y;  // T == H * TILED_ROWS
    float* As = smem;
    float* Bs = smem + T * T;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * T;
    const int col = blockIdx.x * T + tx;
    float acc[TILED_ROWS] = {};
    for (int k0 = 0; k0 < K; k0 += T) {
        for (int r = 0; r < TILED_ROWS; ++r) {
            const int y = ty + r * H;
            As[y * T + tx] = (row0 + y < M && k0 + tx < K) ? A[(size_t)(row0 + y) * K + k0 + tx] : 0.0f;
            Bs[y * T + tx] = (k0 + y < K && col < N) ? B[(size_t)(k0 + y) * N + col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            const float b = Bs[k * T + tx];
#pragma unroll
            for (int r = 0; r < TILED_ROWS; ++r) acc[r] += As[(ty + r * H) * T + k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < TILED_ROWS; ++r) {
        const int y = row0 + ty + r * H;
        if (y < M && col < N) C[(size_t)y * N + col] = acc[r];
    }
}

// Register blocking: 128x128 block tile, 8x8 outputs per thread, two shared-memory stages.
constexpr int RB_BM = 128, RB_BN = 128, RB_BK = 16, RB_TM = 8, RB_TN = 8;
constexpr int RB_THREADS = (RB_BM / RB_TM) * (RB_BN / RB_TN);

__global__ void __launch_bounds__(RB_THREADS, 2)
sgemm_regblock(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
               float* __restrict__ C) {
    __shared__ __align__(16) float As[2][RB_BK][RB_BM];
    __shared__ __align__(16) float Bs[2][RB_BK][RB_BN];
    const int tid = threadIdx.x;
    const int tx = tid % (RB_BN / RB_TN);
    const int ty = tid / (RB_BN / RB_TN);
    const float* Ablk = A + (size_t)blockIdx.y * RB_BM * K;
    const float* Bblk = B + (size_t)blockIdx.x * RB_BN;
    const int a_row = tid / (RB_BK / 4), a_col = (tid % (RB_BK / 4)) * 4;
    const int b_row = tid / (RB_BN / 4), b_col = (tid % (RB_BN / 4)) * 4;
    float4 a_stage[2], b_stage[2];
    auto load_global = [&](int k0) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            a_stage[i] = *reinterpret_cast<const float4*>(Ablk + (size_t)(a_row + 64 * i) * K + k0 + a_col);
            b_stage[i] = *reinterpret_cast<const float4*>(Bblk + (size_t)(k0 + b_row + 8 * i) * N + b_col);
        }
    };
    auto store_shared = [&](int s) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int r = a_row + 64 * i;
            As[s][a_col + 0][r] = a_stage[i].x;
            As[s][a_col + 1][r] = a_stage[i].y;
            As[s][a_col + 2][r] = a_stage[i].z;
            As[s][a_col + 3][r] = a_stage[i].w;
            *reinterpret_cast<float4*>(&Bs[s][b_row + 8 * i][b_col]) = b_stage[i];
        }
    };
    float acc[RB_TM][RB_TN] = {};
    float a_frag[RB_TM], b_frag[RB_TN];
    load_global(0);
    store_shared(0);
    __syncthreads();
    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += RB_BK) {
        const bool has_next = k0 + RB_BK < K;
        if (has_next) load_global(k0 + RB_BK);
#pragma unroll
        for (int k = 0; k < RB_BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[stage][k][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[stage][k][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[stage][k][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[stage][k][64 + tx * 4]);
            a_frag[0] = a0.x; a_frag[1] = a0.y; a_frag[2] = a0.z; a_frag[3] = a0.w;
            a_frag[4] = a1.x; a_frag[5] = a1.y; a_frag[6] = a1.z; a_frag[7] = a1.w;
            b_frag[0] = b0.x; b_frag[1] = b0.y; b_frag[2] = b0.z; b_frag[3] = b0.w;
            b_frag[4] = b1.x; b_frag[5] = b1.y; b_frag[6] = b1.z; b_frag[7] = b1.w;
#pragma unroll
            for (int i = 0; i < RB_TM; ++i)
#pragma unroll
                for (int j = 0; j < RB_TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        if (has_next) {
            store_shared(stage ^ 1);
            __syncthreads();
            stage ^= 1;
        }
    }
    float* Cblk = C + (size_t)blockIdx.y * RB_BM * N + (size_t)blockIdx.x * RB_BN;
#pragma unroll
    for (int i = 0; i < RB_TM; ++i) {
        const int r = (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
        float* crow = Cblk + (size_t)r * N;
        *reinterpret_cast<float4*>(crow + tx * 4) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4*>(crow + 64 + tx * 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

// Row checksum: one block per row; warp-shuffle reduction, then the first warp sums the partials.
__global__ void row_sums(const float* __restrict__ C, int N, float* __restrict__ sums) {
    __shared__ float partial[32];
    const int row = blockIdx.x;
    const int lane = threadIdx.x % warpSize;
    const int warp = threadIdx.x / warpSize;
    float s = 0.0f;
    for (int j = threadIdx.x; j < N; j += blockDim.x) s += C[(size_t)row * N + j];
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffff, s, offset);
    if (lane == 0) partial[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = (lane < blockDim.x / warpSize) ? partial[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffff, s, offset);
        if (lane == 0) sums[row] = s;
    }
}

static void check_inputs(const torch::Tensor& A, const torch::Tensor& B, const torch::Tensor& C) {
    for (const auto* t : {&A, &B, &C}) {
        TORCH_CHECK(t->is_cuda() && t->scalar_type() == torch::kFloat32 && t->is_contiguous(),
                    "expected contiguous float32 GPU tensors");
    }
    TORCH_CHECK(A.size(1) == B.size(0) && C.size(0) == A.size(0) && C.size(1) == B.size(1), "shape mismatch");
}

void tiled(torch::Tensor A, torch::Tensor B, torch::Tensor C, int64_t grid_x, int64_t grid_y,
           int64_t block_size, int64_t shared_bytes) {
    check_inputs(A, B, C);
    TORCH_CHECK(block_size % TILED_ROWS == 0 && block_size * block_size / TILED_ROWS <= 1024,
                "block_size must be a multiple of 4 with block_size^2/4 <= 1024 threads");
    const int M = A.size(0), K = A.size(1), N = B.size(1);
    auto stream = at::cuda::getCurrentCUDAStream();
    sgemm_tiled<<<dim3(grid_x, grid_y), dim3(block_size, block_size / TILED_ROWS), shared_bytes, stream>>>(
        M, N, K, A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void regblock(torch::Tensor A, torch::Tensor B, torch::Tensor C) {
    check_inputs(A, B, C);
    const int M = A.size(0), K = A.size(1), N = B.size(1);
    TORCH_CHECK(M % RB_BM == 0 && N % RB_BN == 0 && K % RB_BK == 0,
                "regblock needs M, N multiples of 128 and K a multiple of 16");
    auto stream = at::cuda::getCurrentCUDAStream();
    sgemm_regblock<<<dim3(N / RB_BN, M / RB_BM), RB_THREADS, 0, stream>>>(
        M, N, K, A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void rowsums(torch::Tensor C, torch::Tensor sums, int64_t threads) {
    TORCH_CHECK(C.is_cuda() && C.scalar_type() == torch::kFloat32 && C.is_contiguous(), "bad C");
    TORCH_CHECK(sums.numel() == C.size(0), "sums must have one entry per row");
    auto stream = at::cuda::getCurrentCUDAStream();
    row_sums<<<C.size(0), threads, 0, stream>>>(C.data_ptr<float>(), C.size(1), sums.data_ptr<float>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
}
"""

CPP_SOURCE = r"""
#include <torch/extension.h>
void tiled(torch::Tensor A, torch::Tensor B, torch::Tensor C, int64_t grid_x, int64_t grid_y,
           int64_t block_size, int64_t shared_bytes);
void regblock(torch::Tensor A, torch::Tensor B, torch::Tensor C);
void rowsums(torch::Tensor C, torch::Tensor sums, int64_t threads);
"""

TOLERANCE = 1e-4  # FP32 with a different summation order: errors grow like sqrt(K) * eps


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="FP32 GEMM through a load_inline CUDA extension, checked against torch.matmul")
    p.add_argument("dims", nargs="*", type=int, help="M N K (or one size for all three)")
    p.add_argument("--size", type=int, default=None, help="square size (default 4096)")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--seed", type=int, default=42)
    a = p.parse_args(argv)
    if a.dims and len(a.dims) not in (1, 3):
        p.error("give one size or three (M N K)")
    if len(a.dims) == 3:
        a.M, a.N, a.K = a.dims
    else:
        a.M = a.N = a.K = a.dims[0] if a.dims else (a.size or 4096)
    if a.M % 128 or a.N % 128 or a.K % 16 or min(a.M, a.N, a.K) <= 0:
        p.error("M and N must be positive multiples of 128, K a positive multiple of 16")
    return a


def median_ms(fn, warmup: int, repeats: int) -> float:
    """Median time of one call, timed with events after warm-up calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not torch.cuda.is_available():
        print("matmul_cuda: no GPU visible to PyTorch (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    backend = f"ROCm/HIP {torch.version.hip}" if torch.version.hip else f"CUDA {torch.version.cuda}"
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name} ({props.multi_processor_count} multiprocessors); torch {torch.__version__}, {backend}")
    torch.backends.cuda.matmul.allow_tf32 = False  # the reference must be plain FP32

    ext = load_inline(
        name="hipport_gemm_ext",
        cpp_sources=CPP_SOURCE,
        cuda_sources=CUDA_SOURCE,
        functions=["tiled", "regblock", "rowsums"],
        extra_cuda_cflags=["-O3"],
        verbose=False,
    )

    M, N, K = args.M, args.N, args.K
    gen = torch.Generator(device="cuda").manual_seed(args.seed)
    # random non-zero inputs in [-0.5, 1): zeros hide indexing bugs and inflate clocks
    A = torch.rand(M, K, device="cuda", generator=gen) * 1.5 - 0.5
    B = torch.rand(K, N, device="cuda", generator=gen) * 1.5 - 0.5
    A[A == 0] = 0.25
    B[B == 0] = 0.25

    # checksum reference: rowsum(A @ B) = A @ (B @ 1), in float64
    rowsum_ref = A.double() @ B.double().sum(dim=1)
    rowsum_scale = A.double().abs() @ B.double().sum(dim=1).abs()

    ref = torch.matmul(A, B)
    ref_max = ref.abs().max().item()

    # launch math for the tiled kernel: the tile is one warp wide (block_size threads per row of the
    # block, block_size // 4 rows of threads, 4 outputs per thread)
    block_size = 32
    grid = ((N + block_size - 1) // block_size, (M + block_size - 1) // block_size)
    shared_bytes = 2 * block_size * block_size * 4
    warp_size = 32
    check_threads = 8 * warp_size  # 8 warps per row in the checksum kernel

    C = torch.empty(M, N, device="cuda")
    sums = torch.empty(M, device="cuda")
    kernels = {
        "tiled": lambda: ext.tiled(A, B, C, grid[0], grid[1], block_size, shared_bytes),
        "regblock": lambda: ext.regblock(A, B, C),
        "torch.matmul": lambda: torch.matmul(A, B, out=C),
    }
    all_pass = True
    for name, fn in kernels.items():
        C.fill_(float("nan"))  # poison: every element must be written
        ms = median_ms(fn, args.warmup, args.repeats)
        max_rel = ((C - ref).abs().max().item() / ref_max) if ref_max > 0 else float("nan")
        ext.rowsums(C, sums, check_threads)
        checksum_rel = ((sums.double() - rowsum_ref).abs() / rowsum_scale.clamp_min(1e-30)).max().item()
        ok = bool(max_rel <= TOLERANCE and checksum_rel <= TOLERANCE)
        all_pass = all_pass and ok
        line = {
            "kernel": name,
            "M": M,
            "N": N,
            "K": K,
            "dtype": "fp32",
            "time_ms": round(ms, 4),
            "gflops": round(2.0 * M * N * K / (ms * 1e6), 1),
            "max_rel_err": float(f"{max_rel:.3e}"),
            "checksum_rel_err": float(f"{checksum_rel:.3e}"),
            "reference": "torch.matmul",
            "pass": ok,
        }
        print(json.dumps(line), flush=True)
    return 0 if all_pass else 1


if __name__ == "__main__":
    sys.exit(main())
