"""Overloads that collapse: two function definitions whose CUDA parameter types differ but map to one
HIP type (helper_cuda.h's `_cudaGetErrorEnum(cudaError_t)` and `_cudaGetErrorEnum(CUresult)` both
become `_cudaGetErrorEnum(hipError_t)`) would be a redefinition after translation. The first
definition is kept; each later one is put under `#if 0` and reported (`manual`: calls that went to
it now reach the kept one, e.g. HIP's error names instead of the driver API's).

Definitions in different branches of one `#if` chain never both exist and are left alone; only
definitions in the same scope (brace nesting) are compared, templates are not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..cxx.brackets import matching
from ..cxx.lexer import COMMENT, IDENT, KEYWORD, Tokens
from ..edits import Edit, apply_edits

_BODY = re.compile(r"\)\s*(?:const\s*)?\{")
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof"})


@dataclass(frozen=True, slots=True)
class Collapsed:
    start: int        # str offset of the dropped definition's first token
    end: int          # just after its closing brace
    name: str
    kept_at: int      # str offset of the kept definition's name
    hip_params: str


def _branch_paths(toks: Tokens, directives: Sequence[tuple[int, int, str]]) -> list[tuple[tuple[int, int], ...]]:
    """For each token, the #if chains it sits in: ((chain id, branch number), ...)."""
    n = len(toks)
    path: list[tuple[int, int]] = []
    out: list[tuple[tuple[int, int], ...]] = [()] * n
    at = 0
    current: tuple[tuple[int, int], ...] = ()
    for a, b, name in directives:
        for k in range(at, a):
            out[k] = current
        at = b
        if name in ("if", "ifdef", "ifndef"):
            path.append((a, 0))
        elif name in ("elif", "else", "elifdef", "elifndef") and path:
            chain, branch = path[-1]
            path[-1] = (chain, branch + 1)
        elif name == "endif" and path:
            path.pop()
        current = tuple(path)
    for k in range(at, n):
        out[k] = current
    return out


def _exclusive(p: tuple[tuple[int, int], ...], q: tuple[tuple[int, int], ...]) -> bool:
    return any(a[0] == b[0] and a[1] != b[1] for a, b in zip(p, q, strict=False))


def collapsed_definitions(toks: Tokens, directives: Sequence[tuple[int, int, str]], edits: Sequence[Edit],
                          base: int = 0) -> list[Collapsed]:
    """Later definitions that the edits (offsets shifted by `base`) turn into redefinitions."""
    twice = _names_defined_twice(toks.text)
    if not twice:
        return []
    text, kinds, words = toks.text, toks.kinds, toks.spellings()
    code = _Code.of(toks, directives)
    sig = code.sig
    paths: list[tuple[tuple[int, int], ...]] | None = None
    seen: dict[tuple[str, int, str], tuple[int, str, int]] = {}
    found: list[Collapsed] = []
    for j, k in enumerate(sig[:-1]):
        if kinds[k] != IDENT or words[k] not in twice or words[sig[j + 1]] != "(":
            continue
        definition = code.definition(j)
        if definition is None:
            continue
        first, close, body = definition
        lo, hi = toks.starts[sig[j + 1]] + 1, toks.starts[close]
        own = [Edit(e.start - base - lo, e.end - base - lo, e.replacement, e.rule)
               for e in edits if lo <= e.start - base and e.end - base <= hi]
        cuda_params = " ".join(text[lo:hi].split())
        hip_params = " ".join(apply_edits(text[lo:hi], own).split())
        key = (words[k], code.scope[k], hip_params)
        if key not in seen:
            seen[key] = (toks.starts[k], cuda_params, k)
            continue
        kept_at, kept_cuda, kept_tok = seen[key]
        if kept_cuda == cuda_params:
            continue  # the same definition twice already in CUDA: not ours to judge
        if paths is None:
            paths = _branch_paths(toks, directives)
        if not _exclusive(paths[kept_tok], paths[k]):
            found.append(Collapsed(toks.starts[sig[first]], toks.ends[code.pairs[body]], words[k], kept_at,
                                   hip_params))
    return found


