"""`#include` lines: CUDA headers -> HIP headers, hip_runtime.h once per file.

Conventions (hipify-clang's): `#include <hip/hip_runtime.h>` replaces the first CUDA main header in
place (always in angle brackets); other headers keep the user's `<>` or `""`; later headers that map
to it, or to a header already included, are removed (their line is left empty so line numbers stay); a CUDA file (.cu/.cuh) with device code or runtime calls that
ends up without hip_runtime.h gets it inserted (nvcc includes cuda_runtime.h implicitly; a library
header such as hipblas.h does not bring it), right after `#pragma once` in a header that has one,
else before the first line of code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .cxx.lexer import COMMENT, Tokens
from .edits import Edit
from .translate_tables import HIP_RUNTIME_HEADER

_INCLUDE = re.compile(r'#\s*include\s*([<"])([^>"\r\n]+)([>"])')


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


def _header_target(entry: object, roc: bool) -> str:
    hip: str = getattr(entry, "hip", "")
    rocn: str = getattr(entry, "roc", "")
    return rocn if roc and rocn else hip


def include_edits(
    toks: Tokens, directives: list[tuple[int, int, str]], mapping: Any, *, roc: bool = False,
    skip: set[int] | None = None,
) -> IncludeResult:
    """Edits for every `#include` directive (directive indices in `skip` are left alone)."""
    text = toks.text
    edits: list[Edit] = []
    problems: list[IncludeProblem] = []
    parsed: list[tuple[int, int, int, int, str]] = []  # (dir start, dir end, name start, name end, header)
    for k, (a, b, name) in enumerate(directives):
        if name != "include" or (skip and k in skip):
            continue
        start = toks.starts[a]
        end = toks.ends[b - 1]
        # a trailing comment belongs to the line, not to the directive we may remove
        while b - 1 > a and toks.kinds[b - 1] == COMMENT:
            b -= 1
            end = toks.ends[b - 1]
        m = _INCLUDE.match(text, start, end)
        if not m:
            continue
        parsed.append((start, end, m.start(1), m.end(3), m.group(2).strip()))
    included: set[str] = {h for *_, h in parsed}  # HIP headers already there count as included
    has_runtime = HIP_RUNTIME_HEADER in included
    emitted: set[str] = set(included)
    cuda_seen = 0
    header_of = mapping.header
    for start, end, ns, ne, header in parsed:
        entry = header_of(header)
        if entry is None:
            continue
        cuda_seen += 1
        target = _header_target(entry, roc)
        if getattr(entry, "status", "supported") == "unsupported":
            problems.append(IncludeProblem(start, end, header, f"CUDA header <{header}> has no HIP equivalent"))
            continue
        if not target:
            # dropped by hipify (e.g. device_launch_parameters.h): its contents come with hip_runtime.h
            target = HIP_RUNTIME_HEADER
        if target in emitted:
            edits.append(Edit(start, end, "", "include", f"<{header}>: {target} already included"))
            continue
        emitted.add(target)
        if target == HIP_RUNTIME_HEADER:
            has_runtime = True
        # hip_runtime.h always in angle brackets (our convention); other headers keep the user's
        # delimiters, as hipify-clang does
        quoted = text[ns] == '"' and target != HIP_RUNTIME_HEADER
        new = f'"{target}"' if quoted else f"<{target}>"
        edits.append(Edit(ns, ne, new, "include", f"{text[ns:ne]} -> {new}"))
    return IncludeResult(edits, problems, has_runtime, cuda_seen)


def runtime_insertion(toks: Tokens, directives: list[tuple[int, int, str]], newline: str) -> Edit:
    """Where `#include <hip/hip_runtime.h>` goes in a file that has no CUDA header: after a
    `#pragma once`, else at the start of the first line holding code (after a leading comment)."""
    text = toks.text
    line = f"#include <{HIP_RUNTIME_HEADER}>"
    for a, b, name in directives:
        if name == "pragma" and b - a >= 3 and toks.spelling(a + 2) == "once":
            end = toks.ends[b - 1]
            nl = text.find("\n", end)
            if nl < 0:
                return Edit(len(text), len(text), newline + line + newline, "include", "hip_runtime.h after #pragma once")
            return Edit(nl + 1, nl + 1, line + newline, "include", "hip_runtime.h after #pragma once")
    first = next((toks.starts[i] for i in range(len(toks)) if toks.kinds[i] != COMMENT), len(text))
    bol = max(text.rfind("\n", 0, first), text.rfind("\r", 0, first)) + 1
    if bol < first and text[bol:first].strip():
        bol = first  # code shares the line with a comment: insert right before the code
    return Edit(bol, bol, line + newline, "include", "hip_runtime.h (nvcc includes cuda_runtime.h implicitly)")
