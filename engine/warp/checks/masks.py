"""Lane masks and ballots (W64-03, W64-04, W64-05, W64-16): 32-bit full masks reaching *_sync builtins,
ballots and masks kept in 32 bits, two 32-lane ballots joined into one word, 32-bit lane bits, full-warp
tests against 0xffffffff. Issue 9 added the masks that are not a literal at the call: `~0`, `uint32_t(-1)`,
`-1`, masks inside `#define` bodies, narrow mask parameters of device helpers (`unsigned int mask =
0xffffffff`), narrow variables declared apart from their ballot or mask (`uint32_t q; ... q = __ballot_sync(...)`).

Every `*_sync` builtin of HIP `static_assert`s a 64-bit mask, so each 32-bit full mask is a compile error on
ROCm >= 7.0 and, widened naively to 0xffffffffull, a silent loss of lanes 32-63.

The device check calls the handlers at the end (`full_warp_test` ... `lane_bit_at`) on its trigger tokens;
`check_sync_masks` and `check_mask_constants` are checks of their own (checks/__init__.py).
"""

from __future__ import annotations

from ...edits import Edit
from ..facts import FileFacts
from ..hits import Hit, HitLog
from ..lex import ID, NUM, int_value
from ..tokens import Tokens
from ..words import (
    BALLOT_CALLS,
    BITCOUNT,
    BLOCK_WORDS,
    FULL32,
    NARROW_TYPES,
    PORT_MASK,
    SYNC_CALLS,
    TYPE_WORDS,
    W64_MASK,
)
from .context import DeviceFunction
from .interface import CheckOutput, Upstream

COUNTS = frozenset(BITCOUNT) | frozenset(BITCOUNT.values())  # __popc(ll), __ffs(ll), __clz(ll)
FULL_MASK_SUMMARY = "64-bit full mask", "full mask ~lane_mask_t{0}"
ROCM7_REJECTS = ("ROCm >= 7.0 rejects it (static_assert: the mask must be a 64-bit integer); widened naively it "
                 "would drop lanes 32-63.")


def full_mask_edits(tokens: Tokens, first: int, last: int) -> tuple[list[Edit], list[Edit]]:
    """The W64-03 edits (wave64, portable) of a 32-bit full mask spelled by tokens first..last."""
    return ([tokens.edit(first, W64_MASK, "W64-03", last)], [tokens.edit(first, PORT_MASK, "W64-03", last)])


def full_mask32(tokens: Tokens, a: int, b: int) -> bool:
    """Tokens [a, b) spell a 32-bit all-ones mask: 0xffffffff, ~0, ~0u, -1, uint32_t(-1), (unsigned)-1."""
    tx = [tokens.texts[q] for q in range(a, b) if tokens.texts[q] not in ("(", ")")]
    if not tx:
        return False
    if len(tx) == 1:
        return tokens.kinds[a] == NUM and int_value(tx[0]) == FULL32 and not tx[0].lower().endswith("ll")
    if tx[0] in NARROW_TYPES | {"uint32_t", "unsigned"}:  # uint32_t(-1), (unsigned)-1, (unsigned int)~0
        tx = [x for x in tx if x not in NARROW_TYPES | {"uint32_t"}]
    if len(tx) == 2 and tx[0] in ("~", "-") and int_value(tx[1]) in (0, 1):
        v = tx[1].lower()
        return "ll" not in v and ((tx[0] == "~" and int_value(v) == 0) or (tx[0] == "-" and int_value(v) == 1))
    return False


