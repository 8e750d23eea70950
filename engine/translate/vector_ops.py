"""User-defined operators on CUDA's vector types (helper_math.h and its many copies).

CUDA's float2/int4/... have no operators, so CUDA code defines them (`float4 operator+(float4,
float4)`, `void operator+=(float4&, float4)`, ...). HIP's vector types already define every
arithmetic, bitwise and comparison operator component-wise (hip/amd_detail/amd_hip_vector_types.h),
so on AMD both sets are viable and hip-clang rejects the calls as ambiguous. The user's definitions
mean the same as HIP's; they are kept for NVIDIA and left out on AMD:

    #if !defined(__HIP_PLATFORM_AMD__) // hipport: HIP's vector types define these operators
    ... the user's operator definitions ...
    #endif

Only free operator functions whose parameters are all CUDA vector types or arithmetic scalars are
guarded (never one that takes a user type); adjacent definitions share one #if.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from ..cxx.brackets import matching
from ..cxx.lexer import COMMENT, IDENT, KEYWORD, Tokens
from ..edits import Edit

VECTOR_TYPE = re.compile(r"^(?:u?char|u?short|u?int|u?long|u?longlong|longlong|float|double)[1-4]$")
_SCALARS = frozenset({"float", "double", "int", "unsigned", "signed", "char", "short", "long", "bool",
                      "uint", "const", "volatile", "__restrict__", "size_t"})
_OPS = frozenset("+ - * / % ^ | & << >> += -= *= /= %= ^= |= &= <<= >>= == != ~ !".split())
_QUALIFIERS = frozenset({"inline", "static", "__host__", "__device__", "__forceinline__", "constexpr",
                         "__inline__", "extern", "const"})
GUARD_OPEN = "#if !defined(__HIP_PLATFORM_AMD__) // hipport: HIP's vector types define these operators"
GUARD_CLOSE = "#endif // !defined(__HIP_PLATFORM_AMD__)"


def vector_operator_spans(toks: Tokens, in_directive: Callable[[int], bool]) -> list[tuple[int, int, str]]:
    """(first token, last token, operator) of each free operator definition over vector types."""
    text, starts = toks.text, toks.starts
    n = len(toks.kinds)
    sp = _Spell(toks)
    out: list[tuple[int, int, str]] = []
    # only the tokens spelled `operator` (found by text search, not by a pass over every token)
    cands = [k for m in re.finditer(r"\boperator\b", text)
             if (k := bisect.bisect_left(starts, m.start())) < n and starts[k] == m.start()]
    done = -1
    for i in cands:
        if i <= done or in_directive(i):
            continue
        o = sp.next(i)
        op = sp(o)
        p = sp.next(o)
        if op not in _OPS or sp(p) != "(":
            continue
        ok, close = _vector_parameters(toks, sp, p)
        b = sp.next(close)
        if not ok or sp(b) != "{":
            done = close
            continue
        e = matching(sp, b, n, "{", "}")  # the `}` closing the body, counting braces only
        first = _declaration_start(toks, sp, i, in_directive)
        if first >= 0:
            out.append((first, e, op))
        done = e
    return out


class _Spell:
    """Token spellings ("" out of range) and the next token that is not a comment."""

    def __init__(self, toks: Tokens) -> None:
        self.text, self.starts, self.ends = toks.text, toks.starts, toks.ends
        self.n = len(toks.kinds)
        self.next = toks.next_sig

    def __call__(self, i: int) -> str:
        return self.text[self.starts[i]:self.ends[i]] if 0 <= i < self.n else ""


def _vector_parameters(toks: Tokens, sp: _Spell, p: int) -> tuple[bool, int]:
    """(the parameter list opening at token p has vector types and scalars only, at least one
    vector type; the token of its `)`). Counts parentheses only, reading each token's kind as it goes."""
    kinds, n = toks.kinds, len(toks.kinds)
    depth, j, ok, has_vec = 0, p, True, False
    while j < n:
        s = sp(j)
        if s == "(":
            depth += 1
        elif s == ")":
            depth -= 1
            if depth == 0:
                break
        elif kinds[j] == IDENT and VECTOR_TYPE.match(s):
            has_vec = True
        elif kinds[j] == IDENT and s not in _SCALARS:
            # a parameter name is an identifier followed by `,` or `)`
            if sp(sp.next(j)) not in (",", ")"):
                ok = False
        elif kinds[j] not in (IDENT, KEYWORD, COMMENT) and s not in ("&", "*", ",", "("):
            ok = False
        j += 1
    return ok and has_vec, j


def _declaration_start(toks: Tokens, sp: _Spell, i: int, in_directive: Callable[[int], bool]) -> int:
    """The first token of the declaration of `operator` (token i): back over its return type and
    qualifiers; -1 when something else (a user type, another declaration) comes first."""
    kinds = toks.kinds
    s0 = i - 1
    while s0 >= 0 and kinds[s0] != COMMENT and not in_directive(s0) and (
            sp(s0) in _QUALIFIERS or VECTOR_TYPE.match(sp(s0)) or sp(s0) in _SCALARS
            or sp(s0) in ("&", "void")):
        s0 -= 1
    first = s0 + 1
    prev = sp(s0)
    if first < i and (s0 < 0 or prev in (";", "}", "{") or kinds[s0] == COMMENT or in_directive(s0)):
        return first
    return -1


def guard_edits(toks: Tokens, spans: list[tuple[int, int, str]], newline: str) -> list[Edit]:
    """#if/#endif around runs of adjacent spans that start and end their lines."""
    text, starts, ends = toks.text, toks.starts, toks.ends
    edits: list[Edit] = []
    runs: list[list[tuple[int, int, str]]] = []
    for sp in spans:
        if runs:
            gap = text[ends[runs[-1][-1][1]]:starts[sp[0]]]
            if not re.sub(r"//[^\n]*|/\*[\s\S]*?\*/", "", gap).strip():
                runs[-1].append(sp)
                continue
        runs.append([sp])
    for run in runs:
        a, z = starts[run[0][0]], ends[run[-1][1]]
        bol = text.rfind("\n", 0, a) + 1
        eol = text.find("\n", z)
        if text[bol:a].strip() or (eol >= 0 and text[z:eol].strip()):
            continue  # shares a line with other code: leave it (reported by the caller)
        ops = ", ".join(sorted({op for *_x, op in run}))
        edits.append(Edit(bol, bol, GUARD_OPEN + newline, "vector-ops",
                          f"vector-type operators ({ops}) left to HIP on AMD"))
        at = len(text) if eol < 0 else eol
        edits.append(Edit(at, at, newline + GUARD_CLOSE, "vector-ops", "end of the guarded operators"))
    return edits
