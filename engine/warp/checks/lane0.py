"""W64-24: a shuffle-down reduction's result stored by every lane of the group.

After `for (i = W >> 1; i > 0; i >>= 1) v += __shfl_down_sync(m, v, i, W);` only lane 0 of each W-lane
shuffle group holds the total; the other lanes hold partial sums. A following `y[m] = v;` that every lane
executes, at an address that does not depend on the lane, is a same-address race whose winner is decided by
the hardware: lane 0's write happened to land on 32-lane NVIDIA warps; a 64-lane wavefront does not promise
it. The fix stores from the group's lane 0 only: `if (threadIdx.x % W == 0) y[m] = v;` (one text for both
styles). An xor butterfly leaves the total in every lane and is never reported; neither is a store under an
`if` that reads the lane (a guard), nor one whose address depends on the lane (every lane writes its own
element). A store in a one-statement `if` whose condition is the same for the whole group is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hits import Hit
from ..lex import ID, NUM, int_value
from ..scopes import Func
from ..tokens import ForLoop
from ..words import LANEISH, SHFL_CALLS
from .context import DeviceFunction

SHFL_DOWN = frozenset({"__shfl_down", "__shfl_down_sync"})
COMPOUND = frozenset({"+=", "*=", "|=", "&=", "^="})
BINOPS = frozenset({"+", "*", "|", "&", "^"})
COMBINE = frozenset({"max", "min", "fmax", "fmin", "fmaxf", "fminf", "__hmax", "__hmin", "umax", "umin"})
ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
COMPOUND_STMT = frozenset({"if", "for", "while", "switch", "do", "{"})
LANE_WORDS = frozenset({"hipThreadIdx_x", "__lane_id"})
# the loop runs its last step at offset 1: `i > 0`, `i >= 1`, `0 < i`, `i != 0`
_END_AT_1 = (("{v}", ">", "0"), ("{v}", ">=", "1"), ("0", "<", "{v}"), ("{v}", "!=", "0"), ("{v}",))


@dataclass(frozen=True)
class Reduction:
    names: frozenset[str]      # the reduced variables (one when the loop is recognised exactly)
    width: str                 # the shuffle width as written ("warpSize" when the shuffles give none)
    problems: tuple[str, ...]  # why the reduction is not recognised exactly ("" when it is)


def lane0_stores(fn: DeviceFunction, f: Func, k: int, a: int, b: int) -> None:
    """The `for` at k: a shuffle-down tree reduction followed, in the same block, by unguarded stores
    of the reduced variable to a lane-independent address (W64-24)."""
    has = fn.calls_shfl_down
    if has is None:  # once per function: most loops are in functions with no shuffle-down at all
        has = fn.calls_shfl_down = not SHFL_DOWN.isdisjoint(fn.tokens.texts[a:b])
    if not has:
        return
    fl = fn.tokens.for_loop(k, b)
    if fl is None or not fl.halving:
        return
    red = shfl_down_reduction(fn, fl)
    if red is None:
        return
    block_end = fn.tokens.scan_to(fl.end + 1, b, ())
    q = fl.end + 1
    while q < block_end:
        x = fn.tokens.texts[q]
        if x == "return" or x == "break" or x == "continue":
            return
        end = statement_end(fn, q, block_end)
        if x in COMPOUND_STMT:
            inner = unguarded_if_store(fn, f, q, end, a, b)
            if inner is not None:  # `if (row < n) y[row] = v;`: the condition is the same for the group
                lane0_store(fn, f, fl, red, *inner, a, b)
            # a store under a lane test is guarded; a loop or an if/else is not followed into
            if any(fn.tokens.texts[z] in red.names and fn.tokens.texts[z + 1] in ASSIGN for z in range(q, end)):
                return
            q = end
            continue
        e = end - 1  # the `;`
        if fn.tokens.texts[q] in red.names and fn.tokens.texts[q + 1] in ASSIGN:
            return  # the variable is reassigned: later stores are of something else
        lane0_store(fn, f, fl, red, q, e, a, b)
        q = end


def unguarded_if_store(fn: DeviceFunction, f: Func, q: int, end: int, a: int, b: int) -> tuple[int, int] | None:
    """The one plain statement [s, e) (e at its `;`) of `if (cond) STMT;` or `if (cond) { STMT; }` with no
    else, when cond does not read the lane (the whole group takes the branch), else None."""
    if fn.tokens.texts[q] != "if" or fn.tokens.texts[q + 1] != "(" or (q + 1) not in fn.tokens.partner:
        return None
    rp = fn.tokens.partner[q + 1]
    if statement_end(fn, rp + 1, end) != end:
        return None  # an else branch follows
    if reads_lane(fn, q + 2, rp, lane_names(fn, f, a, b)):
        return None  # `if (threadIdx.x % BS == 0)`, `if (lane == 0)`, `if (tid < 16)`: guarded by the lane
    s = rp + 1
    if fn.tokens.texts[s] == "{":
        s, last = s + 1, fn.tokens.partner.get(s, s)
        if last != end - 1:
            return None
    else:
        last = end
    e = fn.tokens.scan_to(s, last, (";",))
    if e != last - 1 or fn.tokens.texts[e] != ";" or fn.tokens.texts[s] in COMPOUND_STMT or fn.tokens.texts[s] == "else":
        return None
    return s, e


def lane0_store(fn: DeviceFunction, f: Func, fl: ForLoop, red: Reduction, s: int, e: int, a: int, b: int) -> None:
    eq = fn.tokens.scan_to(s, e, ("=",))
    if eq >= e or eq == s or fn.tokens.texts[eq] != "=":
        return
    rhs = fn.tokens.names(eq + 1, e)
    value = rhs & red.names
    if not value or not memory_target(fn, s, eq, a, b):
        return
    if lane_dependent(fn, f, s, eq, a, b):
        return  # every lane writes its own element: no race
    var = sorted(value)[0]
    problems = list(red.problems)
    if not (e == eq + 2 and fn.tokens.texts[eq + 1] == var):
        problems.append(f"the stored value is `{fn.tokens.text_of(eq + 1, e)}`, not `{var}` itself")
    if not any(fn.tokens.texts[z] == "threadIdx" and fn.tokens.texts[z + 2] == "x" for z in range(a, b)):
        problems.append("the function does not read threadIdx.x, so `threadIdx.x % width` may not name the "
                        "group's lane 0")
    w = red.width if simple_name(red.width) else f"({red.width})"
    guard = f"if (threadIdx.x % {w} == 0) "
    edit = fn.tokens.insert_before(s, guard, "W64-24")
    target = fn.tokens.text_of(s, eq).strip()
    fn.log.add(Hit("W64-24", s, [edit], [edit], "store from the group's lane 0 only",
                 "store from the group's lane 0 only",
                 f"Only lane 0 of each {red.width}-lane shuffle group holds the reduced `{var}` after the "
                 f"__shfl_down tree at line {fn.tokens.line(fl.end)}; every lane stores its own partial value to "
                 f"`{target}`, and which write lands is up to the hardware (lane 0's on 32-lane NVIDIA warps "
                 "by chance, not on a 64-lane wavefront).",
                 f"lane0:{fl.end}", end_anchor=e - 1,
                 review="; ".join(problems)), claim=[s])


def shfl_down_reduction(fn: DeviceFunction, fl: ForLoop) -> Reduction | None:
    ba, bb = fl.body
    calls = [q for q in range(ba, bb) if fn.tokens.texts[q] in SHFL_CALLS and fn.tokens.texts[q + 1] == "(" and (q + 1) in fn.tokens.partner]
    if not calls or any(fn.tokens.texts[q] not in SHFL_DOWN for q in calls):
        return None  # no shuffle, or an xor butterfly / broadcast / scan: not a lane-0 reduction
    values: set[str] = set()
    widths: set[tuple[str, ...]] = set()  # the width argument's tokens (() when there is none)
    for q in calls:
        args = fn.tokens.split_args(q + 1)
        vi = 1 if fn.tokens.texts[q].endswith("_sync") else 0
        if len(args) not in (vi + 2, vi + 3):
            return None
        (va, vb), (oa, ob) = args[vi], args[vi + 1]
        if not (ob == oa + 1 and fn.tokens.texts[oa] == fl.var and vb == va + 1 and fn.tokens.kinds[va] == ID):
            return None  # the offset is not the loop variable, or the value is not a plain variable
        values.add(fn.tokens.texts[va])
        widths.add(tuple(fn.tokens.texts[z] for z in range(*args[vi + 2])) if len(args) == vi + 3 else ())
    problems: list[str] = []
    cond = tuple(fn.tokens.texts[q] for q in range(*fl.cond))
    if cond not in {tuple(t.format(v=fl.var) for t in form) for form in _END_AT_1}:
        problems.append(f"the loop condition `{' '.join(cond)}` is not `{fl.var} > 0`")
    exact = exact_step(fn, fl, calls, values)
    if exact is None:
        names = frozenset(v for v in values if any(
            fn.tokens.texts[z] == v and fn.tokens.texts[z + 1] in ASSIGN for z in range(ba, bb)))
        if not names:
            return None
        problems.append("the loop body is not one `v op= __shfl_down(v, offset)` statement")
    else:
        names = frozenset({exact})
    if len(widths) != 1:
        problems.append("the shuffles use different widths")
    wt = sorted(widths)[0] or ("warpSize",)
    width = "".join(wt) if len(wt) <= 3 and "." in wt else " ".join(wt)
    if () in widths:
        problems.append("the shuffles give no width: the group is the whole warp, whose lane 0 is "
                        "`threadIdx.x % warpSize == 0` only when blockDim.x is a multiple of warpSize")
    elif not half_of(fn, fl.init, list(wt)):
        problems.append(f"the reduction starts at offset `{fn.tokens.text_of(*fl.init).strip()}`, not half the "
                        f"shuffle width {width}: lanes other than 0 may hold a total too")
    return Reduction(names, width, tuple(problems))


def exact_step(fn: DeviceFunction, fl: ForLoop, calls: list[int], values: set[str]) -> str | None:
    """The variable of a body that is exactly one `v op= SHFL(v, i)`, `v = v op SHFL(...)`,
    `v = SHFL(...) op v` or `v = max(v, SHFL(...))` statement, else None."""
    if len(calls) != 1 or len(values) != 1:
        return None
    ba, end = fl.body[0], fl.end
    s, e = (ba + 1, end - 1) if fn.tokens.texts[ba] == "{" else (ba, end)
    if fn.tokens.texts[e] != ";" or fn.tokens.scan_to(s, e, (";",)) != e:
        return None
    (v,) = values
    q = calls[0]
    ce = fn.tokens.partner[q + 1] + 1
    t = [fn.tokens.texts[z] for z in range(s, e)]
    call = ["CALL"]
    form = t[:q - s] + call + t[ce - s:]
    ok = (form in ([v, op, "CALL"] for op in COMPOUND)
          or (len(form) == 5 and form[:3] == [v, "=", v] and form[3] in BINOPS and form[4] == "CALL")
          or (len(form) == 5 and form[:3] == [v, "=", "CALL"] and form[3] in BINOPS and form[4] == v)
          or (len(form) == 8 and form[:2] == [v, "="] and form[2] in COMBINE and form[3] == "("
              and form[7] == ")" and form[5] == "," and {form[4], form[6]} == {v, "CALL"}))
    return v if ok else None


def half_of(fn: DeviceFunction, init: tuple[int, int], wt: list[str]) -> bool:
    a, b = init
    while fn.tokens.texts[a] == "(" and fn.tokens.partner.get(a) == b - 1:
        a, b = a + 1, b - 1
    t = [fn.tokens.texts[z] for z in range(a, b)]
    if t in ([*wt, ">>", "1"], [*wt, "/", "2"], ["(", *wt, ")", ">>", "1"], ["(", *wt, ")", "/", "2"]):
        return True
    wv = int_value(wt[0]) if len(wt) == 1 and wt[0][:1].isdigit() else None
    return wv is not None and b == a + 1 and fn.tokens.kinds[a] == NUM and int_value(t[0]) == wv // 2


def memory_target(fn: DeviceFunction, s: int, eq: int, a: int, b: int) -> bool:
    """Tokens [s, eq) name memory other lanes can see: `p[i]`, `*p`, `p->f` (not a declaration, not a
    per-thread local array)."""
    if fn.tokens.kinds[s] == ID and fn.tokens.kinds[s + 1] == ID:
        return False  # `float t = v;` declares
    if fn.tokens.texts[s] == "*" or "->" in fn.tokens.texts[s:eq]:
        return True
    if fn.tokens.kinds[s] != ID or fn.tokens.texts[s + 1] != "[":
        return False
    name = fn.tokens.texts[s]
    for z in range(a, b):  # a local array (declared here without __shared__) is per-thread
        if fn.tokens.texts[z] == name and fn.tokens.texts[z + 1] == "[" and fn.tokens.kinds[z - 1] == ID \
                and fn.tokens.texts[z - 1] not in ("return", "case"):
            st = fn.tokens.stmt_start(z, a)
            return "__shared__" in fn.tokens.texts[st:z]
    return True


def lane_dependent(fn: DeviceFunction, f: Func, s: int, e: int, a: int, b: int) -> bool:
    lane = lane_names(fn, f, a, b)
    return reads_lane(fn, s, e, lane)


def lane_names(fn: DeviceFunction, f: Func, a: int, b: int) -> frozenset[str]:
    """Names whose value depends on threadIdx.x (or the lane id) in the function, transitively; a
    helper's parameter called lane/tid counts."""
    got = fn.lane_dependent_names
    if got is not None:
        return got
    ha, hb = f.header
    names = {fn.tokens.texts[z] for z in range(ha, hb) if fn.tokens.kinds[z] == ID and fn.tokens.texts[z + 1] in (",", ")")
             and (LANEISH.match(fn.tokens.texts[z]) or fn.tokens.texts[z] in ("tid", "tx", "thread_id"))}
    assigns = [(k, e) for _s, k, e in fn.tokens.assignments(a, b)]
    for _ in range(3):
        for k, e in assigns:
            if fn.tokens.texts[k] not in names and reads_lane(fn, k + 2, e, names):
                names.add(fn.tokens.texts[k])
    out = frozenset(names)
    fn.lane_dependent_names = out
    return out