def narrow_mask_name(tokens: Tokens, log: HitLog, name: str, fi: int, key: str, why: str) -> None:
    """Widen the 32-bit declaration (parameter or local) of the mask or ballot variable `name`."""
    f = tokens.functions[fi]
    for a, b in (f.header, (f.body[0] + 1, f.body[1])):
        for q in range(a, b):
            if tokens.texts[q] != name or tokens.kinds[q] != ID:
                continue
            span = declarator_type(tokens, q, a)
            if span is None:
                continue
            s0, s1 = span
            if any(z in log.claimed for z in range(s0, s1 + 1)):
                return
            w = [tokens.edit(s0, "unsigned long long", "W64-04", s1)]
            p = [tokens.edit(s0, "lane_mask_t", "W64-04", s1)]
            claim = list(range(s0, s1 + 1))
            for z, w_text, p_text in mask_arithmetic(tokens, name, f.body[0] + 1, f.body[1], q):
                if z not in log.claimed and z not in claim:
                    w.append(tokens.edit(z, w_text, "W64-04"))
                    p.append(tokens.edit(z, p_text, "W64-04"))
                    claim.append(z)
            ret = narrow_return(tokens, log, f.index, name)
            if ret is not None:  # `unsigned lanemask_lt() { ...; return m; }`: the helper's type widens too
                claim += tokens.widen(ret, "W64-04", w, p)
            log.needs.mask_t = True
            log.add(Hit("W64-04", s0, w, p, "declare the mask 64-bit", "declare the mask as lane_mask_t",
                         f"`{name}` is declared 32-bit but {why}: HIP masks and ballots are 64-bit, so lanes "
                         "32-63 are dropped (and *_sync builtins reject a 32-bit mask).", key), claim=claim)
            return


def mask_arithmetic(tokens: Tokens, name: str, a: int, b: int, decl: int) -> list[tuple[int, str, str]]:
    """Edits that make the values assigned to a widened mask 64-lane: `0xffffffff` -> all 64 lanes,
    `0xffffffff >> (32 - n)` -> `>> (64 - n)`, and `n = blockSize & 31` (lanes of the last partial
    warp) -> `& 63`. Token index, wave64 text, portable text."""
    out: list[tuple[int, str, str]] = []
    stmts = [decl] + [q for q in range(a, b) if tokens.texts[q] == name and tokens.texts[q + 1] == "=" and q != decl]
    counts: set[str] = set()
    for q in stmts:
        if tokens.texts[q + 1] != "=":
            continue
        e = tokens.scan_to(q + 2, b, (";", ","))
        for z in range(q + 2, e):
            if tokens.kinds[z] == NUM and int_value(tokens.texts[z]) == FULL32 and not tokens.texts[z].lower().endswith("ll"):
                out.append((z, W64_MASK, PORT_MASK))
            elif tokens.is_int(z, 32) and tokens.texts[z + 1] == "-" and tokens.texts[z - 1] in ("(", ">>", "<<"):
                # the mask's own width, not warpSize: on RDNA lane_mask_t is 64-bit with 32 lanes
                out.append((z, "64", "(sizeof(lane_mask_t) * 8)"))
                if tokens.kinds[z + 2] == ID:
                    counts.add(tokens.texts[z + 2])
    for n in counts:  # `int maskLength = blockSize & 31;`
        for q in range(a, b):
            if tokens.texts[q] == n and tokens.texts[q + 1] == "=":
                e = tokens.scan_to(q + 2, b, (";", ","))
                for z in range(q + 2, e):
                    if tokens.texts[z] == "&" and tokens.is_int(z + 1, 31):
                        out.append((z + 1, "63", "(warpSize - 1)"))
                    elif tokens.texts[z] == "%" and tokens.is_int(z + 1, 32):
                        out.append((z + 1, "64", "warpSize"))
    return out


def narrow_return(tokens: Tokens, log: HitLog, fi: int, name: str) -> tuple[int, int] | None:
    """Span of a device helper's 32-bit return type when it returns `name`."""
    f = tokens.functions[fi]
    a, b = f.body
    if not any(tokens.texts[q] == "return" and tokens.texts[q + 1] == name and tokens.texts[q + 2] == ";" for q in range(a, b)):
        return None
    ha, hb = f.header
    at = next((q for q in range(hb - 1, ha - 1, -1) if tokens.texts[q] == f.name and tokens.texts[q + 1] == "("), None)
    if at is None:
        return None
    span = tokens.narrow_type_span(ha, at)
    if span is None or any(z in log.claimed for z in range(span[0], span[1] + 1)):
        return None
    return span


