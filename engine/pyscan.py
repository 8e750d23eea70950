"""Python source scanning, shared by translation (python_host.py) and the warp analysis
(warp/python_side.py): tokens with str offsets, string literals split into prefix, quote and body,
and str offsets of `ast` positions.

Two line rules meet here, and each is used where it belongs. `tokenize` reads lines with
`io.StringIO.readline`, which ends a line only at `\\n` (a lone `\\r` stays inside the line), so
token offsets come from the lines it actually read. `ast` ends lines at `\\n`, `\\r\\n` and a lone
`\\r` (edits.line_starts). Neither ends a line at a form feed, `\\v` or U+2028, which `str.splitlines`
does: a form feed in a comment once shifted every later string and CUDA in it was silently skipped.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from .edits import line_starts

_PREFIX = re.compile(r"([rRbBuUfF]*)('''|\"\"\"|'|\")")


@dataclass(frozen=True, slots=True)
class PyToken:
    type: int     # a `tokenize` token type (tokenize.STRING, NAME, NUMBER, OP, ...)
    string: str
    start: int    # str offsets into the scanned text
    end: int


@dataclass(frozen=True, slots=True)
class StringLiteral:
    start: int    # str offsets of the whole literal, prefix and quotes included
    end: int
    prefix: str   # as written: "", "r", "Rb", "f", ...
    quote: str    # ', ", ''' or """

    @property
    def body_start(self) -> int:
        return self.start + len(self.prefix) + len(self.quote)

    @property
    def body_end(self) -> int:
        return self.end - len(self.quote)

    @property
    def raw(self) -> bool:
        return "r" in self.prefix.lower()

    @property
    def plain_text(self) -> bool:
        """A str literal whose body is its text as written (not an f-string, not bytes)."""
        p = self.prefix.lower()
        return "f" not in p and "b" not in p


# The last text tokenized and its result: a Python file is translated (string_literals) and then
# analysed (warp/python_side.py), and both passes tokenize the same text; the second gets a copy of the
# first's list (the tokens themselves are immutable).
_last: tuple[str, list[PyToken], bool] | None = None


def tokens(text: str) -> tuple[list[PyToken], bool]:
    """The tokens of `text` with str offsets, and whether tokenize reached the end (on an error the
    tokens before it are returned). Tokens past the last line (a final NEWLINE, ENDMARKER) are left out."""
    global _last
    last = _last
    if last is not None and (last[0] is text or last[0] == text):
        return list(last[1]), last[2]
    out, complete = _tokens(text)
    _last = (text, out, complete) if len(text) <= 8_000_000 else None
    return list(out), complete


def _tokens(text: str) -> tuple[list[PyToken], bool]:
    starts: list[int] = []
    pos = 0
    reader = io.StringIO(text).readline

    def readline() -> str:
        nonlocal pos
        line = reader()
        if line:
            starts.append(pos)
            pos += len(line)
        return line

    out: list[PyToken] = []
    try:
        for tok in tokenize.generate_tokens(readline):
            (sl, sc), (el, ec) = tok.start, tok.end
            if el > len(starts):
                continue
            out.append(PyToken(tok.type, tok.string, starts[sl - 1] + sc, starts[el - 1] + ec))
    except (tokenize.TokenError, SyntaxError):  # IndentationError is a SyntaxError
        return out, False
    return out, True


def string_literal(tok: PyToken) -> StringLiteral | None:
    """The parts of a STRING token (None for any other token)."""
    if tok.type != tokenize.STRING:
        return None
    m = _PREFIX.match(tok.string)
    return StringLiteral(tok.start, tok.end, m.group(1), m.group(2)) if m else None


def string_literals(text: str) -> list[StringLiteral]:
    """Every string literal tokenize finds (up to the first tokenize error)."""
    return [s for t in tokens(text)[0] if (s := string_literal(t)) is not None]


class AstOffsets:
    """str offsets of `ast` node positions (1-based line, column in UTF-8 bytes)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)

    def __call__(self, lineno: int, col_bytes: int) -> int:
        if lineno - 1 >= len(self.starts):
            return len(self.text)
        s = self.starts[lineno - 1]
        e = self.starts[lineno] if lineno < len(self.starts) else len(self.text)
        line = self.text[s:e]
        if line.isascii():
            return s + min(col_bytes, len(line))
        return s + len(line.encode("utf-8")[:col_bytes].decode("utf-8", errors="ignore"))
