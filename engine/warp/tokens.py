"""A text's tokens, brackets, statements and functions, read once per file, and the token helpers every
check shares. Read-only once built (the per-range caches only remember answers)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..cxx import brackets
from ..edits import Edit
from .lex import ID, NUM, PUNCT, columns, int_value
from .scopes import Func, find_functions
from .words import NARROW_TYPES, TYPE_WORDS

# spellings past the last token: texts[-4..count+3] are safe (negative indices hit this padding too)
PADDING = 8


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


@dataclass(frozen=True)
class Tokens:
    """Token i is (kinds[i], texts[i], starts[i], ends[i], directive[i]); `texts` is padded with "" past the
    last token (PADDING), the other lists hold exactly `count` entries."""

    text: str
    kinds: list[int]
    texts: list[str]
    starts: list[int]       # str offset of each token
    ends: list[int]
    directive: list[int]    # the preprocessor directive each token belongs to, or -1
    count: int
    spellings: frozenset[str]    # every spelling in the file: a check whose trigger words are absent skips
    partner: dict[int, int]      # a bracket's index -> its matching bracket's (both ways)
    statements: brackets.StatementIndex  # statement ends and starts, top-level commas, in constant time
    functions: list[Func]
    function_of: list[int]       # per token: the index of the function whose body holds it, or -1
    # assignments(), per token range: propagate reads a function's assignments twice, lane0 once more
    assignment_cache: dict[tuple[int, int], list[tuple[int, int, int]]] = field(
        default_factory=dict, compare=False, repr=False)

    @classmethod
    def read(cls, text: str) -> Tokens:
        cols = columns(text)
        texts = cols.texts + [""] * PADDING
        spellings = frozenset(texts)
        partner = brackets.match_brackets(texts)  # the padding is no bracket
        defines = _positions(texts, spellings, ("define",))
        functions, function_of = find_functions(cols, partner, defines)
        return cls(text, cols.kinds, texts, cols.starts, cols.ends, cols.pps, len(cols), spellings, partner,
                   brackets.StatementIndex(texts), functions, function_of)

    def positions(self, words: Iterable[str]) -> list[int]:
        """Indices of the tokens spelled as one of `words`, ascending."""
        return _positions(self.texts, self.spellings, words)

    def edit(self, i: int, repl: str, rule: str, j: int | None = None) -> Edit:
        """Replace tokens i..j (inclusive) with `repl`."""
        end = self.ends[j if j is not None else i]
        return Edit(self.starts[i], end, repl, rule)

    def widen(self, span: tuple[int, int], rule: str, w: list[Edit], p: list[Edit]) -> list[int]:
        """Widen the 32-bit type at tokens span[0]..span[1]: `unsigned long long` into the naive
        edits `w`, `lane_mask_t` into the portable edits `p`; returns the span's token indices."""
        w.append(self.edit(span[0], "unsigned long long", rule, span[1]))
        p.append(self.edit(span[0], "lane_mask_t", rule, span[1]))
        return list(range(span[0], span[1] + 1))

    def insert_after(self, i: int, text: str, rule: str) -> Edit:
        e = self.ends[i]
        return Edit(e, e, text, rule)

    def insert_before(self, i: int, text: str, rule: str) -> Edit:
        st = self.starts[i]
        return Edit(st, st, text, rule)

    def text_of(self, s: int, e: int) -> str:
        """The source text of tokens s..e-1 (with what lies between them), "" for an empty range."""
        return self.text[self.starts[s]:self.ends[e - 1]] if e > s else ""

    def line(self, i: int) -> int:
        """1-based line of token i."""
        return self.text.count("\n", 0, self.starts[i]) + 1

    def for_loop(self, k: int, b: int) -> ForLoop | None:
        """The `for` loop whose keyword is token k (body ending before b), or None when it is not
        `for (NAME = ...; ...; ...)` with balanced brackets."""
        lp = k + 1
        rp = self.partner.get(lp)
        if rp is None:  # unbalanced '('
            return None
        parts: list[tuple[int, int]] = []
        s = lp + 1
        for q in range(lp + 1, rp):
            if self.texts[q] == ";":
                parts.append((s, q))
                s = q + 1
        parts.append((s, rp))
        if len(parts) != 3:
            return None
        (ia, ib), cond, (sa, sb) = parts
        var_i = next((q for q in range(ia, ib) if self.texts[q + 1] == "=" and self.kinds[q] == ID), None)
        if var_i is None:
            return None
        if self.texts[rp + 1] == "{" and (rp + 1) in self.partner:
            body, end = (rp + 1, self.partner[rp + 1]), self.partner[rp + 1]
        else:
            end = self.stmt_bounds(rp + 1, rp + 1, b)[1]
            body = (rp + 1, end)
        return ForLoop(self.texts[var_i], (var_i + 2, ib), cond, (sa, sb), [self.texts[q] for q in range(sa, sb)],
                       body, end)

    def is_int(self, i: int, *values: int) -> bool:
        return 0 <= i < self.count and self.kinds[i] == NUM and int_value(self.texts[i]) in values

    def left_operand(self, k: int, lo: int) -> tuple[int, int]:
        j = k - 1
        if j < lo:
            return k, k
        if self.texts[j] in (")", "]") and j in self.partner:
            a = self.partner[j]
            if a - 1 >= lo and self.kinds[a - 1] == ID:  # call or subscript: f(...), s[...]
                a -= 1
            return a, k
        a = j
        while a - 2 >= lo and self.texts[a - 1] in (".", "->") and self.kinds[a - 2] in (ID, PUNCT):
            if self.kinds[a - 2] == PUNCT and self.texts[a - 2] not in (")", "]"):
                break
            a -= 2
        return a, k

    def right_operand_end(self, k: int, hi: int) -> int:
        """End (exclusive) of the primary expression starting at token k."""
        j = k
        if self.texts[j] in ("(", "[") and j in self.partner:
            return self.partner[j] + 1
        while j < hi:
            j += 1
            if self.texts[j] in (".", "->"):
                j += 1
                continue
            if self.texts[j] == "(" and j in self.partner:  # call
                return self.partner[j] + 1
            break
        return j

    def names(self, a: int, b: int) -> set[str]:
        return {self.texts[k] for k in range(a, b) if self.kinds[k] == ID}

    def stmt_bounds(self, k: int, lo: int, hi: int) -> tuple[int, int]:
        """(start, end) of the expression statement holding token k: back over ()/[] groups to a `;`,
        `{`, `}` or an unclosed `(`/`[` (not below lo); forward to its `;` (not past hi)."""
        return self.statements.expression_start(k, lo), self.statements.scan_to(k, hi, (";",))

    def assignments(self, a: int, b: int) -> list[tuple[int, int, int]]:
        """(stmt_start, name_index, expr_end) for `NAME = expr` inside [a, b). Computed once per range
        (propagate reads a function's assignments twice, lane0.lane_names once more): do not modify."""
        got = self.assignment_cache.get((a, b))
        if got is not None:
            return got
        out: list[tuple[int, int, int]] = []
        tx, kd = self.texts, self.kinds
        for k in range(a, b - 1):
            if tx[k + 1] == "=" and kd[k] == ID and tx[k - 1] not in (".", "->", "::"):
                s, _ = self.stmt_bounds(k, a, b)
                # expression ends at ; or , or unmatched )
                e = self.scan_to(k + 2, b, (";", ","))
                out.append((s, k, e))
        self.assignment_cache[(a, b)] = out
        return out

    def scan_to(self, b: int, hi: int, stops: tuple[str, ...]) -> int:
        """First index from b (before hi) of an unmatched closing bracket or a top-level stop token."""
        return self.statements.scan_to(b, hi, stops)

    def stmt_start(self, k: int, lo: int) -> int:
        return self.statements.stmt_start(k, lo)

    def narrow_type_span(self, a: int, k: int) -> tuple[int, int] | None:
        """Token span of a 32-bit integer type among tokens [a, k) declaring the name at k."""
        idx = [i for i in range(a, k) if self.texts[i] in TYPE_WORDS]
        if not idx:
            return None
        words = {self.texts[i] for i in idx}
        if not words <= NARROW_TYPES:
            return None
        if any(self.texts[i] not in TYPE_WORDS and self.texts[i] not in ("const", "static", "volatile", "register",
                                                                   "__shared__", "constexpr", "__device__")
               for i in range(idx[0], idx[-1] + 1)):
            return None
        return idx[0], idx[-1]

    def uses_name(self, name: str, a: int, b: int) -> bool:
        return any(self.kinds[k] == ID and self.texts[k] == name for k in range(a, b))

    def split_args(self, lp: int) -> list[tuple[int, int]]:
        """Argument spans of the call whose `(` is at lp (none for `()` or an unbalanced `(`)."""
        rp = self.partner.get(lp)
        if rp is None or rp == lp + 1:  # unbalanced '(' (a file mid-edit), or no arguments
            return []
        return self.statements.split_commas(lp + 1, rp)

    def split_commas(self, a: int, b: int) -> list[tuple[int, int]]:
        return self.statements.split_commas(a, b)

    def is_blockdim(self, a: int, b: int) -> bool:
        return self.texts[a] in ("blockDim", "hipBlockDim_x") and b - a <= 3

    def enclosing_call(self, k: int) -> int | None:
        """Token index of the callee name whose argument list holds token k (innermost), else None."""
        depth = 0
        q = k - 1
        while q > 0 and q > k - 200:
            x = self.texts[q]
            if x in (")", "]"):
                depth += 1
            elif x in ("(", "["):
                if depth == 0:
                    if x == "(" and self.kinds[q - 1] == ID:
                        return q - 1
                    if x == "(" and self.texts[q - 1] == ">":
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
        while q > 0 and self.directive[q - 1] == self.directive[k]:
            q -= 1
        return self.texts[q + 2] if self.texts[q + 1] == "define" else "?"

    def hard_guard(self, k: int) -> bool:
        """The comparison at k sits in assert/static_assert/#if, or in an `if` whose statement exits."""
        if self.directive[k] >= 0:
            return True
        call = self.enclosing_call(k)
        if call is None:
            return False
        name = self.texts[call]
        if name in ("assert", "static_assert", "_Static_assert"):
            return True
        if name == "if":
            rp = self.partner.get(call + 1)
            if rp is None:
                return False
            body_end = self.partner.get(rp + 1, rp) if self.texts[rp + 1] == "{" else self.scan_to(rp + 1, self.count, (";",))
            return bool({"abort", "exit", "throw", "__trap", "__builtin_trap", "assert", "return", "printf",
                         "fprintf"} & set(self.texts[rp + 1:body_end + 1]))
        return False


def _positions(texts: list[str], spellings: frozenset[str], words: Iterable[str]) -> list[int]:
    """Indices of the tokens spelled as one of `words`, ascending (list.index scans in C: much cheaper than a
    Python loop over every token when the words are rare)."""
    out: list[int] = []
    found = 0
    for w in words:
        if w not in spellings:
            continue
        found += 1
        i = texts.index(w)
        try:
            while True:
                out.append(i)
                i = texts.index(w, i + 1)
        except ValueError:
            pass
    if found > 1:
        out.sort()
    return out
