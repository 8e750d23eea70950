"""Shared insertions of a fix group: the portable warp-size helpers and pre-ROCm-7 shims.

Each helper is a fixed text under ITS OWN guard (`HIPPORT_WS`, `HIPPORT_LANE_MASK_T`, ...), so the
preludes of different files of one project compose: a header fixed for `HIPPORT_WS` and a source
fixed for `lane_mask_t` each bring the part they need, and a part seen twice is skipped whole.
(One guard over varying contents lost `lane_mask_t` in whichever file included a header second;
issue 9.) A separate `hipport_warp.h` header was the alternative; it would be the one output file
that no input file maps to, and every writer, diff view and commit path would need to know it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .lex import Columns


@dataclass
class Needs:
    ws: bool = False          # HIPPORT_WS: compile-time device warp size selected by architecture
    mask_t: bool = False      # lane_mask_t: 64-bit on AMD, 32-bit on NVIDIA
    host_ws: bool = False     # hipport_host_warp_size(): runtime query of the current device
    sync_shim: bool = False   # *_sync builtins on ROCm < 7 (opt-in before 7.0, absent before 6.2)
    syncwarp_shim: bool = False  # __syncwarp on ROCm < 7
    min_blocks: bool = False  # HIPPORT_CUDA_MIN_BLOCKS: __launch_bounds__' 2nd argument kept on NVIDIA only

    def merge(self, other: Needs) -> None:
        """Also need what `other` needs."""
        for part in ("ws", "mask_t", "host_ws", "sync_shim", "syncwarp_shim", "min_blocks"):
            if getattr(other, part):
                setattr(self, part, True)

    def any(self) -> bool:
        return (self.ws or self.mask_t or self.host_ws or self.sync_shim or self.syncwarp_shim
                or self.min_blocks)


WS = """#if defined(__HIP_DEVICE_COMPILE__) && (defined(__GFX8__) || defined(__GFX9__))
#define HIPPORT_WS 64  /* gfx8/gfx9 (MI100, MI200, MI300, MI350): 64-lane wavefronts */
#else
#define HIPPORT_WS 32  /* NVIDIA, RDNA (gfx10/11/12); on the host use hipport_host_warp_size() */
#endif"""

MASK_T = """#if defined(__HIP_PLATFORM_AMD__)
typedef unsigned long long lane_mask_t;  /* HIP ballots and *_sync masks are 64-bit on all AMD targets */
#else
typedef unsigned int lane_mask_t;
#endif"""

HOST_WS = """static inline int hipport_host_warp_size() {  /* the current device's warp size: 32 or 64, never 0 */
  int dev = 0, ws = 0;
  if (hipGetDevice(&dev) != hipSuccess || hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, dev) != hipSuccess
      || ws <= 0) {
#if defined(__HIP_PLATFORM_AMD__)
    ws = 64;  /* no device to ask: assume the wider (gfx9) wavefront */
#else
    ws = 32;
#endif
  }
  return ws;
}"""

# CUDA's minimum blocks per SM is HIP's minimum waves per EU: keep it where it means what it says
# (dropping it on NVIDIA lifted the register cap and cost the sample's GEMM 22% on an H200).
MIN_BLOCKS = """#if defined(__HIP_PLATFORM_AMD__)
#define HIPPORT_CUDA_MIN_BLOCKS(n)  /* HIP reads __launch_bounds__' 2nd argument as min waves per EU */
#else
#define HIPPORT_CUDA_MIN_BLOCKS(n) , n
#endif"""

SYNC_SHIM = """#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 70000000 && !defined(HIP_ENABLE_WARP_SYNC_BUILTINS)
/* ROCm < 7: the *_sync builtins are opt-in (6.2+) or absent; a wavefront runs in lockstep */
#define __shfl_sync(m, ...) __shfl(__VA_ARGS__)
#define __shfl_up_sync(m, ...) __shfl_up(__VA_ARGS__)
#define __shfl_down_sync(m, ...) __shfl_down(__VA_ARGS__)
#define __shfl_xor_sync(m, ...) __shfl_xor(__VA_ARGS__)
#define __ballot_sync(m, p) (__ballot(p) & (m))
#define __any_sync(m, p) __any(p)
#define __all_sync(m, p) __all(p)
#define __activemask() __ballot(1)
#endif"""

