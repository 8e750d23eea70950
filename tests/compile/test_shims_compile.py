"""The exact replacements of engine/translate/shims.py compiled by Debian's hipcc (HIP 5.2, gfx90a): one small
program uses every replacement; its port compiles, and the port made with --no-shims fails on each of
them (teeth: HIP 5.2 really lacks what the shims supply)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.hipcc,
              pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed (Debian: hipcc)")]

HIPPORT = str(Path(sys.executable).parent / "hipport")

PROGRAM = """#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

void CUDART_CB done(cudaStream_t s, cudaError_t e, void* data) { *static_cast<int*>(data) = 1; }

struct Big { int v[64]; };
struct Pair { uint4 a; float b; };
__global__ void by_value(const __grid_constant__ Big big, int* out) { out[threadIdx.x] = big.v[threadIdx.x]; }

__global__ void groups(int* out, unsigned* c, float* f) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
  auto q = cg::tiled_partition<8>(b);
  int s = cg::reduce(w, out[w.thread_rank()], cg::plus<int>());
  float m = cg::reduce(q, f[threadIdx.x], cg::greater<float>());
  unsigned x = cg::reduce(w, c[threadIdx.x], cg::bit_or<unsigned>()) ^ cg::reduce(q, 1u, cg::bit_and<unsigned>())
      ^ cg::reduce(q, 2u, cg::bit_xor<unsigned>());
  int lo = cg::reduce(w, s, cg::less<int>());
  uint4 v = make_uint4(s, lo, 1, 2);
  v = w.shfl_xor(v, 1);
  Pair pr = {v, m};
  pr = q.shfl_down(pr, 2);
  s += (int)(pr.a.x + pr.b);
  if (w.thread_rank() == 0) out[w.meta_group_rank()] = s + lo + (int)m + x + w.meta_group_size() + q.meta_group_rank();
}

__global__ void atomics(int* out, unsigned* c) {
  c[0] = umin(c[7], c[1]) + umax(c[8], c[2]);
  out[2] = min(c[9], blockDim.x) + max(threadIdx.x, c[10]);
  atomicInc_system(c + 3, 100u);
  atomicDec_system(c + 4, 100u);
  atomicAdd_block(c + 5, 1u);
  atomicMax_block(out + 1, 3);
  atomicCAS_block(c + 6, 0u, 1u);
}

__device__ unsigned ptx(unsigned a, unsigned b, unsigned char* flag) {
  unsigned r, s, t, u, v, w; long long clk;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(0));
  asm volatile("ld.acquire.sys.global.u8 %0, [%1];" : "=r"(s) : "l"(flag) : "memory");
  asm volatile("st.release.sys.global.u8 [%1], %0;" ::"r"(s), "l"(flag) : "memory");
  asm("bfe.u32 %0, %1, 8, %2;" : "=r"(t) : "r"(a), "r"(b));
  asm("prmt.b32 %0, %1, %2, 0x7654;" : "=r"(u) : "r"(a), "r"(b));
  asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(v) : "r"(a), "r"(b), "r"(t));
  asm("bfind.u32 %0, %1;" : "=r"(w) : "r"(a));
  asm("brev.b32 %0, %1;" : "=r"(a) : "r"(b));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk));
  asm volatile("membar.gl;");
  return r + s + t + u + v + w + a + (unsigned)clk;
}

__global__ void rounded(float* f, double* d) {
  f[0] = __fadd_rd(f[1], f[2]) + __fmul_ru(f[3], f[4]) + __fdiv_rz(f[5], f[6]) + __fsqrt_rd(f[7]) + __fmaf_ru(f[1], f[2], f[3]);
  d[0] = __dadd_ru(d[1], d[2]) + __dmul_rd(d[3], d[4]) + __ddiv_ru(d[5], d[6]) + __dsqrt_rz(d[7]) + __drcp_rd(d[8]);
}

