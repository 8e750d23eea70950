"""Roles of warp-width values (issue 9, WAVE64.md "Roles before rules").

A warp-width constant (`#define WS 32`, `constexpr int kWarp = 32`, a host `warp_size = 32`) is followed to
every use in the file, and each use gets a role:

- `lane`: the hardware lane/wave width (lane ids, warp ids, shuffle loop bounds, last lane, per-lane arrays);
- `virtual`: a 32-wide sub-group (`width` argument of a shuffle, `tiled_partition<WS>`, or any use in a
  function whose every cross-lane operation is such a sub-group: functions.py);
- `launch`: block and launch sizing, host arithmetic;
- `bit-word`: bits per 32-bit word (`x % WS` on a bit index, `WS != sizeof(int) * 8`);
- `number`: anything else (not understood).

Only `lane` uses need a wave64 change (checks/constants.py decides raise, split or leave alone). The roles
read what the device check learnt about each function's names (`function_values`).
"""

from __future__ import annotations

from collections.abc import Mapping

from .facts import FileFacts
from .functions import TILE_WORDS, shuffle_width
from .scopes import Func
from .values import FunctionValues
from .words import BLOCK_WORDS, SHFL_CALLS

LANE, VIRTUAL, LAUNCH, BITWORD, NUMBER = "lane", "virtual", "launch", "bit-word", "number"
UNDERSTOOD = frozenset({LANE, VIRTUAL, BITWORD})
ROLE_TEXT = {LAUNCH: "sizes the launch or host arithmetic", BITWORD: "counts the bits of a 32-bit word",
             NUMBER: "is used as a plain number", VIRTUAL: "is the width of a 32-lane sub-group"}


