"""`#include` lines: CUDA headers -> HIP headers, and the one `hip/hip_runtime.h` a file needs.

The rules are hipify-clang's (ROCm/HIPIFY src/HipifyAction.cpp: InclusionDirective, Exclude,
EndSourceFileAction), as its unit tests (tests/conformance) check them:
- A CUDA header is replaced in place, keeping the user's `<>` or `""`; the ROC/MIOpen header with
  --roc (--miopen) for the libraries that have one.
- Each library's main header is written once: a later main header of the same library (cuda.h after
  cuda_runtime.h, cusolverRf.h after cusolverDn.h) is removed from `#` to the file name, as is a
  header HIP has no counterpart for (device_launch_parameters.h); the line itself stays.
- A file without the runtime header gets `#include <hip/hip_runtime.h>` on a line of its own: after
  the include guard's `#ifndef NAME` or `#pragma once` (the earlier), else before the first
  `#include`, else before the first line of code.
- hipport's one addition: a HIP header that needs hip_runtime.h before it (NEEDS_RUNTIME_FIRST:
  cooperative groups, hipRAND's kernel header) never comes before it. When a CUDA runtime header
  follows such a header, hip_runtime.h is put before the first of them instead (hipify-clang keeps
  the order, which does not build with HIP 5.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..cxx.lexer import COMMENT, Tokens
from ..edits import Edit
from .tables import (
    HIP_RUNTIME_HEADER,
    MAIN_ONCE_APIS,
    NEEDS_RUNTIME_FIRST,
    RAND_KERNEL_HEADER,
    RAND_ONCE_HIP,
    RAND_ONCE_ROC,
    ROC_APIS,
)

_INCLUDE = re.compile(r'#\s*include\s*([<"])([^>"\r\n]+)([>"])')
_MAIN = "CONV_INCLUDE_CUDA_MAIN_H"
_MAIN_V2 = "CONV_INCLUDE_CUDA_MAIN_V2_H"


@dataclass(frozen=True, slots=True)
class IncludeProblem:
    start: int
    end: int
    header: str
    message: str


@dataclass
class IncludeResult:
    edits: list[Edit]
    problems: list[IncludeProblem]
    has_runtime: bool       # hip/hip_runtime.h is included after translation
    cuda_headers: int       # CUDA headers seen
    first_include: int = -1  # offset of the first #include's `#` (-1: none)


def _to_roc(api: str, roc: bool, miopen: bool) -> bool:
    """hipify-clang's Statistics::isToRoc for a header (no header is ROC_MIOPEN_ONLY)."""
    return api in ROC_APIS and (roc or miopen)


class _Seen:
    """hipify-clang's `inserted*Header` flags and its Exclude(): which headers are already written."""

    def __init__(self) -> None:
        self.flags: set[str] = set()

    def once(self, flag: str) -> bool:
        """True (exclude) when `flag` was set before; sets it."""
        if flag in self.flags:
            return True
        self.flags.add(flag)
        return False

    def exclude(self, kind: str, api: str, hip: str, roc_name: str, to_roc: bool) -> bool:
        if kind == _MAIN:
            if api in ("API_DRIVER", "API_RUNTIME"):
                return self.once("runtime")
            if api == "API_RAND":
                if to_roc:
                    return False
                return self.once(hip) if hip in RAND_ONCE_HIP else False
            return self.once(api) if api in MAIN_ONCE_APIS else False
        if kind == _MAIN_V2:
            if api not in ("API_BLAS", "API_SPARSE"):
                return False
            if self.once(api + "_v2"):
                return True
            return api in self.flags
        if not hip:
            return True
        if api == "API_RAND":
            if to_roc:
                return self.once(roc_name) if roc_name in RAND_ONCE_ROC else False
            return self.once(hip) if hip == RAND_KERNEL_HEADER else False
        return False