int main() {
  int* host; int* dev; float* pitched; size_t pitch;
  cudaHostAlloc(&host, 64 * sizeof(int), cudaHostAllocMapped);
  cudaHostGetDevicePointer(&dev, host, 0);
  cudaMallocPitch(&pitched, &pitch, 64, 4);
  cudaStream_t s; cudaEvent_t e;
  cudaStreamCreate(&s); cudaEventCreate(&e);
  cudaStreamWaitEvent(s, e);
  cudaMemLocation loc; loc.type = cudaMemLocationTypeDevice; loc.id = 0;
  cudaMemAdvise(dev, 64, cudaMemAdviseSetReadMostly, loc);
  cudaMemPrefetchAsync(dev, 64, loc, 0, s);
  cudaMemLocation cpu;
  cpu.type = cudaMemLocationTypeHost;
  cudaMemPrefetchAsync(dev, 64, cpu, 0, s);
  cudaMemAdvise(dev, 64, cudaMemAdviseSetPreferredLocation, cpu);
  int flag = 0;
  cudaStreamAddCallback(s, done, &flag, 0);
  Big big = {};
  by_value<<<1, 64, 0, s>>>(big, dev);
  groups<<<1, 64, 0, s>>>(dev, nullptr, pitched);
  atomics<<<1, 64, 0, s>>>(dev, nullptr);
  cudaStreamSynchronize(s);
  printf("%d\\n", flag);
  return 0;
}
"""

# what HIP 5.2 lacks, as the compiler names it when nothing supplies it
MISSING = {n: rf"\b{n}\b" for n in (
    "reduce", "meta_group_rank", "meta_group_size", "umin", "umax", "atomicInc_system", "atomicDec_system",
    "atomicAdd_block", "atomicMax_block", "atomicCAS_block", "hipHostAlloc", "hipHostGetDevicePointer",
    "hipMallocPitch", "hipStreamWaitEvent", "__grid_constant__", "__fadd_rd", "__dsqrt_rz", "hipMemAdvise",
    "hipMemPrefetchAsync", "cudaMemLocationTypeHost")}
MISSING["tile.shfl"] = r"Neither an integer or float type"  # HIP's tile shuffle of uint4 and of a struct
MISSING["CUDART_CB"] = r"variable has incomplete type 'void'"  # `void CUDART_CB done(...)` reads as a variable
MISSING["min"] = r"call to 'min' is ambiguous"  # unsigned against a coordinate proxy
MISSING["max"] = r"call to 'max' is ambiguous"  # a coordinate proxy against unsigned


def convert(tmp: Path, out: str, *extra: str) -> Path:
    p = subprocess.run([HIPPORT, "convert", "a.cu", "-o", out, "--rocm", "5.2", "--ast", "off", *extra], cwd=tmp,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return tmp / out


def hipcc(src: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HIP_PLATFORM="amd")
    return subprocess.run(["hipcc", "--offload-arch=gfx90a", "-w", "-ferror-limit=0", "-c", "-x", "hip", str(src),
                           "-o", str(src.with_suffix(".o"))], capture_output=True, text=True, env=env, timeout=600)


def test_every_replacement_compiles_and_each_is_needed(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(PROGRAM)
    port = convert(tmp_path, "a.hip")
    p = hipcc(port)
    assert p.returncode == 0, p.stderr[-4000:]
    plain_port = convert(tmp_path, "plain.hip", "--no-shims")
    assert hipcc(plain_port).returncode != 0  # the header first: a fatal error hides the others
    plain_port.write_text(plain_port.read_text().replace("#include <cooperative_groups/reduce.h>\n", ""))
    plain = hipcc(plain_port)
    assert plain.returncode != 0
    errors = "\n".join(x for x in plain.stderr.splitlines() if "error:" in x)
    unnamed = [n for n, pattern in MISSING.items() if not re.search(pattern, errors)]
    assert not unnamed, errors[-4000:]


COLLAPSE = """#define CUDA_DRIVER_API
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
static const char *_cudaGetErrorEnum(cudaError_t error) { return cudaGetErrorName(error); }
#ifdef CUDA_DRIVER_API
static const char *_cudaGetErrorEnum(CUresult error) {
  return "driver error";
}
#endif
template <typename T> void check(T result) { if (result) printf("%s\\n", _cudaGetErrorEnum(result)); }
int main() { check(cudaSetDevice(0)); check(cuInit(0)); return 0; }
"""


def test_collapsed_overloads_compile(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(COLLAPSE)
    port = convert(tmp_path, "a.hip")
    assert "#if 0 // hipport: _cudaGetErrorEnum(hipError_t error) is defined above" in port.read_text()
    p = hipcc(port)
    assert p.returncode == 0, p.stderr[-3000:]
    # teeth: both definitions kept is a redefinition
    port.write_text("\n".join(x for x in port.read_text().splitlines() if "hipport" not in x or "#include" in x))
    p = hipcc(port)
    assert p.returncode != 0 and "redefinition of '_cudaGetErrorEnum'" in p.stderr


DRV_ERRORS = """#include <cuda.h>
#include <cstdio>
#include <cstring>
int main() {
  const char* s = nullptr;
  const char* n = nullptr;
  CUresult known = cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s);
  CUresult named = cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &n);
  printf("known %d %d %d %d\\n", known, named, strcmp(s, cudaGetErrorString(cudaErrorInvalidValue)),
         strcmp(n, cudaGetErrorName(cudaErrorInvalidValue)));
  CUresult unknown = cuGetErrorString((CUresult)12345, &s);
  CUresult unnamed = cuGetErrorName((CUresult)12345, &n);
  printf("unknown %d %d %d %d\\n", unknown, unnamed, strcmp(s, cudaGetErrorString(cudaErrorUnknown)),
         strcmp(n, cudaGetErrorName(cudaErrorUnknown)));
  printf("the unknown error %d %d\\n", cuGetErrorString(CUDA_ERROR_UNKNOWN, &s), cuGetErrorName(CUDA_ERROR_UNKNOWN, &n));
  printf("null %d %d\\n", cuGetErrorString(CUDA_SUCCESS, nullptr), cuGetErrorName(CUDA_SUCCESS, nullptr));
  return 0;
}
"""


def test_driver_error_strings_do_what_later_hip_does(tmp_path: Path) -> None:
    """cuGetErrorString/cuGetErrorName on HIP 5.2 (hipDrvGetError* arrive in ROCm 5.4), run on the host (no
    GPU needed): the runtime's strings, hipErrorInvalidValue (1) for a code it does not know or a null pointer,
    as ROCm/clr's hipDrvGetErrorString/Name return."""
    (tmp_path / "a.cpp").write_text(DRV_ERRORS)
    p = subprocess.run([HIPPORT, "convert", "a.cpp", "-o", "b.cpp", "--rocm", "5.2", "--ast", "off"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "#define HIPPORT_SHIM_DRV_ERROR_STRINGS" in (tmp_path / "b.cpp").read_text()
    env = dict(os.environ, HIP_PLATFORM="amd")
    b = subprocess.run(["hipcc", "b.cpp", "-o", "b"], cwd=tmp_path, capture_output=True, text=True, env=env,
                       timeout=600)
    assert b.returncode == 0, b.stderr[-3000:]
    r = subprocess.run([str(tmp_path / "b")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["known 0 0 0 0", "unknown 1 1 0 0", "the unknown error 0 0", "null 1 1"]


ORDERING = """#include <curand.h>
curandStatus_t quasi(float* d, size_t n) {
  curandGenerator_t q;
  curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL32);
  curandSetQuasiRandomGeneratorDimensions(q, 2);
  curandStatus_t r = curandSetGeneratorOrdering(q, CURAND_ORDERING_QUASI_DEFAULT);
  if (r != CURAND_STATUS_SUCCESS) return r;
  return curandGenerateUniform(q, d, n);
}
"""


def test_quasi_default_ordering_compiles_before_hiprand_has_it(tmp_path: Path) -> None:
    """hipRAND has no ordering call before ROCm 6.2: the default ordering of a fresh quasirandom generator
    is the success it returns under cuRAND (engine/translate/name_rewrites.py); --no-shims leaves the call, which fails."""
    (tmp_path / "a.cu").write_text(ORDERING)
    assert hipcc(convert(tmp_path, "a.hip")).returncode == 0
    plain = hipcc(convert(tmp_path, "plain.hip", "--no-shims"))
    assert plain.returncode != 0 and "CURAND_ORDERING_QUASI_DEFAULT" in plain.stderr