class UseRoles:
    """The role of each use of a warp-width constant in one file."""

    def __init__(self, facts: FileFacts, function_values: Mapping[int, FunctionValues]) -> None:
        self.facts = facts
        self.tokens = facts.tokens
        self.function_values = function_values
        self.no_values = facts.function_values()  # outside device functions

    def role(self, k: int) -> str:
        """Role of the use of a warp-width constant at token k."""
        fi = self.tokens.function_of[k]
        f = self.tokens.functions[fi] if fi >= 0 else None
        values = self.function_values.get(fi, self.no_values)
        lo = self.scope_start(k, f)
        return (self.declared_role(k, f, lo, values) or self.operand_role(k, lo, values)
                or self.loop_role(k, lo, values) or self.other_role(k, lo, values))

    def scope_start(self, k: int, f: Func | None) -> int:
        """Where the code around token k starts: its function body, its macro body, its statement."""
        pp = self.tokens.directive
        if pp[k] >= 0:  # another macro's body
            lo = k
            while lo > 0 and pp[lo - 1] == pp[k]:
                lo -= 1
            return lo
        if f is None:
            return self.tokens.stmt_start(k, 0)
        return f.body[0] + 1

    def declared_role(self, k: int, f: Func | None, lo: int, values: FunctionValues) -> str | None:
        """Sub-group widths (tiles, shuffle widths, virtual-warp functions), launch sizing and bit words."""
        tx = self.tokens.texts
        if tx[k - 1] == "<" and tx[k - 2] in TILE_WORDS:
            return VIRTUAL
        call = self.tokens.enclosing_call(k)
        if call is not None and tx[call] in SHFL_CALLS:
            wa = shuffle_width(self.tokens, call)
            if wa is not None and wa <= k < self.tokens.partner[call + 1]:
                return VIRTUAL
        if f is not None and not f.device:
            return LAUNCH
        if f is not None and f.index in self.facts.virtual_functions:
            return VIRTUAL
        if call is not None and tx[call] in ("dim3", "__launch_bounds__"):
            return LAUNCH
        if "<<<" in tx[self.tokens.stmt_start(k, lo):k] or tx[k - 1] == "<<<":
            return LAUNCH
        if self.in_bits_context(k, lo, values):
            return BITWORD
        return None

    def operand_role(self, k: int, lo: int, values: FunctionValues) -> str | None:
        """lane id / warp id / warp count: tid % WS, tid & (WS - 1), tid / WS, blockDim.x / WS."""
        tx = self.tokens.texts
        if not (tx[k - 1] in ("%", "/") or (tx[k - 1] == "(" and tx[k - 2] == "&" and tx[k + 1] == "-")):
            return None
        op = k - 1 if tx[k - 1] != "(" else k - 2
        la, lb = self.tokens.left_operand(op, lo)
        if values.tid_derived(la, lb) or self.tokens.is_blockdim(la, lb) or values.laneish(la, lb):
            return LANE
        if self.tokens.names(la, lb) & (BLOCK_WORDS | {"blockDim", "gridDim"}) or tx[la] == "sizeof":
            return LAUNCH
        return NUMBER

    def loop_role(self, k: int, lo: int, values: FunctionValues) -> str | None:
        """Loop bounds and strides next to a shuffle, or stepping a loop that starts at a lane id."""
        tx, partner = self.tokens.texts, self.tokens.partner
        hdr = self.loop_header(k, lo)
        if hdr is None:
            return None
        rp = partner.get(hdr + 1, hdr + 1)
        end = partner.get(rp + 1, rp + 40) if tx[rp + 1] == "{" else rp + 40
        if any(tx[q] in SHFL_CALLS or ("shfl" in tx[q] and tx[q + 1] == "(")
               for q in range(rp, min(end, self.tokens.count))):
            return LANE
        if self.is_lane_stride(k, hdr, rp, values):
            return LANE
        return None

    def is_lane_stride(self, k: int, hdr: int, rp: int, values: FunctionValues) -> bool:
        return values.laneish(hdr + 2, rp) and self.tokens.texts[k - 1] in ("+=",)

    def loop_header(self, k: int, lo: int) -> int | None:
        """The `for` whose header holds token k (its statement, or the brackets around k)."""
        tx, partner = self.tokens.texts, self.tokens.partner
        s = self.tokens.stmt_start(k, lo)
        if s >= 2 and tx[s - 1] == "(" and tx[s - 2] == "for":
            return s - 2
        q = k
        while q > lo and not (tx[q] == "(" and tx[q - 1] == "for" and q in partner and partner[q] > k):
            if tx[q] in ("{", "}"):
                break
            q -= 1
        return q - 1 if tx[q] == "(" and tx[q - 1] == "for" else None

    def other_role(self, k: int, lo: int, values: FunctionValues) -> str:
        """Last lane, shuffle offsets, per-lane arrays, the first lane of a warp, launch sizes; else a number."""
        tx, tokens = self.tokens.texts, self.tokens
        if tx[k + 1] == "-" and tokens.is_int(k + 2, 1):  # WS - 1: the last lane or a lane mask
            a, b = tokens.stmt_bounds(k, lo, tokens.partner.get(lo - 1, k + 40))
            if values.laneish(a, b) or tokens.names(a, b) & SHFL_CALLS:
                return LANE
        call = tokens.enclosing_call(k)
        if call is not None and tx[call] in SHFL_CALLS:
            return LANE  # offset or source lane of a width-less shuffle
        # array of one slot per lane: __shared__ T s[WS]
        if tx[k - 1] == "[" and tx[k + 1] == "]" and "__shared__" in tx[tokens.stmt_start(k, lo):k]:
            return LANE
        if tx[k - 1] in ("*",) or tx[k + 1] in ("*",):
            other = tx[k - 2] if tx[k - 1] == "*" else tx[k + 2]
            if other in values.warp_ids:
                return LANE  # `sbase = warp_id * WS`: the first lane of a warp moves with the warp id
            if "__shared__" not in tx[tokens.stmt_start(k, lo):k]:
                return LAUNCH
        return NUMBER

    def in_bits_context(self, k: int, lo: int, values: FunctionValues) -> bool:
        """`WS` next to sizeof(...) * 8, or `x % WS` / `x / WS` feeding a shift of a non-lane value."""
        a, b = self.tokens.stmt_bounds(k, lo, k + 60)
        words = self.tokens.texts[a:b]
        if "sizeof" in words and "8" in words:
            return True
        if self.tokens.texts[k - 1] in ("%", "/") and "<<" in words:
            la, lb = self.tokens.left_operand(k - 1, lo)
            return not (values.tid_derived(la, lb) or values.laneish(la, lb))
        return False
