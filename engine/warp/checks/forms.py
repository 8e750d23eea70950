"""Device forms that span a statement (W64-06, W64-07, W64-13, W64-14, W64-15, W64-18): shuffle loops
and unrolled shuffle chains that start at offset 16, warp-strided loops, per-warp and per-lane shared arrays,
32-lane tiles mixed with whole-wavefront operations, warp-synchronous tails, inline PTX.
The handlers at the end are called by the device check on their trigger tokens."""

from __future__ import annotations

import re

from ...edits import Edit
from ..hits import Hit
from ..lex import ID, NUM, STR, int_value
from ..words import CHAIN_COPY_BUDGET, FULL32, LANEISH, PORT_MASK, PTX_WARP, SHFL_CALLS, W64_MASK
from .context import DeviceFunction
from .masks import narrow_mask_name


def loop(fn: DeviceFunction, k: int, b: int, key: str) -> None:
    fl = fn.tokens.for_loop(k, b)
    if fl is None:
        return
    var, init, (ca, cb), sa, step, body = fl.var, fl.init, fl.cond, fl.step_span[0], fl.step, fl.body
    shfl_in_body = any(fn.tokens.texts[q] in SHFL_CALLS and fn.tokens.uses_name(var, q, fn.tokens.partner.get(q + 1, q + 1) + 1)
                       for q in range(body[0], body[1]) if fn.tokens.texts[q + 1] == "(")
    halving = fl.halving
    doubling = step in ([var, "<<=", "1"], [var, "*=", "2"], [var, "+=", var], [var, "=", var, "*", "2"],
                        [var, "=", var, "<<", "1"])
    if shfl_in_body and halving and init[1] == init[0] + 1 and fn.tokens.is_int(init[0], 16):
        q = init[0]
        fn.log.add(Hit("W64-06", q, [fn.tokens.edit(q, "32", "W64-06")], [fn.tokens.edit(q, "(warpSize / 2)", "W64-06")],
                     "start the shuffle reduction at 32", "start at warpSize / 2",
                     "Shuffle reduction starting at offset 16 combines only 32 lanes: on a 64-lane wavefront "
                     "lanes 32-63 never reach lane 0.", key))
    if shfl_in_body and doubling:
        for q in range(ca, cb):
            if fn.tokens.texts[q] == "<" and fn.tokens.is_int(q + 1, 32) and fn.tokens.texts[q - 1] == var:
                fn.log.add(Hit("W64-06", q + 1, [fn.tokens.edit(q + 1, "64", "W64-06")],
                             [fn.tokens.edit(q + 1, "warpSize", "W64-06")],
                             "scan up to 64 lanes", "scan up to warpSize lanes",
                             "Shuffle scan bounded by 32 covers only half of a 64-lane wavefront.", key))
            if fn.tokens.texts[q] == "<=" and fn.tokens.is_int(q + 1, 16) and fn.tokens.texts[q - 1] == var:
                fn.log.add(Hit("W64-06", q + 1, [fn.tokens.edit(q + 1, "32", "W64-06")],
                             [fn.tokens.edit(q + 1, "(warpSize / 2)", "W64-06")],
                             "scan up to 64 lanes", "scan up to warpSize lanes",
                             "Shuffle scan bounded by 16 covers only half of a 64-lane wavefront.", key))
    # W64-18: for (i = lane; i < n; i += 32)
    if step[:2] == [var, "+="] and len(step) == 3 and fn.tokens.is_int(sa + 2, 32) and fn.values.laneish(*init):
        q = sa + 2
        fn.log.add(Hit("W64-18", q, [fn.tokens.edit(q, "64", "W64-18")], [fn.tokens.edit(q, "warpSize", "W64-18")],
                     "stride 64", "stride warpSize",
                     "Warp-strided loop with stride 32 starting at a lane id: with 64 lanes per wavefront "
                     "elements are processed twice.", key))


