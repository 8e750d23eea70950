"""32-bit lane masks that are not a literal at the call (issue 9): `~0`, `uint32_t(-1)`, `-1` masks, masks
inside `#define` bodies, narrow mask parameters of device helpers (`unsigned int mask = 0xffffffff`),
narrow variables declared apart from their ballot or mask (`uint32_t q; ... q = __ballot_sync(...)`).

Every `*_sync` builtin of HIP `static_assert`s a 64-bit mask, so each of these is a compile error on
ROCm >= 7.0 and, widened naively to 0xffffffffull, a silent loss of lanes 32-63.
"""

from __future__ import annotations

from .base import BALLOT_CALLS, BITCOUNT, BLOCK_WORDS, FULL32, NARROW_TYPES, SYNC_CALLS, Base, Hit
from .lex import ID, NUM, int_value

COUNTS = frozenset(BITCOUNT) | frozenset(BITCOUNT.values())  # __popc(ll), __ffs(ll), __clz(ll)

W64_MASK, PORT_MASK = "0xffffffffffffffffull", "(~lane_mask_t{0})"


class MaskRules(Base):
    def full_mask32(self, a: int, b: int) -> bool:
        """Tokens [a, b) spell a 32-bit all-ones mask: 0xffffffff, ~0, ~0u, -1, uint32_t(-1), (unsigned)-1."""
        tx = [self.tx[q] for q in range(a, b) if self.tx[q] not in ("(", ")")]
        if not tx:
            return False
        if len(tx) == 1:
            return self.kd[a] == NUM and int_value(tx[0]) == FULL32 and not tx[0].lower().endswith("ll")
        if tx[0] in NARROW_TYPES | {"uint32_t", "unsigned"}:  # uint32_t(-1), (unsigned)-1, (unsigned int)~0
            tx = [x for x in tx if x not in NARROW_TYPES | {"uint32_t"}]
        if len(tx) == 2 and tx[0] in ("~", "-") and int_value(tx[1]) in (0, 1):
            v = tx[1].lower()
            return "ll" not in v and ((tx[0] == "~" and int_value(v) == 0) or (tx[0] == "-" and int_value(v) == 1))
        return False

    def sync_masks(self) -> None:
        """Every *_sync call in function bodies and macro bodies: its first argument as a mask."""
        for k in self.positions(SYNC_CALLS):
            if self.kd[k] != ID or self.tt[k] not in SYNC_CALLS or self.tx[k + 1] != "(" or (k + 1) not in self.pairs:
                continue
            args = self.split_args(k + 1)
            if not args:
                continue
            fa, fb = args[0]
            fi = self.owner[k]
            key = f"masks:{fi}" if fi >= 0 else f"macro:{self.macro_name(k)}" if self.pp[k] >= 0 else f"mask:{k}"
            if self.full_mask32(fa, fb) and not (fb == fa + 1 and self.kd[fa] == NUM and fi >= 0):
                # (a plain literal in a function body is detect_device's W64-03)
                self.needs.mask_t = True
                where = f"in macro {self.macro_name(k)}" if self.pp[k] >= 0 else f"passed to {self.tt[k]}"
                self.add(Hit("W64-03", fa, [self.edit(fa, W64_MASK, "W64-03", fb - 1)],
                             [self.edit(fa, PORT_MASK, "W64-03", fb - 1)], "64-bit full mask",
                             "full mask ~lane_mask_t{0}",
                             f"32-bit full mask {where}: ROCm >= 7.0 rejects it (static_assert: the mask must be a "
                             "64-bit integer); widened naively it would drop lanes 32-63.", key, end_anchor=fb - 1),
                         claim=range(fa, fb))
            elif fb == fa + 1 and self.kd[fa] == ID and fi >= 0:
                self.narrow_mask_name(self.tx[fa], fi, key, f"is the mask of {self.tt[k]}")

    def narrow_mask_name(self, name: str, fi: int, key: str, why: str) -> None:
        """Widen the 32-bit declaration (parameter or local) of the mask or ballot variable `name`."""
        f = self.funcs[fi]
        for a, b in (f.header, (f.body[0] + 1, f.body[1])):
            for q in range(a, b):
                if self.tx[q] != name or self.kd[q] != ID:
                    continue
                span = self.declarator_type(q, a)
                if span is None:
                    continue
                s0, s1 = span
                if any(z in self.claimed for z in range(s0, s1 + 1)):
                    return
                w = [self.edit(s0, "unsigned long long", "W64-04", s1)]
                p = [self.edit(s0, "lane_mask_t", "W64-04", s1)]
                claim = list(range(s0, s1 + 1))
                for z, w_text, p_text in self.mask_arithmetic(name, f.body[0] + 1, f.body[1], q):
                    if z not in self.claimed and z not in claim:
                        w.append(self.edit(z, w_text, "W64-04"))
                        p.append(self.edit(z, p_text, "W64-04"))
                        claim.append(z)
                ret = self.narrow_return(f.index, name)
                if ret is not None:  # `unsigned lanemask_lt() { ...; return m; }`: the helper's type widens too
                    claim += self.widen(ret, "W64-04", w, p)
                self.needs.mask_t = True
                self.add(Hit("W64-04", s0, w, p, "declare the mask 64-bit", "declare the mask as lane_mask_t",
                             f"`{name}` is declared 32-bit but {why}: HIP masks and ballots are 64-bit, so lanes "
                             "32-63 are dropped (and *_sync builtins reject a 32-bit mask).", key), claim=claim)
                return

    def mask_arithmetic(self, name: str, a: int, b: int, decl: int) -> list[tuple[int, str, str]]:
        """Edits that make the values assigned to a widened mask 64-lane: `0xffffffff` -> all 64 lanes,
        `0xffffffff >> (32 - n)` -> `>> (64 - n)`, and `n = blockSize & 31` (lanes of the last partial
        warp) -> `& 63`. Token index, wave64 text, portable text."""
        out: list[tuple[int, str, str]] = []
        stmts = [decl] + [q for q in range(a, b) if self.tx[q] == name and self.tx[q + 1] == "=" and q != decl]
        counts: set[str] = set()
        for q in stmts:
            if self.tx[q + 1] != "=":
                continue
            e = self.scan_to(q + 2, b, (";", ","))
            for z in range(q + 2, e):
                if self.kd[z] == NUM and int_value(self.tx[z]) == FULL32 and not self.tx[z].lower().endswith("ll"):
                    out.append((z, W64_MASK, PORT_MASK))
                elif self.is_int(z, 32) and self.tx[z + 1] == "-" and self.tx[z - 1] in ("(", ">>", "<<"):
                    # the mask's own width, not warpSize: on RDNA lane_mask_t is 64-bit with 32 lanes
                    out.append((z, "64", "(sizeof(lane_mask_t) * 8)"))
                    if self.kd[z + 2] == ID:
                        counts.add(self.tx[z + 2])
        for n in counts:  # `int maskLength = blockSize & 31;`
            for q in range(a, b):
                if self.tx[q] == n and self.tx[q + 1] == "=":
                    e = self.scan_to(q + 2, b, (";", ","))
                    for z in range(q + 2, e):
                        if self.tx[z] == "&" and self.is_int(z + 1, 31):
                            out.append((z + 1, "63", "(warpSize - 1)"))
                        elif self.tx[z] == "%" and self.is_int(z + 1, 32):
                            out.append((z + 1, "64", "warpSize"))
        return out

    def narrow_return(self, fi: int, name: str) -> tuple[int, int] | None:
        """Span of a device helper's 32-bit return type when it returns `name`."""
        f = self.funcs[fi]
        a, b = f.body
        if not any(self.tx[q] == "return" and self.tx[q + 1] == name and self.tx[q + 2] == ";" for q in range(a, b)):
            return None
        ha, hb = f.header
        at = next((q for q in range(hb - 1, ha - 1, -1) if self.tx[q] == f.name and self.tx[q + 1] == "("), None)
        if at is None:
            return None
        span = self.narrow_type_span(ha, at)
        if span is None or any(z in self.claimed for z in range(span[0], span[1] + 1)):
            return None
        return span

    def declarator_type(self, q: int, lo: int) -> tuple[int, int] | None:
        """Span of the narrow type in `TYPE name` when that declaration declares `name` alone."""
        if self.tx[q + 1] not in (";", "=", ",", ")"):
            return None
        s = q
        while s > lo and self.tx[s - 1] not in (";", "{", "}", "(", ","):
            s -= 1
        if self.tx[q + 1] == "," and self.tx[s - 1] != "(" and self.tx[s - 1] != ",":
            return None  # `int a, name` would widen `a` too
        span = self.narrow_type_span(s, q)
        if span is None or span[1] != q - 1:
            return None
        return span

    def ballot_declared_apart(self, k: int, fi: int, key: str) -> None:
        """`q = __ballot_sync(...)` with `uint32_t q;` declared elsewhere in the function."""
        name = self.tx[k - 2]
        if self.kd[k - 2] == ID and self.tx[k - 1] == "=" and self.tx[k] in BALLOT_CALLS:
            self.narrow_mask_name(name, fi, key, f"holds {self.tx[k]}")

    def ballot_join(self, k: int, a: int, b: int, key: str) -> None:
        """`(uint64_t)hi << 32 | lo` where `hi` is a ballot, or a slot that a ballot was stored in: two 32-lane
        ballots joined into one 64-bit word. On a 64-lane wavefront one ballot already is that word, so the
        join, the per-warp slots it reads and their count must change together: reported in the ballot's own
        group (`key`, the function's mask group) with no automatic fix, so that group is never SAFE."""
        la, lb = self.left_operand(k, a)
        ns = self.names(la, lb)
        if not (ns & BALLOT_CALLS or ns & self.ballot or ns & self.ballot_slots(a, b)):
            return
        src = self.text_of(la, lb)
        self.ballot_join_hit(k, key, f"`{src} << 32`", "so the shift drops its upper half and the word mixes two "
                             "wavefronts", "join", "joins two 32-lane ballots into one 64-bit word")

    def ballot_join_hit(self, k: int, key: str, what: str, why: str, kind: str, does: str,
                        subject: str | None = None) -> None:
        """The W64-04 finding of a join of two 32-lane ballots at tokens k, k + 1 (`<< 32`, or a lane test that
        picks the upper half): in the ballot's group `key`, no automatic fix, REVIEW naming it."""
        shown = subject if subject is not None else what  # how the review line names it
        self.add(Hit("W64-04", k, None, None, "", "",
                     f"Two 32-lane ballots joined into one 64-bit word ({what}): on a 64-lane wavefront one ballot "
                     f"already holds all 64 lanes, {why}. No automatic fix: the ballots, the slots that keep them "
                     f"and this {kind} change together.", key, end_anchor=k + 1,
                     review=f"{shown} at line {self.line(k)} {does}; on a 64-lane wavefront one ballot is that word: "
                     "rewrite the join by hand"),
                 claim=[k, k + 1])

    def ballot_half_picks(self, a: int, b: int, key: str) -> None:
        """The other spellings of a join of two 32-lane ballots: a lane test that picks the upper half of the
        64-bit word, `lane == 32` / `lane >= 32` / `(lane + d) > 31`, when the code it decides reads a ballot
        (a ballot call, a ballot variable or a slot a ballot is stored in) of the same function: the body of
        the `if` whose condition holds the test, else the test's own statement (`?:`). Reported like the
        `<< 32` join (ballot_join): in the ballot's own group, no automatic fix, so the group is REVIEW.
        Ordinary `== 32` comparisons (no lane, or no ballot in what they decide) are not reported."""
        if not (self.ballot or any(self.tx[q] in BALLOT_CALLS for q in range(a, b))):
            return
        held: frozenset[str] | None = None
        for k in range(a, b):
            x = self.tx[k]
            if not (((x == "==" or x == ">=") and self.is_int(k + 1, 32)) or (x == ">" and self.is_int(k + 1, 31))):
                continue
            if self.tx[k + 2] not in (")", "&&", "||", ";", "?"):
                continue
            la, lb = self.compared_side(k, a), k
            if la == lb or not self.laneish(la, lb) or self.names(la, lb) & (BLOCK_WORDS | self.gid):
                continue
            if held is None:
                held = BALLOT_CALLS | frozenset(self.ballot | self.ballot_slots(a, b))
            ra, rb = self.decided_span(k, a, b)
            if not self.names(ra, rb) & held:
                continue
            src = self.text_of(la, k + 2)
            self.ballot_join_hit(k, key, f"`{src}` picks the upper half", "so no lane of a wavefront belongs to "
                                 "another ballot", "test", "picks the upper half of a 64-bit word joined from two "
                                 "32-lane ballots", f"`{src}`")

    def compared_side(self, k: int, a: int) -> int:
        """First token of the whole left side of the comparison at k: `lane + d` in `lane + d > 31`."""
        q = k
        while q > a:
            x = self.tx[q - 1]
            if x in (")", "]") and (q - 1) in self.pairs:
                q = self.pairs[q - 1]
                continue
            if x in ("(", "[", "{", "}", ";", ",", "=", "&&", "||", "?", ":", "return", "==", "!=", "<", ">",
                     "<=", ">=", "+=", "-=", "|=", "&=", "^="):
                break
            q -= 1
        return q

    def decided_span(self, k: int, a: int, b: int) -> tuple[int, int]:
        """Tokens that the test at k decides: the body (and else) of the `if`/`while` whose condition holds
        it, else k's own statement."""
        for q in range(k - 1, a - 1, -1):
            x = self.tx[q]
            if x in (";", "{", "}"):
                break
            if x == "(" and self.pairs.get(q, -1) > k and self.tx[q - 1] in ("if", "while"):
                rp = self.pairs[q]
                if self.tx[rp + 1] == "{" and (rp + 1) in self.pairs:
                    end = self.pairs[rp + 1]
                else:
                    end = self.scan_to(rp + 1, b, (";",))
                if self.tx[end + 1] == "else":
                    end = self.pairs.get(end + 2, self.scan_to(end + 2, b, (";",)))
                return rp + 1, end
        s = self.stmt_start(k, a)
        return s, self.scan_to(s, b, (";",))

    def ballot_slots(self, a: int, b: int) -> set[str]:
        """Arrays of the function body [a, b) that a ballot is stored in: `halves[warp] = b;`."""
        out: set[str] = set()
        for q in range(a, b):
            if self.tx[q] != "=" or self.tx[q - 1] != "]" or (q - 1) not in self.pairs:
                continue
            lb = self.pairs[q - 1]
            if self.kd[lb - 1] != ID:
                continue
            e = self.scan_to(q + 1, b, (";", ","))
            ns = self.names(q + 1, e)
            if (ns & BALLOT_CALLS or ns & self.ballot) and not ns & COUNTS:  # a count of a ballot is no ballot
                out.add(self.tx[lb - 1])
        return out

    def ballot_params(self) -> None:
        """A ballot passed to a device helper: the helper's parameter holds a 64-bit mask (`ballot_in`)."""
        by_name = {f.name: f for f in self.funcs if f.device}
        for f in self.funcs:
            if not f.device:
                continue
            a, b = f.body
            held = {self.tx[q - 2] for q in range(a, b) if self.tx[q] in BALLOT_CALLS and self.tx[q - 1] == "="}
            for k in range(a + 1, b):
                g = by_name.get(self.tx[k])
                if g is None or self.tx[k + 1] != "(" or (k + 1) not in self.pairs or g.index == f.index:
                    continue
                params = self.split_commas(g.header[0], g.header[1])
                lp = next((q for q in range(g.header[0], g.header[1]) if self.tx[q] == "(" and q in self.pairs
                           and self.pairs[q] < g.header[1] and self.tx[q - 1] == g.name), None)
                if lp is None:
                    continue
                params = self.split_args(lp)
                for i, (xa, xb) in enumerate(self.split_args(k + 1)):
                    ns = self.names(xa, xb)
                    if i < len(params) and (ns & BALLOT_CALLS or ns & held):
                        pa, pb = params[i]
                        name = next((self.tx[q] for q in range(pb - 1, pa - 1, -1) if self.kd[q] == ID
                                     and self.tx[q + 1] in (",", ")", "=")), None)
                        if name is not None:
                            self.ballot_in.setdefault(g.index, set()).add(name)
                            self.links.append((f"masks:{f.index}", f"masks:{g.index}"))
