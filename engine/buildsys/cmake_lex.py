"""A small CMake lexer: commands and their arguments with offsets (comments and brackets understood).

Grammar (cmake-language(7)): command_invocation := identifier space* '(' arguments ')';
arguments are bracket arguments [=*[ ... ]=*], quoted "..." (backslash escapes) or unquoted
(may hold nested parentheses); comments are '#' to the end of the line or #[=*[ ... ]=*].
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")


@dataclass(frozen=True, slots=True)
class Arg:
    start: int
    end: int
    text: str   # as written (quotes included)
    kind: str   # "unquoted" | "quoted" | "bracket"

    @property
    def value(self) -> str:
        if self.kind == "quoted":
            return self.text[1:-1]
        if self.kind == "bracket":
            m = _BRACKET_OPEN.match(self.text)
            n = len(m.group(0)) if m else 2
            return self.text[n:-n]
        return self.text

    @property
    def value_start(self) -> int:
        if self.kind == "quoted":
            return self.start + 1
        if self.kind == "bracket":
            m = _BRACKET_OPEN.match(self.text)
            return self.start + (len(m.group(0)) if m else 2)
        return self.start


@dataclass(frozen=True, slots=True)
class Command:
    name: str       # as written
    start: int      # identifier start
    name_end: int
    open: int       # offset of '('
    close: int      # offset of the matching ')'
    args: tuple[Arg, ...]

    @property
    def lname(self) -> str:
        return self.name.lower()

    @property
    def end(self) -> int:
        return self.close + 1


def _skip_bracket(text: str, i: int) -> int:
    """text[i] starts '[=*['; returns the offset after the matching close (or the end)."""
    m = _BRACKET_OPEN.match(text, i)
    if not m:
        return i + 1
    close = "]" + m.group(1) + "]"
    j = text.find(close, m.end())
    return len(text) if j < 0 else j + len(close)


def _skip_comment(text: str, i: int) -> int:
    """text[i] == '#': offset after the comment (line or bracket comment)."""
    if _BRACKET_OPEN.match(text, i + 1):
        return _skip_bracket(text, i + 1)
    j = text.find("\n", i)
    return len(text) if j < 0 else j


def _quoted_end(text: str, i: int) -> int:
    j = i + 1
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == '"':
            return j + 1
        j += 1
    return n


def commands(text: str) -> list[Command]:
    out: list[Command] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "#":
            i = _skip_comment(text, i)
            continue
        if c == '"':  # stray quoted text outside a command: skip it whole
            i = _quoted_end(text, i)
            continue
        m = _IDENT.match(text, i)
        if not m or (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            i += 1
            continue
        j = m.end()
        while j < n and text[j] in " \t":
            j += 1
        if j >= n or text[j] != "(":
            i = m.end()
            continue
        args, close = _arguments(text, j + 1)
        out.append(Command(m.group(), m.start(), m.end(), j, close, tuple(args)))
        i = close + 1
    return out


def _arguments(text: str, i: int) -> tuple[list[Arg], int]:
    args: list[Arg] = []
    n = len(text)
    depth = 0
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "#":
            i = _skip_comment(text, i)
            continue
        if c == ")":
            if depth == 0:
                return args, i
            depth -= 1
            args.append(Arg(i, i + 1, ")", "unquoted"))
            i += 1
            continue
        if c == "(":
            depth += 1
            args.append(Arg(i, i + 1, "(", "unquoted"))
            i += 1
            continue
        if c == '"':
            j = _quoted_end(text, i)
            args.append(Arg(i, j, text[i:j], "quoted"))
            i = j
            continue
        if c == "[" and _BRACKET_OPEN.match(text, i):
            j = _skip_bracket(text, i)
            args.append(Arg(i, j, text[i:j], "bracket"))
            i = j
            continue
        j = i
        while j < n:
            d = text[j]
            if d in " \t\r\n()#":
                break
            if d == "\\":
                j += 2
                continue
            if d == '"':  # unquoted_legacy: a"b c"d
                j = _quoted_end(text, j)
                continue
            j += 1
        j = min(j, n)  # a backslash at the very end
        args.append(Arg(i, j, text[i:j], "unquoted"))
        i = j
    return args, n
