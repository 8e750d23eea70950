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

from .base import LANEISH, SHFL_CALLS, Base, ForLoop, Hit
from .lex import ID, NUM, int_value
from .scopes import Func

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


class Lane0Rules(Base):
    def lane0_stores(self, f: Func, k: int, a: int, b: int) -> None:
        """The `for` at k: a shuffle-down tree reduction followed, in the same block, by unguarded stores
        of the reduced variable to a lane-independent address (W64-24)."""
        has = self.shfl_down_fns.get(f.index)
        if has is None:  # once per function: most loops are in functions with no shuffle-down at all
            has = self.shfl_down_fns[f.index] = not SHFL_DOWN.isdisjoint(self.tx[a:b])
        if not has:
            return
        fl = self.for_loop(k, b)
        if fl is None or not fl.halving:
            return
        red = self.shfl_down_reduction(fl)
        if red is None:
            return
        block_end = self.scan_to(fl.end + 1, b, ())
        q = fl.end + 1
        while q < block_end:
            x = self.tx[q]
            if x == "return" or x == "break" or x == "continue":
                return
            end = self.statement_end(q, block_end)
            if x in COMPOUND_STMT:
                inner = self.unguarded_if_store(f, q, end, a, b)
                if inner is not None:  # `if (row < n) y[row] = v;`: the condition is the same for the group
                    self.lane0_store(f, fl, red, *inner, a, b)
                # a store under a lane test is guarded; a loop or an if/else is not followed into
                if any(self.tx[z] in red.names and self.tx[z + 1] in ASSIGN for z in range(q, end)):
                    return
                q = end
                continue
            e = end - 1  # the `;`
            if self.tx[q] in red.names and self.tx[q + 1] in ASSIGN:
                return  # the variable is reassigned: later stores are of something else
            self.lane0_store(f, fl, red, q, e, a, b)
            q = end

    def unguarded_if_store(self, f: Func, q: int, end: int, a: int, b: int) -> tuple[int, int] | None:
        """The one plain statement [s, e) (e at its `;`) of `if (cond) STMT;` or `if (cond) { STMT; }` with no
        else, when cond does not read the lane (the whole group takes the branch), else None."""
        if self.tx[q] != "if" or self.tx[q + 1] != "(" or (q + 1) not in self.pairs:
            return None
        rp = self.pairs[q + 1]
        if self.statement_end(rp + 1, end) != end:
            return None  # an else branch follows
        if self.reads_lane(q + 2, rp, self.lane_names(f, a, b)):
            return None  # `if (threadIdx.x % BS == 0)`, `if (lane == 0)`, `if (tid < 16)`: guarded by the lane
        s = rp + 1
        if self.tx[s] == "{":
            s, last = s + 1, self.pairs.get(s, s)
            if last != end - 1:
                return None
        else:
            last = end
        e = self.scan_to(s, last, (";",))
        if e != last - 1 or self.tx[e] != ";" or self.tx[s] in COMPOUND_STMT or self.tx[s] == "else":
            return None
        return s, e

    def lane0_store(self, f: Func, fl: ForLoop, red: Reduction, s: int, e: int, a: int, b: int) -> None:
        eq = self.scan_to(s, e, ("=",))
        if eq >= e or eq == s or self.tx[eq] != "=":
            return
        rhs = self.names(eq + 1, e)
        value = rhs & red.names
        if not value or not self.memory_target(s, eq, a, b):
            return
        if self.lane_dependent(f, s, eq, a, b):
            return  # every lane writes its own element: no race
        var = sorted(value)[0]
        problems = list(red.problems)
        if not (e == eq + 2 and self.tx[eq + 1] == var):
            problems.append(f"the stored value is `{self.text_of(eq + 1, e)}`, not `{var}` itself")
        if not any(self.tx[z] == "threadIdx" and self.tx[z + 2] == "x" for z in range(a, b)):
            problems.append("the function does not read threadIdx.x, so `threadIdx.x % width` may not name the "
                            "group's lane 0")
        w = red.width if self.toks_simple(red.width) else f"({red.width})"
        guard = f"if (threadIdx.x % {w} == 0) "
        edit = self.insert_before(s, guard, "W64-24")
        target = self.text_of(s, eq).strip()
        self.add(Hit("W64-24", s, [edit], [edit], "store from the group's lane 0 only",
                     "store from the group's lane 0 only",
                     f"Only lane 0 of each {red.width}-lane shuffle group holds the reduced `{var}` after the "
                     f"__shfl_down tree at line {self.line(fl.end)}; every lane stores its own partial value to "
                     f"`{target}`, and which write lands is up to the hardware (lane 0's on 32-lane NVIDIA warps "
                     "by chance, not on a 64-lane wavefront).",
                     f"lane0:{fl.end}", end_anchor=e - 1,
                     review="; ".join(problems)), claim=[s])

    # ---- the reduction

    def shfl_down_reduction(self, fl: ForLoop) -> Reduction | None:
        ba, bb = fl.body
        calls = [q for q in range(ba, bb) if self.tx[q] in SHFL_CALLS and self.tx[q + 1] == "(" and (q + 1) in self.pairs]
        if not calls or any(self.tx[q] not in SHFL_DOWN for q in calls):
            return None  # no shuffle, or an xor butterfly / broadcast / scan: not a lane-0 reduction
        values: set[str] = set()
        widths: set[tuple[str, ...]] = set()  # the width argument's tokens (() when there is none)
        for q in calls:
            args = self.split_args(q + 1)
            vi = 1 if self.tx[q].endswith("_sync") else 0
            if len(args) not in (vi + 2, vi + 3):
                return None
            (va, vb), (oa, ob) = args[vi], args[vi + 1]
            if not (ob == oa + 1 and self.tx[oa] == fl.var and vb == va + 1 and self.kd[va] == ID):
                return None  # the offset is not the loop variable, or the value is not a plain variable
            values.add(self.tx[va])
            widths.add(tuple(self.tx[z] for z in range(*args[vi + 2])) if len(args) == vi + 3 else ())
        problems: list[str] = []
        cond = tuple(self.tx[q] for q in range(*fl.cond))
        if cond not in {tuple(t.format(v=fl.var) for t in form) for form in _END_AT_1}:
            problems.append(f"the loop condition `{' '.join(cond)}` is not `{fl.var} > 0`")
        exact = self.exact_step(fl, calls, values)
        if exact is None:
            names = frozenset(v for v in values if any(
                self.tx[z] == v and self.tx[z + 1] in ASSIGN for z in range(ba, bb)))
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
        elif not self.half_of(fl.init, list(wt)):
            problems.append(f"the reduction starts at offset `{self.text_of(*fl.init).strip()}`, not half the "
                            f"shuffle width {width}: lanes other than 0 may hold a total too")
        return Reduction(names, width, tuple(problems))

    def exact_step(self, fl: ForLoop, calls: list[int], values: set[str]) -> str | None:
        """The variable of a body that is exactly one `v op= SHFL(v, i)`, `v = v op SHFL(...)`,
        `v = SHFL(...) op v` or `v = max(v, SHFL(...))` statement, else None."""
        if len(calls) != 1 or len(values) != 1:
            return None
        ba, end = fl.body[0], fl.end
        s, e = (ba + 1, end - 1) if self.tx[ba] == "{" else (ba, end)
        if self.tx[e] != ";" or self.scan_to(s, e, (";",)) != e:
            return None
        (v,) = values
        q = calls[0]
        ce = self.pairs[q + 1] + 1
        t = [self.tx[z] for z in range(s, e)]
        call = ["CALL"]
        form = t[:q - s] + call + t[ce - s:]
        ok = (form in ([v, op, "CALL"] for op in COMPOUND)
              or (len(form) == 5 and form[:3] == [v, "=", v] and form[3] in BINOPS and form[4] == "CALL")
              or (len(form) == 5 and form[:3] == [v, "=", "CALL"] and form[3] in BINOPS and form[4] == v)
              or (len(form) == 8 and form[:2] == [v, "="] and form[2] in COMBINE and form[3] == "("
                  and form[7] == ")" and form[5] == "," and {form[4], form[6]} == {v, "CALL"}))
        return v if ok else None

    def half_of(self, init: tuple[int, int], wt: list[str]) -> bool:
        a, b = init
        while self.tx[a] == "(" and self.pairs.get(a) == b - 1:
            a, b = a + 1, b - 1
        t = [self.tx[z] for z in range(a, b)]
        if t in ([*wt, ">>", "1"], [*wt, "/", "2"], ["(", *wt, ")", ">>", "1"], ["(", *wt, ")", "/", "2"]):
            return True
        wv = int_value(wt[0]) if len(wt) == 1 and wt[0][:1].isdigit() else None
        return wv is not None and b == a + 1 and self.kd[a] == NUM and int_value(t[0]) == wv // 2

    # ---- the store

    def memory_target(self, s: int, eq: int, a: int, b: int) -> bool:
        """Tokens [s, eq) name memory other lanes can see: `p[i]`, `*p`, `p->f` (not a declaration, not a
        per-thread local array)."""
        if self.kd[s] == ID and self.kd[s + 1] == ID:
            return False  # `float t = v;` declares
        if self.tx[s] == "*" or "->" in self.tx[s:eq]:
            return True
        if self.kd[s] != ID or self.tx[s + 1] != "[":
            return False
        name = self.tx[s]
        for z in range(a, b):  # a local array (declared here without __shared__) is per-thread
            if self.tx[z] == name and self.tx[z + 1] == "[" and self.kd[z - 1] == ID \
                    and self.tx[z - 1] not in ("return", "case"):
                st = self.stmt_start(z, a)
                return "__shared__" in self.tx[st:z]
        return True

    def lane_dependent(self, f: Func, s: int, e: int, a: int, b: int) -> bool:
        lane = self.lane_names(f, a, b)
        return self.reads_lane(s, e, lane)

    def lane_names(self, f: Func, a: int, b: int) -> frozenset[str]:
        """Names whose value depends on threadIdx.x (or the lane id) in the function, transitively; a
        helper's parameter called lane/tid counts."""
        got = self.lane_cache.get(f.index)
        if got is not None:
            return got
        ha, hb = f.header
        names = {self.tx[z] for z in range(ha, hb) if self.kd[z] == ID and self.tx[z + 1] in (",", ")")
                 and (LANEISH.match(self.tx[z]) or self.tx[z] in ("tid", "tx", "thread_id"))}
        assigns = [(k, e) for _s, k, e in self.assignments(a, b)]
        for _ in range(3):
            for k, e in assigns:
                if self.tx[k] not in names and self.reads_lane(k + 2, e, names):
                    names.add(self.tx[k])
        out = frozenset(names)
        self.lane_cache[f.index] = out
        return out

    def reads_lane(self, s: int, e: int, names: set[str] | frozenset[str]) -> bool:
        for z in range(s, e):
            x = self.tx[z]
            if x == "threadIdx" and not (self.tx[z + 1] == "." and self.tx[z + 2] in ("y", "z")):
                return True
            if x in LANE_WORDS or x in names or x in self.lane_funcs or x in self.tid_funcs or x in self.macro_lane:
                return True
        return False

    # ---- token helpers

    def statement_end(self, q: int, hi: int) -> int:
        """Index after the statement starting at token q (a compound statement with its body and else)."""
        x = self.tx[q]
        if x == "{":
            return self.pairs.get(q, hi - 1) + 1
        if x == "do":
            body_end = self.statement_end(q + 1, hi)
            return self.scan_to(body_end, hi, (";",)) + 1
        if x in ("if", "for", "while", "switch") and self.tx[q + 1] == "(" and (q + 1) in self.pairs:
            end = self.statement_end(self.pairs[q + 1] + 1, hi)
            if x == "if" and self.tx[end] == "else":
                end = self.statement_end(end + 1, hi)
            return end
        return self.scan_to(q, hi, (";",)) + 1

    def toks_simple(self, text: str) -> bool:
        return text.replace("_", "").isalnum()