def shared_array(fn: DeviceFunction, k: int, a: int, b: int, key: str) -> None:
    s, e = fn.tokens.stmt_bounds(k, a, b)
    if any(fn.tokens.texts[q] == "TempStorage" for q in range(s, e)):
        return  # W64-21
    q = k
    while q < e and not (fn.tokens.kinds[q] == ID and fn.tokens.texts[q + 1] == "["):
        q += 1
    if q >= e or (q + 1) not in fn.tokens.partner:
        return
    name = fn.tokens.texts[q]
    da, db = q + 2, fn.tokens.partner[q + 1]
    div = next((r + 1 for r in range(da, db) if fn.tokens.texts[r] == "/" and fn.tokens.is_int(r + 1, 32)), None)
    exact = db == da + 1 and fn.tokens.is_int(da, 32)
    # `[32 * F]` in a kernel whose lanes come from warpSize: one row per lane of the real wavefront
    mul = next((r for r in range(da, db) if fn.tokens.is_int(r, 32) and db - da == 3
                and "*" in (fn.tokens.texts[r - 1], fn.tokens.texts[r + 1])), None)
    if mul is not None and "warpSize" in fn.tokens.texts[a:b] and "%" not in fn.tokens.texts[da:db]:
        fn.log.add(Hit("W64-07", mul, [fn.tokens.edit(mul, "64", "W64-07")], [fn.tokens.edit(mul, "64", "W64-07")],
                     "rows for 64 lanes", "sized by the largest warp (64)",
                     f"Shared array `{name}` is sized for 32 lanes while this kernel's lanes come from "
                     "warpSize: on a 64-lane wavefront lanes 32-63 index past its end.", key, "medium"))
        return
    if div is None and not exact:
        return
    idx_warp = idx_lane = False
    for r in range(a, b):
        if r != q and fn.tokens.texts[r] == name and fn.tokens.texts[r + 1] == "[" and (r + 1) in fn.tokens.partner:
            ia, ib = r + 2, fn.tokens.partner[r + 1]
            ns = fn.tokens.names(ia, ib)
            warp_index = bool(ns & fn.values.warp_ids or fn.values.warpid32(ia, ib) is not None or (
                "warpSize" in ns and "/" in {fn.tokens.texts[z] for z in range(ia, ib)}))
            idx_warp |= warp_index
            # `partial[lane]` read only where `lane < blockDim.x / warpSize`: the warp-0 step over the
            # per-warp slots, one slot per warp (at most 32 on any target): not a per-lane use
            if (ns & fn.values.lane_ids or fn.values.has_lane32(ia, ib) is not None or "__lane_id" in ns) \
                    and not bounded_by_warp_count(fn, r, a, b):
                idx_lane = True
    if div is not None and idx_warp:
        fn.log.add(Hit("W64-07", div, [fn.tokens.edit(div, "64", "W64-07")], [],
                     "one slot per 64-lane wavefront", "kept: BLOCK/32 is the most warps any target has",
                     f"Per-warp array `{name}` sized with 32 lanes per warp: on a 64-lane wavefront half the "
                     "slots are never written, and loops over all of them read uninitialised data.", key))
    elif exact and idx_lane:
        what = (f"Per-warp array `{name}[32]` (one slot per warp) is also read by a lane id that no warp count "
                "bounds: on a 64-lane wavefront lanes 32-63 read past its end." if idx_warp else
                f"Per-lane array `{name}[32]` indexed by a lane id overflows on a 64-lane wavefront.")
        fn.log.add(Hit("W64-07", da, [fn.tokens.edit(da, "64", "W64-07")], [fn.tokens.edit(da, "64", "W64-07")],
                     "one slot per lane of a 64-lane wavefront", "sized by the largest warp (64)", what, key))


