"""Bracket, comma and statement helpers over token spellings: the one copy of each.

They take the list of token spellings (`Tokens.spellings()`, or the warp analysis's token texts).
Comparing spellings is exact without token kinds: a comment, literal or identifier can never be
spelled `(`, `,` or `;`, so only punctuation matches. Index ranges are half-open [a, b).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")": "(", "]": "[", "}": "{"}


def match_brackets(tx: Sequence[str]) -> dict[int, int]:
    """Index of the partner of every (), [], {} token (both directions); each kind is matched on
    its own stack. Unbalanced ones are left out."""
    pairs: dict[int, int] = {}
    stacks: dict[str, list[int]] = {"(": [], "[": [], "{": []}
    for i, x in enumerate(tx):
        if x in stacks:
            stacks[x].append(i)
        elif x in CLOSE:
            st = stacks[CLOSE[x]]
            if st:
                j = st.pop()
                pairs[i] = j
                pairs[j] = i
    return pairs


def closing(tx: Sequence[str], i: int, limit: int, stops: tuple[str, ...] = (";",)) -> int:
    """Index (before `limit`) of the bracket closing the opening one at i, or -1 when a stop token
    comes first directly inside it (a `;` inside `f(` ... means the call was never closed)."""
    depth = 0
    for j in range(i, limit):
        x = tx[j]
        if x in OPEN:
            depth += 1
        elif x in CLOSE:
            depth -= 1
            if depth == 0:
                return j
        elif depth <= 1 and x in stops:
            return -1
    return -1


def split_commas(tx: Sequence[str], lo: int, hi: int) -> list[tuple[int, int]]:
    """Index ranges [a, b) of the comma-separated pieces of lo..hi (commas inside brackets do not
    split). Always at least one piece; empty pieces (a == b) are kept."""
    pieces: list[tuple[int, int]] = []
    depth = 0
    a = lo
    for j in range(lo, hi):
        x = tx[j]
        if x in OPEN:
            depth += 1
        elif x in CLOSE:
            depth -= 1
        elif depth == 0 and x == ",":
            pieces.append((a, j))
            a = j + 1
    pieces.append((a, hi))
    return pieces


def scan_to(tx: Sequence[str], b: int, hi: int, stops: tuple[str, ...]) -> int:
    """First index from b (before hi) of an unmatched closing bracket or a top-level stop token:
    the end of a statement (stops `;`) or of an assignment expression (stops `;` and `,`)."""
    depth = 0
    while b < hi:
        x = tx[b]
        if x in OPEN:
            depth += 1
        elif x in CLOSE:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and x in stops:
            break
        b += 1
    return b


def angle_open(spell: Callable[[int], str], j: int, lo: int, stops: frozenset[str]) -> int:
    """Index of the `<` opening the template argument list that the `>` (or `>>`) at j closes,
    walking back no further than lo; -1 when a stop token comes first or there is none. `spell(k)`
    is token k's spelling ("" for tokens that cannot be punctuation, e.g. in a comment)."""
    depth = 0
    for k in range(j, lo - 1, -1):
        t = spell(k)
        if t == ">":
            depth += 1
        elif t == ">>":
            depth += 2
        elif t == "<":
            depth -= 1
            if depth == 0:
                return k
        elif t in stops:
            return -1
    return -1
