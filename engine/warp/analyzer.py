"""Token-level warp-width analysis of C++/CUDA/HIP text.

The analysis follows values derived from `threadIdx` (thread ids, lane ids, warp ids), ballot and
activemask results, mask constants and warp-size constants (macros, `constexpr`, `static const`)
through assignments, small device helpers that return a lane id, and macros. A literal 32 is
reported only when it meets such a value (or a warp builtin); tile sizes, bank padding, bit widths
and 2-D block shapes do not, which is where most of the precision comes from.

Each detector records a `Hit`: the rule, the tokens that changed meaning, the edits of both fix
styles, and a union key; hits whose keys meet form one fix group.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..edits import Edit
from .lex import ID, NUM, PUNCT, STR, Tok, int_value, match_brackets, tokenize
from .prelude import Needs
from .scopes import Func, find_functions

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
TRIG_NUMS = frozenset({1, FULL32})
DEVICE_TRIGGERS = (SHFL_CALLS | BALLOT_CALLS | SYNC_CALLS | frozenset(BITCOUNT) | frozenset({
    "%", "&", "/", ">>", "==", "!=", "<", ">=", "for", "if", "__shared__", "tiled_partition", "thread_block_tile",
    "asm", "__asm__", "__asm", "warpSize"}))
HOST_TRIGGERS = frozenset({"dim3", "warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__", "==", "!="})
FILE_TRIGGERS = frozenset({"__launch_bounds__", "TempStorage", "warpSize", "==", "!="})


@dataclass
class Hit:
    rule: str
    anchor: int  # token index the finding points at
    w64: list[Edit] | None
    port: list[Edit] | None
    w64_summary: str
    port_summary: str
    message: str
    key: str
    confidence: str = "high"
    end_anchor: int | None = None


@dataclass
class Result:
    toks: list[Tok]
    funcs: list[Func]
    hits: list[Hit]
    needs: Needs
    links: list[tuple[str, str]] = field(default_factory=list)  # union pairs of keys
    prelude_at: int = 0


class Analyzer:
    def __init__(self, text: str, rocm: tuple[int, int], wave32_in_fatbin: bool) -> None:
        self.text = text
        self.rocm = rocm
        self.wave32 = wave32_in_fatbin
        self.toks = tokenize(text)
        self.pairs = match_brackets(self.toks)
        self._offset32: dict[tuple[int, int], bool] = {}  # has_offset32_shuffle, per token range
        self.funcs, self.owner = find_functions(self.toks, self.pairs)
        # token texts padded with "" at the end: indices -4..n+3 are safe (negative ones hit padding)
        self.tx: list[str] = [t.text for t in self.toks] + [""] * 8
        self.hits: list[Hit] = []
        self.claimed: set[int] = set()  # token indices already edited by some hit
        self.needs = Needs()
        self.links: list[tuple[str, str]] = []
        # file-level knowledge
        self.w32_consts: dict[str, int] = {}     # name -> token index of its literal 32
        self.mask_consts: dict[str, int] = {}    # name -> token index of its 0xffffffff literal
        self.lane_funcs: set[str] = set()        # device helpers returning a lane id
        self.lane32_funcs: set[str] = set()
        self.macro_lane: set[str] = set()        # macros expanding to a lane id
        self.macro_keys: set[str] = set()        # macros holding a lane/warp-id finding
        # per-function knowledge (filled per function)
        self.tid: set[str] = set()
        self.gid: set[str] = set()
        self.lane: set[str] = set()
        self.lane32: set[str] = set()
        self.warp: set[str] = set()
        self.ballot: set[str] = set()
        self.maskvars: dict[str, int] = {}
        self.sub_warp: list[tuple[int, int]] = []
        self.uses_index: dict[str, list[int]] | None = None  # name -> token indices, per function
        self.fn_facts: dict[tuple[int, int], tuple[bool, set[str]]] = {}
        self.device_triggers: frozenset[str] | set[str] = DEVICE_TRIGGERS

    # ------------------------------------------------------------------ helpers
    def t(self, i: int) -> str:
        return self.tx[i]

    def edit(self, i: int, repl: str, rule: str, j: int | None = None) -> Edit:
        """Replace tokens i..j (inclusive) with `repl`."""
        end = self.toks[j if j is not None else i].end
        return Edit(self.toks[i].start, end, repl, rule)

    def insert_after(self, i: int, text: str, rule: str) -> Edit:
        e = self.toks[i].end
        return Edit(e, e, text, rule)

    def add(self, hit: Hit, claim: Iterable[int] = ()) -> bool:
        claim = list(claim) or [hit.anchor]
        if any(c in self.claimed for c in claim):
            return False
        self.claimed.update(claim)
        self.hits.append(hit)
        return True

    def is_int(self, i: int, *values: int) -> bool:
        t = self.toks[i] if 0 <= i < len(self.toks) else None
        return t is not None and t.kind == NUM and int_value(t.text) in values

    def left_operand(self, k: int, lo: int) -> tuple[int, int]:
        j = k - 1
        if j < lo:
            return k, k
        if self.tx[j] in (")", "]") and j in self.pairs:
            a = self.pairs[j]
            if a - 1 >= lo and self.toks[a - 1].kind == ID:  # call or subscript: f(...), s[...]
                a -= 1
            return a, k
        a = j
        while a - 2 >= lo and self.tx[a - 1] in (".", "->") and self.toks[a - 2].kind in (ID, PUNCT):
            if self.toks[a - 2].kind == PUNCT and self.tx[a - 2] not in (")", "]"):
                break
            a -= 2
        if self.tx[a - 1] == "(" and self.tx[a - 2] in TYPE_WORDS:  # C cast: (int)threadIdx.x
            pass
        return a, k

    def right_operand_end(self, k: int, hi: int) -> int:
        """End (exclusive) of the primary expression starting at token k."""
        j = k
        if self.tx[j] in ("(", "[") and j in self.pairs:
            return self.pairs[j] + 1
        while j < hi:
            j += 1
            if self.tx[j] in (".", "->"):
                j += 1
                continue
            if self.tx[j] == "(" and j in self.pairs:  # call
                return self.pairs[j] + 1
            break
        return j

    def names(self, a: int, b: int) -> set[str]:
        return {self.toks[k].text for k in range(a, b) if self.toks[k].kind == ID}

    def tid_derived(self, a: int, b: int) -> bool:
        ns = self.names(a, b)
        if ns & BLOCK_WORDS or ns & self.gid:
            return False
        return bool(ns & TID_WORDS or ns & self.tid or ns & self.lane or ns & self.lane_funcs
                    or ns & self.macro_lane)

    def laneish(self, a: int, b: int) -> bool:
        ns = self.names(a, b)
        if ns & self.lane or ns & self.lane_funcs or ns & self.macro_lane or "__lane_id" in ns:
            return True
        if any(LANEISH.match(n) for n in ns):
            return True
        # threadIdx.x % <anything> / & <anything>
        has_mod = any(self.tx[k] in ("%", "&") for k in range(a, b))
        return bool(has_mod and (ns & TID_WORDS or ns & self.tid))

    def stmt_bounds(self, k: int, lo: int, hi: int) -> tuple[int, int]:
        a = k
        depth = 0
        while a > lo:
            x = self.tx[a - 1]
            if x in (")", "]"):
                depth += 1
            elif x in ("(", "["):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and x in (";", "{", "}"):
                break
            a -= 1
        return a, self.scan_to(k, hi, (";",))

    def scan_to(self, b: int, hi: int, stops: tuple[str, ...]) -> int:
        """First index from b (before hi) of an unmatched closing bracket or a top-level stop token."""
        depth = 0
        while b < hi:
            x = self.tx[b]
            if x in ("(", "[", "{"):
                depth += 1
            elif x in (")", "]", "}"):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and x in stops:
                break
            b += 1
        return b

    def stmt_start(self, k: int, lo: int) -> int:
        s = k
        while s > lo and self.tx[s - 1] not in (";", "{", "}"):
            s -= 1
        return s

    def narrow_type_span(self, a: int, k: int) -> tuple[int, int] | None:
        """Token span of a 32-bit integer type among tokens [a, k) declaring the name at k."""
        idx = [i for i in range(a, k) if self.tx[i] in TYPE_WORDS]
        if not idx:
            return None
        words = {self.tx[i] for i in idx}
        if not words <= NARROW_TYPES:
            return None
        if any(self.tx[i] not in TYPE_WORDS and self.tx[i] not in ("const", "static", "volatile", "register",
                                                                   "__shared__", "constexpr", "__device__")
               for i in range(idx[0], idx[-1] + 1)):
            return None
        return idx[0], idx[-1]

    def uses_name(self, name: str, a: int, b: int) -> bool:
        return any(self.toks[k].kind == ID and self.toks[k].text == name for k in range(a, b))

    # ------------------------------------------------------------------ passes
    def run(self) -> Result:
        self.collect_constants()
        self.collect_lane_helpers()
        self.macro_ids()
        self.device_triggers = (DEVICE_TRIGGERS | self.w32_consts.keys() | self.mask_consts.keys()
                                | self.macro_keys)
        for f in self.funcs:
            if f.device:
                self.device_function(f)
            else:
                self.host_function(f)
        self.directives()
        self.file_level()
        if self.rocm < (7, 0):
            names = {t.text for t in self.toks if t.kind == ID}
            if names & (SYNC_CALLS - {"__syncwarp"}) or "__activemask" in names:
                self.needs.sync_shim = True
            if "__syncwarp" in names:
                self.needs.syncwarp_shim = True
        return Result(self.toks, self.funcs, self.hits, self.needs, self.links, self.prelude_offset())

    def collect_constants(self) -> None:
        toks = self.toks
        n = len(toks)
        tx = self.tx
        for i in [j for j in range(n) if tx[j] == "define" or tx[j + 1] == "="]:
            t = toks[i]
            # #define NAME 32 / #define NAME (32)
            if t.pp >= 0 and t.text == "define" and i + 2 < n and toks[i + 1].pp == t.pp and toks[i + 1].kind == ID:
                name = toks[i + 1].text
                body = [k for k in range(i + 2, min(n, i + 8)) if toks[k].pp == t.pp]
                vals = [k for k in body if toks[k].kind == NUM]
                if len(vals) == 1 and all(toks[k].text in ("(", ")") or k == vals[0] for k in body):
                    v = int_value(toks[vals[0]].text)
                    if v == 32 and WARPISH.search(name):
                        self.w32_consts[name] = vals[0]
                    elif v == FULL32 and _hex8(toks[vals[0]].text):
                        self.mask_consts[name] = vals[0]
            # constexpr|const [static] T NAME = 32 ;   enum { NAME = 32 }
            if t.pp < 0 and t.kind == ID and self.tx[i + 1] == "=" and i + 3 < n and toks[i + 2].kind == NUM \
                    and self.tx[i + 3] in (";", ",", "}"):
                v = int_value(toks[i + 2].text)
                prev = {self.tx[k] for k in range(max(0, i - 5), i)}
                constish = bool(prev & {"constexpr", "const", "enum"}) or self.tx[i - 1] in ("{", ",")
                if v == 32 and WARPISH.search(t.text) and constish:
                    self.w32_consts[t.text] = i + 2
                elif v == FULL32 and _hex8(toks[i + 2].text) and prev & {"constexpr", "const"} \
                        and self.owner[i] < 0:
                    self.mask_consts[t.text] = i + 2

    def collect_lane_helpers(self) -> None:
        for f in self.funcs:
            if not f.device or f.kernel:
                continue
            a, b = f.body
            if b - a > 40:
                continue
            for k in range(a, b):
                if self.tx[k] == "return":
                    _, e = self.stmt_bounds(k + 1, a + 1, b)
                    if self.has_lane32(k + 1, e) is not None:
                        self.lane32_funcs.add(f.name)
                        self.lane_funcs.add(f.name)
                    elif self.laneish(k + 1, e) and "warpSize" in self.names(k + 1, e):
                        self.lane_funcs.add(f.name)
        # macros: #define LANE (threadIdx.x % 32)
        for i in [j for j, x in enumerate(self.tx) if x == "define"]:
            t = self.toks[i]
            if t.pp >= 0 and i + 1 < len(self.toks) and self.toks[i + 1].kind == ID:
                body = [k for k in range(i + 2, min(len(self.toks), i + 20)) if self.toks[k].pp == t.pp]
                if body and self.laneish(body[0], body[-1] + 1) and self.names(body[0], body[-1] + 1) & TID_WORDS:
                    self.macro_lane.add(self.toks[i + 1].text)

    def has_lane32(self, a: int, b: int) -> int | None:
        """Token index of the 32/31 literal in `tid % 32` / `tid & 31` within [a, b), else None."""
        for k in range(a, b):
            x = self.tx[k]
            if x == "%" and (self.is_int(k + 1, 32) or self.tx[k + 1] in self.w32_consts):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb):
                    return k + 1
            if x == "&" and self.is_int(k + 1, 31):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb):
                    return k + 1
        return None

    # ------------------------------------------------------------ device code
    def device_function(self, f: Func) -> None:
        a, b = f.body
        self.tid, self.gid, self.lane, self.lane32, self.warp, self.ballot = set(), set(), set(), set(), set(), set()
        self.maskvars = {}
        key = f"fn:{f.index}"
        self.sub_warp = sorted(self.explicit_width_args(a + 1, b))
        self.uses_index = None
        self.propagate(a + 1, b)
        self.propagate(a + 1, b)  # second pass: uses before definitions in loops
        self.detect_device(f, a + 1, b, key)

    def explicit_width_args(self, a: int, b: int) -> list[tuple[int, int]]:
        """Argument spans of shuffles given an explicit width of at most 32: deliberate sub-warp logic."""
        out = []
        for k in range(a, b):
            if self.tx[k] in SHFL_CALLS and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                args = self.split_args(k + 1)
                n_expected = 4 if self.tx[k].endswith("_sync") else 3
                if len(args) == n_expected:
                    wa, wb = args[-1]
                    v = int_value(self.tx[wa]) if wb == wa + 1 and self.toks[wa].kind == NUM else None
                    if v is not None and v <= 32:
                        out.append((k + 1, self.pairs[k + 1]))
        return out

    def in_sub_warp(self, q: int) -> bool:
        # ranges are call argument lists sorted by start: disjoint, or nested a few levels deep
        i = bisect.bisect_left(self.sub_warp, (q, q)) - 1
        for j in range(i, max(-1, i - 8), -1):
            x, y = self.sub_warp[j]
            if x < q < y:
                return True
        return False

    def sub_warp_only(self, k: int, a: int, b: int) -> bool:
        """True when the 32 at k is inside a sub-warp shuffle, or defines a name used only there."""
        if not self.sub_warp:
            return False
        if self.in_sub_warp(k):
            return True
        s = self.stmt_start(k, a)
        name_i = next((q for q in range(s, k) if self.tx[q + 1] == "=" and self.toks[q].kind == ID), None)
        if name_i is None:
            return False
        name = self.tx[name_i]
        if self.uses_index is None:
            self.uses_index = {}
            for q in range(a, b):
                if self.toks[q].kind == ID:
                    self.uses_index.setdefault(self.tx[q], []).append(q)
        uses = [q for q in self.uses_index.get(name, []) if q != name_i]
        return bool(uses) and all(self.in_sub_warp(q) for q in uses)

    def assignments(self, a: int, b: int) -> Iterable[tuple[int, int, int]]:
        """(stmt_start, name_index, expr_end) for `NAME = expr` inside [a, b)."""
        for k in range(a, b - 1):
            if self.toks[k].kind == ID and self.tx[k + 1] == "=" and self.tx[k - 1] not in (".", "->", "::"):
                s, _ = self.stmt_bounds(k, a, b)
                # expression ends at ; or , or unmatched )
                e = self.scan_to(k + 2, b, (";", ","))
                yield s, k, e

    def propagate(self, a: int, b: int) -> None:
        for _s, k, e in self.assignments(a, b):
            name = self.tx[k]
            ns = self.names(k + 2, e)
            if self.has_lane32(k + 2, e) is not None or ns & self.lane32_funcs:
                self.lane32.add(name)
                self.lane.add(name)
            elif self.laneish(k + 2, e) and (ns & {"warpSize", "__lane_id"} or ns & self.lane):
                if not (ns & BLOCK_WORDS):
                    self.lane.add(name)
            if self.warpid32(k + 2, e) is not None or ("warpSize" in ns and "/" in {self.tx[x] for x in range(k + 2, e)}
                                                        and ns & (TID_WORDS | self.tid)):
                self.warp.add(name)
            if ns & BLOCK_WORDS or ns & self.gid:
                self.gid.add(name)
            elif ns & TID_WORDS or ns & self.tid:
                if name not in self.lane and name not in self.warp:
                    self.tid.add(name)
            if ns & BALLOT_CALLS or ns & self.ballot:
                self.ballot.add(name)
            if e == k + 3 and self.toks[k + 2].kind == NUM and int_value(self.tx[k + 2]) == FULL32:
                self.maskvars[name] = k + 2

    def warpid32(self, a: int, b: int) -> int | None:
        for k in range(a, b):
            x = self.tx[k]
            if x == "/" and self.is_int(k + 1, 32):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb) or self.is_blockdim(la, lb):
                    return k + 1
            if x == ">>" and self.is_int(k + 1, 5):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb):
                    return k + 1
        return None

    def is_blockdim(self, a: int, b: int) -> bool:
        return self.tx[a] in ("blockDim", "hipBlockDim_x") and b - a <= 3

    def detect_device(self, f: Func, a: int, b: int, key: str) -> None:
        toks = self.toks
        tx = self.tx
        trig = self.device_triggers
        for k in [j for j in range(a, b) if tx[j] in trig or (tx[j][:1].isdigit() and int_value(tx[j]) in TRIG_NUMS)]:
            t = toks[k]
            x = t.text
            # W64-16: full-warp test on a 32-bit mask
            if (t.kind == NUM and int_value(x) == FULL32 and self.tx[k - 1] in ("==", "!=")) or (
                    t.kind == NUM and int_value(x) == FULL32 and self.tx[k + 1] in ("==", "!=")):
                other = self.compare_other_side(k, a, b)
                if other is not None and (self.names(*other) & (BALLOT_CALLS | self.ballot)):
                    self.needs.mask_t = True
                    self.add(Hit("W64-16", k, [self.edit(k, "0xffffffffffffffffull", "W64-16")],
                                 [self.edit(k, "(~lane_mask_t{0})", "W64-16")],
                                 "compare with the 64-lane full mask ~0ull",
                                 "compare with ~lane_mask_t{0}",
                                 "A full-warp test against 0xffffffff is never true on a 64-lane wavefront "
                                 "(ballots and __activemask() are 64-bit in HIP).", key))
            # W64-23: __shfl with a 32-lane source and no width
            if x in ("__shfl", "__shfl_sync") and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                args = self.split_args(k + 1)
                src_i = 2 if x == "__shfl_sync" else 1
                if len(args) == src_i + 1:
                    sa, sb = args[src_i]
                    lit = self.has_lane32(sa, sb)
                    if lit is None:
                        for q in range(sa, sb):
                            if self.tx[q] == "%" and self.is_int(q + 1, 32):
                                lit = q + 1
                    if lit is not None and self.toks[lit].text not in self.w32_consts:
                        is31 = self.is_int(lit, 31)
                        self.add(Hit("W64-23", lit,
                                     [self.edit(lit, "63" if is31 else "64", "W64-23")],
                                     [self.edit(lit, "(warpSize - 1)" if is31 else "warpSize", "W64-23")],
                                     "source lane modulo 64", "source lane modulo warpSize",
                                     "A 32-lane source index with the default shuffle width (64 on gfx9) reads "
                                     "lanes 0-31 from lanes 32-63: the two halves of the wavefront mix.", key))
                    # W64-17: broadcast from lane 31
                    if self.is_int(sa, 31) and sb == sa + 1:
                        self.add(Hit("W64-17", sa, [self.edit(sa, "63", "W64-17")],
                                     [self.edit(sa, "(warpSize - 1)", "W64-17")],
                                     "last lane 63", "last lane warpSize - 1",
                                     "Lane 31 is not the last lane of a 64-lane wavefront: this broadcast returns "
                                     "a value from the lower half only.", key))
            # W64-17: lane == 31
            if x in ("==", "!=", "<", ">=") and self.is_int(k + 1, 31) and self.tx[k + 2] in (")", "&&", "||", ";", "?"):
                la, lb = self.left_operand(k, a)
                if self.laneish(la, lb) and not self.names(la, lb) & BLOCK_WORDS:
                    self.add(Hit("W64-17", k + 1, [self.edit(k + 1, "63", "W64-17")],
                                 [self.edit(k + 1, "(warpSize - 1)", "W64-17")],
                                 "last lane 63", "last lane warpSize - 1",
                                 "Lane 31 is not the last lane of a 64-lane wavefront.", key))
            # W64-01 lane from 32 / W64-02 warp id from 32
            if x == "%" and self.is_int(k + 1, 32):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb) and not self.sub_warp_only(k, a, b):
                    conf = "high" if self.flows_to_warp_op(k, a, b) else "medium"
                    self.add(Hit("W64-01", k + 1, [self.edit(k + 1, "64", "W64-01")],
                                 [self.edit(k + 1, "warpSize", "W64-01")],
                                 "lane = ... % 64", "lane = ... % warpSize",
                                 "Lane id computed modulo 32: lanes 32-63 of a 64-lane wavefront alias lanes 0-31 "
                                 "(two leaders per wavefront, per-lane slots shared).", key, conf))
            if x == "&" and self.is_int(k + 1, 31):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb) and not self.sub_warp_only(k, a, b):
                    conf = "high" if self.flows_to_warp_op(k, a, b) else "medium"
                    self.add(Hit("W64-01", k + 1, [self.edit(k + 1, "63", "W64-01")],
                                 [self.edit(k + 1, "(warpSize - 1)", "W64-01")],
                                 "lane = ... & 63", "lane = ... & (warpSize - 1)",
                                 "Lane id masked with 31: lanes 32-63 of a 64-lane wavefront alias lanes 0-31.",
                                 key, conf))
            if x == "/" and self.is_int(k + 1, 32):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb) or self.is_blockdim(la, lb):
                    if not self.in_shared_dim(k):
                        self.add(Hit("W64-02", k + 1, [self.edit(k + 1, "64", "W64-02")],
                                     [self.edit(k + 1, "warpSize", "W64-02")],
                                     "warp id / warp count by 64", "warp id / warp count by warpSize",
                                     "Warp id or warp count computed with 32: a 64-lane wavefront is counted as two "
                                     "warps, so per-warp slots and loops disagree with the hardware.", key))
            if x == ">>" and self.is_int(k + 1, 5):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb):
                    self.add(Hit("W64-02", k + 1, [self.edit(k + 1, "6", "W64-02")],
                                 [self.edit(k, "/ warpSize", "W64-02", k + 1)],
                                 "warp id >> 6", "warp id / warpSize",
                                 "Warp id computed with >> 5 (32 lanes): a 64-lane wavefront is counted as two warps.",
                                 key), claim=[k, k + 1])
            # W64-03: 32-bit full mask passed to a *_sync builtin
            if t.kind == NUM and int_value(x) == FULL32 and self.tx[k - 1] == "(" and self.tx[k - 2] in SYNC_CALLS:
                self.mask_literal_hit(k, key, "passed to " + self.tx[k - 2])
            if t.kind == ID and x in SYNC_CALLS and self.tx[k + 1] == "(":
                first = self.split_args(k + 1)
                if first:
                    fa, fb = first[0]
                    if fb == fa + 1 and self.tx[fa] in self.maskvars:
                        self.mask_var_hit(self.tx[fa], key, a, b)
                    if fb == fa + 1 and self.tx[fa] in self.mask_consts:
                        self.links.append((key, f"mask:{self.tx[fa]}"))
            # W64-04: ballot stored in 32 bits; __popc/__ffs/__clz of a ballot
            if t.kind == ID and x in BALLOT_CALLS and self.tx[k - 1] == "=" and self.toks[k - 2].kind == ID:
                s, _ = self.stmt_bounds(k - 2, a, b)
                span = self.narrow_type_span(s, k - 2)
                if span is not None:
                    self.needs.mask_t = True
                    self.add(Hit("W64-04", span[0], [self.edit(span[0], "unsigned long long", "W64-04", span[1])],
                                 [self.edit(span[0], "lane_mask_t", "W64-04", span[1])],
                                 "store the ballot in unsigned long long", "store the ballot in lane_mask_t",
                                 f"{x} returns a 64-bit mask in HIP; storing it in 32 bits drops lanes 32-63.",
                                 key), claim=range(span[0], span[1] + 1))
            if t.kind == ID and x in BITCOUNT and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                ca, cb = k + 2, self.pairs[k + 1]
                ns = self.names(ca, cb)
                if ns & BALLOT_CALLS or ns & self.ballot:
                    ll = self.insert_after(k, "ll", "W64-04")
                    port = [ll] if x != "__clz" else None
                    self.add(Hit("W64-04", k, [ll], port, f"{BITCOUNT[x]}(mask)", f"{BITCOUNT[x]}(mask)",
                                 f"{x} takes 32 bits: on a 64-bit ballot it ignores lanes 32-63"
                                 + (" (__ffs is even ambiguous)." if x == "__ffs" else "."), key))
            # W64-05: 1u << lane
            if t.kind == NUM and int_value(x) == 1 and self.tx[k + 1] == "<<" and "." not in x:
                ea = k + 2
                eb = self.right_operand_end(ea, b)
                if self.laneish(ea, eb) or self.tx[ea] in self.lane:
                    self.needs.mask_t = True
                    w = [self.edit(k, "1ull", "W64-05")]
                    p = [self.edit(k, "lane_mask_t{1}", "W64-05")]
                    s = self.stmt_start(k, a)
                    name_i = next((q for q in range(s, k) if self.tx[q + 1] == "=" and self.toks[q].kind == ID), None)
                    claim = [k]
                    if name_i is not None:
                        span = self.narrow_type_span(s, name_i)
                        if span is not None and not (set(range(span[0], span[1] + 1)) & self.claimed):
                            w.append(self.edit(span[0], "unsigned long long", "W64-05", span[1]))
                            p.append(self.edit(span[0], "lane_mask_t", "W64-05", span[1]))
                            claim += list(range(span[0], span[1] + 1))
                    self.add(Hit("W64-05", k, w, p, "1ull << lane", "lane_mask_t{1} << lane",
                                 "A 32-bit 1 shifted by a lane id is 0 (undefined) for lanes 32-63.", key), claim)
            # W64-06 / W64-18: loops
            if x == "for" and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                self.loop(k, b, key)
            # W64-07: per-warp / per-lane shared arrays sized with 32
            if x == "__shared__":
                self.shared_array(k, a, b, key)
            # W64-06: unrolled shuffle chain that starts at offset 16
            if x in ("__shfl_down", "__shfl_xor", "__shfl_down_sync", "__shfl_xor_sync") and self.tx[k + 1] == "(" \
                    and (k + 1) in self.pairs:
                self.unrolled_chain(k, a, b, key)
            # W64-13: tiled_partition<32>
            if x in ("tiled_partition", "thread_block_tile") and self.tx[k + 1] == "<" and self.is_int(k + 2, 32) \
                    and self.tx[k + 3] == ">":
                self.needs.ws = True
                self.add(Hit("W64-13", k + 2, [self.edit(k + 2, "64", "W64-13")],
                             [self.edit(k + 2, "HIPPORT_WS", "W64-13")],
                             f"{x}<64>", f"{x}<HIPPORT_WS>",
                             f"{x}<32> is half a 64-lane wavefront: code that treats the tile as the warp "
                             "produces two partial results per wavefront.", key))
            # W64-14: warp-synchronous tail that starts at 16
            if x == "if" and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                self.sync_tail(k, a, b, key)
            # W64-15: inline PTX with warp semantics
            if x in ("asm", "__asm__", "__asm") :
                self.inline_ptx(k, b, key)
            # W64-09: warpSize as a constant (ROCm >= 7)
            if x == "warpSize" and self.rocm >= (7, 0) and self.const_context(k, a, b):
                self.needs.ws = True
                self.add(Hit("W64-09", k, [self.edit(k, "64", "W64-09")], [self.edit(k, "HIPPORT_WS", "W64-09")],
                             "64 (compile-time)", "HIPPORT_WS (arch-selected constant)",
                             "warpSize is not constexpr from ROCm 7.0: it cannot size arrays, be a template "
                             "argument or initialise a constexpr.", f"const:{k}"))
            # W64-20 guards
            if x in ("==", "!="):
                self.guard(k, key)
            if x in self.macro_keys:
                self.links.append((key, f"macro:{x}"))
            # W64-08 uses
            if t.kind == ID and x in self.w32_consts:
                self.links.append((key, f"w32:{x}"))
            if t.kind == ID and x in self.mask_consts:
                self.links.append((key, f"mask:{x}"))

    def compare_other_side(self, k: int, a: int, b: int) -> tuple[int, int] | None:
        if self.tx[k - 1] in ("==", "!="):
            la, lb = self.left_operand(k - 1, a)
            return la, lb
        if self.tx[k + 1] in ("==", "!="):
            e = self.right_operand_end(k + 2, b)
            return k + 2, e
        return None

    def split_args(self, lp: int) -> list[tuple[int, int]]:
        rp = self.pairs.get(lp)
        if rp is None:  # unbalanced '(' (a file mid-edit): no arguments to look at
            return []
        out: list[tuple[int, int]] = []
        s = lp + 1
        depth = 0
        for q in range(lp + 1, rp):
            x = self.tx[q]
            if x in ("(", "[", "{"):
                depth += 1
            elif x in (")", "]", "}"):
                depth -= 1
            elif x == "," and depth == 0:
                out.append((s, q))
                s = q + 1
        if rp > lp + 1:
            out.append((s, rp))
        return out

    def flows_to_warp_op(self, k: int, a: int, b: int) -> bool:
        """The function uses a warp builtin, or compares the lane being defined (leader election)."""
        facts = self.fn_facts.get((a, b))
        if facts is None:  # once per function: a kernel of 20,000 lines must not rescan itself per hit
            ops = WARP_OPS.intersection(self.tx[a:b])
            compared = {self.tx[q] for q in range(a, b) if self.tx[q + 1] == "=="}
            facts = self.fn_facts[(a, b)] = (bool(ops), compared)
        if facts[0]:
            return True
        s = self.stmt_start(k, a)
        name = next((self.tx[q] for q in range(s, k) if self.tx[q + 1] == "=" and self.toks[q].kind == ID), None)
        return name is not None and name in facts[1]

    def mask_literal_hit(self, k: int, key: str, where: str) -> None:
        self.needs.mask_t = True
        naive = self.tx[k].lower().rstrip("ul") != self.tx[k].lower()
        self.add(Hit("W64-03", k, [self.edit(k, "0xffffffffffffffffull", "W64-03")],
                     [self.edit(k, "(~lane_mask_t{0})", "W64-03")],
                     "64-bit full mask", "full mask ~lane_mask_t{0}",
                     (f"32-bit full mask {where}: "
                      + ("a 32-bit-wide mask looks at lanes 0-31 only on a 64-lane wavefront."
                         if naive else "ROCm >= 7.0 rejects it (static_assert: the mask must be a 64-bit "
                         "integer); widened naively it would drop lanes 32-63.")), key))

    def mask_var_hit(self, name: str, key: str, a: int, b: int) -> None:
        lit = self.maskvars[name]
        if lit in self.claimed:
            return
        s, _ = self.stmt_bounds(lit, a, b)
        w = [self.edit(lit, "0xffffffffffffffffull", "W64-03")]
        p = [self.edit(lit, "(~lane_mask_t{0})", "W64-03")]
        claim = [lit]
        span = self.narrow_type_span(s, lit - 2)
        if span is not None:
            w.append(self.edit(span[0], "unsigned long long", "W64-03", span[1]))
            p.append(self.edit(span[0], "lane_mask_t", "W64-03", span[1]))
            claim += list(range(span[0], span[1] + 1))
        self.needs.mask_t = True
        self.add(Hit("W64-03", lit, w, p, "64-bit full mask variable", "lane_mask_t full mask variable",
                     f"Mask variable `{name}` holds a 32-bit full mask that reaches a *_sync builtin: ROCm >= 7.0 "
                     "rejects it; widened naively it would drop lanes 32-63.", key), claim)

    def in_shared_dim(self, k: int) -> bool:
        s = k
        while s > 0 and self.tx[s] not in (";", "{", "}"):
            if self.tx[s] in ("__shared__", "TempStorage"):
                return True
            s -= 1
        return False

    def loop(self, k: int, b: int, key: str) -> None:
        lp = k + 1
        rp = self.pairs.get(lp)
        if rp is None:  # unbalanced '('
            return
        parts: list[tuple[int, int]] = []
        s = lp + 1
        for q in range(lp + 1, rp):
            if self.tx[q] == ";":
                parts.append((s, q))
                s = q + 1
        parts.append((s, rp))
        if len(parts) != 3:
            return
        (ia, ib), (ca, cb), (sa, sb) = parts
        var_i = next((q for q in range(ia, ib) if self.tx[q + 1] == "=" and self.toks[q].kind == ID), None)
        if var_i is None:
            return
        var = self.tx[var_i]
        init = (var_i + 2, ib)
        step = [self.tx[q] for q in range(sa, sb)]
        if self.tx[rp + 1] == "{" and (rp + 1) in self.pairs:
            body = (rp + 1, self.pairs[rp + 1])
        else:
            body = (rp + 1, self.stmt_bounds(rp + 1, rp + 1, b)[1])
        shfl_in_body = any(self.tx[q] in SHFL_CALLS and self.uses_name(var, q, self.pairs.get(q + 1, q + 1) + 1)
                           for q in range(body[0], body[1]) if self.tx[q + 1] == "(")
        halving = step in ([var, ">>=", "1"], [var, "/=", "2"], [var, "=", var, "/", "2"], [var, "=", var, ">>", "1"])
        doubling = step in ([var, "<<=", "1"], [var, "*=", "2"], [var, "+=", var], [var, "=", var, "*", "2"],
                            [var, "=", var, "<<", "1"])
        if shfl_in_body and halving and init[1] == init[0] + 1 and self.is_int(init[0], 16):
            q = init[0]
            self.add(Hit("W64-06", q, [self.edit(q, "32", "W64-06")], [self.edit(q, "(warpSize / 2)", "W64-06")],
                         "start the shuffle reduction at 32", "start at warpSize / 2",
                         "Shuffle reduction starting at offset 16 combines only 32 lanes: on a 64-lane wavefront "
                         "lanes 32-63 never reach lane 0.", key))
        if shfl_in_body and doubling:
            for q in range(ca, cb):
                if self.tx[q] == "<" and self.is_int(q + 1, 32) and self.tx[q - 1] == var:
                    self.add(Hit("W64-06", q + 1, [self.edit(q + 1, "64", "W64-06")],
                                 [self.edit(q + 1, "warpSize", "W64-06")],
                                 "scan up to 64 lanes", "scan up to warpSize lanes",
                                 "Shuffle scan bounded by 32 covers only half of a 64-lane wavefront.", key))
                if self.tx[q] == "<=" and self.is_int(q + 1, 16) and self.tx[q - 1] == var:
                    self.add(Hit("W64-06", q + 1, [self.edit(q + 1, "32", "W64-06")],
                                 [self.edit(q + 1, "(warpSize / 2)", "W64-06")],
                                 "scan up to 64 lanes", "scan up to warpSize lanes",
                                 "Shuffle scan bounded by 16 covers only half of a 64-lane wavefront.", key))
        # W64-18: for (i = lane; i < n; i += 32)
        if step[:2] == [var, "+="] and len(step) == 3 and self.is_int(sa + 2, 32) and self.laneish(*init):
            q = sa + 2
            self.add(Hit("W64-18", q, [self.edit(q, "64", "W64-18")], [self.edit(q, "warpSize", "W64-18")],
                         "stride 64", "stride warpSize",
                         "Warp-strided loop with stride 32 starting at a lane id: with 64 lanes per wavefront "
                         "elements are processed twice.", key))

    def shared_array(self, k: int, a: int, b: int, key: str) -> None:
        s, e = self.stmt_bounds(k, a, b)
        if any(self.tx[q] == "TempStorage" for q in range(s, e)):
            return  # W64-21
        q = k
        while q < e and not (self.toks[q].kind == ID and self.tx[q + 1] == "["):
            q += 1
        if q >= e or (q + 1) not in self.pairs:
            return
        name = self.tx[q]
        da, db = q + 2, self.pairs[q + 1]
        div = next((r + 1 for r in range(da, db) if self.tx[r] == "/" and self.is_int(r + 1, 32)), None)
        exact = db == da + 1 and self.is_int(da, 32)
        if div is None and not exact:
            return
        idx_warp = idx_lane = False
        for r in range(a, b):
            if r != q and self.tx[r] == name and self.tx[r + 1] == "[" and (r + 1) in self.pairs:
                ia, ib = r + 2, self.pairs[r + 1]
                ns = self.names(ia, ib)
                if ns & self.warp or self.warpid32(ia, ib) is not None or (
                        "warpSize" in ns and "/" in {self.tx[z] for z in range(ia, ib)}):
                    idx_warp = True
                if ns & self.lane or self.has_lane32(ia, ib) is not None or "__lane_id" in ns:
                    idx_lane = True
        if div is not None and idx_warp:
            self.add(Hit("W64-07", div, [self.edit(div, "64", "W64-07")], [],
                         "one slot per 64-lane wavefront", "kept: BLOCK/32 is the most warps any target has",
                         f"Per-warp array `{name}` sized with 32 lanes per warp: on a 64-lane wavefront half the "
                         "slots are never written, and loops over all of them read uninitialised data.", key))
        elif exact and idx_lane:
            self.add(Hit("W64-07", da, [self.edit(da, "64", "W64-07")], [self.edit(da, "64", "W64-07")],
                         "one slot per lane of a 64-lane wavefront", "sized by the largest warp (64)",
                         f"Per-lane array `{name}[32]` indexed by a lane id overflows on a 64-lane wavefront.",
                         key))

    def unrolled_chain(self, k: int, a: int, b: int, key: str) -> None:
        args = self.split_args(k + 1)
        sync = self.tx[k].endswith("_sync")
        if len(args) != (3 if sync else 2):  # an explicit width means deliberate sub-warp logic
            return
        oa, ob = args[-1]
        if not (ob == oa + 1 and self.is_int(oa, 16)):
            return
        # a chain already starting at 32 (or a loop) needs nothing
        if self.has_offset32_shuffle(a, b):
            return
        s = self.stmt_start(k, a)
        _, e = self.stmt_bounds(k, a, b)
        if self.tx[e] != ";" or self.tx[s] in ("for", "if", "while", "return"):
            return
        start, end = self.toks[s].start, self.toks[e].end
        masks = [q for q in range(s, e + 1) if self.toks[q].kind == NUM and int_value(self.tx[q]) == FULL32]

        def copy(mask_text: str) -> str:
            """The statement with offset 32 and the mask literal widened like the rest of the group."""
            out = []
            pos = start
            for q in sorted([*masks, oa]):
                out.append(self.text[pos:self.toks[q].start])
                out.append("32" if q == oa else mask_text)
                pos = self.toks[q].end
            out.append(self.text[pos:end])
            return "".join(out)

        line_start = self.text.rfind("\n", 0, start) + 1
        indent = self.text[line_start:start] if self.text[line_start:start].strip() == "" else ""
        nl = "\r\n" if "\r\n" in self.text[:200] else "\n"
        if masks:
            self.needs.mask_t = True
        w = [Edit(start, start, f"{copy('0xffffffffffffffffull')}{nl}{indent}", "W64-06")]
        p = [Edit(start, start, f"if (warpSize > 32) {copy('(~lane_mask_t{0})')}{nl}{indent}", "W64-06")]
        self.add(Hit("W64-06", oa, w, p, "add the offset-32 step", "add the offset-32 step when warpSize > 32",
                     "Unrolled shuffle reduction starting at offset 16 combines only 32 lanes: on a 64-lane "
                     "wavefront lanes 32-63 never reach lane 0.", key))

    def has_offset32_shuffle(self, a: int, b: int) -> bool:
        """Whether tokens [a, b) hold a shuffle with the literal offset 32. Computed once per range: a
        function with thousands of unrolled shuffles must not rescan itself for each one."""
        found = self._offset32.get((a, b))
        if found is None:
            found = False
            for q in range(a, b):
                if self.tx[q] in SHFL_CALLS and self.tx[q + 1] == "(" and (q + 1) in self.pairs:
                    qa = self.split_args(q + 1)
                    if qa and qa[-1][1] == qa[-1][0] + 1 and self.is_int(qa[-1][0], 32):
                        found = True
                        break
            self._offset32[(a, b)] = found
        return found

    def sync_tail(self, k: int, a: int, b: int, key: str) -> None:
        lp = k + 1
        rp = self.pairs.get(lp)
        if rp is None:  # unbalanced '('
            return
        # if (L < 16) S;  where S reads [... + 16]
        if not (rp - lp == 4 and self.tx[lp + 2] == "<" and self.is_int(lp + 3, 16)):
            return
        lane_name = self.tx[lp + 1]
        if not (lane_name in self.lane or LANEISH.match(lane_name)):
            return
        ss, se = rp + 1, self.stmt_bounds(rp + 1, rp + 1, b)[1]
        sixteen = [q for q in range(ss, se) if self.is_int(q, 16) and self.tx[q - 1] == "+"]
        if not sixteen or self.tx[se] != ";":
            return
        stmt = self.text[self.toks[ss].start:self.toks[se].end]
        step32 = re.sub(r"\b16\b", "32", stmt)
        line_start = self.text.rfind("\n", 0, self.toks[k].start) + 1
        indent = self.text[line_start:self.toks[k].start]
        indent = indent if indent.strip() == "" else ""
        nl = "\r\n" if "\r\n" in self.text[:200] else "\n"
        syncw = "__syncwarp();"
        if self.rocm < (7, 0):
            self.needs.syncwarp_shim = True
        w = [Edit(self.toks[k].start, self.toks[k].start,
                  f"{syncw}{nl}{indent}if ({lane_name} < 32) {step32}{nl}{indent}{syncw}{nl}{indent}", "W64-14")]
        p = [Edit(self.toks[k].start, self.toks[k].start,
                  f"{syncw}{nl}{indent}if (warpSize > 32 && {lane_name} < 32) {step32}{nl}{indent}{syncw}{nl}{indent}",
                  "W64-14")]
        # keep later steps of the unrolled tail ordered, too
        q = se + 1
        while self.tx[q] == "if" and self.tx[q + 1] == "(" and (q + 1) in self.pairs:
            e2 = self.stmt_bounds(self.pairs[q + 1] + 1, q, b)[1]
            if self.tx[e2] != ";":
                break
            w.append(self.insert_after(q - 1, f"{nl}{indent}{syncw}", "W64-14"))
            p.append(self.insert_after(q - 1, f"{nl}{indent}{syncw}", "W64-14"))
            q = e2 + 1
        self.add(Hit("W64-14", lp + 3, w, p, "add the 32-lane step and __syncwarp()",
                     "add the step when warpSize > 32, and __syncwarp()",
                     "Warp-synchronous tail that starts at 16 lanes and relies on implicit lockstep: on a 64-lane "
                     "wavefront lanes 32-63 are never folded in.", key))

    def inline_ptx(self, k: int, b: int, key: str) -> None:
        q = k + 1
        while self.tx[q] in ("volatile", "__volatile__"):
            q += 1
        if self.tx[q] != "(" or q not in self.pairs:
            return
        rp = self.pairs[q]
        strs = [self.tx[z] for z in range(q, rp) if self.toks[z].kind == STR]
        if not strs or not PTX_WARP.search(strs[0]):
            return
        w: list[Edit] | None = None
        m = re.match(r'"\s*mov\.u32\s+%0\s*,\s*%%laneid\s*;?\s*"', strs[0])
        if m:
            outs = [z for z in range(q, rp) if self.toks[z].kind == STR and self.tx[z].startswith('"=r"')]
            if outs and self.tx[outs[0] + 1] == "(" and outs[0] + 1 in self.pairs:
                z = outs[0] + 1
                var = self.text[self.toks[z + 1].start:self.toks[self.pairs[z] - 1].end]
                w = [Edit(self.toks[k].start, self.toks[rp].end, f"{var} = __lane_id()", "W64-15")]
        self.add(Hit("W64-15", k, w, list(w) if w else None,
                     "__lane_id()" if w else "", "__lane_id()" if w else "",
                     "Inline PTX with warp semantics does not compile for AMD and assumes 32-lane masks "
                     "(rewrite with __lane_id, __lanemask_lt, __ballot, __shfl*).", f"asm:{k}",
                     "high" if w else "medium"), claim=range(k, rp + 1))

    def const_context(self, k: int, a: int, b: int) -> bool:
        s = self.stmt_start(k, a)
        words = {self.tx[q] for q in range(s, k)}
        if words & {"constexpr", "static_assert"}:
            return True
        if "__shared__" in words and any(self.tx[q] == "[" for q in range(s, k)):
            return True
        if self.tx[k - 1] == "<" and self.toks[k - 2].kind == ID and self.tx[k + 1] in (">", ","):
            return True
        return False

    def guard(self, k: int, key: str) -> None:
        x = self.tx[k]
        if x not in ("==", "!="):
            return
        if self.is_int(k + 1, 32):
            lhs = self.tx[k - 1]
            lit = k + 1
        elif self.is_int(k - 1, 32):
            lhs = self.tx[k + 1]
            lit = k - 1
        else:
            return
        if not (lhs == "warpSize" or lhs in self.w32_consts or (WARPISH.search(lhs) and self.tx[k - 2] in (".", "->"))
                or (lhs == "warpSize" and self.tx[k - 2] in (".", "->"))):
            return
        span = (min(k, lit), max(k, lit))
        wrep = f"{x} 64" if lit > k else f"64 {x}"
        prep = ("<= 64" if x == "==" else "> 64") if lit > k else ("64 >=" if x == "==" else "64 <")
        self.add(Hit("W64-20", lit, [self.edit(span[0], wrep, "W64-20", span[1])],
                     [self.edit(span[0], prep, "W64-20", span[1])],
                     "expect 64", "accept any warp size up to 64",
                     "Hard guard on a 32-lane warp: fails outright on a 64-lane wavefront.",
                     f"w32:{lhs}" if lhs in self.w32_consts else key), claim=[k, lit])

    # -------------------------------------------------------------- host code
    def host_function(self, f: Func) -> None:
        a, b = f.body
        key = "host"
        block_names = set()
        tx = self.tx
        for k in [j for j in range(a, b) if tx[j] == "<<<" or tx[j] == "hipLaunchKernelGGL"]:
            x = self.tx[k]
            if x == "<<<":
                end = next((q for q in range(k, b) if self.tx[q] == ">>>"), None)
                if end is None:
                    continue
                args = self.split_commas(k + 1, end)
                if len(args) >= 2:
                    ba, bb = args[1]
                    if bb == ba + 1 and self.toks[ba].kind == ID:
                        block_names.add(self.tx[ba])
                    self.block_literal(ba, bb)
            if x == "hipLaunchKernelGGL" and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                args = self.split_args(k + 1)
                if len(args) >= 3:
                    ba, bb = args[2]
                    if bb == ba + 1 and self.toks[ba].kind == ID:
                        block_names.add(self.tx[ba])
                    self.block_literal(ba, bb)
        trig = HOST_TRIGGERS | self.w32_consts.keys()
        for k in [j for j in range(a, b) if tx[j] in trig or tx[j] == "32"]:
            x = self.tx[k]
            t = self.toks[k]
            # dim3 block(32) used as a launch's block
            if x == "dim3" and self.toks[k + 1].kind == ID and self.tx[k + 2] == "(" and self.tx[k + 1] in block_names:
                self.block_literal(k + 3, self.pairs.get(k + 2, k + 3))
            # host launch math with 32
            if t.kind == NUM and int_value(x) == 32 and "." not in x:
                other = None
                if self.tx[k - 1] == "*" and self.toks[k - 2].kind == ID:
                    other = self.tx[k - 2]
                    mode = "mul"
                elif self.tx[k + 1] == "*" and self.toks[k + 2].kind == ID:
                    other = self.tx[k + 2]
                    mode = "mul"
                elif (self.tx[k - 1] == "/" and self.toks[k - 2].kind in (ID,)) or (self.tx[k - 1] == "/" and self.tx[k - 2] == ")"):
                    la, lb = self.left_operand(k - 1, a)
                    ns = self.names(la, lb)
                    if any(HOST_THREADS.search(n) for n in ns) or "blockDim" in ns:
                        other = next(iter(ns))
                    mode = "div"
                if other is not None and (mode == "div" or WARPISH.search(other)):
                    self.needs.host_ws = True
                    self.add(Hit("W64-10", k, [self.edit(k, "64", "W64-10")],
                                 [self.edit(k, "hipport_host_warp_size()", "W64-10")],
                                 "64 threads per wavefront", "query the device's warp size",
                                 "Host launch math assumes 32 threads per warp: on MI-series GPUs a wavefront "
                                 "has 64, so thread counts, warp counts or shared-memory sizes disagree with the "
                                 "kernel.", "hostmath", "medium"))
            # warp-size constants / device-only names used on the host
            if t.kind == ID and x in self.w32_consts and self.tx[k - 1] not in ("define",):
                if self.host_runtime_context(k, a, b):
                    self.needs.host_ws = True
                    self.add(Hit("W64-10", k, [], [self.edit(k, "hipport_host_warp_size()", "W64-10")],
                                 f"{x} is 64 after the wave64 fix", "query the device's warp size",
                                 f"Host code uses the device warp-size constant {x}: the host pass has no "
                                 "architecture, so a compile-time value is wrong for some GPU in a fat binary.",
                                 f"w32:{x}", "medium"))
                else:
                    self.links.append(("hostmath", f"w32:{x}"))
            if t.kind == ID and x in ("warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__") \
                    and self.tx[k - 1] not in (".", "->") and (x != "warpSize" or self.rocm >= (7, 0)):
                self.needs.host_ws = True
                self.add(Hit("W64-10", k, [self.edit(k, "64", "W64-10")],
                             [self.edit(k, "hipport_host_warp_size()", "W64-10")],
                             "64", "query the device's warp size",
                             f"{x} used in host code: " + ("device-only from ROCm 7.0." if x == "warpSize" else
                                                           "it is 64 in the host pass even for wave32 GPUs."),
                             key, "high"))
            if x in ("==", "!="):
                self.guard(k, key)
        if any(h.key == "hostmath" for h in self.hits):
            self.links.append(("hostmath", "devicegroups"))

    def host_runtime_context(self, k: int, a: int, b: int) -> bool:
        s, e = self.stmt_bounds(k, a, b)
        words = {self.tx[q] for q in range(s, e)}
        return not (words & {"constexpr", "static_assert", "template"}) and not any(
            self.tx[q] == "[" for q in range(s, k)) and self.tx[k - 1] != "<"

    def split_commas(self, a: int, b: int) -> list[tuple[int, int]]:
        out = []
        s = a
        depth = 0
        for q in range(a, b):
            x = self.tx[q]
            if x in ("(", "[", "{"):
                depth += 1
            elif x in (")", "]", "}"):
                depth -= 1
            elif x == "," and depth == 0:
                out.append((s, q))
                s = q + 1
        out.append((s, b))
        return out

    def block_literal(self, a: int, b: int) -> None:
        lits = [q for q in range(a, b) if self.toks[q].kind == NUM]
        if not lits or any(self.toks[q].kind == ID and self.tx[q] != "dim3" for q in range(a, b)):
            return
        prod = 1
        for q in lits:
            v = int_value(self.tx[q])
            if v is None:
                return
            prod *= v
        if prod % 64 and prod <= 1024:
            self.add(Hit("W64-12", lits[0], None, None, "", "",
                         f"Block of {prod} threads is not a multiple of 64: on MI-series GPUs the last wavefront "
                         "runs partly empty, and width-64 reductions read inactive lanes as 0.",
                         f"perf:{lits[0]}", "medium"))

    # ------------------------------------------------------------ directives & file
    def directives(self) -> None:
        toks = self.toks
        n = len(toks)
        i = 0
        while i < n:
            t = toks[i]
            if t.pp >= 0 and t.text == "#" and i + 1 < n and toks[i + 1].pp == t.pp:
                d = toks[i + 1].text
                j = i + 2
                end = j
                while end < n and toks[end].pp == t.pp:
                    end += 1
                if d in ("if", "elif"):
                    for q in range(j, end):
                        if self.tx[q] in ("__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"):
                            if self.tx[q - 1] == "defined":
                                e = self.edit(q - 1, "1", "W64-22")
                            elif self.tx[q - 1] == "(" and self.tx[q - 2] == "defined":
                                e = self.edit(q - 2, "1", "W64-22", q + 1)
                            else:
                                e = self.edit(q, "(defined(__GFX8__) || defined(__GFX9__) ? 64 : 32)", "W64-22")
                            self.add(Hit("W64-22", q, [e], [e], "select 64 by __GFX8__/__GFX9__",
                                         "select 64 by __GFX8__/__GFX9__ (device pass)",
                                         "__AMDGCN_WAVEFRONT_SIZE is deprecated and removed in recent ROCm: "
                                         "#if on it silently picks 32.", f"w32sel:{i}"),
                                     claim=[z for z in range(q - 2, q + 2)
                                            if self.toks[z].start >= e.start and self.toks[z].end <= e.end])
                if d in ("ifdef", "if") and self.wave32:
                    names = self.names(j, end)
                    if "__HIP_PLATFORM_AMD__" in names or "__HIP_PLATFORM_HCC__" in names:
                        # does the branch define a warp constant of 64?
                        q = end
                        while q < n and not (toks[q].pp >= 0 and self.tx[q] == "#" and self.tx[q + 1] in ("else", "elif", "endif")):
                            if toks[q].pp >= 0 and self.tx[q] == "define" and WARPISH.search(self.tx[q + 1]) \
                                    and self.is_int(q + 2, 64):
                                e = Edit(toks[i].start, toks[end - 1].end,
                                         "#if defined(__GFX8__) || defined(__GFX9__)", "W64-22")
                                self.add(Hit("W64-22", i + 1, None, [e], "", "select 64 by __GFX8__/__GFX9__",
                                             "Warp size 64 chosen for every AMD target: RDNA (gfx10/11/12) in this "
                                             "fat binary has 32-lane waves.", f"w32sel:{i}"),
                                         claim=range(i, end))
                                break
                            q += 1
                i = end
                continue
            i += 1

    def macro_ids(self) -> None:
        """`#define LANE (threadIdx.x & 31)` / `#define WARP_ID (threadIdx.x / 32)`: findings in the macro."""
        for i in [j for j, x in enumerate(self.tx) if x == "define"]:
            t = self.toks[i]
            if t.pp < 0 or i + 1 >= len(self.toks) or self.toks[i + 1].kind != ID:
                continue
            name = self.tx[i + 1]
            body = [k for k in range(i + 2, min(len(self.toks), i + 40)) if self.toks[k].pp == t.pp]
            if not body:
                continue
            ba, bb = body[0], body[-1] + 1
            key = f"macro:{name}"
            lit = self.has_lane32(ba, bb)
            if lit is not None and self.tx[lit] not in self.w32_consts:
                is31 = self.is_int(lit, 31)
                if self.add(Hit("W64-01", lit, [self.edit(lit, "63" if is31 else "64", "W64-01")],
                                [self.edit(lit, "(warpSize - 1)" if is31 else "warpSize", "W64-01")],
                                "lane = ... % 64", "lane = ... % warpSize",
                                f"Macro {name} computes a lane id from 32 lanes: lanes 32-63 of a 64-lane "
                                "wavefront alias lanes 0-31.", key)):
                    self.macro_keys.add(name)
            lit = self.warpid32(ba, bb)
            if lit is not None:
                five = self.is_int(lit, 5)
                port = [self.edit(lit - 1, "/ warpSize", "W64-02", lit)] if five else \
                    [self.edit(lit, "warpSize", "W64-02")]
                if self.add(Hit("W64-02", lit, [self.edit(lit, "6" if five else "64", "W64-02")], port,
                                "warp id by 64", "warp id by warpSize",
                                f"Macro {name} computes a warp id with 32 lanes per warp: a 64-lane wavefront "
                                "is counted as two warps.", key), claim=[lit - 1, lit] if five else [lit]):
                    self.macro_keys.add(name)

    def file_level(self) -> None:
        # W64-08: warp-size constants
        for name, lit in self.w32_consts.items():
            self.needs.ws = True
            self.add(Hit("W64-08", lit, [self.edit(lit, "64", "W64-08")], [self.edit(lit, "HIPPORT_WS", "W64-08")],
                         f"{name} = 64", f"{name} = HIPPORT_WS (64 on gfx8/gfx9, 32 elsewhere)",
                         f"Warp-size constant {name} is 32: every lane id, warp id, loop start and array size "
                         "derived from it is wrong on a 64-lane wavefront.", f"w32:{name}"))
        # W64-03 on mask constants that reach a *_sync builtin
        for name, lit in self.mask_consts.items():
            if any(self.tx[k] == name and self.tx[k - 1] == "(" and self.tx[k - 2] in SYNC_CALLS
                   for k in range(len(self.toks))):
                self.needs.mask_t = True
                s = lit
                while s > 0 and self.toks[s - 1].pp < 0 and self.tx[s - 1] not in (";", "{", "}"):
                    s -= 1
                w = [self.edit(lit, "0xffffffffffffffffull", "W64-03")]
                p = [self.edit(lit, "(~lane_mask_t{0})", "W64-03")]
                if self.toks[lit].pp < 0:
                    span = self.narrow_type_span(s, lit - 2)
                    if span is not None:
                        w.append(self.edit(span[0], "unsigned long long", "W64-03", span[1]))
                        p.append(self.edit(span[0], "lane_mask_t", "W64-03", span[1]))
                self.add(Hit("W64-03", lit, w, p, "64-bit full mask", "full mask ~lane_mask_t{0}",
                             f"Full-mask constant {name} is 32-bit: ROCm >= 7.0 rejects it in *_sync builtins; "
                             "widened naively it would drop lanes 32-63.", f"mask:{name}"))
        # W64-19: __launch_bounds__(T, MIN)
        for k in [j for j, x in enumerate(self.tx) if x in FILE_TRIGGERS]:
            t = self.toks[k]
            if t.text == "__launch_bounds__" and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                args = self.split_args(k + 1)
                if len(args) == 2:
                    comma = args[0][1]
                    end = self.toks[args[1][1] - 1].end
                    e = Edit(self.toks[comma].start, end, "", "W64-19")
                    n_text = self.text[self.toks[args[1][0]].start:end].strip()
                    pe = Edit(self.toks[comma].start, end, f" HIPPORT_CUDA_MIN_BLOCKS({n_text})", "W64-19")
                    self.needs.min_blocks = True
                    self.add(Hit("W64-19", comma + 1, [e], [pe], "drop the minimum-blocks argument",
                                 "keep the minimum-blocks argument on NVIDIA only",
                                 "__launch_bounds__' second argument means minimum waves per execution unit in HIP, "
                                 "not minimum blocks per SM: CUDA values can force register caps and spills.",
                                 f"perf:{k}", "high"), claim=range(comma, args[1][1]))
            # W64-21: CUB warp storage sized with 32
            if t.text == "TempStorage" and self.toks[k + 1].kind == ID and self.tx[k + 2] == "[" and (k + 2) in self.pairs:
                for q in range(k + 3, self.pairs[k + 2]):
                    if self.tx[q] == "/" and self.is_int(q + 1, 32):
                        key = f"fn:{self.owner[k]}" if self.owner[k] >= 0 else f"cub:{k}"
                        self.add(Hit("W64-21", q + 1, [self.edit(q + 1, "64", "W64-21")], [],
                                     "one TempStorage per 64-lane wavefront",
                                     "kept: sized by the most warps any target has; index by "
                                     "threadIdx.x / warpSize",
                                     "CUB/hipCUB warp TempStorage sized with 32 lanes per warp: hipCUB's logical "
                                     "warp is the 64-lane wavefront on gfx9, so storage and warp ids disagree.", key))
            if self.owner[k] < 0 and t.pp < 0 and t.text in ("==", "!="):
                self.guard(k, "file")
            # W64-09 at file scope (constexpr int W = warpSize; template defaults)
            if t.text == "warpSize" and self.owner[k] < 0 and t.pp < 0 and self.rocm >= (7, 0):
                self.needs.ws = True
                self.add(Hit("W64-09", k, [self.edit(k, "64", "W64-09")], [self.edit(k, "HIPPORT_WS", "W64-09")],
                             "64 (compile-time)", "HIPPORT_WS (arch-selected constant)",
                             "warpSize is not constexpr from ROCm 7.0: it cannot initialise a constexpr, be a "
                             "template argument or size an array.", f"const:{k}"))

    def prelude_offset(self) -> int:
        """Offset after the hip/cuda runtime include line (or after the first include block, or 0)."""
        last_inc = None
        for k, t in enumerate(self.toks):
            if t.pp >= 0 and t.text == "include" and self.tx[k - 1] == "#":
                line_end = self.text.find("\n", t.start)
                end = len(self.text) if line_end < 0 else line_end + 1
                spelled = self.text[t.end:end]
                if re.search(r"cuda_runtime|hip_runtime|cuda\.h|<hip/", spelled):
                    return end
                if last_inc is None:
                    last_inc = end
            elif t.pp < 0 and last_inc is not None:
                break
        return last_inc or 0


def _hex8(s: str) -> bool:
    t = s.rstrip("uUlL").lower()
    return t.startswith("0x") and len(t) == 10