def declarator_type(tokens: Tokens, q: int, lo: int) -> tuple[int, int] | None:
    """Span of the narrow type in `TYPE name` when that declaration declares `name` alone."""
    if tokens.texts[q + 1] not in (";", "=", ",", ")"):
        return None
    s = q
    while s > lo and tokens.texts[s - 1] not in (";", "{", "}", "(", ","):
        s -= 1
    if tokens.texts[q + 1] == "," and tokens.texts[s - 1] != "(" and tokens.texts[s - 1] != ",":
        return None  # `int a, name` would widen `a` too
    span = tokens.narrow_type_span(s, q)
    if span is None or span[1] != q - 1:
        return None
    return span


def wide_literal(fn: DeviceFunction, k: int) -> bool:
    """The integer literal at k is already 64-bit: an `ll` suffix (`1ull`, `1LLU`), or a cast to a type
    that is not 32-bit just before it (`(unsigned long long)1`, `(uint64_t)1`, `(lane_mask_t)1`)."""
    if "ll" in fn.tokens.texts[k].lower():
        return True
    if fn.tokens.texts[k - 1] != ")" or (k - 1) not in fn.tokens.partner:
        return False
    words = [fn.tokens.texts[q] for q in range(fn.tokens.partner[k - 1] + 1, k - 1)]
    return bool(words) and all(w in TYPE_WORDS for w in words) and not set(words) <= NARROW_TYPES


def lane_bit(fn: DeviceFunction, k: int, a: int, key: str) -> None:
    """W64-05: `1u << lane`. The literal at k is widened, unless it already is 64-bit (`1ull << lane` is
    right as written: only a 32-bit variable it is stored in is widened, else there is no finding)."""
    wide = wide_literal(fn, k)
    w = [] if wide else [fn.tokens.edit(k, "1ull", "W64-05")]
    p = [] if wide else [fn.tokens.edit(k, "lane_mask_t{1}", "W64-05")]
    s = fn.tokens.stmt_start(k, a)
    name_i = next((q for q in range(s, k) if fn.tokens.texts[q + 1] == "=" and fn.tokens.kinds[q] == ID), None)
    claim = [k]
    if name_i is not None:
        span = fn.tokens.narrow_type_span(s, name_i)
        if span is not None and not (set(range(span[0], span[1] + 1)) & fn.log.claimed):
            claim += fn.tokens.widen(span, "W64-05", w, p)
    if not w:
        return  # already 64-bit and not narrowed: nothing to fix
    fn.log.needs.mask_t = True
    if wide:
        fn.log.add(Hit("W64-05", claim[1], w, p, "store the lane bit in unsigned long long",
                     "store the lane bit in lane_mask_t",
                     "A 64-bit lane bit stored in 32 bits is 0 for lanes 32-63.", key, end_anchor=claim[-1]),
                 claim)
        return
    fn.log.add(Hit("W64-05", k, w, p, "1ull << lane", "lane_mask_t{1} << lane",
                 "A 32-bit 1 shifted by a lane id is 0 (undefined) for lanes 32-63.", key), claim)


def group_ballot(fn: DeviceFunction, ea: int, eb: int, a: int, b: int) -> bool:
    """`g.ballot(...)` in [ea, eb) on a coalesced group (its ballot spans the wavefront: 64 bits);
    a tile of 32 or fewer lanes is a sub-group and its ballot fits 32 bits."""
    for q in range(ea, eb):
        if fn.tokens.texts[q] == "ballot" and fn.tokens.texts[q - 1] == "." and fn.tokens.kinds[q - 2] == ID:
            g = fn.tokens.texts[q - 2]
            for z in range(a, b):
                if fn.tokens.texts[z] == g and fn.tokens.texts[z - 1] in ("coalesced_group", "auto") and (
                        fn.tokens.texts[z - 1] == "coalesced_group" or "coalesced_threads" in fn.tokens.texts[z:z + 6]):
                    return True
    return False


def compare_other_side(fn: DeviceFunction, k: int, a: int, b: int) -> tuple[int, int] | None:
    if fn.tokens.texts[k - 1] in ("==", "!="):
        la, lb = fn.tokens.left_operand(k - 1, a)
        return la, lb
    if fn.tokens.texts[k + 1] in ("==", "!="):
        e = fn.tokens.right_operand_end(k + 2, b)
        return k + 2, e
    return None


