"""Preprocessor selectors of the warp size (W64-22): `#if __AMDGCN_WAVEFRONT_SIZE == 64` (deprecated, removed
in recent ROCm: the #if silently picks 32), and, when the fat binary includes a wave32 architecture, an
`#ifdef __HIP_PLATFORM_AMD__` branch that defines a warp size of 64 for every AMD target."""

from __future__ import annotations

from ...edits import Edit
from ..facts import FileFacts
from ..hits import Hit, HitLog
from ..tokens import Tokens
from ..words import WARPISH
from .interface import CheckOutput, Upstream

WAVEFRONT_SIZE_MACROS = ("__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__")
SELECT_GFX9 = "select 64 by __GFX8__/__GFX9__"


def check_directives(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    tokens, log = facts.tokens, HitLog(upstream.claimed)
    pp, tt, n = tokens.directive, tokens.texts, tokens.count
    # every other token is stepped over: from one `#` that opens a directive to the next
    for i in tokens.positions(("#",)):
        if not (pp[i] >= 0 and i + 1 < n and pp[i + 1] == pp[i]) or (i > 0 and pp[i - 1] == pp[i]):
            continue
        d = tt[i + 1]
        end = i + 2
        while end < n and pp[end] == pp[i]:
            end += 1
        if d in ("if", "elif"):
            _wavefront_size_tests(tokens, log, i, end)
        if d in ("ifdef", "if") and facts.wave32:
            _amd_branch(tokens, log, i, end)
    return CheckOutput(log)


def _wavefront_size_tests(tokens: Tokens, log: HitLog, i: int, end: int) -> None:
    """`__AMDGCN_WAVEFRONT_SIZE` in the #if/#elif at token i (its tokens end before `end`)."""
    tx = tokens.texts
    for q in range(i + 2, end):
        if tx[q] not in WAVEFRONT_SIZE_MACROS:
            continue
        if tx[q - 1] == "defined":
            e = tokens.edit(q - 1, "1", "W64-22")
        elif tx[q - 1] == "(" and tx[q - 2] == "defined":
            e = tokens.edit(q - 2, "1", "W64-22", q + 1)
        else:
            e = tokens.edit(q, "(defined(__GFX8__) || defined(__GFX9__) ? 64 : 32)", "W64-22")
        log.add(Hit("W64-22", q, [e], [e], SELECT_GFX9, f"{SELECT_GFX9} (device pass)",
                    "__AMDGCN_WAVEFRONT_SIZE is deprecated and removed in recent ROCm: "
                    "#if on it silently picks 32.", f"w32sel:{i}"),
                claim=[z for z in range(q - 2, q + 2) if tokens.starts[z] >= e.start and tokens.ends[z] <= e.end])


def _amd_branch(tokens: Tokens, log: HitLog, i: int, end: int) -> None:
    """The #if/#ifdef at token i tests the AMD platform and its branch defines a warp constant of 64."""
    names = tokens.names(i + 2, end)
    if "__HIP_PLATFORM_AMD__" not in names and "__HIP_PLATFORM_HCC__" not in names:
        return
    pp, tx = tokens.directive, tokens.texts
    q = end
    while q < tokens.count and not (pp[q] >= 0 and tx[q] == "#" and tx[q + 1] in ("else", "elif", "endif")):
        if pp[q] >= 0 and tx[q] == "define" and WARPISH.search(tx[q + 1]) and tokens.is_int(q + 2, 64):
            e = Edit(tokens.starts[i], tokens.ends[end - 1], "#if defined(__GFX8__) || defined(__GFX9__)", "W64-22")
            log.add(Hit("W64-22", i + 1, None, [e], "", SELECT_GFX9,
                        "Warp size 64 chosen for every AMD target: RDNA (gfx10/11/12) in this "
                        "fat binary has 32-lane waves.", f"w32sel:{i}"), claim=range(i, end))
            return
        q += 1
