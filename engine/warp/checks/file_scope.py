"""Code outside functions and the launch bounds of kernels (W64-19, W64-21, W64-20, W64-09): the second
argument of `__launch_bounds__`, CUB warp storage sized with 32, hard guards and warpSize used as a constant
at file scope (`constexpr int W = warpSize;`)."""

from __future__ import annotations

from ...edits import Edit
from ..facts import FileFacts
from ..hits import Hit, HitLog
from ..lex import ID
from ..tokens import Tokens
from ..words import FILE_TRIGGERS
from .interface import CheckOutput, Upstream
from .warp_size import guard, warp_size_constant_hit


def check_file_scope(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    tokens, log = facts.tokens, HitLog(upstream.claimed)
    for k in tokens.positions(FILE_TRIGGERS):
        x = tokens.texts[k]
        at_file_scope = tokens.function_of[k] < 0 and tokens.directive[k] < 0
        if x == "__launch_bounds__":
            launch_bounds(tokens, log, k)
        if x == "TempStorage":
            cub_storage(tokens, log, k)
        if at_file_scope and x in ("==", "!="):
            guard(tokens, log, k, "file")
        if at_file_scope and x == "warpSize" and facts.rocm >= (7, 0) and not default_argument(tokens, k):
            warp_size_constant_hit(tokens, log, k, "initialise a constexpr, be a template argument or size an array")
    return CheckOutput(log)


def launch_bounds(tokens: Tokens, log: HitLog, k: int) -> None:
    """W64-19: `__launch_bounds__(T, MIN)` (at k): MIN means minimum waves per execution unit in HIP."""
    if tokens.texts[k + 1] != "(" or (k + 1) not in tokens.partner:
        return
    args = tokens.split_args(k + 1)
    if len(args) != 2:
        return
    comma = args[0][1]
    end = tokens.ends[args[1][1] - 1]
    e = Edit(tokens.starts[comma], end, "", "W64-19")
    n_text = tokens.text[tokens.starts[args[1][0]]:end].strip()
    pe = Edit(tokens.starts[comma], end, f" HIPPORT_CUDA_MIN_BLOCKS({n_text})", "W64-19")
    log.needs.min_blocks = True
    log.add(Hit("W64-19", comma + 1, [e], [pe], "drop the minimum-blocks argument",
                "keep the minimum-blocks argument on NVIDIA only",
                "__launch_bounds__' second argument means minimum waves per execution unit in HIP, "
                "not minimum blocks per SM: CUDA values can force register caps and spills.",
                f"perf:{k}", "high"), claim=range(comma, args[1][1]))


def cub_storage(tokens: Tokens, log: HitLog, k: int) -> None:
    """W64-21: `TempStorage name[BLOCK / 32]` (at k): CUB/hipCUB warp storage sized with 32 lanes per warp."""
    tx = tokens.texts
    if not (tokens.kinds[k + 1] == ID and tx[k + 2] == "[" and (k + 2) in tokens.partner):
        return
    for q in range(k + 3, tokens.partner[k + 2]):
        if tx[q] == "/" and tokens.is_int(q + 1, 32):
            key = f"fn:{tokens.function_of[k]}" if tokens.function_of[k] >= 0 else f"cub:{k}"
            log.add(Hit("W64-21", q + 1, [tokens.edit(q + 1, "64", "W64-21")], [],
                        "one TempStorage per 64-lane wavefront",
                        "kept: sized by the most warps any target has; index by threadIdx.x / warpSize",
                        "CUB/hipCUB warp TempStorage sized with 32 lanes per warp: hipCUB's logical "
                        "warp is the 64-lane wavefront on gfx9, so storage and warp ids disagree.", key))


def default_argument(tokens: Tokens, k: int) -> bool:
    """`int width = warpSize` in a function's parameter list: evaluated in device code at each call."""
    call = tokens.enclosing_call(k)
    return call is not None and tokens.texts[k - 1] == "=" and tokens.texts[call] not in ("static_assert", "__launch_bounds__")
