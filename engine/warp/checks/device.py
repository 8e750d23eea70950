"""The device check: each device function in turn. It learns what the function's names hold (thread ids,
lane ids, warp ids, ballots, full masks: `propagate`), then hands each trigger token to the rule handlers
that read it, in the order of HANDLERS (a token claimed by an earlier handler is not edited again)."""

from __future__ import annotations

from collections.abc import Callable, Set

from ..facts import FileFacts
from ..hits import HitLog
from ..lex import NUM, int_value
from ..scopes import Func
from ..values import FunctionValues
from ..words import BALLOT_CALLS, BITCOUNT, BLOCK_WORDS, FULL32, SYNC_CALLS, TID_WORDS
from . import forms, lane0, lanes, masks, warp_size
from .context import CopyBudget, DeviceFunction
from .interface import CheckOutput, Upstream

Handler = Callable[[DeviceFunction, int], None]
Assigned = list[tuple[int, int, set[str]]]  # (name index, expression end, names the expression reads)


def _full32(x: str) -> bool:
    return int_value(x) == FULL32


def _one(x: str) -> bool:
    return "." not in x and int_value(x) == 1


def _spelled(*words: str | Set[str]) -> frozenset[str]:
    return frozenset(w for group in words for w in ([group] if isinstance(group, str) else group))


# Which handler reads which tokens (spellings, or a test of a number's spelling), in the order they run on one token
HANDLERS: tuple[tuple[frozenset[str] | Callable[[str], bool], Handler], ...] = (
    (_full32, masks.full_warp_test),                                   # W64-16
    (_spelled("__shfl", "__shfl_sync"), lanes.shuffle_source),         # W64-23, W64-17
    (_spelled("==", "!=", "<", ">="), lanes.last_lane_test),           # W64-17
    (_spelled("%", "&"), lanes.lane_literal),                          # W64-01
    (_spelled("/"), lanes.warp_id_division),                           # W64-02
    (_spelled(">>"), lanes.warp_id_shift),                             # W64-02
    (_full32, masks.sync_mask_literal),                                # W64-03
    (_spelled(SYNC_CALLS), masks.sync_mask_argument),                  # W64-03
    (_spelled("ballot"), masks.group_ballot_store),                    # W64-04
    (_spelled(BALLOT_CALLS), masks.ballot_store),                      # W64-04
    (_spelled("<<"), masks.ballot_join_at),                            # W64-04
    (_spelled(BITCOUNT.keys()), masks.bitcount),                       # W64-04
    (_one, masks.lane_bit_at),                                         # W64-05
    (_spelled("for"), forms.loop_at),                                  # W64-06, W64-18
    (_spelled("for"), lane0.lane0_stores_at),                          # W64-24
    (_spelled("__shared__"), forms.shared_array_at),                   # W64-07
    (_spelled("__shfl_down", "__shfl_xor", "__shfl_down_sync", "__shfl_xor_sync"), forms.unrolled_chain_at),  # W64-06
    (_spelled("tiled_partition", "thread_block_tile"), forms.tile_of_32),  # W64-13
    (_spelled("if"), forms.sync_tail_at),                              # W64-14
    (_spelled("asm", "__asm__", "__asm"), forms.inline_ptx_at),        # W64-15
    (_spelled("warpSize"), warp_size.const_warp_size),                 # W64-09
    (_spelled("==", "!="), warp_size.guard_at),                        # W64-20
)