def reads_lane(fn: DeviceFunction, s: int, e: int, names: set[str] | frozenset[str]) -> bool:
    for z in range(s, e):
        x = fn.tokens.texts[z]
        if x == "threadIdx" and not (fn.tokens.texts[z + 1] == "." and fn.tokens.texts[z + 2] in ("y", "z")):
            return True
        if x in LANE_WORDS or x in names or x in fn.facts.known.lane_helpers or x in fn.facts.known.tid_helpers or x in fn.facts.known.lane_macros:
            return True
    return False


def statement_end(fn: DeviceFunction, q: int, hi: int) -> int:
    """Index after the statement starting at token q (a compound statement with its body and else)."""
    x = fn.tokens.texts[q]
    if x == "{":
        return fn.tokens.partner.get(q, hi - 1) + 1
    if x == "do":
        body_end = statement_end(fn, q + 1, hi)
        return fn.tokens.scan_to(body_end, hi, (";",)) + 1
    if x in ("if", "for", "while", "switch") and fn.tokens.texts[q + 1] == "(" and (q + 1) in fn.tokens.partner:
        end = statement_end(fn, fn.tokens.partner[q + 1] + 1, hi)
        if x == "if" and fn.tokens.texts[end] == "else":
            end = statement_end(fn, end + 1, hi)
        return end
    return fn.tokens.scan_to(q, hi, (";",)) + 1


def simple_name(text: str) -> bool:
    return text.replace("_", "").isalnum()


def lane0_stores_at(fn: DeviceFunction, k: int) -> None:
    if fn.tokens.texts[k + 1] == "(" and (k + 1) in fn.tokens.partner:
        lane0_stores(fn, fn.func, k, *fn.body)
