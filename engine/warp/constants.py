"""The file's warp-size and full-mask constants, and host variables that hold a warp size of 32, found once
per file: `#define WARP_SIZE 32`, `constexpr int kWarp = 32`, `enum { WS = 32 }`, `const unsigned FULL =
0xffffffff`, a host `int devID, warp_size = 32;`. Name -> token index of the literal."""

from __future__ import annotations

from dataclasses import dataclass, field

from .lex import ID, NUM, int_value
from .tokens import Tokens
from .words import FULL32, TYPE_WORDS, WARPISH, hex8


@dataclass(frozen=True)
class WarpConstants:
    warp_size: dict[str, int] = field(default_factory=dict)   # constants of value 32 named like a warp size
    full_masks: dict[str, int] = field(default_factory=dict)  # constants spelled 0xffffffff
    host_warp_size_vars: dict[str, int] = field(default_factory=dict)  # host variables `warp_size = 32`


def collect_constants(tokens: Tokens) -> WarpConstants:
    found = WarpConstants()
    # tokens spelled `define` or followed by `=`, in order
    for i in sorted(set(tokens.positions(("define",))) | {p - 1 for p in tokens.positions(("=",)) if p >= 1}):
        _defined_constant(tokens, i, found)
        _assigned_constant(tokens, i, found)
    return found


def _defined_constant(tokens: Tokens, i: int, found: WarpConstants) -> None:
    """#define NAME 32 / #define NAME (32) at the `define` token i."""
    kd, pp, tt, n = tokens.kinds, tokens.directive, tokens.texts, tokens.count
    if not (pp[i] >= 0 and tt[i] == "define" and i + 2 < n and pp[i + 1] == pp[i] and kd[i + 1] == ID):
        return
    name = tt[i + 1]
    body = [k for k in range(i + 2, min(n, i + 8)) if pp[k] == pp[i]]
    vals = [k for k in body if kd[k] == NUM]
    if len(vals) == 1 and all(tt[k] in ("(", ")") or k == vals[0] for k in body):
        v = int_value(tt[vals[0]])
        if v == 32 and WARPISH.search(name):
            found.warp_size[name] = vals[0]
        elif v == FULL32 and hex8(tt[vals[0]]):
            found.full_masks[name] = vals[0]


def _assigned_constant(tokens: Tokens, i: int, found: WarpConstants) -> None:
    """constexpr|const [static] T NAME = 32 ;   enum { NAME = 32 }   (NAME at token i)."""
    kd, tt, n = tokens.kinds, tokens.texts, tokens.count
    if not (tokens.directive[i] < 0 and kd[i] == ID and tt[i + 1] == "=" and i + 3 < n and kd[i + 2] == NUM
            and tt[i + 3] in (";", ",", "}")):
        return
    v = int_value(tt[i + 2])
    prev = {tt[k] for k in range(max(0, i - 5), i)}
    constish = bool(prev & {"constexpr", "const", "enum"}) or tt[i - 1] in ("{", ",")
    fi = tokens.function_of[i]
    host = fi >= 0 and not tokens.functions[fi].device
    declares = tt[i - 1] in TYPE_WORDS or tt[i - 1] in ("const", ",")
    if v == 32 and WARPISH.search(tt[i]) and host and declares:
        found.host_warp_size_vars[tt[i]] = i + 2  # `int devID, warp_size = 32;` (checks/host_variables.py)
    elif v == 32 and WARPISH.search(tt[i]) and constish:
        found.warp_size[tt[i]] = i + 2
    elif v == FULL32 and hex8(tt[i + 2]) and prev & {"constexpr", "const"} and fi < 0:
        found.full_masks[tt[i]] = i + 2