def include_edits(
    toks: Tokens, directives: list[tuple[int, int, str]], mapping: Any, *, roc: bool = False,
    miopen: bool = False, skip: set[int] | None = None,
) -> IncludeResult:
    """Edits for every `#include` directive (directive indices in `skip` are left alone)."""
    text = toks.text
    edits: list[Edit] = []
    problems: list[IncludeProblem] = []
    parsed: list[tuple[int, int, int, str]] = []  # ('#' offset, name start, name end, header)
    first_include = -1
    for k, (a, b, name) in enumerate(directives):
        if name != "include" or (skip and k in skip):
            continue
        start = toks.starts[a]
        end = toks.ends[b - 1]
        while b - 1 > a and toks.kinds[b - 1] == COMMENT:
            b -= 1
            end = toks.ends[b - 1]
        m = _INCLUDE.match(text, start, end)
        if first_include < 0:
            first_include = start
        if not m:
            continue
        parsed.append((start, m.start(1), m.end(3), m.group(2).strip()))
    has_runtime = any(h == HIP_RUNTIME_HEADER for *_, h in parsed)  # already ported
    seen = _Seen()
    cuda_seen = 0
    needs_runtime_at = -1  # '#' of the first header that must follow hip_runtime.h
    header_of = mapping.header
    for start, ns, ne, header in parsed:
        entry = header_of(header)
        if entry is None:
            continue
        cuda_seen += 1
        if entry.status == "unsupported":
            problems.append(IncludeProblem(start, ne, header, f"CUDA header <{header}> has no HIP equivalent"))
            continue
        to_roc = _to_roc(entry.api, roc, miopen)
        target = (entry.roc or entry.hip) if to_roc else entry.hip
        if seen.exclude(entry.kind, entry.api, entry.hip, entry.roc, to_roc):
            edits.append(Edit(start, ne, "", "include", f"{text[ns:ne]}: removed ({target or 'nothing'} "
                              "already included or not needed)"))
            continue
        new = f'"{target}"' if text[ns] == '"' else f"<{target}>"
        if target == HIP_RUNTIME_HEADER:
            if has_runtime:  # a second way to the same header (cuda_runtime.h after hip/hip_runtime.h)
                edits.append(Edit(start, ne, "", "include", f"{text[ns:ne]}: {target} already included"))
                continue
            has_runtime = True
            if needs_runtime_at >= 0:  # keep it before the header that needs it
                edits.append(Edit(start, ne, "", "include", f"{text[ns:ne]}: moved before <{header}>'s user"))
                line = text[start:ns] + new
                edits.append(Edit(needs_runtime_at, needs_runtime_at, line + _newline(text),
                                  "include", f"{line}: needed before {text[needs_runtime_at:ns]}"))
                continue
        elif target in NEEDS_RUNTIME_FIRST and not has_runtime and needs_runtime_at < 0:
            needs_runtime_at = start
        edits.append(Edit(ns, ne, new, "include", f"{text[ns:ne]} -> {new}"))
    return IncludeResult(edits, problems, has_runtime, cuda_seen, first_include)


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text[:4096] else "\n"


def runtime_insertion(toks: Tokens, directives: list[tuple[int, int, str]], newline: str,
                      first_include: int, skip: set[int] | None = None) -> Edit:
    """`#include <hip/hip_runtime.h>` for a file that has no runtime header, where hipify-clang puts it:
    after the include guard's `#ifndef NAME` or `#pragma once` (the earlier), else before the first
    `#include`, else before the first line of code. As a line of its own (hipify-clang also adds an
    empty line before it; hipport leaves the other lines as they are)."""
    text = toks.text
    line = f"#include <{HIP_RUNTIME_HEADER}>"
    places: list[int] = []
    guard = _include_guard_end(toks, directives)
    if guard >= 0:
        places.append(guard)
    for k, (a, b, name) in enumerate(directives):
        if not (skip and k in skip) and name == "pragma" and b - a >= 3 and toks.spelling(a + 2) == "once":
            places.append(toks.ends[b - 1])
            break
    if places:
        end = min(places)
        nl = text.find("\n", end)
        if nl < 0:
            return Edit(len(text), len(text), newline + line + newline, "include",
                        "hip_runtime.h after the include guard / #pragma once")
        return Edit(nl + 1, nl + 1, line + newline, "include", "hip_runtime.h after the include guard / #pragma once")
    at = first_include
    if at < 0:  # no #include: before the first line of code (a leading comment stays first)
        at = next((toks.starts[i] for i in range(len(toks)) if toks.kinds[i] != COMMENT), -1)
        if at < 0:  # only comments: at the end, on a line of its own
            sep = "" if not text or text.endswith(("\n", "\r")) else newline
            return Edit(len(text), len(text), sep + line + newline, "include", "hip_runtime.h at the end")
    bol = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
    if bol < at and text[bol:at].strip():
        bol = at  # something shares the line: insert right before the directive or code
    where = "before the first #include" if first_include >= 0 else "(nvcc includes cuda_runtime.h implicitly)"
    return Edit(bol, bol, line + newline, "include", f"hip_runtime.h {where}")


def _include_guard_end(toks: Tokens, directives: list[tuple[int, int, str]]) -> int:
    """End offset of NAME in an `#ifndef NAME` that guards the whole file (clang's controlling
    macro: only comments before it, only comments after its `#endif`), else -1."""
    n = len(toks)
    first = next((i for i in range(n) if toks.kinds[i] != COMMENT), n)
    last = next((i for i in range(n - 1, -1, -1) if toks.kinds[i] != COMMENT), -1)
    if not directives or first == n:
        return -1
    a0, b0, name0 = directives[0]
    if a0 != first or name0 != "ifndef" or b0 - a0 < 3:
        return -1
    depth = 0
    for a, b, name in directives:  # noqa: B007  (a: the #endif found)
        if name in ("if", "ifdef", "ifndef"):
            depth += 1
        elif name in ("elif", "else", "elifdef", "elifndef") and depth == 1:
            return -1
        elif name == "endif":
            depth -= 1
            if depth == 0:
                return toks.ends[a0 + 2] if all(toks.kinds[j] == COMMENT for j in range(b, last + 1)) else -1
    return -1
