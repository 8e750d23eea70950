"""Device functions by the lanes they work with, found once per file (issue 9, WAVE64.md "Roles before rules").

A device function whose cross-lane operations (its own and its device callees') are all 32-wide sub-group
operations is a *virtual warp*: its lane ids, warp ids and loops are correct on wave64 and are not
rewritten (`words.VIRTUAL_OK`). A function with a whole-wavefront operation other than a shuffle (a
ballot, vote, lane mask, warpSize, warp PTX), or calling one, is a *wave function*: the files that include
this one are in a hardware context where they call it (project.py). A ballot passed to a device helper
makes the helper's parameter a 64-bit mask (`ballot_params`).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from .lex import ID, NUM, STR, int_value
from .scopes import Func
from .tokens import Tokens
from .words import BALLOT_CALLS, PTX_WARP, SHFL_CALLS

# whole-wavefront operations. __activemask is not one: as a *_sync mask it only has to be 64 bits wide (W64-04)
# `__all` is not one either: true on a 64-lane wavefront only when both 32-lane halves agree, it is the
# conservative answer for each half (a fast path taken less often), so a 32-lane group that votes stays right.
HW_OPS = (BALLOT_CALLS - {"__activemask"}) | frozenset({
    "__any", "__any_sync", "__lanemask_lt", "__lanemask_gt", "__lanemask_eq", "__lane_id",
    "warpSize", "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
    "__reduce_or_sync", "__reduce_xor_sync"})
TILE_WORDS = frozenset({"tiled_partition", "thread_block_tile"})


@dataclass(frozen=True)
class FunctionKinds:
    virtual: frozenset[int]      # device functions outside any hardware context: virtual 32-lane warps
    wave: frozenset[str]         # whole-wavefront functions other than by shuffles, themselves or by callees
    call_links: tuple[tuple[str, str], ...]  # a helper and its callers change together: (caller, callee) keys


@dataclass(frozen=True)
class _Operations:
    """What one device function does itself."""

    virtual: bool   # a sub-group operation (a shuffle with a width, a half-wave offset, a tile)
    hardware: bool  # a whole-wavefront operation (a width-less shuffle too)
    sure: bool      # a whole-wavefront operation other than a shuffle
    callees: frozenset[int]


def classify_functions(tokens: Tokens, constants: Set[str], header_constants: Set[str],
                       header_wave_funcs: Set[str]) -> FunctionKinds:
    """Hardware context: a function with a whole-wavefront operation, everything it calls and everything
    that calls it. Outside it, 32-lane "warps" are virtual: lockstep sub-groups of a 64-lane wavefront."""
    by_name: dict[str, list[int]] = {}
    for f in tokens.functions:
        if f.device:
            by_name.setdefault(f.name, []).append(f.index)
    ops = {f.index: _operations(tokens, f, by_name, constants, header_constants, header_wave_funcs)
           for f in tokens.functions if f.device}
    callees = {fi: set(o.callees) for fi, o in ops.items()}
    callers: dict[int, set[int]] = {}
    for fi, cs in callees.items():
        for c in cs:
            callers.setdefault(c, set()).add(fi)
    hardware = [fi for fi, o in ops.items() if o.hardware]
    hw_ctx = _reach(callees, hardware) | _reach(callers, hardware)
    # for the files that include this one (project.py): functions with a whole-wavefront operation other
    # than a shuffle (a shuffle by a variable offset may stay within 32 lanes), or calling one
    sure = _reach(callers, [fi for fi, o in ops.items() if o.sure])
    links = tuple((f"fn:{fi}", f"fn:{c}") for fi, o in ops.items() for c in sorted(o.callees))
    return FunctionKinds(frozenset(fi for fi in ops if fi not in hw_ctx),
                         frozenset(tokens.functions[fi].name for fi in sure), links)


def _reach(graph: dict[int, set[int]], start: list[int]) -> set[int]:
    """`start` and everything reachable from it in `graph`."""
    todo = list(start)
    seen = set(todo)
    while todo:
        for c in graph.get(todo.pop(), ()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def _operations(tokens: Tokens, f: Func, by_name: dict[str, list[int]], constants: Set[str],
                header_constants: Set[str], header_wave_funcs: Set[str]) -> _Operations:
    a, b = f.body
    virt = hw = sure = False
    cs: set[int] = set()
    tx, kd = tokens.texts, tokens.kinds
    for k in range(a + 1, b):
        x = tx[k]
        if kd[k] == STR:
            continue
        if x in SHFL_CALLS and tx[k + 1] == "(":
            sub_group = (shuffle_width(tokens, k) is not None
                         or half_wave_offset(tokens, k, a, constants, header_constants))
            virt |= sub_group
            hw |= not sub_group
        elif x in HW_OPS and tx[k - 1] not in (".", "->") and not compared(tokens, k):
            hw = sure = True
        elif x in TILE_WORDS:
            virt = True
        elif x in ("asm", "__asm__", "__asm"):
            if any(kd[q] == STR and PTX_WARP.search(tx[q]) for q in range(k, min(b, k + 8))):
                hw = sure = True
        elif kd[k] == ID and x in by_name and is_call(tokens, k):
            cs.update(by_name[x])
        elif x in header_wave_funcs and kd[k] == ID and is_call(tokens, k):
            hw = sure = True  # a helper of the file's own headers that uses the whole wavefront
    return _Operations(virt, hw, sure, frozenset(cs))


def compared(tokens: Tokens, k: int) -> bool:
    """`warpSize == 32` / `if (warpSize > 32)`: a runtime check, not a use of the wavefront."""
    cmp = ("==", "!=", ">", "<", ">=", "<=")
    arith = ("%", "/", "*", "&", "-", "+", ">>", "<<", "|", "^")
    return tokens.texts[k] == "warpSize" and tokens.texts[k - 1] not in arith and tokens.texts[k + 1] not in arith and (
        tokens.texts[k + 1] in cmp or tokens.texts[k - 1] in cmp)


def is_call(tokens: Tokens, k: int) -> bool:
    """`f(` or `f<T, 4>(` at k."""
    if tokens.texts[k + 1] == "(":
        return True
    if tokens.texts[k + 1] != "<":
        return False
    for q in range(k + 2, min(k + 12, tokens.count)):
        if tokens.texts[q] in (";", "{", "}"):
            return False
        if tokens.texts[q] in (">", ">>"):
            return tokens.texts[q + 1] == "("
    return False


def shuffle_width(tokens: Tokens, k: int) -> int | None:
    """Token index of the explicit width argument of the shuffle at k (not warpSize), else None."""
    if (k + 1) not in tokens.partner:
        return None
    args = tokens.split_args(k + 1)
    if len(args) != (4 if tokens.texts[k].endswith("_sync") else 3):
        return None
    wa, wb = args[-1]
    if "warpSize" in tokens.names(wa, wb):
        return None
    fi = tokens.function_of[k]
    if wb == wa + 1 and fi >= 0:  # a helper parameter `int width = warpSize` is the whole wavefront
        ha, hb = tokens.functions[fi].header
        if any(tokens.texts[q] == tokens.texts[wa] and tokens.texts[q + 1] == "=" and tokens.texts[q + 2] == "warpSize"
               for q in range(ha, hb)):
            return None
    return wa


def half_wave_offset(tokens: Tokens, k: int, lo: int, constants: Set[str], header_constants: Set[str]) -> bool:
    """A width-less `__shfl_down`/`__shfl_xor` whose offset is at most 16: lane i only reads lanes of its
    own 32-lane half (xor), or lanes that its half's leader never reads across (down). A reduction like
    that, with leaders `tid % 32 == 0`, computes one sum per 32 lanes on a 64-lane wavefront too."""
    base = tokens.texts[k].removesuffix("_sync")
    if base not in ("__shfl_down", "__shfl_xor") or (k + 1) not in tokens.partner:
        return False
    args = tokens.split_args(k + 1)
    if len(args) != (3 if tokens.texts[k].endswith("_sync") else 2):
        return False
    oa, ob = args[-1]
    if ob == oa + 1 and tokens.kinds[oa] == NUM:
        v = int_value(tokens.texts[oa])
        return v is not None and 0 < v <= 16
    if ob != oa + 1 or tokens.kinds[oa] != ID:
        return False
    var = tokens.texts[oa]
    q = k
    while q > lo:  # the enclosing `for (int var = INIT; ...; var >>= 1)`
        q -= 1
        if tokens.texts[q] == "for" and tokens.texts[q + 1] == "(" and (q + 1) in tokens.partner and tokens.partner[q + 1] < k:
            hdr = tokens.texts[q + 2:tokens.partner[q + 1]]
            if var in hdr and "=" in hdr and hdr.index("=") == hdr.index(var) + 1:
                i = hdr.index("=") + 1
                init = hdr[i:hdr.index(";")] if ";" in hdr else []
                step = hdr[len(hdr) - 2:]
                halving = step in ([">>=", "1"], ["/=", "2"])
                if step in (["*=", "2"], ["<<=", "1"]) and hdr.count(";") == 2:
                    # doubling: `for (m = 1; m < 0x1f; m *= 2)`: offsets stay below the bound
                    c0 = hdr.index(";") + 1
                    cond = hdr[c0:hdr.index(";", c0)]
                    if len(cond) == 3 and cond[0] == var and cond[1] in ("<", "<="):
                        lim = int_value(cond[2])
                        if cond[2] in constants or cond[2] in header_constants:
                            lim = 32
                        return lim is not None and (lim <= 32 if cond[1] == "<" else lim <= 16)
                    return False
                if not halving:
                    return False
                if len(init) == 1 and (int_value(init[0]) or 99) <= 16:
                    return True
                if len(init) == 3 and init[0] in constants and init[1:] in (["/", "2"], [">>", "1"]):
                    return True
                return False
    return False


def ballot_params(tokens: Tokens) -> tuple[dict[int, set[str]], list[tuple[str, str]]]:
    """The parameters of device helpers that receive a ballot (helper index -> names), and the links
    joining the mask groups of caller and helper."""
    by_name = {f.name: f for f in tokens.functions if f.device}
    receives: dict[int, set[str]] = {}
    links: list[tuple[str, str]] = []
    for f in tokens.functions:
        if not f.device:
            continue
        a, b = f.body
        held = {tokens.texts[q - 2] for q in range(a, b) if tokens.texts[q] in BALLOT_CALLS and tokens.texts[q - 1] == "="}
        for k in range(a + 1, b):
            g = by_name.get(tokens.texts[k])
            if g is None or tokens.texts[k + 1] != "(" or (k + 1) not in tokens.partner or g.index == f.index:
                continue
            for name in _ballot_parameters(tokens, k, g, held):
                receives.setdefault(g.index, set()).add(name)
                links.append((f"masks:{f.index}", f"masks:{g.index}"))
    return receives, links


def _ballot_parameters(tokens: Tokens, k: int, g: Func, held: set[str]) -> list[str]:
    """The parameters of helper g that the call at k passes a ballot (a ballot call or a variable that holds
    one: `held`)."""
    lp = next((q for q in range(g.header[0], g.header[1]) if tokens.texts[q] == "(" and q in tokens.partner
               and tokens.partner[q] < g.header[1] and tokens.texts[q - 1] == g.name), None)
    if lp is None:
        return []
    params = tokens.split_args(lp)
    out = []
    for i, (xa, xb) in enumerate(tokens.split_args(k + 1)):
        ns = tokens.names(xa, xb)
        if i < len(params) and (ns & BALLOT_CALLS or ns & held):
            pa, pb = params[i]
            name = next((tokens.texts[q] for q in range(pb - 1, pa - 1, -1) if tokens.kinds[q] == ID
                         and tokens.texts[q + 1] in (",", ")", "=")), None)
            if name is not None:
                out.append(name)
    return out
