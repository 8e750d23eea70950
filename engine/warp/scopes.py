"""Function scopes over tokens: which tokens are device code, which are host code.

A token-level approximation of the AST: a `{` whose header has a parameter list starts a function
body; namespaces, `extern "C"` and class bodies are transparent; initializer braces are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from .lex import ID, PUNCT, STR, Tok

_TYPE_SCOPES = frozenset({"struct", "class", "union", "enum"})


@dataclass(slots=True)
class Func:
    index: int
    name: str
    device: bool       # __global__ or __device__ (possibly also __host__)
    kernel: bool       # __global__
    header: tuple[int, int]  # token range [a, b) of the declaration before `{`
    body: tuple[int, int]    # token indices of `{` and `}`


def find_functions(toks: list[Tok], pairs: dict[int, int],
                   defines: list[int] | None = None) -> tuple[list[Func], list[int]]:
    """Return the functions and, per token, the index of the function whose body holds it (-1).
    `defines`: the indices of the tokens spelled `define`, when the caller knows them (else all are read)."""
    funcs: list[Func] = []
    owner = [-1] * len(toks)
    n = len(toks)
    dev_macros = _device_macros(toks, defines)
    i = 0
    hdr = 0
    while i < n:
        t = toks[i]
        if t.pp >= 0:
            i += 1
            hdr = i
            continue
        if t.kind == PUNCT and t.text in (";", "}"):
            i += 1
            hdr = i
            continue
        if t.kind == PUNCT and t.text == "{":
            close = pairs.get(i)
            texts = [x.text for x in toks[hdr:i] if x.pp < 0]
            header_toks = [x for x in toks[hdr:i] if x.pp < 0]
            if "namespace" in texts or ("extern" in texts and any(x.kind == STR for x in header_toks)):
                i += 1
                hdr = i
                continue
            if _TYPE_SCOPES.intersection(texts) and "(" not in texts:
                i += 1
                hdr = i
                continue
            if close is None:
                break
            if "(" in texts and "=" not in _top_level(header_toks):
                name, dev, kern = _signature(toks, hdr, i, pairs, dev_macros)
                fi = len(funcs)
                funcs.append(Func(fi, name, dev, kern, (hdr, i), (i, close)))
                owner[i:close + 1] = [fi] * (close + 1 - i)
            i = close + 1
            hdr = i
            continue
        i += 1
    return funcs, owner


def _top_level(toks: list[Tok]) -> list[str]:
    depth = 0
    out: list[str] = []
    for t in toks:
        if t.text in ("(", "[", "<"):
            depth += 1
        elif t.text in (")", "]", ">") and depth:
            depth -= 1
        elif depth == 0:
            out.append(t.text)
    return out


def _device_macros(toks: list[Tok], defines: list[int] | None = None) -> frozenset[str]:
    """Names of `#define DEVICE __device__`-style macros (`__host__ __device__`, `__forceinline__ __device__`)."""
    out: set[str] = set()
    for i in range(len(toks)) if defines is None else defines:
        t = toks[i]
        if t.pp >= 0 and t.text == "define" and i + 2 < len(toks) and toks[i + 1].pp == t.pp:
            body = {toks[k].text for k in range(i + 2, min(len(toks), i + 6)) if toks[k].pp == t.pp}
            if body & {"__device__", "__global__"}:
                out.add(toks[i + 1].text)
    return frozenset(out)


def _signature(toks: list[Tok], a: int, b: int, pairs: dict[int, int],
               dev_macros: frozenset[str] = frozenset()) -> tuple[str, bool, bool]:
    texts = {toks[k].text for k in range(a, b) if toks[k].pp < 0}
    kern = "__global__" in texts
    dev = kern or "__device__" in texts or bool(texts & dev_macros)
    name = "?"
    for k in range(b - 1, a - 1, -1):
        if toks[k].text == ")" and k in pairs:
            j = pairs[k]
            if j - 1 >= a and toks[j - 1].kind == ID and toks[j - 1].text != "__launch_bounds__":
                name = toks[j - 1].text
                break
    return name, dev, kern
