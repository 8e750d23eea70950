"""Lane ids, warp ids and last lanes in device code (W64-01, W64-02, W64-17, W64-23): `tid % 32`, `tid & 31`,
`tid / 32`, `tid >> 5`, `lane == 31`, `__shfl(v, 31)`, `__shfl(v, tid % 32)`. A 32 inside a shuffle given an
explicit width of at most 32 (or defining a name used only there) is deliberate sub-warp logic.
The handlers at the end are called by the device check on their trigger tokens."""

from __future__ import annotations

import bisect

from ..hits import Hit
from ..lex import ID, NUM, int_value
from ..words import BLOCK_WORDS, SHFL_CALLS, WARP_OPS
from .context import DeviceFunction


def explicit_width_args(fn: DeviceFunction, a: int, b: int) -> list[tuple[int, int]]:
    """Argument spans of shuffles given an explicit width of at most 32: deliberate sub-warp logic."""
    out = []
    for k in range(a, b):
        if fn.tokens.texts[k] in SHFL_CALLS and fn.tokens.texts[k + 1] == "(" and (k + 1) in fn.tokens.partner:
            args = fn.tokens.split_args(k + 1)
            n_expected = 4 if fn.tokens.texts[k].endswith("_sync") else 3
            if len(args) == n_expected:
                wa, wb = args[-1]
                v = int_value(fn.tokens.texts[wa]) if wb == wa + 1 and fn.tokens.kinds[wa] == NUM else None
                if v is not None and v <= 32:
                    out.append((k + 1, fn.tokens.partner[k + 1]))
    return out


def in_sub_warp(fn: DeviceFunction, q: int) -> bool:
    # ranges are call argument lists sorted by start: disjoint, or nested a few levels deep
    i = bisect.bisect_left(fn.sub_warp, (q, q)) - 1
    for j in range(i, max(-1, i - 8), -1):
        x, y = fn.sub_warp[j]
        if x < q < y:
            return True
    return False


def sub_warp_only(fn: DeviceFunction, k: int, a: int, b: int) -> bool:
    """True when the 32 at k is inside a sub-warp shuffle, or defines a name used only there."""
    if not fn.sub_warp:
        return False
    if in_sub_warp(fn, k):
        return True
    s = fn.tokens.stmt_start(k, a)
    name_i = next((q for q in range(s, k) if fn.tokens.texts[q + 1] == "=" and fn.tokens.kinds[q] == ID), None)
    if name_i is None:
        return False
    name = fn.tokens.texts[name_i]
    if fn.uses_index is None:
        fn.uses_index = {}
        for q in range(a, b):
            if fn.tokens.kinds[q] == ID:
                fn.uses_index.setdefault(fn.tokens.texts[q], []).append(q)
    uses = [q for q in fn.uses_index.get(name, []) if q != name_i]
    return bool(uses) and all(in_sub_warp(fn, q) for q in uses)


def flows_to_warp_op(fn: DeviceFunction, k: int, a: int, b: int) -> bool:
    """The function uses a warp builtin, or compares the lane being defined (leader election)."""
    facts = fn.warp_op_facts
    if facts is None:  # once per function: a kernel of 20,000 lines must not rescan itself per hit
        ops = WARP_OPS.intersection(fn.tokens.texts[a:b])
        compared = {fn.tokens.texts[q] for q in range(a, b) if fn.tokens.texts[q + 1] == "=="}
        facts = fn.warp_op_facts = (bool(ops), compared)
    if facts[0]:
        return True
    s = fn.tokens.stmt_start(k, a)
    name = next((fn.tokens.texts[q] for q in range(s, k) if fn.tokens.texts[q + 1] == "=" and fn.tokens.kinds[q] == ID), None)
    return name is not None and name in facts[1]


def in_shared_dim(fn: DeviceFunction, k: int) -> bool:
    s = k
    while s > 0 and fn.tokens.texts[s] not in (";", "{", "}"):
        if fn.tokens.texts[s] in ("__shared__", "TempStorage"):
            return True
        s -= 1
    return False


def shuffle_source(fn: DeviceFunction, k: int) -> None:
    """`__shfl(v, src)` / `__shfl_sync(m, v, src)` with no width: a 32-lane source (W64-23), lane 31 (W64-17)."""
    tx = fn.tokens.texts
    if tx[k + 1] != "(" or (k + 1) not in fn.tokens.partner:
        return
    args = fn.tokens.split_args(k + 1)
    src_i = 2 if tx[k] == "__shfl_sync" else 1
    if len(args) != src_i + 1:
        return
    sa, sb = args[src_i]
    lit = fn.values.has_lane32(sa, sb)
    if lit is None:
        for q in range(sa, sb):
            if tx[q] == "%" and fn.tokens.is_int(q + 1, 32):
                lit = q + 1
    if lit is not None and tx[lit] not in fn.facts.warp_size_constants:
        is31 = fn.tokens.is_int(lit, 31)
        fn.log.add(Hit("W64-23", lit, [fn.tokens.edit(lit, "63" if is31 else "64", "W64-23")],
                       [fn.tokens.edit(lit, "(warpSize - 1)" if is31 else "warpSize", "W64-23")],
                       "source lane modulo 64", "source lane modulo warpSize",
                       "A 32-lane source index with the default shuffle width (64 on gfx9) reads "
                       "lanes 0-31 from lanes 32-63: the two halves of the wavefront mix.", fn.key))
    if fn.tokens.is_int(sa, 31) and sb == sa + 1:  # broadcast from lane 31
        fn.log.add(Hit("W64-17", sa, [fn.tokens.edit(sa, "63", "W64-17")],
                       [fn.tokens.edit(sa, "(warpSize - 1)", "W64-17")],
                       "last lane 63", "last lane warpSize - 1",
                       "Lane 31 is not the last lane of a 64-lane wavefront: this broadcast returns "
                       "a value from the lower half only.", fn.key))


