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
from itertools import compress

from ..cxx import lexer as cxx

ID, NUM, STR, PUNCT = 0, 1, 2, 3


@dataclass(slots=True)
class Tok:
    kind: int
    text: str
    start: int
    end: int
    pp: int  # index of the preprocessor directive this token belongs to, or -1


@dataclass(frozen=True, slots=True)
class Columns:
    """A text's tokens as parallel lists, token i being (kinds[i], texts[i], starts[i], ends[i], pps[i]);
    read-only (they may be the lexer's own lists, shared with the translation).
    The warp analysis reads these lists: building one Tok object per token cost about half as much as
    the lexer itself (the 5,000-file bench tree); the lists are built by comprehensions and in C."""

    kinds: list[int]
    texts: list[str]
    starts: list[int]
    ends: list[int]
    pps: list[int]  # the preprocessor directive each token belongs to, or -1

    def __len__(self) -> int:
        return len(self.kinds)


# the lexer's kinds as the warp analysis sees them (a LITERAL is a NUM or a STR by its first character;
# a COMMENT, -1 here, is dropped)
_KIND = {cxx.PUNCT: PUNCT, cxx.IDENT: ID, cxx.KEYWORD: ID, cxx.COMMENT: -1}
_NUM_START = frozenset("0123456789.")


def columns(text: str) -> Columns:
    t = cxx.tokenize(text)
    spell = t.spellings()
    kmap, literal, num_start = _KIND, cxx.LITERAL, _NUM_START
    kinds = [kmap[k] if k != literal else (NUM if s[0] in num_start else STR)
             for k, s in zip(t.kinds, spell, strict=True)]
    spans = cxx.directive_spans(t)
    pps = cxx.directive_index(t, spans) if spans else [-1] * len(kinds)
    if cxx.COMMENT not in t.kinds:
        return Columns(kinds, spell, t.starts, t.ends, pps)  # the lexer's own lists: read-only
    keep = [k >= 0 for k in kinds]
    return Columns(list(compress(kinds, keep)), list(compress(spell, keep)), list(compress(t.starts, keep)),
                   list(compress(t.ends, keep)), list(compress(pps, keep)))


def tokenize(text: str) -> list[Tok]:
    """The tokens as objects (tests, and code outside the hot passes)."""
    c = columns(text)
    return [Tok(*x) for x in zip(c.kinds, c.texts, c.starts, c.ends, c.pps, strict=True)]


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