def _names_defined_twice(text: str) -> set[str]:
    """Names defined twice (`name(params) {`): without one there is nothing to compare (most files).
    Found from each `) {` back to its `(` in the raw text, before any token work (a cheap pre-filter:
    it counts parentheses in comments and strings too, which the token pass then never confirms)."""
    counts: dict[str, int] = {}
    for m in _BODY.finditer(text):
        stop = max(0, m.start() - 4000)
        j = matching(text.__getitem__, m.start(), stop - 1, ")", "(", -1)  # back to the `(`
        e = j
        while e > 0 and text[e - 1] in " \t\r\n":
            e -= 1
        b = e
        while b > 0 and (text[b - 1].isalnum() or text[b - 1] == "_"):
            b -= 1
        name = text[b:e]
        if name and not name[0].isdigit() and name not in _NOT_FUNCTIONS:
            counts[name] = counts.get(name, 0) + 1
    return {name for name, c in counts.items() if c > 1}


@dataclass
class _Code:
    """The significant tokens of code (no comments, no directives), with each one's brace scope and
    the matching brackets."""
    toks: Tokens
    sig: list[int]             # token indices
    pos: dict[int, int]        # token index -> position in sig
    scope: dict[int, int]      # token index -> its enclosing `{` (-1 at file scope)
    pairs: dict[int, int]      # opening bracket -> its closing one

    @classmethod
    def of(cls, toks: Tokens, directives: Sequence[tuple[int, int, str]]) -> _Code:
        kinds, words = toks.kinds, toks.spellings()
        n = len(toks)
        in_directive = [False] * n
        for a, b, _nm in directives:
            for k in range(a, b):
                in_directive[k] = True
        sig = [k for k in range(n) if kinds[k] != COMMENT and not in_directive[k]]
        scope: dict[int, int] = {}
        stack: list[int] = [-1]
        pairs: dict[int, int] = {}
        opens: list[int] = []
        for k in sig:
            s = words[k]
            scope[k] = stack[-1]
            if s in ("(", "{", "["):
                opens.append(k)
                if s == "{":
                    stack.append(k)
            elif s in (")", "}", "]") and opens:
                pairs[opens.pop()] = k
                if s == "}" and len(stack) > 1:
                    stack.pop()
        return cls(toks, sig, {k: j for j, k in enumerate(sig)}, scope, pairs)

    def definition(self, j: int) -> tuple[int, int, int] | None:
        """sig[j] names a non-template function definition `type name(params) [const] {`: (position
        in sig of the declaration's first token, token of the `)`, token of the `{`); else None."""
        sig, pos, pairs, kinds, sp = self.sig, self.pos, self.pairs, self.toks.kinds, self.toks.spellings().__getitem__
        close = pairs.get(sig[j + 1])
        if close is None or pos[close] + 1 >= len(sig):
            return None
        after = sig[pos[close] + 1]
        while sp(after) in ("const", "noexcept", "override") and pos[after] + 1 < len(sig):
            after = sig[pos[after] + 1]
        if sp(after) != "{" or after not in pairs:
            return None
        prev = sig[j - 1] if j else -1
        if prev < 0 or not (kinds[prev] in (IDENT, KEYWORD) or sp(prev) in ("*", "&", ">", "::")) or sp(prev) in (
                "return", "else", "new", "delete", "throw", "case"):
            return None
        first = j  # the declaration's first token: back over the return type
        while first > 0 and (kinds[sig[first - 1]] in (IDENT, KEYWORD) or sp(sig[first - 1]) in ("*", "&", "::")):
            first -= 1
        if sp(sig[first]) == "template" or (first > 0 and sp(sig[first - 1]) == ">"):
            return None
        return first, close, after