def mask_literal_hit(fn: DeviceFunction, k: int, key: str, where: str) -> None:
    fn.log.needs.mask_t = True
    naive = fn.tokens.texts[k].lower().rstrip("ul") != fn.tokens.texts[k].lower()
    w, p = full_mask_edits(fn.tokens, k, k)
    fn.log.add(Hit("W64-03", k, w, p, *FULL_MASK_SUMMARY,
                   f"32-bit full mask {where}: "
                   + ("a 32-bit-wide mask looks at lanes 0-31 only on a 64-lane wavefront." if naive else ROCM7_REJECTS),
                   key))


def mask_var_hit(fn: DeviceFunction, name: str, key: str, a: int, b: int) -> None:
    lit = fn.values.full_mask_vars[name]
    if lit in fn.log.claimed:
        return
    s, _ = fn.tokens.stmt_bounds(lit, a, b)
    w, p = full_mask_edits(fn.tokens, lit, lit)
    claim = [lit]
    span = fn.tokens.narrow_type_span(s, lit - 2)
    if span is not None:
        claim += fn.tokens.widen(span, "W64-03", w, p)
    fn.log.needs.mask_t = True
    fn.log.add(Hit("W64-03", lit, w, p, "64-bit full mask variable", "lane_mask_t full mask variable",
                 f"Mask variable `{name}` holds a 32-bit full mask that reaches a *_sync builtin: ROCm >= 7.0 "
                 "rejects it; widened naively it would drop lanes 32-63.", key), claim)


def ballot_declared_apart(fn: DeviceFunction, k: int, fi: int, key: str) -> None:
    """`q = __ballot_sync(...)` with `uint32_t q;` declared elsewhere in the function."""
    name = fn.tokens.texts[k - 2]
    if fn.tokens.kinds[k - 2] == ID and fn.tokens.texts[k - 1] == "=" and fn.tokens.texts[k] in BALLOT_CALLS:
        narrow_mask_name(fn.tokens, fn.log, name, fi, key, f"holds {fn.tokens.texts[k]}")


def ballot_join(fn: DeviceFunction, k: int, a: int, b: int, key: str) -> None:
    """`(uint64_t)hi << 32 | lo` where `hi` is a ballot, or a slot that a ballot was stored in: two 32-lane
    ballots joined into one 64-bit word. On a 64-lane wavefront one ballot already is that word, so the
    join, the per-warp slots it reads and their count must change together: reported in the ballot's own
    group (`key`, the function's mask group) with no automatic fix, so that group is never SAFE."""
    la, lb = fn.tokens.left_operand(k, a)
    ns = fn.tokens.names(la, lb)
    if not (ns & BALLOT_CALLS or ns & fn.values.ballots or ns & ballot_slots(fn, a, b)):
        return
    src = fn.tokens.text_of(la, lb)
    ballot_join_hit(fn, k, key, f"`{src} << 32`", "so the shift drops its upper half and the word mixes two "
                         "wavefronts", "join", "joins two 32-lane ballots into one 64-bit word")


def ballot_join_hit(fn: DeviceFunction, k: int, key: str, what: str, why: str, kind: str, does: str,
                    subject: str | None = None) -> None:
    """The W64-04 finding of a join of two 32-lane ballots at tokens k, k + 1 (`<< 32`, or a lane test that
    picks the upper half): in the ballot's group `key`, no automatic fix, REVIEW naming it."""
    shown = subject if subject is not None else what  # how the review line names it
    fn.log.add(Hit("W64-04", k, None, None, "", "",
                 f"Two 32-lane ballots joined into one 64-bit word ({what}): on a 64-lane wavefront one ballot "
                 f"already holds all 64 lanes, {why}. No automatic fix: the ballots, the slots that keep them "
                 f"and this {kind} change together.", key, end_anchor=k + 1,
                 review=f"{shown} at line {fn.tokens.line(k)} {does}; on a 64-lane wavefront one ballot is that word: "
                 "rewrite the join by hand"),
             claim=[k, k + 1])


