"""Names a project defines itself that look like CUDA APIs (CUDA_CHECK, cudaCheck, cuAssert, ...).

Within one file, the translation knows the file's own macros and declarations. A tree's error
macros usually live in one header and are used everywhere else, where they looked like unknown
CUDA APIs ("CUDA_CHECK looks like a CUDA API but is in no table"). `defined_names` collects, over
the files of one conversion, the macros (`#define NAME`) and functions (`type NAME(...)` at the start
of a line) whose names match the CUDA-looking pattern, so those uses are not reported as unknown.
Only the `unknown` report is affected: a name from AMD's tables is translated as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from .translate_tables import UNKNOWN_PATTERN

_PREFIX = r"(?:cuda|cu|CUDA|CU|cublas|cusparse|cusolver|cufft|curand|cudnn|nvrtc|nvtx)"
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(" + _PREFIX.encode() + rb"\w*)", re.M)
_FUNC = re.compile(rb"^[ \t]*(?:(?:static|inline|extern|__host__|__device__|__forceinline__|template\s*<[^>]*>)\s+)*"
                   rb"[A-Za-z_][\w:<>]*[\s\*&]+(" + _PREFIX.encode() + rb"\w*)\s*\([^;{]*\)\s*(?:const\s*)?\{", re.M)


def defined_names(paths: Iterable[Path | str]) -> frozenset[str]:
    """CUDA-looking names the given files define as macros or functions."""
    unknown = re.compile(UNKNOWN_PATTERN)
    out: set[str] = set()
    for p in paths:
        try:
            data = Path(p).read_bytes()
        except OSError:
            continue
        if b"cu" not in data and b"CU" not in data:
            continue
        for rx in (_DEFINE, _FUNC):
            for m in rx.finditer(data):
                name = m.group(1).decode("ascii", "replace")
                if unknown.match(name):
                    out.add(name)
    return frozenset(out)
