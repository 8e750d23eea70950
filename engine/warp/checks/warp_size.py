"""warpSize used as a compile-time constant (W64-09) and hard guards on a 32-lane warp (W64-20), in device
code (handlers called by the device check), host code (host.py) and at file scope (file_scope.py)."""

from __future__ import annotations

from ..hits import Hit, HitLog
from ..lex import ID
from ..tokens import Tokens
from ..words import WARPISH
from .context import DeviceFunction


def warp_size_constant_hit(tokens: Tokens, log: HitLog, k: int, uses: str) -> None:
    """W64-09 at the `warpSize` at k, which `uses` says how the code uses as a constant."""
    log.needs.ws = True
    log.add(Hit("W64-09", k, [tokens.edit(k, "64", "W64-09")], [tokens.edit(k, "HIPPORT_WS", "W64-09")],
                "64 (compile-time)", "HIPPORT_WS (arch-selected constant)",
                f"warpSize is not constexpr from ROCm 7.0: it cannot {uses}.", f"const:{k}"))


def const_warp_size(fn: DeviceFunction, k: int) -> None:
    """`warpSize` sizing an array, as a template argument or initialising a constexpr (ROCm >= 7)."""
    if fn.facts.rocm >= (7, 0) and const_context(fn.tokens, k, fn.body[0]):
        warp_size_constant_hit(fn.tokens, fn.log, k,
                               "size arrays, be a template argument or initialise a constexpr")


def const_context(tokens: Tokens, k: int, a: int) -> bool:
    s = tokens.stmt_start(k, a)
    words = {tokens.texts[q] for q in range(s, k)}
    if words & {"constexpr", "static_assert"}:
        return True
    if "__shared__" in words and any(tokens.texts[q] == "[" for q in range(s, k)):
        return True
    return tokens.texts[k - 1] == "<" and tokens.kinds[k - 2] == ID and tokens.texts[k + 1] in (">", ",")


def guard(tokens: Tokens, log: HitLog, k: int, key: str) -> None:
    """W64-20: `warpSize == 32` (or a warp-size member compared with 32) that fails outright on 64 lanes."""
    tx = tokens.texts
    x = tx[k]
    if x not in ("==", "!="):
        return
    if tokens.is_int(k + 1, 32):
        lhs = tx[k - 1]
        lit = k + 1
    elif tokens.is_int(k - 1, 32):
        lhs = tx[k + 1]
        lit = k - 1
    else:
        return
    if not (lhs == "warpSize" or (WARPISH.search(lhs) and tx[k - 2] in (".", "->"))):
        return  # a constant compared with 32 is one of its uses (roles.py); `WS == 32` stays true after a split
    if not tokens.hard_guard(k):
        return  # `if (warpSize == 32) fast(); else general();` is right on every platform: never flip it
    span = (min(k, lit), max(k, lit))
    wrep = f"{x} 64" if lit > k else f"64 {x}"
    prep = ("<= 64" if x == "==" else "> 64") if lit > k else ("64 >=" if x == "==" else "64 <")
    log.add(Hit("W64-20", lit, [tokens.edit(span[0], wrep, "W64-20", span[1])],
                [tokens.edit(span[0], prep, "W64-20", span[1])],
                "expect 64", "accept any warp size up to 64",
                "Hard guard on a 32-lane warp: fails outright on a 64-lane wavefront.",
                key), claim=[k, lit])


def guard_at(fn: DeviceFunction, k: int) -> None:
    guard(fn.tokens, fn.log, k, fn.key)
