"""Which `#if` branches a preprocessor leaves inactive (--skip-excluded-preprocessor-conditional-blocks).

hipify-clang decides them with clang's preprocessor in a CUDA host-only pass over the CUDA headers.
hipport runs no preprocessor; it models that environment (translate/tables.py PREPROCESSOR_DEFINED /
PREPROCESSOR_UNDEFINED), adds the -D definitions and follows the file's own `#define`/`#undef` lines in
active code. `defined(X)` / `#ifdef X` of a macro seen nowhere is false, as for clang; a bare
identifier seen nowhere has an unknown value, and a condition that depends on one counts as active,
as does every branch after it (nothing is skipped by guesswork).
"""

from __future__ import annotations

import re

from .cxx.lexer import Tokens
from .translate.tables import PREPROCESSOR_DEFINED, PREPROCESSOR_UNDEFINED

_CONDITIONALS = ("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif")
_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>!~&|^()?:]))")


def inactive_tokens(toks: Tokens, directives: list[tuple[int, int, str]], defines: tuple[str, ...]) -> list[bool]:
    """One flag per token: True where the token lies in a branch the preprocessor skips."""
    defs: dict[str, str | None] = dict(PREPROCESSOR_DEFINED)
    undef: set[str] = set(PREPROCESSOR_UNDEFINED)
    for d in defines:
        k, _, v = d.partition("=")
        defs[k.strip()] = v.strip() or "1"
        undef.discard(k.strip())
    text = toks.text
    n = len(toks)
    inactive = [False] * n
    # per open #if: (parent active, this branch active, a branch was surely taken)
    stack: list[tuple[bool, bool, bool]] = []
    active = True
    pos = 0
    for a, b, name in directives:
        for j in range(pos, a):
            inactive[j] = not active
        body = text[toks.ends[a + 1] : toks.ends[b - 1]] if b - a > 2 else ""
        if name in ("if", "ifdef", "ifndef"):
            cond = _condition(name, body, defs, undef) if active else False
            stack.append((active, active and cond is not False, cond is True))
            active = stack[-1][1]
        elif name in ("elif", "elifdef", "elifndef", "else") and stack:
            parent, _cur, taken = stack[-1]
            kind = {"elif": "if", "elifdef": "ifdef", "elifndef": "ifndef"}.get(name, "")
            cond = True if name == "else" else (_condition(kind, body, defs, undef) if parent and not taken else False)
            now = parent and not taken and cond is not False
            stack[-1] = (parent, now, taken or cond is True)
            active = now
        elif name == "endif" and stack:
            active = stack.pop()[0]
        elif active and name in ("define", "undef") and b - a > 2:
            macro = toks.spelling(a + 2)
            if name == "undef":
                defs.pop(macro, None)
                undef.add(macro)
            else:
                function_like = b - a > 3 and toks.starts[a + 3] == toks.ends[a + 2] and toks.spelling(a + 3) == "("
                value = text[toks.ends[a + 2] : toks.ends[b - 1]].strip() if b - a > 3 else "1"
                defs[macro] = None if function_like else value
                undef.discard(macro)
        conditional = name in _CONDITIONALS
        for j in range(a, b):
            inactive[j] = False if conditional else not active
        pos = b
    for j in range(pos, n):
        inactive[j] = not active
    return inactive


def _condition(kind: str, body: str, defs: dict[str, str | None], undef: set[str]) -> bool | None:
    body = re.sub(r"//.*|/\*.*?\*/", " ", body, flags=re.S).strip()
    if kind in ("ifdef", "ifndef"):
        if not body:
            return None
        name = body.split()[0]
        return (name in defs) == (kind == "ifdef")
    return evaluate(body, defs, undef)


def evaluate(expr: str, defs: dict[str, str | None], undef: set[str]) -> bool | None:
    """The truth of a #if expression, or None when it depends on a value hipport does not know."""
    v = _int_value(expr, defs, undef, 0)
    return None if v is None else bool(v)


def _int_value(expr: str, defs: dict[str, str | None], undef: set[str], depth: int) -> int | None:
    toks: list[object] = []  # ints (None = unknown) and operator strings
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if m is None:
            return None
        pos = m.end()
        num, ident, op = m.groups()
        if num is not None:
            toks.append(int(num, 0) if not (num.startswith("0") and num.isdigit()) else int(num, 8))
        elif ident is not None:
            if ident == "defined":
                m2 = re.match(r"\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))", expr[pos:])
                if m2 is None:
                    return None
                pos += m2.end()
                toks.append(int((m2.group(1) or m2.group(2)) in defs))
            elif ident in ("true", "false"):
                toks.append(int(ident == "true"))
            elif ident in defs:
                value = defs[ident]
                ok = value is not None and value.strip() and depth < 8
                toks.append(_int_value(value, defs, undef, depth + 1) if ok and value is not None else None)
            else:
                toks.append(0 if ident in undef else None)
        else:
            toks.append(op)
    if not toks:
        return None
    parser = _Parser(toks)
    try:
        v = parser.ternary()
    except (IndexError, ValueError, ZeroDivisionError):
        return None
    return v if parser.i == len(toks) else None


class _Parser:
    """Precedence climbing over ints / None (unknown); `0 && x` and `1 || x` are known without x."""

    _BINARY: tuple[tuple[str, ...], ...] = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="),
                                       ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"), ("*", "/", "%"))

    def __init__(self, toks: list[object]) -> None:
        self.toks = toks
        self.i = 0

    def peek(self) -> object:
        return self.toks[self.i] if self.i < len(self.toks) else ""

    def take(self) -> object:
        t = self.toks[self.i]
        self.i += 1
        return t

    def ternary(self) -> int | None:
        c = self.binary(0)
        if self.peek() == "?":
            self.take()
            a = self.ternary()
            if self.take() != ":":
                raise ValueError("no ':'")
            b = self.ternary()
            return None if c is None else (a if c else b)
        return c

    def binary(self, level: int) -> int | None:
        if level == len(self._BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in self._BINARY[level]:
            op = self.take()
            right = self.binary(level + 1)
            left = _apply(str(op), left, right)
        return left

    def unary(self) -> int | None:
        t = self.take()
        if t == "(":
            v = self.ternary()
            if self.take() != ")":
                raise ValueError("no ')'")
            return v
        if t in ("!", "-", "+", "~"):
            v = self.unary()
            if v is None:
                return None
            return {"!": int(not v), "-": -v, "+": v, "~": ~v}[str(t)]
        if t is None or isinstance(t, int):
            return t
        raise ValueError(f"unexpected {t!r}")


def _apply(op: str, a: int | None, b: int | None) -> int | None:
    if op == "&&":
        return 0 if a == 0 or b == 0 else (None if a is None or b is None else 1)
    if op == "||":
        return 1 if (a is not None and a != 0) or (b is not None and b != 0) else (
            None if a is None or b is None else 0)
    if a is None or b is None:
        return None
    if op in ("/", "%") and b == 0:
        raise ZeroDivisionError
    ops = {"|": a | b, "^": a ^ b, "&": a & b, "==": int(a == b), "!=": int(a != b), "<": int(a < b),
           ">": int(a > b), "<=": int(a <= b), ">=": int(a >= b), "+": a + b, "-": a - b, "*": a * b}
    if op in ops:
        return ops[op]
    if op == "<<":
        return a << b if 0 <= b < 64 else None
    if op == ">>":
        return a >> b if 0 <= b < 64 else None
    return int(a / b) if op == "/" else a - b * int(a / b)
