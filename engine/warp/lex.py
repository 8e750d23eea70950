"""A light C/C++/CUDA lexer for the warp analysis: identifiers, numbers, strings, punctuation.

Comments are dropped; each token remembers the preprocessor directive it belongs to (or -1),
so `#define WARP_SIZE 32` and `#if __AMDGCN_WAVEFRONT_SIZE == 64` can be read as directives.
Offsets are str offsets into the original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

ID, NUM, STR, PUNCT = 0, 1, 2, 3

_TOKEN = re.compile(
    r"""
    # horizontal space and line continuations, skipped inside each match. Possessive and without a
    # nested quantifier: `(?:[ ]+)*` backtracked exponentially on trailing blanks (24 spaces: 12 s).
    (?:[ \t\f\v]|\\\r?\n)*+
    (?:
    (?P<end>\Z)   # blanks at the very end: always a match, so no start position is retried
  | (?P<nl>\r\n|\r|\n)
  | (?P<lc>//[^\r\n]*)
  | (?P<bc>/\*[\s\S]*?(?:\*/|\Z))
  | (?P<str>(?:u8|u|U|L)?R"(?P<delim>[^()\\ \t\r\n]{0,16})\([\s\S]*?\)(?P=delim)"
          |(?:u8|u|U|L)?"(?:[^"\\\r\n]|\\[\s\S])*"?|(?:u8|u|U|L)?'(?:[^'\\\r\n]|\\[\s\S])*'?)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*)
  | (?P<id>[A-Za-z_$][0-9A-Za-z_$]*)
  | (?P<p><<<|>>>|<<=|>>=|\.\.\.|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\#\#|[-+*/%&|^!=<>]=|[^ \t\f\v])
    )
    """,
    re.VERBOSE,
)


@dataclass(slots=True)
class Tok:
    kind: int
    text: str
    start: int
    end: int
    pp: int  # index of the preprocessor directive this token belongs to, or -1


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    at_bol = True
    pp = -1
    n_pp = 0
    for m in _TOKEN.finditer(text):
        g = m.lastgroup
        if g is None or g == "lc" or g == "end":
            continue
        if g == "nl":
            at_bol = True
            pp = -1
            continue
        if g == "bc":
            continue
        s = m.group(g)
        kind = ID if g == "id" else NUM if g == "num" else STR if g == "str" else PUNCT
        if at_bol and s == "#":
            pp = n_pp
            n_pp += 1
        at_bol = False
        toks.append(Tok(kind, s, m.start(g), m.end(), pp))
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


def match_brackets(toks: list[Tok]) -> dict[int, int]:
    """Index of the partner of every (), [], {} token (both directions). Unbalanced ones are left out."""
    pairs: dict[int, int] = {}
    stacks: dict[str, list[int]] = {"(": [], "[": [], "{": []}
    close = {")": "(", "]": "[", "}": "{"}
    for i, t in enumerate(toks):
        if t.kind != PUNCT:
            continue
        if t.text in stacks:
            stacks[t.text].append(i)
        elif t.text in close:
            st = stacks[close[t.text]]
            if st:
                j = st.pop()
                pairs[i] = j
                pairs[j] = i
    return pairs
