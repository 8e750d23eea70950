"""Warp analysis, shared state: tokens, brackets, functions, the hit record and token helpers.

Token-level warp-width analysis of C++/CUDA/HIP text.

The analysis follows values derived from `threadIdx` (thread ids, lane ids, warp ids), ballot and
activemask results, mask constants and warp-size constants (macros, `constexpr`, `static const`)
through assignments, small device helpers that return a lane id, and macros. A literal 32 is
reported only when it meets such a value (or a warp builtin); tile sizes, bank padding, bit widths
and 2-D block shapes do not, which is where most of the precision comes from.

Each detector records a `Hit`: the rule, the tokens that changed meaning, the edits of both fix
styles, and a union key; hits whose keys meet form one fix group.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..cxx import brackets
from ..edits import Edit
from .lex import ID, NUM, PUNCT, columns, int_value
from .prelude import Needs
from .scopes import Func, find_functions

# A header's includers are read up to this many files (project.includer_scope); the role rules say so past it
MAX_INCLUDERS = 2000
# (path, text, constant names, ROCm version, wave32) -> ((name, file, line, role) per use, all files read)
IncluderUses = Callable[[Path | None, str, frozenset[str], tuple[int, int], bool],
                        tuple[tuple[tuple[str, str, int, str], ...], bool]]


@dataclass(frozen=True)
class ProjectFacts:
    """What the translation unit's own headers tell the analysis (filled by project.py)."""

    w32: frozenset[str] = frozenset()            # warp-size constants (value 32) defined in the headers
    warp_kernels: frozenset[str] = frozenset()   # __global__ functions of the headers that use warpSize
    headers: tuple[str, ...] = field(default=())  # the headers read, for messages and tests
    # per header kernel that uses warpSize: (name, why threadIdx.x/blockDim.x, why threadIdx.y is not all
    # through warpSize; "" when it is): see hostflow.py
    kernel_widths: tuple[tuple[str, str, str], ...] = field(default=())
    # device functions of the headers that use the whole wavefront (ballots, votes, lane masks, warpSize, warp
    # PTX; not shuffles alone), themselves or through what they call: a function here calling one is in a
    # hardware context
    wave_funcs: frozenset[str] = frozenset()
    # the analysed file itself: a warp-size constant it defines is also looked up in the files that include
    # it (project.includer_uses); "" when unknown or not to be followed
    path: str = ""
    # project.includer_uses, handed in by project_facts: the role rules call it without importing project.py
    # (project.py analyses other files with the Analyzer, so that import would be a cycle)
    includer_uses: IncluderUses | None = field(default=None, compare=False, repr=False)


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
    "%", "&", "/", ">>", "<<", "==", "!=", "<", ">=", "for", "if", "__shared__", "tiled_partition", "thread_block_tile",
    "asm", "__asm__", "__asm", "warpSize", "ballot"}))
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



@functools.lru_cache(maxsize=8192)
def laneish_name(name: str) -> bool:
    """LANEISH matches the name (cached: Base.laneish asks it for every name of every expression)."""
    return LANEISH.match(name) is not None

@dataclass(frozen=True)
class ForLoop:
    """`for (init; cond; step) body` read from tokens: the loop variable and the token ranges [a, b)."""

    var: str
    init: tuple[int, int]       # the initial value's tokens (after `var =`)
    cond: tuple[int, int]
    step_span: tuple[int, int]
    step: list[str]             # the step's token texts, e.g. ["i", ">>=", "1"]
    body: tuple[int, int]       # braced: `{` .. before `}`; unbraced: the statement before its `;`
    end: int                    # the body's last token (`}` or `;`)

    @property
    def halving(self) -> bool:
        v = self.var
        return self.step in ([v, ">>=", "1"], [v, "/=", "2"], [v, "=", v, "/", "2"], [v, "=", v, ">>", "1"])


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
    review: str = ""  # why this hit's group is REVIEW, naming the use ("WS also sizes the launch at line 120")
    uses: list[int] = field(default_factory=list)  # token indices of the other uses of the same root cause
    use_roles: dict[int, str] = field(default_factory=dict)  # token index -> role (roles.py) where known


@dataclass
class Result:
    starts: list[int]   # str offset of each token (hits name tokens by index)
    ends: list[int]
    funcs: list[Func]
    hits: list[Hit]
    needs: Needs
    links: list[tuple[str, str]] = field(default_factory=list)  # union pairs of keys
    prelude_at: int = 0