SYNCWARP_SHIM = """#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 70000000
#define __syncwarp(...) __builtin_amdgcn_wave_barrier()  /* __syncwarp exists from HIP 7.0 */
#endif"""


GUARDS = {"WS": "HIPPORT_WS", "MASK_T": "HIPPORT_LANE_MASK_T", "HOST_WS": "HIPPORT_HOST_WARP_SIZE",
          "MIN_BLOCKS": "HIPPORT_CUDA_MIN_BLOCKS", "SYNC_SHIM": "HIPPORT_SYNC_SHIM",
          "SYNCWARP_SHIM": "HIPPORT_SYNCWARP_SHIM"}


def _guarded(name: str, body: str) -> str:
    g = GUARDS[name]
    if name in ("WS", "MIN_BLOCKS"):  # the part defines its guard macro itself
        return f"#ifndef {g}\n{body}\n#endif"
    return f"#ifndef {g}\n#define {g}\n{body}\n#endif"


def prelude_text(needs: Needs, portable: bool, newline: str = "\n") -> str:
    parts: list[str] = []
    if needs.sync_shim:
        parts.append(_guarded("SYNC_SHIM", SYNC_SHIM))
    if needs.syncwarp_shim:
        parts.append(_guarded("SYNCWARP_SHIM", SYNCWARP_SHIM))
    if portable:
        if needs.ws:
            parts.append(_guarded("WS", WS))
        if needs.mask_t:
            parts.append(_guarded("MASK_T", MASK_T))
        if needs.host_ws:
            parts.append(_guarded("HOST_WS", HOST_WS))
        if needs.min_blocks:
            parts.append(_guarded("MIN_BLOCKS", MIN_BLOCKS))
    if not parts:
        return ""
    text = "/* hipport warp helpers: each part is identical wherever it appears, under its own guard */\n" \
        + "\n".join(parts) + "\n"
    return text.replace("\n", newline)


def prelude_offset(text: str, c: Columns) -> int:
    """Where inserted helpers go: after the hip/cuda runtime include line (or after the first include
    block, or 0), never inside a preprocessor conditional (an include guard counts as none): a prelude
    inside `#ifdef USE_ROCM` would leave `lane_mask_t` undefined in the other branch."""
    tt, en, n = c.texts, c.ends, len(c)
    directives = _directives(text, c)
    base = 0
    if len(directives) >= 2 and directives[0][1] == "ifndef" and directives[1][1] == "define" \
            and directives[0][0] + 2 < n and directives[1][0] + 2 < n \
            and tt[directives[0][0] + 2] == tt[directives[1][0] + 2]:
        base = 1  # include guard: transparent
    depth = 0
    first_inc: int | None = None
    pending: str | None = None  # an include was seen inside a conditional: place after it closes
    for k, word, end in directives:
        if word in ("if", "ifdef", "ifndef"):
            depth += 1
        elif word == "endif":
            depth -= 1
            if pending is not None and depth <= base:
                if pending == "runtime":
                    return end
                first_inc = end if first_inc is None else first_inc
                pending = None
        elif word == "include":
            runtime = bool(re.search(r"cuda_runtime|hip_runtime|cuda\.h|<hip/", text[en[k + 1]:end]))
            if depth > base:
                pending = pending if pending == "runtime" else ("runtime" if runtime else "include")
            elif runtime:
                return end
            elif first_inc is None:
                first_inc = end
    return first_inc or 0


def _directives(text: str, c: Columns) -> list[tuple[int, str, int]]:
    """(token index of '#', directive word, offset after the directive's line) of each directive."""
    tt, st, pp, n = c.texts, c.starts, c.pps, len(c)
    out: list[tuple[int, str, int]] = []
    for k in range(n - 1):
        if tt[k] == "#" and pp[k] >= 0 and (k == 0 or pp[k - 1] != pp[k]):
            line_end = text.find("\n", st[k + 1])
            while line_end > 0 and text[line_end - 1] == "\\":
                nxt = text.find("\n", line_end + 1)
                line_end = nxt if nxt >= 0 else -1
            out.append((k, tt[k + 1], len(text) if line_end < 0 else line_end + 1))
    return out
