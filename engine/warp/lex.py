"""The warp analysis's view of the project's one C/C++/CUDA lexer (engine/cxx/lexer.py).

Tokens are objects with a coarse kind (identifier, number, string, punctuation; keywords count as
identifiers), comments are dropped, and each token remembers the preprocessor directive it belongs
to (or -1), so `#define WARP_SIZE 32` and `#if __AMDGCN_WAVEFRONT_SIZE == 64` can be read as
directives. Offsets are str offsets into the original text. Bracket matching is
engine/cxx/brackets.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..cxx import lexer as cxx

ID, NUM, STR, PUNCT = 0, 1, 2, 3


@dataclass(slots=True)
class Tok:
    kind: int
    text: str
    start: int
    end: int
    pp: int  # index of the preprocessor directive this token belongs to, or -1


# the lexer's kinds as the warp analysis sees them (a LITERAL is a NUM or a STR by its first character)
_KIND = {cxx.PUNCT: PUNCT, cxx.IDENT: ID, cxx.KEYWORD: ID}
_NUM_START = frozenset("0123456789.")


def tokenize(text: str) -> list[Tok]:
    t = cxx.tokenize(text)
    # one loop per case, slicing the text directly: this adapter runs on every token of every file
    # (it cost as much as the lexer itself on the 5,000-file bench tree)
    comment, literal, kmap, num_start = cxx.COMMENT, cxx.LITERAL, _KIND, _NUM_START
    spans = cxx.directive_spans(t)
    toks: list[Tok] = []
    append = toks.append
    if not spans:
        for k, a, b in zip(t.kinds, t.starts, t.ends, strict=True):
            if k != comment:
                s = text[a:b]
                append(Tok((NUM if s[0] in num_start else STR) if k == literal else kmap[k], s, a, b, -1))
        return toks
    for k, a, b, pp in zip(t.kinds, t.starts, t.ends, cxx.directive_index(t, spans), strict=True):
        if k != comment:
            s = text[a:b]
            append(Tok((NUM if s[0] in num_start else STR) if k == literal else kmap[k], s, a, b, pp))
    return toks


@lru_cache(maxsize=4096)
def int_value(s: str) -> int | None:
    """Value of an integer literal (suffixes and digit separators allowed), else None."""
    t = s.replace("'", "").rstrip("uUlL")
    try:
        if t.lower().startswith("0x"):
            return int(t, 16)
        if t.lower().startswith("0b"):
            return int(t, 2)
        if len(t) > 1 and t.startswith("0") and t.isdigit():
            return int(t, 8)
        return int(t, 10)
    except ValueError:
        return None
