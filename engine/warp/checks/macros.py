"""Lane and warp ids computed in a macro (W64-01, W64-02): `#define LANE (threadIdx.x & 31)`, `#define WARP_ID
(threadIdx.x / 32)`. The macros that get a finding are handed on (`macro_keys`): the device check joins the
fix group of each function that uses one with the macro's."""

from __future__ import annotations

from ..facts import FileFacts
from ..hits import Hit, HitLog
from ..lex import ID
from ..values import FunctionValues
from .interface import CheckOutput, Upstream


def check_macros(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    tokens, log = facts.tokens, HitLog(upstream.claimed)
    values = facts.function_values()  # a macro body reads no function's names
    found: set[str] = set()
    for i in tokens.positions(("define",)):
        if tokens.directive[i] < 0 or i + 1 >= tokens.count or tokens.kinds[i + 1] != ID:
            continue
        body = [k for k in range(i + 2, min(tokens.count, i + 40)) if tokens.directive[k] == tokens.directive[i]]
        if not body:
            continue
        name = tokens.texts[i + 1]
        if _lane_id(facts, log, values, name, body[0], body[-1] + 1):
            found.add(name)
        if _warp_id(facts, log, values, name, body[0], body[-1] + 1):
            found.add(name)
    return CheckOutput(log, macro_keys=frozenset(found))


def _lane_id(facts: FileFacts, log: HitLog, values: FunctionValues, name: str, ba: int, bb: int) -> bool:
    tokens = facts.tokens
    lit = values.has_lane32(ba, bb)
    if lit is None or tokens.texts[lit] in facts.warp_size_constants:
        return False
    is31 = tokens.is_int(lit, 31)
    return log.add(Hit("W64-01", lit, [tokens.edit(lit, "63" if is31 else "64", "W64-01")],
                       [tokens.edit(lit, "(warpSize - 1)" if is31 else "warpSize", "W64-01")],
                       "lane = ... % 64", "lane = ... % warpSize",
                       f"Macro {name} computes a lane id from 32 lanes: lanes 32-63 of a 64-lane "
                       "wavefront alias lanes 0-31.", f"macro:{name}"))


def _warp_id(facts: FileFacts, log: HitLog, values: FunctionValues, name: str, ba: int, bb: int) -> bool:
    tokens = facts.tokens
    lit = values.warpid32(ba, bb)
    if lit is None:
        return False
    five = tokens.is_int(lit, 5)
    port = [tokens.edit(lit - 1, "/ warpSize", "W64-02", lit)] if five else [tokens.edit(lit, "warpSize", "W64-02")]
    return log.add(Hit("W64-02", lit, [tokens.edit(lit, "6" if five else "64", "W64-02")], port,
                       "warp id by 64", "warp id by warpSize",
                       f"Macro {name} computes a warp id with 32 lanes per warp: a 64-lane wavefront "
                       "is counted as two warps.", f"macro:{name}"), claim=[lit - 1, lit] if five else [lit])
