"""Function scopes over tokens: which tokens are device code, which are host code.

A token-level approximation of the AST: a `{` whose header has a parameter list starts a function
body; namespaces, `extern "C"` and class bodies are transparent; initializer braces are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from .lex import ID, PUNCT, STR, Columns

_TYPE_SCOPES = frozenset({"struct", "class", "union", "enum"})


@dataclass(slots=True)
class Func:
    index: int
    name: str
    device: bool       # __global__ or __device__ (possibly also __host__)
    kernel: bool       # __global__
    header: tuple[int, int]  # token range [a, b) of the declaration before `{`
    body: tuple[int, int]    # token indices of `{` and `}`


def find_functions(c: Columns, pairs: dict[int, int],
                   defines: list[int] | None = None) -> tuple[list[Func], list[int]]:
    """Return the functions and, per token, the index of the function whose body holds it (-1).
    `defines`: the indices of the tokens spelled `define`, when the caller knows them (else all are read)."""
    kd, tt, pp = c.kinds, c.texts, c.pps
    funcs: list[Func] = []
    n = len(c)
    owner = [-1] * n
    dev_macros = _device_macros(c, defines)
    i = 0
    hdr = 0
    while i < n:
        if pp[i] >= 0:
            i += 1
            hdr = i
            continue
        if kd[i] == PUNCT and tt[i] in (";", "}"):
            i += 1
            hdr = i
            continue
        if kd[i] == PUNCT and tt[i] == "{":
            close = pairs.get(i)
            texts = [tt[k] for k in range(hdr, i) if pp[k] < 0]
            if "namespace" in texts or ("extern" in texts and any(kd[k] == STR for k in range(hdr, i) if pp[k] < 0)):
                i += 1
                hdr = i
                continue
            if _TYPE_SCOPES.intersection(texts) and "(" not in texts:
                i += 1
                hdr = i
                continue
            if close is None:
                break
            if "(" in texts and "=" not in _top_level(texts):
                name, dev, kern = _signature(c, hdr, i, pairs, dev_macros)
                fi = len(funcs)
                funcs.append(Func(fi, name, dev, kern, (hdr, i), (i, close)))
                owner[i:close + 1] = [fi] * (close + 1 - i)
            i = close + 1
            hdr = i
            continue
        i += 1
    return funcs, owner


def _top_level(texts: list[str]) -> list[str]:
    depth = 0
    out: list[str] = []
    for x in texts:
        if x in ("(", "[", "<"):
            depth += 1
        elif x in (")", "]", ">") and depth:
            depth -= 1
        elif depth == 0:
            out.append(x)
    return out


def _device_macros(c: Columns, defines: list[int] | None = None) -> frozenset[str]:
    """Names of `#define DEVICE __device__`-style macros (`__host__ __device__`, `__forceinline__ __device__`)."""
    tt, pp, n = c.texts, c.pps, len(c)
    out: set[str] = set()
    for i in range(n) if defines is None else defines:
        if pp[i] >= 0 and tt[i] == "define" and i + 2 < n and pp[i + 1] == pp[i]:
            body = {tt[k] for k in range(i + 2, min(n, i + 6)) if pp[k] == pp[i]}
            if body & {"__device__", "__global__"}:
                out.add(tt[i + 1])
    return frozenset(out)


def _signature(c: Columns, a: int, b: int, pairs: dict[int, int],
               dev_macros: frozenset[str] = frozenset()) -> tuple[str, bool, bool]:
    kd, tt, pp = c.kinds, c.texts, c.pps
    texts = {tt[k] for k in range(a, b) if pp[k] < 0}
    kern = "__global__" in texts
    dev = kern or "__device__" in texts or bool(texts & dev_macros)
    name = "?"
    for k in range(b - 1, a - 1, -1):
        if tt[k] == ")" and k in pairs:
            j = pairs[k]
            if j - 1 >= a and kd[j - 1] == ID and tt[j - 1] != "__launch_bounds__":
                name = tt[j - 1]
                break
    return name, dev, kern
