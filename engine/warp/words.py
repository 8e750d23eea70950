"""The warp analysis' vocabulary: the builtins, type words and name patterns every check reads, and the
full-mask spellings its fixes write (one place for each)."""

from __future__ import annotations

import functools
import re

SYNC_CALLS = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
    "__any_sync", "__all_sync", "__match_any_sync", "__match_all_sync", "__syncwarp",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
    "__reduce_or_sync", "__reduce_xor_sync",
})
SHFL_CALLS = frozenset({
    "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor",
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
})
BALLOT_CALLS = frozenset({"__ballot", "__ballot_sync", "__activemask", "__match_any_sync", "__match_all_sync",
                          "__match_any", "__match_all", "__ballot64"})
BITCOUNT = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll"}
NARROW_TYPES = frozenset({"unsigned", "int", "signed", "uint32_t", "int32_t", "uint", "u32"})
TYPE_WORDS = NARROW_TYPES | {"long", "short", "auto", "size_t", "uint64_t", "int64_t", "char", "lane_mask_t"}
TID_WORDS = frozenset({"threadIdx", "hipThreadIdx_x", "hipThreadIdx_y", "hipThreadIdx_z", "__lane_id"})
BLOCK_WORDS = frozenset({"blockIdx", "hipBlockIdx_x", "hipBlockIdx_y", "hipBlockIdx_z"})
WARPISH = re.compile(r"(?i)warp|wavefront|^k?ws$|^wave_?size$|threads_per_warp|lanes_per")
LANEISH = re.compile(r"(?i)^(lane|lane_?id|laneid|lane_idx|lid)$")
HOST_THREADS = re.compile(r"(?i)thread|block_?size|blocksize|^block$|^bs$|^nthreads$|^tpb$")
PTX_WARP = re.compile(r"%%laneid|%%lanemask|%%warpid|shfl\.|vote\.|activemask|redux\.sync|match\.")
FULL32 = 0xFFFFFFFF
WARP_OPS = SHFL_CALLS | BALLOT_CALLS | SYNC_CALLS | frozenset({"__any", "__all"})
HOST_TRIGGERS = frozenset({"dim3", "warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__", "==", "!="})
# rules whose hits are dropped inside a consistent virtual 32-lane warp: lane ids, warp ids, loop starts,
# last lanes and per-warp arrays of a 32-wide sub-group are all correct on a 64-lane wavefront
VIRTUAL_OK = frozenset({"W64-01", "W64-02", "W64-05", "W64-06", "W64-07", "W64-13", "W64-14", "W64-17", "W64-18",
                        "W64-23"})
# The W64-06 fix of an unrolled chain inserts a copy of its statement; one statement holding thousands of
# chain heads (generated code) would be copied once per head, quadratic in its length. Past this many
# copied bytes per file, a head is reported as too complex, without a fix.
CHAIN_COPY_BUDGET = 1 << 20
FILE_TRIGGERS = frozenset({"__launch_bounds__", "TempStorage", "warpSize", "==", "!="})

# the 64-bit full mask each fix style writes where a 32-bit one stood
W64_MASK, PORT_MASK = "0xffffffffffffffffull", "(~lane_mask_t{0})"


@functools.lru_cache(maxsize=8192)
def laneish_name(name: str) -> bool:
    """LANEISH matches the name (cached: the value tests ask it for every name of every expression)."""
    return LANEISH.match(name) is not None


def hex8(s: str) -> bool:
    """An 8-digit hexadecimal literal (`0xffffffff`, not `4294967295`): a mask, not a count."""
    t = s.rstrip("uUlL").lower()
    return t.startswith("0x") and len(t) == 10
