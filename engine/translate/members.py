"""`half2` members: hipify-clang's half2Member rewrite, on tokens.

nvcc lets code read a `half2`'s `.x` / `.y` as `half`; HIP declares them with another type, so
hipify-clang writes `reinterpret_cast<half&>(v.x)` (unless the access already sits in such a cast).
hipify-clang finds these accesses in the AST by the base's type; hipport finds the variables the file
declares with that type (`half2 v`, `const half2& v`, parameters, arrays `half2 v[N]` read as
`v[i].x`) and rewrites `v.x`, `v.y`, `v[i].x`, `v[i].y` of those names.
"""

from __future__ import annotations

from ..cxx.brackets import closing
from ..cxx.lexer import IDENT, Tokens
from ..edits import Edit
from .tables import HALF2_MEMBER_CAST, HALF2_MEMBER_TYPES

_DECL_END = {"=", ";", ",", ")", "[", "{", "("}


def half2_member_edits(toks: Tokens, skip: list[bool] | None = None) -> list[Edit]:
    if not any(t in toks.text for t in HALF2_MEMBER_TYPES):
        return []
    tx = toks.spellings()
    n = len(tx)
    names: set[str] = set()
    for i, t in enumerate(tx):
        if t not in HALF2_MEMBER_TYPES:
            continue
        j = i + 1
        while j < n and tx[j] in ("&", "const", "__restrict__"):
            j += 1
        if j + 1 < n and toks.kinds[j] == IDENT and tx[j + 1] in _DECL_END and tx[j + 1] != "(":
            names.add(tx[j])
    edits: list[Edit] = []
    for i, t in enumerate(tx):
        if t not in names or toks.kinds[i] != IDENT or (skip is not None and skip[i]):
            continue
        if i > 0 and (tx[i - 1] in (".", "->", "::") or tx[i - 1] in HALF2_MEMBER_TYPES):
            continue
        j = i + 1
        if j < n and tx[j] == "[":
            j = closing(tx, j, n) + 1
            if j <= 0:
                continue
        if not (j + 1 < n and tx[j] == "." and tx[j + 1] in ("x", "y")):
            continue
        end = j + 1
        if end + 1 < n and tx[end + 1] in (".", "(", "->"):
            continue  # v.x.foo / v.x(): not the plain member read
        if i >= 6 and "".join(tx[i - 6 : i]) == HALF2_MEMBER_CAST + "(" and tx[end + 1 : end + 2] == [")"]:
            continue  # already reinterpret_cast<half&>(v.x)
        edits.append(Edit(toks.starts[i], toks.starts[i], HALF2_MEMBER_CAST + "(", "half2-member",
                          "half2 member read as half (hipify-clang's half2Member)"))
        edits.append(Edit(toks.ends[end], toks.ends[end], ")", "half2-member"))
    return edits
