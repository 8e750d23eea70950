"""Host variables that hold a warp size of 32 and size launches (W64-10): `int devID, warp_size = 32;` in host
code gets one finding at the initializer, listing its uses (constants.py found the variables)."""

from __future__ import annotations

from ..facts import FileFacts
from ..hits import Hit, HitLog
from ..lex import ID
from ..roles import LAUNCH
from ..tokens import Tokens
from .interface import CheckOutput, Upstream


def in_launch(tokens: Tokens, k: int, a: int, b: int) -> bool:
    """The statement of token k is a kernel launch or a dim3, or sets a name that one uses."""
    s, e = tokens.stmt_bounds(k, a, b)
    words = tokens.texts[s:e]
    if "<<<" in words or "dim3" in words or "hipLaunchKernelGGL" in words:
        return True
    target = next((tokens.texts[q] for q in range(s, e) if tokens.texts[q + 1] == "=" and tokens.kinds[q] == ID), None)
    if target is None:
        return False
    for q in range(a, b):
        if tokens.texts[q] == target and q not in range(s, e):
            s2, e2 = tokens.stmt_bounds(q, a, b)
            if "<<<" in tokens.texts[s2:e2] or "dim3" in tokens.texts[s2:e2]:
                return True
    return False


def check_host_variables(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    """`int devID, warp_size = 32;` in host code: one finding at the initializer, listing its uses."""
    tokens, log = facts.tokens, HitLog(upstream.claimed)
    for name, lit in facts.host_warp_size_vars.items():
        fi = tokens.function_of[lit]
        a, b = tokens.functions[fi].body
        uses = [k for k in range(a, b) if tokens.kinds[k] == ID and tokens.texts[k] == name and k != lit - 2]
        if not any(in_launch(tokens, k, a, b) for k in uses):
            continue  # debug buffers, caps (`t > warpSize ? warpSize : t`): not launch geometry
        const_ctx = any(tokens.texts[q] in ("constexpr",) for q in range(tokens.stmt_start(lit, a), lit)) or any(
            tokens.texts[k - 1] == "<" or tokens.texts[k - 1] == "[" for k in uses)
        first = uses[0] if uses else lit
        w64 = [tokens.edit(lit, "64", "W64-10")]
        port = None if const_ctx else [tokens.edit(lit, "hipport_host_warp_size()", "W64-10")]
        if port is not None:
            log.needs.host_ws = True
        log.add(Hit("W64-10", lit, w64, port, f"{name} = 64", f"{name} = hipport_host_warp_size()",
                     f"Host variable {name} holds a warp size of 32 and is used {len(uses)} times on the host "
                     "(launch geometry, kernel arguments): on MI-series GPUs a wavefront has 64 lanes. Every use "
                     "derives from this one value, so querying the device here is exact for all of them.", f"hostvar:{name}:{fi}", "medium",
                     review="" if port is not None else f"{name} is a compile-time constant on the host "
                     f"(line {tokens.line(first)}): no runtime query fits", uses=uses,
                     use_roles=dict.fromkeys(uses, LAUNCH)))
    return CheckOutput(log)