def bounded_by_warp_count(fn: DeviceFunction, r: int, a: int, b: int) -> bool:
    """The access at token r is guarded by `x < <expr> / warpSize` (or `/ 32`, `/ WS`): in a `?:` of its
    own statement or in the condition of the `if` that holds the statement."""
    s = fn.tokens.stmt_start(r, a)
    conds: list[tuple[int, int]] = []
    qm = next((z for z in range(s, r) if fn.tokens.texts[z] == "?"), None)
    if qm is not None:
        conds.append((s, qm))
    if fn.tokens.texts[s] == "if" and fn.tokens.partner.get(s + 1, r) < r:  # if (lane < n / warpSize) v = a[lane];
        conds.append((s + 2, fn.tokens.partner[s + 1]))
    head = s - 1
    if fn.tokens.texts[head] == "{" and fn.tokens.texts[head - 1] == ")":
        head -= 1
    if fn.tokens.texts[head] == ")" and head in fn.tokens.partner and fn.tokens.texts[fn.tokens.partner[head] - 1] == "if":
        conds.append((fn.tokens.partner[head] + 1, head))
    w32 = {"warpSize", *fn.facts.warp_size_constants, *fn.facts.project.w32}
    for ca, cb in conds:
        for z in range(ca, cb):
            if fn.tokens.texts[z] == "<" and any(fn.tokens.texts[y] == "/" and (fn.tokens.texts[y + 1] in w32 or fn.tokens.is_int(y + 1, 32))
                                         for y in range(z + 1, cb)):
                return True
    return False


def unrolled_chain(fn: DeviceFunction, k: int, a: int, b: int, key: str) -> None:
    args = fn.tokens.split_args(k + 1)
    sync = fn.tokens.texts[k].endswith("_sync")
    if len(args) != (3 if sync else 2):  # an explicit width means deliberate sub-warp logic
        return
    oa, ob = args[-1]
    if not (ob == oa + 1 and fn.tokens.is_int(oa, 16)):
        return
    # a chain already starting at 32 (or a loop) needs nothing
    if has_offset32_shuffle(fn, a, b):
        return
    s = fn.tokens.stmt_start(k, a)
    _, e = fn.tokens.stmt_bounds(k, a, b)
    if fn.tokens.texts[e] != ";" or fn.tokens.texts[s] in ("for", "if", "while", "return"):
        return
    start, end = fn.tokens.starts[s], fn.tokens.ends[e]
    masks = fn.full32_at.get((s, e))
    if masks is None:  # once per statement: a statement may hold thousands of chain heads
        masks = fn.full32_at[(s, e)] = [q for q in range(s, e + 1)
                                           if fn.tokens.kinds[q] == NUM and int_value(fn.tokens.texts[q]) == FULL32]
    if masks:
        fn.log.needs.mask_t = True
    if fn.log.dropped("W64-06", [oa]):
        return  # its edits, a copy of the statement each, would be built for nothing
    if end - start > fn.budget.left:
        fn.log.add(Hit("W64-06", oa, None, None, "", "",
                     "Unrolled shuffle reduction starting at offset 16 combines only 32 lanes: on a 64-lane "
                     "wavefront lanes 32-63 never reach lane 0. Too complex to fix here (this file's "
                     f"statements holding chains exceed {CHAIN_COPY_BUDGET >> 20} MB of copies): add the "
                     "offset-32 step by hand.", key, "medium"))
        return
    fn.budget.left -= end - start

    def copy(mask_text: str) -> str:
        """The statement with offset 32 and the mask literal widened like the rest of the group."""
        out = []
        pos = start
        for q in sorted([*masks, oa]):
            out.append(fn.tokens.text[pos:fn.tokens.starts[q]])
            out.append("32" if q == oa else mask_text)
            pos = fn.tokens.ends[q]
        out.append(fn.tokens.text[pos:end])
        return "".join(out)

    line_start = fn.tokens.text.rfind("\n", 0, start) + 1
    indent = fn.tokens.text[line_start:start] if fn.tokens.text[line_start:start].strip() == "" else ""
    nl = "\r\n" if "\r\n" in fn.tokens.text[:200] else "\n"
    w = [Edit(start, start, f"{copy(W64_MASK)}{nl}{indent}", "W64-06")]
    p = [Edit(start, start, f"if (warpSize > 32) {copy(PORT_MASK)}{nl}{indent}", "W64-06")]
    fn.log.add(Hit("W64-06", oa, w, p, "add the offset-32 step", "add the offset-32 step when warpSize > 32",
                 "Unrolled shuffle reduction starting at offset 16 combines only 32 lanes: on a 64-lane "
                 "wavefront lanes 32-63 never reach lane 0.", key))