def ballot_half_picks(fn: DeviceFunction, a: int, b: int, key: str) -> None:
    """The other spellings of a join of two 32-lane ballots: a lane test that picks the upper half of the
    64-bit word, `lane == 32` / `lane >= 32` / `(lane + d) > 31`, when the code it decides reads a ballot
    (a ballot call, a ballot variable or a slot a ballot is stored in) of the same function: the body of
    the `if` whose condition holds the test, else the test's own statement (`?:`). Reported like the
    `<< 32` join (ballot_join): in the ballot's own group, no automatic fix, so the group is REVIEW.
    Ordinary `== 32` comparisons (no lane, or no ballot in what they decide) are not reported."""
    if not (fn.values.ballots or any(fn.tokens.texts[q] in BALLOT_CALLS for q in range(a, b))):
        return
    held: frozenset[str] | None = None
    for k in range(a, b):
        x = fn.tokens.texts[k]
        if not (((x == "==" or x == ">=") and fn.tokens.is_int(k + 1, 32)) or (x == ">" and fn.tokens.is_int(k + 1, 31))):
            continue
        if fn.tokens.texts[k + 2] not in (")", "&&", "||", ";", "?"):
            continue
        la, lb = compared_side(fn, k, a), k
        if la == lb or not fn.values.laneish(la, lb) or fn.tokens.names(la, lb) & (BLOCK_WORDS | fn.values.global_ids):
            continue
        if held is None:
            held = BALLOT_CALLS | frozenset(fn.values.ballots | ballot_slots(fn, a, b))
        ra, rb = decided_span(fn, k, a, b)
        if not fn.tokens.names(ra, rb) & held:
            continue
        src = fn.tokens.text_of(la, k + 2)
        ballot_join_hit(fn, k, key, f"`{src}` picks the upper half", "so no lane of a wavefront belongs to "
                             "another ballot", "test", "picks the upper half of a 64-bit word joined from two "
                             "32-lane ballots", f"`{src}`")


def compared_side(fn: DeviceFunction, k: int, a: int) -> int:
    """First token of the whole left side of the comparison at k: `lane + d` in `lane + d > 31`."""
    q = k
    while q > a:
        x = fn.tokens.texts[q - 1]
        if x in (")", "]") and (q - 1) in fn.tokens.partner:
            q = fn.tokens.partner[q - 1]
            continue
        if x in ("(", "[", "{", "}", ";", ",", "=", "&&", "||", "?", ":", "return", "==", "!=", "<", ">",
                 "<=", ">=", "+=", "-=", "|=", "&=", "^="):
            break
        q -= 1
    return q


def decided_span(fn: DeviceFunction, k: int, a: int, b: int) -> tuple[int, int]:
    """Tokens that the test at k decides: the body (and else) of the `if`/`while` whose condition holds
    it, else k's own statement."""
    for q in range(k - 1, a - 1, -1):
        x = fn.tokens.texts[q]
        if x in (";", "{", "}"):
            break
        if x == "(" and fn.tokens.partner.get(q, -1) > k and fn.tokens.texts[q - 1] in ("if", "while"):
            rp = fn.tokens.partner[q]
            if fn.tokens.texts[rp + 1] == "{" and (rp + 1) in fn.tokens.partner:
                end = fn.tokens.partner[rp + 1]
            else:
                end = fn.tokens.scan_to(rp + 1, b, (";",))
            if fn.tokens.texts[end + 1] == "else":
                end = fn.tokens.partner.get(end + 2, fn.tokens.scan_to(end + 2, b, (";",)))
            return rp + 1, end
    s = fn.tokens.stmt_start(k, a)
    return s, fn.tokens.scan_to(s, b, (";",))


def ballot_slots(fn: DeviceFunction, a: int, b: int) -> set[str]:
    """Arrays of the function body [a, b) that a ballot is stored in: `halves[warp] = b;`."""
    out: set[str] = set()
    for q in range(a, b):
        if fn.tokens.texts[q] != "=" or fn.tokens.texts[q - 1] != "]" or (q - 1) not in fn.tokens.partner:
            continue
        lb = fn.tokens.partner[q - 1]
        if fn.tokens.kinds[lb - 1] != ID:
            continue
        e = fn.tokens.scan_to(q + 1, b, (";", ","))
        ns = fn.tokens.names(q + 1, e)
        if (ns & BALLOT_CALLS or ns & fn.values.ballots) and not ns & COUNTS:  # a count of a ballot is no ballot
            out.add(fn.tokens.texts[lb - 1])
    return out