def check_device(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    log = HitLog(upstream.claimed)
    table = _dispatch_table(facts, upstream.macro_keys)
    budget = CopyBudget()
    values = {}
    for f in facts.tokens.functions:
        if f.device:
            log.in_virtual_warp = f.index in facts.virtual_functions
            values[f.index] = scan_function(facts, log, f, table, budget)
            log.in_virtual_warp = False
    return CheckOutput(log, function_values=values)


def _dispatch_table(facts: FileFacts, macro_keys: frozenset[str]) -> dict[str, tuple[Handler, ...]]:
    """The file's spellings that some handler reads, with those handlers in order (once per file: over distinct
    spellings). A use of a macro holding a lane/warp-id finding, or of a mask constant, joins the groups."""
    spellings = facts.tokens.spellings
    numbers = [x for x in spellings if x[:1].isdigit()]
    table: dict[str, list[Handler]] = {}
    for reads, handler in HANDLERS:
        for x in (reads & spellings if isinstance(reads, frozenset) else filter(reads, numbers)):
            table.setdefault(x, []).append(handler)
    for x in macro_keys & spellings:
        table.setdefault(x, []).append(_link_macro)
    for x in facts.mask_constants.keys() & spellings:
        table.setdefault(x, []).append(_link_mask_constant)
    return {x: tuple(handlers) for x, handlers in table.items()}


def _link_macro(fn: DeviceFunction, k: int) -> None:
    fn.log.links.append((fn.key, f"macro:{fn.tokens.texts[k]}"))


def _link_mask_constant(fn: DeviceFunction, k: int) -> None:
    fn.log.links.append((fn.key, f"mask:{fn.tokens.texts[k]}"))


def scan_function(facts: FileFacts, log: HitLog, f: Func, table: dict[str, tuple[Handler, ...]],
                  budget: CopyBudget) -> FunctionValues:
    """The device function f's hits (into `log`) and what its names hold."""
    fn = DeviceFunction(facts, log, facts.function_values(), f, budget)
    tokens, a, b = facts.tokens, *fn.body
    for name in sorted(facts.ballot_params.get(f.index, ())):  # a ballot passed in: a 64-bit mask parameter
        fn.values.ballots.add(name)
        masks.narrow_mask_name(tokens, log, name, f.index, fn.mask_key, "receives a ballot from its caller")
    fn.sub_warp = sorted(lanes.explicit_width_args(fn, a, b))
    assigned = [(k, e, tokens.names(k + 2, e)) for _s, k, e in tokens.assignments(a, b)]
    propagate(fn, assigned)
    if reads_later_assignment(fn, assigned):
        propagate(fn, assigned)  # second pass: uses before definitions in loops
    tx = tokens.texts
    for k in [j for j in range(a, b) if tx[j] in table]:
        for handler in table[tx[k]]:
            handler(fn, k)
    masks.ballot_half_picks(fn, a, b, fn.mask_key)  # W64-04: `lane == 32` joins of two ballots
    return fn.values


def propagate(fn: DeviceFunction, assigned: Assigned) -> None:
    """Add each assigned name to the value sets its expression puts it in."""
    tokens, values = fn.tokens, fn.values
    a, b = fn.body
    for k, e, ns in assigned:
        name = tokens.texts[k]
        _learn_lane(fn, name, k, e, ns)
        if _is_warp_id(fn, k, e, ns):
            values.warp_ids.add(name)  # a warp id: tid / 32, tid / warpSize, tid / WARP_SIZE
        if ns & BLOCK_WORDS or ns & values.global_ids:
            values.global_ids.add(name)
        elif ns & TID_WORDS or ns & values.thread_ids or ns & fn.facts.known.tid_helpers:
            if name not in values.lane_ids and name not in values.warp_ids:
                values.thread_ids.add(name)
        if ns & BALLOT_CALLS or ns & values.ballots or masks.group_ballot(fn, k + 2, e, a, b):
            values.ballots.add(name)
        if e == k + 3 and tokens.kinds[k + 2] == NUM and int_value(tokens.texts[k + 2]) == FULL32:
            values.full_mask_vars[name] = k + 2


def _learn_lane(fn: DeviceFunction, name: str, k: int, e: int, ns: set[str]) -> None:
    values = fn.values
    if values.has_lane32(k + 2, e) is not None or ns & fn.facts.known.lane32_helpers:
        values.lane32_ids.add(name)
        values.lane_ids.add(name)
    elif values.laneish(k + 2, e) and (ns & {"warpSize", "__lane_id"} or ns & values.lane_ids):
        if not (ns & BLOCK_WORDS):
            values.lane_ids.add(name)


def _is_warp_id(fn: DeviceFunction, k: int, e: int, ns: set[str]) -> bool:
    values, tx = fn.values, fn.tokens.texts
    if values.warpid32(k + 2, e) is not None:
        return True
    return bool(("warpSize" in ns or ns & fn.facts.known.warp_size_names)
                and "/" in {tx[x] for x in range(k + 2, e)} and ns & (TID_WORDS | values.thread_ids))


def reads_later_assignment(fn: DeviceFunction, assigned: Assigned) -> bool:
    """Some assignment reads a name assigned by itself or by a later one. Only then can a second propagate
    pass learn more than the first: each pass only adds the assigned names to the value sets, and a step's
    tests read only the names of its own expression (and the assigned name's membership, which can only hold
    back an addition)."""
    later: set[str] = set()
    for k, _e, ns in reversed(assigned):
        later.add(fn.tokens.texts[k])
        if not later.isdisjoint(ns):
            return True
    return False
