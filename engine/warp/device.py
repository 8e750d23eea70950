"""Device code: values derived from threadIdx, lane ids, warp ids, ballots and masks, per function."""

from __future__ import annotations

import bisect

from .base import (
    BALLOT_CALLS,
    BITCOUNT,
    BLOCK_WORDS,
    FULL32,
    NARROW_TYPES,
    SHFL_CALLS,
    SYNC_CALLS,
    TID_WORDS,
    TRIG_NUMS,
    TYPE_WORDS,
    WARP_OPS,
    Hit,
)
from .forms import DeviceForms
from .lane0 import Lane0Rules
from .lex import ID, NUM, int_value
from .scopes import Func


class DeviceRules(DeviceForms, Lane0Rules):
    def device_function(self, f: Func) -> None:
        a, b = f.body
        self.tid, self.gid, self.lane, self.lane32, self.warp, self.ballot = set(), set(), set(), set(), set(), set()
        self.maskvars = {}
        key = f"fn:{f.index}"
        for name in sorted(self.ballot_in.get(f.index, ())):  # a ballot passed in: a 64-bit mask parameter
            self.ballot.add(name)
            self.narrow_mask_name(name, f.index, f"masks:{f.index}", "receives a ballot from its caller")
        self.sub_warp = sorted(self.explicit_width_args(a + 1, b))
        self.uses_index = None
        self.propagate(a + 1, b)
        if self.reads_later_assignment(a + 1, b):
            self.propagate(a + 1, b)  # second pass: uses before definitions in loops
        self.detect_device(f, a + 1, b, key)
        self.ballot_half_picks(a + 1, b, f"masks:{f.index}")  # W64-04: `lane == 32` joins of two ballots
        self.fn_state[f.index] = (self.tid, self.gid, self.lane, self.lane32, self.warp, self.ballot)

    def explicit_width_args(self, a: int, b: int) -> list[tuple[int, int]]:
        """Argument spans of shuffles given an explicit width of at most 32: deliberate sub-warp logic."""
        out = []
        for k in range(a, b):
            if self.tx[k] in SHFL_CALLS and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                args = self.split_args(k + 1)
                n_expected = 4 if self.tx[k].endswith("_sync") else 3
                if len(args) == n_expected:
                    wa, wb = args[-1]
                    v = int_value(self.tx[wa]) if wb == wa + 1 and self.kd[wa] == NUM else None
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
        name_i = next((q for q in range(s, k) if self.tx[q + 1] == "=" and self.kd[q] == ID), None)
        if name_i is None:
            return False
        name = self.tx[name_i]
        if self.uses_index is None:
            self.uses_index = {}
            for q in range(a, b):
                if self.kd[q] == ID:
                    self.uses_index.setdefault(self.tx[q], []).append(q)
        uses = [q for q in self.uses_index.get(name, []) if q != name_i]
        return bool(uses) and all(self.in_sub_warp(q) for q in uses)

    def propagate(self, a: int, b: int) -> None:
        consts = self.w32_consts.keys() | self.facts.w32
        for k, e, ns in self.assigned_names(a, b):
            name = self.tx[k]
            if self.has_lane32(k + 2, e) is not None or ns & self.lane32_funcs:
                self.lane32.add(name)
                self.lane.add(name)
            elif self.laneish(k + 2, e) and (ns & {"warpSize", "__lane_id"} or ns & self.lane):
                if not (ns & BLOCK_WORDS):
                    self.lane.add(name)
            if self.warpid32(k + 2, e) is not None or (("warpSize" in ns or ns & consts)
                                                        and "/" in {self.tx[x] for x in range(k + 2, e)}
                                                        and ns & (TID_WORDS | self.tid)):
                self.warp.add(name)  # a warp id: tid / 32, tid / warpSize, tid / WARP_SIZE
            if ns & BLOCK_WORDS or ns & self.gid:
                self.gid.add(name)
            elif ns & TID_WORDS or ns & self.tid or ns & self.tid_funcs:
                if name not in self.lane and name not in self.warp:
                    self.tid.add(name)
            if ns & BALLOT_CALLS or ns & self.ballot or self.group_ballot(k + 2, e, a, b):
                self.ballot.add(name)
            if e == k + 3 and self.kd[k + 2] == NUM and int_value(self.tx[k + 2]) == FULL32:
                self.maskvars[name] = k + 2

    def reads_later_assignment(self, a: int, b: int) -> bool:
        """Some assignment in [a, b) reads a name assigned by itself or by a later one. Only then can a second
        propagate pass learn more than the first: each pass only adds the assigned names to the value sets,
        and a step's tests read only the names of its own expression (and the assigned name's membership,
        which can only hold back an addition)."""
        later: set[str] = set()
        for k, _e, ns in reversed(self.assigned_names(a, b)):
            later.add(self.tx[k])
            if not later.isdisjoint(ns):
                return True
        return False

    def assigned_names(self, a: int, b: int) -> list[tuple[int, int, set[str]]]:
        """(name_index, expr_end, names read by the expression) for each assignment in [a, b), once per
        range (propagate runs twice over a function): do not modify."""
        got = self._assigned_names.get((a, b))
        if got is None:
            got = self._assigned_names[(a, b)] = [(k, e, self.names(k + 2, e)) for _s, k, e in self.assignments(a, b)]
        return got

    def detect_device(self, f: Func, a: int, b: int, key: str) -> None:
        kd = self.kd
        tx = self.tx
        trig = self.device_triggers
        # masks and ballot types are their own value: widening them is right whatever the lane ids do,
        # so they form their own group per function (a safe mask fix is not held by a review lane fix)
        mkey = f"masks:{f.index}"
        if self._trig_words is None or self._trig_words[0] is not trig:
            # the file's spellings that trigger this pass, found once per file (over distinct spellings)
            self._trig_words = (trig, frozenset(w for w in self.tx_set
                                                if w in trig or (w[:1].isdigit() and int_value(w) in TRIG_NUMS)))
        words = self._trig_words[1]
        for k in [j for j in range(a, b) if tx[j] in words]:
            kind = kd[k]
            x = tx[k]
            # W64-16: full-warp test on a 32-bit mask
            if kind == NUM and int_value(x) == FULL32 and (self.tx[k - 1] in ("==", "!=") or self.tx[k + 1] in ("==", "!=")):
                other = self.compare_other_side(k, a, b)
                if other is not None and (self.names(*other) & (BALLOT_CALLS | self.ballot)):
                    self.needs.mask_t = True
                    self.add(Hit("W64-16", k, [self.edit(k, "0xffffffffffffffffull", "W64-16")],
                                 [self.edit(k, "(~lane_mask_t{0})", "W64-16")],
                                 "compare with the 64-lane full mask ~0ull",
                                 "compare with ~lane_mask_t{0}",
                                 "A full-warp test against 0xffffffff is never true on a 64-lane wavefront "
                                 "(ballots and __activemask() are 64-bit in HIP).", mkey))
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
                    if lit is not None and self.tt[lit] not in self.w32_consts:
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
            flt = x == "/" and self.tx[k + 1].lower().rstrip("f") in ("32.", "32.0")  # blockDim.x / 32.f
            if x == "/" and (self.is_int(k + 1, 32) or flt):
                la, lb = self.left_operand(k, a)
                if self.tid_derived(la, lb) or self.is_blockdim(la, lb):
                    if not self.in_shared_dim(k):
                        self.add(Hit("W64-02", k + 1, [self.edit(k + 1, "64.f" if flt else "64", "W64-02")],
                                     [self.edit(k + 1, "(float)warpSize" if flt else "warpSize", "W64-02")],
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
            if kind == NUM and int_value(x) == FULL32 and self.tx[k - 1] == "(" and self.tx[k - 2] in SYNC_CALLS:
                self.mask_literal_hit(k, mkey, "passed to " + self.tx[k - 2])
            if kind == ID and x in SYNC_CALLS and self.tx[k + 1] == "(":
                first = self.split_args(k + 1)
                if first:
                    fa, fb = first[0]
                    if fb == fa + 1 and self.tx[fa] in self.maskvars:
                        self.mask_var_hit(self.tx[fa], mkey, a, b)
                    if fb == fa + 1 and self.tx[fa] in self.mask_consts:
                        self.links.append((key, f"mask:{self.tx[fa]}"))
            # W64-04: a coalesced group's ballot (64-bit on a wavefront) kept in a 32-bit variable
            if x == "ballot" and self.tx[k - 1] == "." and self.tx[k - 3] == "=" and self.group_ballot(k - 2, k + 1, a, b):
                self.narrow_mask_name(self.tx[k - 4], f.index, mkey, "holds a coalesced group's ballot")
            # W64-04: ballot stored in 32 bits; __popc/__ffs/__clz of a ballot
            if kind == ID and x in BALLOT_CALLS and self.tx[k - 1] == "=" and self.kd[k - 2] == ID:
                s, _ = self.stmt_bounds(k - 2, a, b)
                span = self.narrow_type_span(s, k - 2)
                if span is not None:
                    self.needs.mask_t = True
                    self.add(Hit("W64-04", span[0], [self.edit(span[0], "unsigned long long", "W64-04", span[1])],
                                 [self.edit(span[0], "lane_mask_t", "W64-04", span[1])],
                                 "store the ballot in unsigned long long", "store the ballot in lane_mask_t",
                                 f"{x} returns a 64-bit mask in HIP; storing it in 32 bits drops lanes 32-63.",
                                 mkey), claim=range(span[0], span[1] + 1))
                elif self.stmt_start(k - 2, a) == k - 2:  # `q = __ballot(...)`, `uint32_t q;` declared apart
                    self.ballot_declared_apart(k, f.index, mkey)
            # W64-04: two 32-lane ballots joined into one 64-bit word, `(uint64_t)hi << 32 | lo`
            if x == "<<" and self.is_int(k + 1, 32) and self.tx[k + 2] not in ("-", "+", "*", "/", "%"):
                self.ballot_join(k, a, b, mkey)
            if kind == ID and x in BITCOUNT and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                ca, cb = k + 2, self.pairs[k + 1]
                ns = self.names(ca, cb)
                if ns & BALLOT_CALLS or ns & self.ballot:
                    ll = self.insert_after(k, "ll", "W64-04")
                    port = [ll] if x != "__clz" else None
                    self.add(Hit("W64-04", k, [ll], port, f"{BITCOUNT[x]}(mask)", f"{BITCOUNT[x]}(mask)",
                                 f"{x} takes 32 bits: on a 64-bit ballot it ignores lanes 32-63"
                                 + (" (__ffs is even ambiguous)." if x == "__ffs" else "."), mkey))
            # W64-05: 1u << lane
            if kind == NUM and int_value(x) == 1 and self.tx[k + 1] == "<<" and "." not in x:
                ea = k + 2
                eb = self.right_operand_end(ea, b)
                if self.laneish(ea, eb) or self.tx[ea] in self.lane:
                    self.lane_bit(k, a, key)
            # W64-06 / W64-18: loops
            if x == "for" and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                self.loop(k, b, key)
                self.lane0_stores(f, k, a, b)  # W64-24: the reduced value stored by every lane
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
                # only reached when the function also uses whole-wave operations (a consistent tile is a
                # virtual warp: base.VIRTUAL_OK); widening the tile alone breaks its 32-bounded loops
                self.add(Hit("W64-13", k + 2, None, None, "", "",
                             "A 32-lane tile is half a 64-lane wavefront, and this function also uses whole-wavefront "
                             "operations (ballots, warpSize, width-less shuffles): check that the tile is not "
                             "treated as the hardware warp. No automatic fix: widening the tile needs every "
                             "bound that goes with it.", key, "medium",
                             review=f"tile of 32 mixed with whole-wavefront operations at line {self.line(k)}"))
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
            if kind == ID and x in self.mask_consts:
                self.links.append((key, f"mask:{x}"))

    def wide_literal(self, k: int) -> bool:
        """The integer literal at k is already 64-bit: an `ll` suffix (`1ull`, `1LLU`), or a cast to a type
        that is not 32-bit just before it (`(unsigned long long)1`, `(uint64_t)1`, `(lane_mask_t)1`)."""
        if "ll" in self.tx[k].lower():
            return True
        if self.tx[k - 1] != ")" or (k - 1) not in self.pairs:
            return False
        words = [self.tx[q] for q in range(self.pairs[k - 1] + 1, k - 1)]
        return bool(words) and all(w in TYPE_WORDS for w in words) and not set(words) <= NARROW_TYPES

    def lane_bit(self, k: int, a: int, key: str) -> None:
        """W64-05: `1u << lane`. The literal at k is widened, unless it already is 64-bit (`1ull << lane` is
        right as written: only a 32-bit variable it is stored in is widened, else there is no finding)."""
        wide = self.wide_literal(k)
        w = [] if wide else [self.edit(k, "1ull", "W64-05")]
        p = [] if wide else [self.edit(k, "lane_mask_t{1}", "W64-05")]
        s = self.stmt_start(k, a)
        name_i = next((q for q in range(s, k) if self.tx[q + 1] == "=" and self.kd[q] == ID), None)
        claim = [k]
        if name_i is not None:
            span = self.narrow_type_span(s, name_i)
            if span is not None and not (set(range(span[0], span[1] + 1)) & self.claimed):
                claim += self.widen(span, "W64-05", w, p)
        if not w:
            return  # already 64-bit and not narrowed: nothing to fix
        self.needs.mask_t = True
        if wide:
            self.add(Hit("W64-05", claim[1], w, p, "store the lane bit in unsigned long long",
                         "store the lane bit in lane_mask_t",
                         "A 64-bit lane bit stored in 32 bits is 0 for lanes 32-63.", key, end_anchor=claim[-1]),
                     claim)
            return
        self.add(Hit("W64-05", k, w, p, "1ull << lane", "lane_mask_t{1} << lane",
                     "A 32-bit 1 shifted by a lane id is 0 (undefined) for lanes 32-63.", key), claim)

    def group_ballot(self, ea: int, eb: int, a: int, b: int) -> bool:
        """`g.ballot(...)` in [ea, eb) on a coalesced group (its ballot spans the wavefront: 64 bits);
        a tile of 32 or fewer lanes is a sub-group and its ballot fits 32 bits."""
        for q in range(ea, eb):
            if self.tx[q] == "ballot" and self.tx[q - 1] == "." and self.kd[q - 2] == ID:
                g = self.tx[q - 2]
                for z in range(a, b):
                    if self.tx[z] == g and self.tx[z - 1] in ("coalesced_group", "auto") and (
                            self.tx[z - 1] == "coalesced_group" or "coalesced_threads" in self.tx[z:z + 6]):
                        return True
        return False

    def compare_other_side(self, k: int, a: int, b: int) -> tuple[int, int] | None:
        if self.tx[k - 1] in ("==", "!="):
            la, lb = self.left_operand(k - 1, a)
            return la, lb
        if self.tx[k + 1] in ("==", "!="):
            e = self.right_operand_end(k + 2, b)
            return k + 2, e
        return None

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
        name = next((self.tx[q] for q in range(s, k) if self.tx[q + 1] == "=" and self.kd[q] == ID), None)
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
            claim += self.widen(span, "W64-03", w, p)
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

    def const_context(self, k: int, a: int, b: int) -> bool:
        s = self.stmt_start(k, a)
        words = {self.tx[q] for q in range(s, k)}
        if words & {"constexpr", "static_assert"}:
            return True
        if "__shared__" in words and any(self.tx[q] == "[" for q in range(s, k)):
            return True
        if self.tx[k - 1] == "<" and self.kd[k - 2] == ID and self.tx[k + 1] in (">", ","):
            return True
        return False