def last_lane_test(fn: DeviceFunction, k: int) -> None:
    """`lane == 31` (W64-17)."""
    tx = fn.tokens.texts
    if not (fn.tokens.is_int(k + 1, 31) and tx[k + 2] in (")", "&&", "||", ";", "?")):
        return
    la, lb = fn.tokens.left_operand(k, fn.body[0])
    if fn.values.laneish(la, lb) and not fn.tokens.names(la, lb) & BLOCK_WORDS:
        fn.log.add(Hit("W64-17", k + 1, [fn.tokens.edit(k + 1, "63", "W64-17")],
                       [fn.tokens.edit(k + 1, "(warpSize - 1)", "W64-17")],
                       "last lane 63", "last lane warpSize - 1",
                       "Lane 31 is not the last lane of a 64-lane wavefront.", fn.key))


def _lane_of_thread(fn: DeviceFunction, k: int) -> str | None:
    """The confidence of a W64-01 at the operator k (`tid % 32`, `tid & 31`), None when there is none."""
    a, b = fn.body
    la, lb = fn.tokens.left_operand(k, a)
    if not fn.values.tid_derived(la, lb) or sub_warp_only(fn, k, a, b):
        return None
    return "high" if flows_to_warp_op(fn, k, a, b) else "medium"


# W64-01's two lane computations: (the literal, wave64 text, portable text, the two summaries, the message)
_LANE_OF_THREAD = {
    "%": (32, "64", "warpSize", "lane = ... % 64", "lane = ... % warpSize",
          "Lane id computed modulo 32: lanes 32-63 of a 64-lane wavefront alias lanes 0-31 "
          "(two leaders per wavefront, per-lane slots shared)."),
    "&": (31, "63", "(warpSize - 1)", "lane = ... & 63", "lane = ... & (warpSize - 1)",
          "Lane id masked with 31: lanes 32-63 of a 64-lane wavefront alias lanes 0-31."),
}


def lane_literal(fn: DeviceFunction, k: int) -> None:
    """`tid % 32` or `tid & 31` (W64-01)."""
    literal, w64, port, w64_summary, port_summary, message = _LANE_OF_THREAD[fn.tokens.texts[k]]
    if not fn.tokens.is_int(k + 1, literal):
        return
    conf = _lane_of_thread(fn, k)
    if conf is not None:
        fn.log.add(Hit("W64-01", k + 1, [fn.tokens.edit(k + 1, w64, "W64-01")],
                       [fn.tokens.edit(k + 1, port, "W64-01")], w64_summary, port_summary, message, fn.key, conf))



def warp_id_division(fn: DeviceFunction, k: int) -> None:
    """`tid / 32`, `blockDim.x / 32.f` (W64-02), not in a __shared__ array's size."""
    flt = fn.tokens.texts[k + 1].lower().rstrip("f") in ("32.", "32.0")  # blockDim.x / 32.f
    if not (fn.tokens.is_int(k + 1, 32) or flt):
        return
    la, lb = fn.tokens.left_operand(k, fn.body[0])
    if (fn.values.tid_derived(la, lb) or fn.tokens.is_blockdim(la, lb)) and not in_shared_dim(fn, k):
        fn.log.add(Hit("W64-02", k + 1, [fn.tokens.edit(k + 1, "64.f" if flt else "64", "W64-02")],
                       [fn.tokens.edit(k + 1, "(float)warpSize" if flt else "warpSize", "W64-02")],
                       "warp id / warp count by 64", "warp id / warp count by warpSize",
                       "Warp id or warp count computed with 32: a 64-lane wavefront is counted as two "
                       "warps, so per-warp slots and loops disagree with the hardware.", fn.key))


def warp_id_shift(fn: DeviceFunction, k: int) -> None:
    """`tid >> 5` (W64-02)."""
    if not fn.tokens.is_int(k + 1, 5):
        return
    la, lb = fn.tokens.left_operand(k, fn.body[0])
    if fn.values.tid_derived(la, lb):
        fn.log.add(Hit("W64-02", k + 1, [fn.tokens.edit(k + 1, "6", "W64-02")],
                       [fn.tokens.edit(k, "/ warpSize", "W64-02", k + 1)],
                       "warp id >> 6", "warp id / warpSize",
                       "Warp id computed with >> 5 (32 lanes): a 64-lane wavefront is counted as two warps.",
                       fn.key), claim=[k, k + 1])
