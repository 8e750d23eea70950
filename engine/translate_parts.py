"""Helpers of engine/translate.py's translate_text: the output accumulator, macro-call-site
launches, and CUDA names inside string literals and comments."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .cxx.lexer import COMMENT, LITERAL, Tokens
from .edits import Edit, apply_edits
from .model import Report
from .translate_decide import _RENAME, TranslateOptions, _Decision

_IDENT_IN_TEXT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class _Out:
    edits: list[Edit] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)

    def count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n


def _compose_macro_launches(text: str, sites: list[Any], edits: list[Edit], base: int) -> list[Edit]:
    """Replace each call site by its hipLaunchKernelGGL text; the edits inside a call-site span
    (renames in the arguments) are applied to that span's text, and dropped from the list."""
    for m in sites:
        lo, hi = base + m.start, base + m.end
        inside = [e for e in edits if lo <= e.start and e.end <= hi]
        if not inside and any(e.start < hi and lo < e.end for e in edits):
            continue  # something else rewrites across the call: leave it
        parts: list[str] = []
        for p in m.pieces:
            if isinstance(p, str):
                parts.append(p)
                continue
            s, e = p
            own = [Edit(x.start - base - s, x.end - base - s, x.replacement, x.rule, x.note)
                   for x in inside if base + s <= x.start and x.end <= base + e]
            parts.append(apply_edits(text[s:e], own))
        edits = [e for e in edits if not (lo <= e.start and e.end <= hi)]
        edits.append(Edit(lo, hi, "".join(parts), "launch", "launch written at the macro's call site"))
    return edits


def _has_cuda_code(toks: Tokens) -> bool:
    """Device code or launches: the file needs the HIP runtime header even if no API is called."""
    cuda_words = {"__global__", "__device__", "__shared__", "__constant__", "threadIdx", "blockIdx",
                  "blockDim", "gridDim", "__syncthreads", "<<<"}
    return any(toks.text[s:e] in cuda_words for s, e in zip(toks.starts, toks.ends, strict=True))


def _in_inactive(toks: Tokens, inactive: list[bool], offset: int) -> bool:
    import bisect

    i = bisect.bisect_right(toks.starts, offset) - 1
    return 0 <= i < len(inactive) and inactive[i]


def _translate_inside(toks: Tokens, options: TranslateOptions, decide: Callable[[str], _Decision | None],
                      edit: Callable[..., None], out: _Out, skip: Callable[[int], bool]) -> None:
    """CUDA names inside comments (only when asked) and string literals (hipify-clang's RewriteString).

    A string literal is read as hipify-clang's HipifyAction::RewriteString reads it: from each `cu`
    up to the next space (looking from 4 characters on) is one candidate word; a candidate that is a
    CUDA name with a translation is replaced, anything else (`"CUDA error %s"`, `cudaMalloc()`,
    `cudaMallocX`) stays. Only plain `"..."` literals outside #include lines; `skip(i)` leaves
    tokens out (inactive #if branches)."""
    text = toks.text
    for i, k in enumerate(toks.kinds):
        if k == LITERAL and options.translate_strings and text[toks.starts[i]] == '"' and not skip(i):
            s, e = toks.starts[i] + 1, toks.ends[i] - 1
            begin = text.find("cu", s, e)
            while begin >= 0:
                end = text.find(" ", min(begin + 4, e), e)
                name = text[begin : end if end >= 0 else e]
                d = decide(name)
                if d is not None and d[0] == _RENAME and d[1] != name:
                    edit(begin, begin + len(name), d[1], "api-text", f"{name} -> {d[1]} (in a string literal)")
                    out.count("api")
                if end < 0:
                    break
                begin = text.find("cu", end + 1, e)
        elif k == COMMENT and options.translate_comments:
            for m in _IDENT_IN_TEXT.finditer(text, toks.starts[i], toks.ends[i]):
                d = decide(m.group())
                if d is not None and d[0] == _RENAME and d[1] != m.group():
                    edit(m.start(), m.end(), d[1], "api-text", f"{m.group()} -> {d[1]} (in a comment)")
                    out.count("api")