def has_offset32_shuffle(fn: DeviceFunction, a: int, b: int) -> bool:
    """Whether the function's tokens [a, b) hold a shuffle with the literal offset 32. Computed once per range: a
    function with thousands of unrolled shuffles must not rescan itself for each one."""
    found = fn.offset32
    if found is None:
        found = False
        for q in range(a, b):
            if fn.tokens.texts[q] in SHFL_CALLS and fn.tokens.texts[q + 1] == "(" and (q + 1) in fn.tokens.partner:
                qa = fn.tokens.split_args(q + 1)
                if qa and qa[-1][1] == qa[-1][0] + 1 and fn.tokens.is_int(qa[-1][0], 32):
                    found = True
                    break
        fn.offset32 = found
    return found


def sync_tail(fn: DeviceFunction, k: int, a: int, b: int, key: str) -> None:
    lp = k + 1
    rp = fn.tokens.partner.get(lp)
    if rp is None:  # unbalanced '('
        return
    # if (L < 16) S;  where S reads [... + 16]
    if not (rp - lp == 4 and fn.tokens.texts[lp + 2] == "<" and fn.tokens.is_int(lp + 3, 16)):
        return
    lane_name = fn.tokens.texts[lp + 1]
    if not (lane_name in fn.values.lane_ids or LANEISH.match(lane_name)):
        return
    ss, se = rp + 1, fn.tokens.stmt_bounds(rp + 1, rp + 1, b)[1]
    sixteen = [q for q in range(ss, se) if fn.tokens.is_int(q, 16) and fn.tokens.texts[q - 1] == "+"]
    if not sixteen or fn.tokens.texts[se] != ";":
        return
    stmt = fn.tokens.text_of(ss, se + 1)
    step32 = re.sub(r"\b16\b", "32", stmt)
    line_start = fn.tokens.text.rfind("\n", 0, fn.tokens.starts[k]) + 1
    indent = fn.tokens.text[line_start:fn.tokens.starts[k]]
    indent = indent if indent.strip() == "" else ""
    nl = "\r\n" if "\r\n" in fn.tokens.text[:200] else "\n"
    syncw = "__syncwarp();"
    if fn.facts.rocm < (7, 0):
        fn.log.needs.syncwarp_shim = True
    w = [fn.tokens.insert_before(k, f"{syncw}{nl}{indent}if ({lane_name} < 32) {step32}{nl}{indent}{syncw}{nl}{indent}",
                            "W64-14")]
    p = [fn.tokens.insert_before(k, f"{syncw}{nl}{indent}if (warpSize > 32 && {lane_name} < 32) {step32}{nl}{indent}"
                               f"{syncw}{nl}{indent}", "W64-14")]
    # keep later steps of the unrolled tail ordered, too
    q = se + 1
    while fn.tokens.texts[q] == "if" and fn.tokens.texts[q + 1] == "(" and (q + 1) in fn.tokens.partner:
        e2 = fn.tokens.stmt_bounds(fn.tokens.partner[q + 1] + 1, q, b)[1]
        if fn.tokens.texts[e2] != ";":
            break
        w.append(fn.tokens.insert_after(q - 1, f"{nl}{indent}{syncw}", "W64-14"))
        p.append(fn.tokens.insert_after(q - 1, f"{nl}{indent}{syncw}", "W64-14"))
        q = e2 + 1
    fn.log.add(Hit("W64-14", lp + 3, w, p, "add the 32-lane step and __syncwarp()",
                 "add the step when warpSize > 32, and __syncwarp()",
                 "Warp-synchronous tail that starts at 16 lanes and relies on implicit lockstep: on a 64-lane "
                 "wavefront lanes 32-63 are never folded in.", key))


