"""What a translation unit's own headers tell the warp analysis (issue 9: "follow a value through the
translation unit and the project's own headers"): warp-size constants defined in a header and used
here, and kernels defined in a header that take their lanes from warpSize (so a launch here that gives
them 32-wide blocks passes the wrong width). Only quoted includes that resolve next to the including
file are read, two levels deep; system and toolkit headers are never opened.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from .base import ProjectFacts  # the facts type lives with Result/Hit: base must not import this module

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\r\n]+)"', re.M)
_MAX_BYTES = 4 << 20


def project_facts(path: Path | None, text: str) -> ProjectFacts:
    if path is None:
        return ProjectFacts()
    seen: list[Path] = []
    todo = [(path.parent, text, 0)]
    while todo:
        base, body, depth = todo.pop()
        for inc in _INCLUDE.findall(body):
            p = (base / inc).resolve()
            if p in seen or p == path.resolve() or not p.is_file():
                continue
            seen.append(p)
            if depth < 1:
                sub = _read(str(p), _mtime(p))
                if sub is not None:
                    todo.append((p.parent, sub, depth + 1))
    w32: set[str] = set()
    kernels: set[str] = set()
    widths: list[tuple[str, str, str]] = []
    for p in seen:
        facts = _header_facts(str(p), _mtime(p))
        w32 |= facts[0]
        kernels |= {k[0] for k in facts[1]}
        widths += facts[1]
    return ProjectFacts(frozenset(w32), frozenset(kernels), tuple(str(p) for p in seen), tuple(widths))


def _mtime(p: Path) -> float:
    try:
        return os.stat(p).st_mtime
    except OSError:
        return 0.0


@lru_cache(maxsize=256)
def _read(path: str, _mtime: float) -> str | None:
    try:
        if os.path.getsize(path) > _MAX_BYTES:
            return None
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@lru_cache(maxsize=256)
def _header_facts(path: str, mtime: float) -> tuple[frozenset[str], tuple[tuple[str, str, str], ...]]:
    """The header's warp-size constants, and its kernels that use warpSize with how they use the block's
    width and height (hostflow.kernel_width_reason, located as `name.h:line`)."""
    text = _read(path, mtime)
    if text is None:
        return frozenset(), ()
    from .analyzer import Analyzer

    an = Analyzer(text, (7, 0), False)
    an.collect_constants()
    where = f"{Path(path).name}:"
    kernels = tuple((f.name, an.kernel_width_reason(f, "x", where), an.kernel_width_reason(f, "y", where))
                    for f in an.funcs if f.kernel and "warpSize" in an.tx[f.body[0]:f.body[1]])
    return frozenset(an.w32_consts), kernels