def check_sync_masks(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    """Every *_sync call in function bodies and macro bodies: its first argument as a mask (W64-03, W64-04)."""
    tokens, log = facts.tokens, HitLog(upstream.claimed)
    for k in tokens.positions(SYNC_CALLS):
        if tokens.kinds[k] != ID or tokens.texts[k] not in SYNC_CALLS or tokens.texts[k + 1] != "(" or (k + 1) not in tokens.partner:
            continue
        args = tokens.split_args(k + 1)
        if not args:
            continue
        fa, fb = args[0]
        fi = tokens.function_of[k]
        key = f"masks:{fi}" if fi >= 0 else f"macro:{tokens.macro_name(k)}" if tokens.directive[k] >= 0 else f"mask:{k}"
        if full_mask32(tokens, fa, fb) and not (fb == fa + 1 and tokens.kinds[fa] == NUM and fi >= 0):
            # (a plain literal in a function body is sync_mask_literal's, in the device check)
            log.needs.mask_t = True
            where = f"in macro {tokens.macro_name(k)}" if tokens.directive[k] >= 0 else f"passed to {tokens.texts[k]}"
            log.add(Hit("W64-03", fa, *full_mask_edits(tokens, fa, fb - 1), *FULL_MASK_SUMMARY,
                        f"32-bit full mask {where}: {ROCM7_REJECTS}", key, end_anchor=fb - 1), claim=range(fa, fb))
        elif fb == fa + 1 and tokens.kinds[fa] == ID and fi >= 0:
            narrow_mask_name(tokens, log, tokens.texts[fa], fi, key, f"is the mask of {tokens.texts[k]}")
    return CheckOutput(log)


def check_mask_constants(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    """W64-03 on the file's full-mask constants that reach a *_sync builtin (widening a narrow declared type)."""
    tokens, log = facts.tokens, HitLog(upstream.claimed)
    tx, pp = tokens.texts, tokens.directive
    for name, lit in facts.mask_constants.items():
        if not any(tx[k - 1] == "(" and tx[k - 2] in SYNC_CALLS for k in tokens.positions((name,))):
            continue
        log.needs.mask_t = True
        s = lit
        while s > 0 and pp[s - 1] < 0 and tx[s - 1] not in (";", "{", "}"):
            s -= 1
        w, p = full_mask_edits(tokens, lit, lit)
        if pp[lit] < 0:
            span = tokens.narrow_type_span(s, lit - 2)
            if span is not None:
                tokens.widen(span, "W64-03", w, p)
        log.add(Hit("W64-03", lit, w, p, *FULL_MASK_SUMMARY,
                    f"Full-mask constant {name} is 32-bit: ROCm >= 7.0 rejects it in *_sync builtins; "
                    "widened naively it would drop lanes 32-63.", f"mask:{name}"))
    return CheckOutput(log)


# ---- the device check's handlers (checks/device.py calls them on their trigger tokens)


def full_warp_test(fn: DeviceFunction, k: int) -> None:
    """W64-16: a ballot compared with the 32-bit full mask 0xffffffff (at k)."""
    tx = fn.tokens.texts
    if not (tx[k - 1] in ("==", "!=") or tx[k + 1] in ("==", "!=")):
        return
    other = compare_other_side(fn, k, *fn.body)
    if other is not None and (fn.tokens.names(*other) & (BALLOT_CALLS | fn.values.ballots)):
        fn.log.needs.mask_t = True
        fn.log.add(Hit("W64-16", k, [fn.tokens.edit(k, W64_MASK, "W64-16")], [fn.tokens.edit(k, PORT_MASK, "W64-16")],
                       "compare with the 64-lane full mask ~0ull", "compare with ~lane_mask_t{0}",
                       "A full-warp test against 0xffffffff is never true on a 64-lane wavefront "
                       "(ballots and __activemask() are 64-bit in HIP).", fn.mask_key))


def sync_mask_literal(fn: DeviceFunction, k: int) -> None:
    """W64-03: the 32-bit full mask at k passed to a *_sync builtin."""
    tx = fn.tokens.texts
    if tx[k - 1] == "(" and tx[k - 2] in SYNC_CALLS:
        mask_literal_hit(fn, k, fn.mask_key, "passed to " + tx[k - 2])


def sync_mask_argument(fn: DeviceFunction, k: int) -> None:
    """The *_sync builtin at k given a mask variable (W64-03) or a file's mask constant (its group joins)."""
    tx = fn.tokens.texts
    if tx[k + 1] != "(":
        return
    first = fn.tokens.split_args(k + 1)
    if not first:
        return
    fa, fb = first[0]
    if fb == fa + 1 and tx[fa] in fn.values.full_mask_vars:
        mask_var_hit(fn, tx[fa], fn.mask_key, *fn.body)
    if fb == fa + 1 and tx[fa] in fn.facts.mask_constants:
        fn.log.links.append((fn.key, f"mask:{tx[fa]}"))


def group_ballot_store(fn: DeviceFunction, k: int) -> None:
    """W64-04: a coalesced group's ballot (64-bit on a wavefront) kept in a 32-bit variable: `m = g.ballot(...)`."""
    tx = fn.tokens.texts
    if tx[k - 1] == "." and tx[k - 3] == "=" and group_ballot(fn, k - 2, k + 1, *fn.body):
        narrow_mask_name(fn.tokens, fn.log, tx[k - 4], fn.func.index, fn.mask_key, "holds a coalesced group's ballot")


def ballot_store(fn: DeviceFunction, k: int) -> None:
    """W64-04: the ballot at k stored in 32 bits, declared here or apart."""
    tokens, a = fn.tokens, fn.body[0]
    if not (tokens.texts[k - 1] == "=" and tokens.kinds[k - 2] == ID):
        return
    s, _ = tokens.stmt_bounds(k - 2, *fn.body)
    span = tokens.narrow_type_span(s, k - 2)
    if span is not None:
        fn.log.needs.mask_t = True
        fn.log.add(Hit("W64-04", span[0], [tokens.edit(span[0], "unsigned long long", "W64-04", span[1])],
                       [tokens.edit(span[0], "lane_mask_t", "W64-04", span[1])],
                       "store the ballot in unsigned long long", "store the ballot in lane_mask_t",
                       f"{tokens.texts[k]} returns a 64-bit mask in HIP; storing it in 32 bits drops lanes 32-63.",
                       fn.mask_key), claim=range(span[0], span[1] + 1))
    elif tokens.stmt_start(k - 2, a) == k - 2:  # `q = __ballot(...)`, `uint32_t q;` declared apart
        ballot_declared_apart(fn, k, fn.func.index, fn.mask_key)


def ballot_join_at(fn: DeviceFunction, k: int) -> None:
    """W64-04: two 32-lane ballots joined into one 64-bit word, `(uint64_t)hi << 32 | lo`."""
    if fn.tokens.is_int(k + 1, 32) and fn.tokens.texts[k + 2] not in ("-", "+", "*", "/", "%"):
        ballot_join(fn, k, *fn.body, fn.mask_key)


def bitcount(fn: DeviceFunction, k: int) -> None:
    """W64-04: __popc/__ffs/__clz (at k) of a ballot."""
    tokens = fn.tokens
    x = tokens.texts[k]
    if tokens.texts[k + 1] != "(" or (k + 1) not in tokens.partner:
        return
    ns = tokens.names(k + 2, tokens.partner[k + 1])
    if ns & BALLOT_CALLS or ns & fn.values.ballots:
        ll = tokens.insert_after(k, "ll", "W64-04")
        port = [ll] if x != "__clz" else None
        fn.log.add(Hit("W64-04", k, [ll], port, f"{BITCOUNT[x]}(mask)", f"{BITCOUNT[x]}(mask)",
                       f"{x} takes 32 bits: on a 64-bit ballot it ignores lanes 32-63"
                       + (" (__ffs is even ambiguous)." if x == "__ffs" else "."), fn.mask_key))


def lane_bit_at(fn: DeviceFunction, k: int) -> None:
    """W64-05: `1 << lane` (the 1 at k)."""
    if fn.tokens.texts[k + 1] != "<<":
        return
    ea = k + 2
    eb = fn.tokens.right_operand_end(ea, fn.body[1])
    if fn.values.laneish(ea, eb) or fn.tokens.texts[ea] in fn.values.lane_ids:
        lane_bit(fn, k, fn.body[0], fn.key)