def inline_ptx(fn: DeviceFunction, k: int, b: int, key: str) -> None:
    q = k + 1
    while fn.tokens.texts[q] in ("volatile", "__volatile__"):
        q += 1
    if fn.tokens.texts[q] != "(" or q not in fn.tokens.partner:
        return
    rp = fn.tokens.partner[q]
    strs = [fn.tokens.texts[z] for z in range(q, rp) if fn.tokens.kinds[z] == STR]
    if not strs or not PTX_WARP.search(strs[0]):
        return
    w: list[Edit] | None = None
    m = re.match(r'"\s*mov\.u32\s+%0\s*,\s*%%(laneid|lanemask_lt|lanemask_gt|lanemask_eq)\s*;?\s*"', strs[0])
    call = "__lane_id()" if m is None or m.group(1) == "laneid" else f"__{m.group(1)}()"
    var = ""
    if m:
        outs = [z for z in range(q, rp) if fn.tokens.kinds[z] == STR and fn.tokens.texts[z].startswith('"=r"')]
        if outs and fn.tokens.texts[outs[0] + 1] == "(" and outs[0] + 1 in fn.tokens.partner:
            z = outs[0] + 1
            var = fn.tokens.text_of(z + 1, fn.tokens.partner[z])
            w = [Edit(fn.tokens.starts[k], fn.tokens.ends[rp], f"{var} = {call}", "W64-15")]
    if w and call != "__lane_id()" and fn.tokens.function_of[k] >= 0:
        # HIP's __lanemask_*() are 64-bit: the variable that held the 32-bit PTX mask widens with it
        narrow_mask_name(fn.tokens, fn.log, var.strip(), fn.tokens.function_of[k], f"asm:{k}", f"holds {call}")
    fn.log.add(Hit("W64-15", k, w, list(w) if w else None,
                 call if w else "", call if w else "",
                 "Inline PTX with warp semantics does not compile for AMD and assumes 32-lane masks "
                 "(rewrite with __lane_id, __lanemask_lt, __ballot, __shfl*).", f"asm:{k}",
                 "high" if w else "medium"), claim=range(k, rp + 1))


def loop_at(fn: DeviceFunction, k: int) -> None:
    if fn.tokens.texts[k + 1] == "(" and (k + 1) in fn.tokens.partner:
        loop(fn, k, fn.body[1], fn.key)


def shared_array_at(fn: DeviceFunction, k: int) -> None:
    shared_array(fn, k, *fn.body, fn.key)


def unrolled_chain_at(fn: DeviceFunction, k: int) -> None:
    if fn.tokens.texts[k + 1] == "(" and (k + 1) in fn.tokens.partner:
        unrolled_chain(fn, k, *fn.body, fn.key)


def tile_of_32(fn: DeviceFunction, k: int) -> None:
    """`tiled_partition<32>` (W64-13). Only reached when the function also uses whole-wave operations (a
    consistent tile is a virtual warp: words.VIRTUAL_OK); widening the tile alone breaks its 32-bounded loops."""
    tx = fn.tokens.texts
    if not (tx[k + 1] == "<" and fn.tokens.is_int(k + 2, 32) and tx[k + 3] == ">"):
        return
    fn.log.add(Hit("W64-13", k + 2, None, None, "", "",
                   "A 32-lane tile is half a 64-lane wavefront, and this function also uses whole-wavefront "
                   "operations (ballots, warpSize, width-less shuffles): check that the tile is not "
                   "treated as the hardware warp. No automatic fix: widening the tile needs every "
                   "bound that goes with it.", fn.key, "medium",
                   review=f"tile of 32 mixed with whole-wavefront operations at line {fn.tokens.line(k)}"))


def sync_tail_at(fn: DeviceFunction, k: int) -> None:
    if fn.tokens.texts[k + 1] == "(" and (k + 1) in fn.tokens.partner:
        sync_tail(fn, k, *fn.body, fn.key)


def inline_ptx_at(fn: DeviceFunction, k: int) -> None:
    inline_ptx(fn, k, fn.body[1], fn.key)