class Base:
    """Tokens, brackets, functions and what the passes learn; the token helpers every pass shares."""

    def __init__(self, text: str, rocm: tuple[int, int], wave32_in_fatbin: bool,
                 facts: ProjectFacts | None = None) -> None:
        self.facts = facts or ProjectFacts()
        self.text = text
        self.rocm = rocm
        self.wave32 = wave32_in_fatbin
        # the tokens as parallel lists (lex.Columns; read-only): kind, text, start, end, directive of token i.
        # kd/tt/st/en/pp index exactly like the token list (tt[-1] is the last token's text, tt[n] fails);
        # tx is tt padded with "" at the end: indices -4..n+3 are safe (negative ones hit padding)
        cols = columns(text)
        self.kd, self.tt, self.st, self.en, self.pp = cols.kinds, cols.texts, cols.starts, cols.ends, cols.pps
        self.n = len(cols)
        self.tx: list[str] = self.tt + [""] * 8
        self.tx_set = frozenset(self.tx)  # every spelling in the file: a pass's trigger words absent -> skip it
        self.pairs = brackets.match_brackets(self.tx)  # the padding is no bracket
        # statement ends and starts, top-level commas: in constant time however long the statement
        self.stmts = brackets.StatementIndex(self.tx)
        self._offset32: dict[tuple[int, int], bool] = {}  # has_offset32_shuffle, per token range
        self._full32_at: dict[tuple[int, int], list[int]] = {}  # forms.unrolled_chain: masks per statement
        self.chain_copy_left = CHAIN_COPY_BUDGET  # forms.unrolled_chain: statement bytes it may still copy
        self._assignments: dict[tuple[int, int], list[tuple[int, int, int]]] = {}  # assignments, per token range
        self._assigned_names: dict[tuple[int, int], list[tuple[int, int, set[str]]]] = {}  # device.assigned_names
        self.funcs, self.owner = find_functions(cols, self.pairs, self.positions(("define",)))
        self.hits: list[Hit] = []
        self.claimed: set[int] = set()  # token indices already edited by some hit
        self.needs = Needs()
        self.links: list[tuple[str, str]] = []
        # file-level knowledge
        self.w32_consts: dict[str, int] = {}     # name -> token index of its literal 32
        self.mask_consts: dict[str, int] = {}    # name -> token index of its 0xffffffff literal
        self.lane_funcs: set[str] = set()        # device helpers returning a lane id
        self.lane32_funcs: set[str] = set()
        self.tid_funcs: set[str] = set()         # device helpers returning a thread id
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
        self._trig_words: tuple[frozenset[str] | set[str], frozenset[str]] | None = None  # device.detect_device
        self.lane_cache: dict[int, frozenset[str]] = {}  # per function: names that depend on the lane (lane0.py)
        self.shfl_down_fns: dict[int, bool] = {}  # per function: it calls __shfl_down(_sync) (lane0.py)
        self.virtual_fn = False  # the function being scanned is a consistent virtual 32-lane warp (roles.py)
        self.virtual_fns: set[int] = set()
        self.wave_fns: set[str] = set()  # whole-wavefront functions other than by shuffles (roles.py)
        self.host_vars: dict[str, int] = {}
        # project.includer_uses of this file's warp-size constants, read once when first needed (roles.py)
        self._includer_uses: tuple[tuple[tuple[str, str, int, str], ...], bool] | None = None
        self.ballot_in: dict[int, set[str]] = {}  # device function -> parameters that receive a ballot
        # per device function: the value sets device_function learnt (tid, gid, lane, lane32, warp, ballot)
        self.fn_state: dict[int, tuple[set[str], set[str], set[str], set[str], set[str], set[str]]] = {}  # host `warp_size = 32` variables: name -> literal index

    def t(self, i: int) -> str:
        return self.tx[i]

    def positions(self, words: Iterable[str]) -> list[int]:
        """Indices of the tokens spelled as one of `words`, ascending (list.index scans in C: much cheaper
        than a Python loop over every token when the words are rare)."""
        tx = self.tx
        out: list[int] = []
        found = 0
        for w in words:
            if w not in self.tx_set:
                continue
            found += 1
            i = tx.index(w)
            try:
                while True:
                    out.append(i)
                    i = tx.index(w, i + 1)
            except ValueError:
                pass
        if found > 1:
            out.sort()
        return out

    def edit(self, i: int, repl: str, rule: str, j: int | None = None) -> Edit:
        """Replace tokens i..j (inclusive) with `repl`."""
        end = self.en[j if j is not None else i]
        return Edit(self.st[i], end, repl, rule)

    def widen(self, span: tuple[int, int], rule: str, w: list[Edit], p: list[Edit]) -> list[int]:
        """Widen the 32-bit type at tokens span[0]..span[1]: `unsigned long long` into the naive
        edits `w`, `lane_mask_t` into the portable edits `p`; returns the span's token indices."""
        w.append(self.edit(span[0], "unsigned long long", rule, span[1]))
        p.append(self.edit(span[0], "lane_mask_t", rule, span[1]))
        return list(range(span[0], span[1] + 1))

    def insert_after(self, i: int, text: str, rule: str) -> Edit:
        e = self.en[i]
        return Edit(e, e, text, rule)

    def insert_before(self, i: int, text: str, rule: str) -> Edit:
        st = self.st[i]
        return Edit(st, st, text, rule)

    def text_of(self, s: int, e: int) -> str:
        """The source text of tokens s..e-1 (with what lies between them), "" for an empty range."""
        return self.text[self.st[s]:self.en[e - 1]] if e > s else ""

    def dropped(self, rule: str, claim: Iterable[int]) -> bool:
        """Whether add() would drop a hit of `rule` claiming these tokens (a detector whose edits cost
        much to build asks first)."""
        if self.virtual_fn and rule in VIRTUAL_OK:
            return True  # a self-consistent 32-lane sub-group is correct on a 64-lane wavefront
        return any(c in self.claimed for c in claim)

    def add(self, hit: Hit, claim: Iterable[int] = ()) -> bool:
        claim = list(claim) or [hit.anchor]
        if self.dropped(hit.rule, claim):
            return False
        self.claimed.update(claim)
        self.hits.append(hit)
        return True

    def line(self, i: int) -> int:
        """1-based line of token i."""
        return self.text.count("\n", 0, self.st[i]) + 1

    def for_loop(self, k: int, b: int) -> ForLoop | None:
        """The `for` loop whose keyword is token k (body ending before b), or None when it is not
        `for (NAME = ...; ...; ...)` with balanced brackets."""
        lp = k + 1
        rp = self.pairs.get(lp)
        if rp is None:  # unbalanced '('
            return None
        parts: list[tuple[int, int]] = []
        s = lp + 1
        for q in range(lp + 1, rp):
            if self.tx[q] == ";":
                parts.append((s, q))
                s = q + 1
        parts.append((s, rp))
        if len(parts) != 3:
            return None
        (ia, ib), cond, (sa, sb) = parts
        var_i = next((q for q in range(ia, ib) if self.tx[q + 1] == "=" and self.kd[q] == ID), None)
        if var_i is None:
            return None
        if self.tx[rp + 1] == "{" and (rp + 1) in self.pairs:
            body, end = (rp + 1, self.pairs[rp + 1]), self.pairs[rp + 1]
        else:
            end = self.stmt_bounds(rp + 1, rp + 1, b)[1]
            body = (rp + 1, end)
        return ForLoop(self.tx[var_i], (var_i + 2, ib), cond, (sa, sb), [self.tx[q] for q in range(sa, sb)],
                       body, end)

    def is_int(self, i: int, *values: int) -> bool:
        return 0 <= i < self.n and self.kd[i] == NUM and int_value(self.tt[i]) in values

    def left_operand(self, k: int, lo: int) -> tuple[int, int]:
        j = k - 1
        if j < lo:
            return k, k
        if self.tx[j] in (")", "]") and j in self.pairs:
            a = self.pairs[j]
            if a - 1 >= lo and self.kd[a - 1] == ID:  # call or subscript: f(...), s[...]
                a -= 1
            return a, k
        a = j
        while a - 2 >= lo and self.tx[a - 1] in (".", "->") and self.kd[a - 2] in (ID, PUNCT):
            if self.kd[a - 2] == PUNCT and self.tx[a - 2] not in (")", "]"):
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
        return {self.tt[k] for k in range(a, b) if self.kd[k] == ID}

    def tid_derived(self, a: int, b: int) -> bool:
        ns = self.names(a, b)
        if ns & BLOCK_WORDS or ns & self.gid:
            return False
        return bool(ns & TID_WORDS or ns & self.tid or ns & self.lane or ns & self.lane_funcs
                    or ns & self.macro_lane or ns & self.tid_funcs)

    def laneish(self, a: int, b: int) -> bool:
        ns = self.names(a, b)
        if ns & self.lane or ns & self.lane_funcs or ns & self.macro_lane or "__lane_id" in ns:
            return True
        if any(map(laneish_name, ns)):
            return True
        # threadIdx.x % <anything> / & <anything>
        has_mod = any(self.tx[k] in ("%", "&") for k in range(a, b))
        return bool(has_mod and (ns & TID_WORDS or ns & self.tid))

    def stmt_bounds(self, k: int, lo: int, hi: int) -> tuple[int, int]:
        """(start, end) of the expression statement holding token k: back over ()/[] groups to a `;`,
        `{`, `}` or an unclosed `(`/`[` (not below lo); forward to its `;` (not past hi)."""
        return self.stmts.expression_start(k, lo), self.stmts.scan_to(k, hi, (";",))

    def assignments(self, a: int, b: int) -> list[tuple[int, int, int]]:
        """(stmt_start, name_index, expr_end) for `NAME = expr` inside [a, b). Computed once per range
        (propagate reads a function's assignments twice, lane0.lane_names once more): do not modify."""
        got = self._assignments.get((a, b))
        if got is not None:
            return got
        out: list[tuple[int, int, int]] = []
        tx, kd = self.tx, self.kd
        for k in range(a, b - 1):
            if tx[k + 1] == "=" and kd[k] == ID and tx[k - 1] not in (".", "->", "::"):
                s, _ = self.stmt_bounds(k, a, b)
                # expression ends at ; or , or unmatched )
                e = self.scan_to(k + 2, b, (";", ","))
                out.append((s, k, e))
        self._assignments[(a, b)] = out
        return out

    def scan_to(self, b: int, hi: int, stops: tuple[str, ...]) -> int:
        """First index from b (before hi) of an unmatched closing bracket or a top-level stop token."""
        return self.stmts.scan_to(b, hi, stops)

    def stmt_start(self, k: int, lo: int) -> int:
        return self.stmts.stmt_start(k, lo)

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
        return any(self.kd[k] == ID and self.tt[k] == name for k in range(a, b))

    def has_lane32(self, a: int, b: int) -> int | None:
        """Token index of the 32/31 literal in `tid % 32` / `tid & 31` within [a, b), else None."""
        for k in range(a, b):
            x = self.tx[k]
            if x == "%" and (self.is_int(k + 1, 32) or self.tx[k + 1] in self.w32_consts
                             or self.tx[k + 1] in self.facts.w32):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb):
                    return k + 1
            if x == "&" and self.is_int(k + 1, 31):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb):
                    return k + 1
        return None

    def split_args(self, lp: int) -> list[tuple[int, int]]:
        """Argument spans of the call whose `(` is at lp (none for `()` or an unbalanced `(`)."""
        rp = self.pairs.get(lp)
        if rp is None or rp == lp + 1:  # unbalanced '(' (a file mid-edit), or no arguments
            return []
        return self.stmts.split_commas(lp + 1, rp)

    def split_commas(self, a: int, b: int) -> list[tuple[int, int]]:
        return self.stmts.split_commas(a, b)

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

    def enclosing_call(self, k: int) -> int | None:
        """Token index of the callee name whose argument list holds token k (innermost), else None."""
        depth = 0
        q = k - 1
        while q > 0 and q > k - 200:
            x = self.tx[q]
            if x in (")", "]"):
                depth += 1
            elif x in ("(", "["):
                if depth == 0:
                    if x == "(" and self.kd[q - 1] == ID:
                        return q - 1
                    if x == "(" and self.tx[q - 1] == ">":
                        return None
                    if x == "[":
                        return None
                else:
                    depth -= 1
            elif x in (";", "{", "}"):
                return None
            q -= 1
        return None

    def macro_name(self, k: int) -> str:
        """Name of the `#define` whose body holds token k ("?" for other directives)."""
        q = k
        while q > 0 and self.pp[q - 1] == self.pp[k]:
            q -= 1
        return self.tx[q + 2] if self.tx[q + 1] == "define" else "?"

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
        if not (lhs == "warpSize" or (WARPISH.search(lhs) and self.tx[k - 2] in (".", "->"))):
            return  # a constant compared with 32 is one of its uses (roles.py); `WS == 32` stays true after a split
        if not self.hard_guard(k):
            return  # `if (warpSize == 32) fast(); else general();` is right on every platform: never flip it
        span = (min(k, lit), max(k, lit))
        wrep = f"{x} 64" if lit > k else f"64 {x}"
        prep = ("<= 64" if x == "==" else "> 64") if lit > k else ("64 >=" if x == "==" else "64 <")
        self.add(Hit("W64-20", lit, [self.edit(span[0], wrep, "W64-20", span[1])],
                     [self.edit(span[0], prep, "W64-20", span[1])],
                     "expect 64", "accept any warp size up to 64",
                     "Hard guard on a 32-lane warp: fails outright on a 64-lane wavefront.",
                     key), claim=[k, lit])

    def hard_guard(self, k: int) -> bool:
        """The comparison at k sits in assert/static_assert/#if, or in an `if` whose statement exits."""
        if self.pp[k] >= 0:
            return True
        call = self.enclosing_call(k)
        if call is None:
            return False
        name = self.tx[call]
        if name in ("assert", "static_assert", "_Static_assert"):
            return True
        if name == "if":
            rp = self.pairs.get(call + 1)
            if rp is None:
                return False
            body_end = self.pairs.get(rp + 1, rp) if self.tx[rp + 1] == "{" else self.scan_to(rp + 1, self.n, (";",))
            return bool({"abort", "exit", "throw", "__trap", "__builtin_trap", "assert", "return", "printf",
                         "fprintf"} & set(self.tx[rp + 1:body_end + 1]))
        return False



def _hex8(s: str) -> bool:
    t = s.rstrip("uUlL").lower()
    return t.startswith("0x") and len(t) == 10
