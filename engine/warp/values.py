"""Values derived from threadIdx: the names a device function holds thread ids, lane ids, warp ids, ballots
and full masks in (`FunctionValues`, filled by the device scan), and the tests every check asks of an
expression (`tid_derived`, `laneish`, `has_lane32`, `warpid32`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, field

from .lex import ID
from .tokens import Tokens
from .words import BLOCK_WORDS, TID_WORDS, laneish_name


@dataclass(frozen=True)
class KnownNames:
    """File-level names the value tests know: warp-size constants (here and in the file's headers), device
    helpers that return a lane id (`lane32`: by `% 32` / `& 31`) or a thread id, macros that expand to a lane id."""

    warp_size_names: Set[str]
    lane_helpers: Set[str]
    lane32_helpers: Set[str]
    tid_helpers: Set[str]
    lane_macros: Set[str]


@dataclass
class FunctionValues:
    """The names of one device function by what they hold (empty outside device functions)."""

    tokens: Tokens
    known: KnownNames
    thread_ids: set[str] = field(default_factory=set)
    global_ids: set[str] = field(default_factory=set)   # derived from blockIdx: never a lane
    lane_ids: set[str] = field(default_factory=set)
    lane32_ids: set[str] = field(default_factory=set)   # lane ids taken modulo 32
    warp_ids: set[str] = field(default_factory=set)
    ballots: set[str] = field(default_factory=set)
    full_mask_vars: dict[str, int] = field(default_factory=dict)  # `m = 0xffffffff`: name -> the literal's index

    def tid_derived(self, a: int, b: int) -> bool:
        """Tokens [a, b) read a thread id (not a block or global id)."""
        ns = self.tokens.names(a, b)
        if ns & BLOCK_WORDS or ns & self.global_ids:
            return False
        return bool(ns & TID_WORDS or ns & self.thread_ids or ns & self.lane_ids or ns & self.known.lane_helpers
                    or ns & self.known.lane_macros or ns & self.known.tid_helpers)

    def laneish(self, a: int, b: int) -> bool:
        """Tokens [a, b) read a lane id (by what they name, or `threadIdx.x % ...`)."""
        ns = self.tokens.names(a, b)
        if ns & self.lane_ids or ns & self.known.lane_helpers or ns & self.known.lane_macros or "__lane_id" in ns:
            return True
        if any(map(laneish_name, ns)):
            return True
        # threadIdx.x % <anything> / & <anything>
        has_mod = any(self.tokens.texts[k] in ("%", "&") for k in range(a, b))
        return bool(has_mod and (ns & TID_WORDS or ns & self.thread_ids))

    def has_lane32(self, a: int, b: int) -> int | None:
        """Token index of the 32/31 literal in `tid % 32` / `tid & 31` within [a, b), else None."""
        return self._literal_after(a, b, {"%": 32, "&": 31}, lambda _op, la, lb: self.tid_derived(la, lb))

    def warpid32(self, a: int, b: int) -> int | None:
        """Token index of the 32 (or 5) in `tid / 32`, `blockDim.x / 32` or `tid >> 5` within [a, b), else None."""
        return self._literal_after(a, b, {"/": 32, ">>": 5}, lambda op, la, lb: self.tid_derived(la, lb) or (
            op == "/" and self.tokens.is_blockdim(la, lb)))

    def _literal_after(self, a: int, b: int, literals: Mapping[str, int],
                       operand_ok: Callable[[str, int, int], bool]) -> int | None:
        """Token index of the literal in the first `x OP literal` of [a, b) (OP and its literal from
        `literals`; `%` also takes a warp-size name) whose left operand [la, lb) passes operand_ok(OP, la, lb)."""
        for k in range(a, b):
            op = self.tokens.texts[k]
            literal = literals.get(op)
            if literal is None:
                continue
            right = self.tokens.is_int(k + 1, literal) or (
                op == "%" and self.tokens.texts[k + 1] in self.known.warp_size_names)
            if right and operand_ok(op, *self.tokens.left_operand(k, a)):
                return k + 1
        return None

def known_names(tokens: Tokens, warp_size_names: Set[str]) -> KnownNames:
    """The device helpers that return a lane or thread id (small non-kernel functions), and the macros that
    expand to a lane id (`#define LANE (threadIdx.x % 32)`). A helper found counts for the later ones."""
    lane: set[str] = set()
    lane32: set[str] = set()
    tid: set[str] = set()
    macros: set[str] = set()
    values = FunctionValues(tokens, KnownNames(warp_size_names, lane, lane32, tid, macros))  # sees them grow
    for f in tokens.functions:
        a, b = f.body
        if not f.device or f.kernel or b - a > 40:
            continue
        for k in range(a, b):
            if tokens.texts[k] != "return":
                continue
            _, e = tokens.stmt_bounds(k + 1, a + 1, b)
            names = tokens.names(k + 1, e)
            if values.has_lane32(k + 1, e) is not None:
                lane32.add(f.name)
                lane.add(f.name)
            elif values.laneish(k + 1, e) and "warpSize" in names:
                lane.add(f.name)
            elif names & TID_WORDS and not names & BLOCK_WORDS:
                tid.add(f.name)  # `static DEVICE int Tid() { return threadIdx.x; }`
    for i in tokens.positions(("define",)):
        if tokens.directive[i] >= 0 and i + 1 < tokens.count and tokens.kinds[i + 1] == ID:
            body = [k for k in range(i + 2, min(tokens.count, i + 20)) if tokens.directive[k] == tokens.directive[i]]
            if body and values.laneish(body[0], body[-1] + 1) and tokens.names(body[0], body[-1] + 1) & TID_WORDS:
                macros.add(tokens.texts[i + 1])
    return KnownNames(frozenset(warp_size_names), frozenset(lane), frozenset(lane32), frozenset(tid),
                      frozenset(macros))
