"""Names a project defines itself that look like CUDA APIs (CUDA_CHECK, cudaCheck, cuAssert, ...).

Within one file, the translation knows the file's own macros and declarations. A tree's error
macros usually live in one header and are used everywhere else, where they looked like unknown
CUDA APIs ("CUDA_CHECK looks like a CUDA API but is in no table"). `defined_names` collects, over
the C/C++/CUDA files of one conversion and the headers they include with quotes, the macros
(`#define NAME`) and functions (`type NAME(...) {` at the start of a line) whose names match the
CUDA-looking pattern, so those uses are not reported as unknown. Only the `unknown` report is
affected: a name from AMD's tables is translated as before.

This is the one place that decides it: `hipport scan`, `hipport convert` and the app (the review
session and its background analysis) all pass these names to the translation
(`TranslateOptions.project_names`), so the three give the same report counts for the same tree.
A 5,000-file tree (74 MB) is read in well under a second: both patterns start with a literal that
the regex engine skips to (`define`, and `{` in the reversed text), not with a line start.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..local_includes import resolve_quoted
from ..source import Language, language_for
from ..translate.tables import UNKNOWN_PATTERN

if TYPE_CHECKING:
    from ..translate.options import TranslateOptions

_DEFINE = re.compile(rb"define[ \t]+([A-Za-z_]\w*)")
# a function definition read backwards: `{`, `)`, the parameters, `(`, the name (ending in the reversed
# `cu`/`CU`/`nv` every CUDA-looking name starts with), then its return type's last word
_FUNC_REVERSED = re.compile(rb"\{\s*(?:tsnoc\s*)?\)[^;{}]*?\(\s*(\w*?(?:uc|UC|vn))(?!\w)[ \t*&]+([\w:<>]+)")
_QUALIFIERS = re.compile(rb"[ \t]*(?:(?:static|inline|extern|__host__|__device__|__forceinline__|"
                         rb"template\s*<[^>]*>)\s+)*")
_QUOTED_INCLUDE = re.compile(rb'include[ \t]*"([^"\r\n]+)"')
_C_FAMILY = frozenset({Language.CUDA, Language.CPP})


def _line_start(data: bytes, at: int) -> int:
    return data.rfind(b"\n", 0, at) + 1


def names_in(data: bytes) -> set[str]:
    """CUDA-looking names one file's bytes define as macros or functions."""
    out: set[str] = set()
    unknown = _unknown()
    if b"define" in data:
        for m in _DEFINE.finditer(data):
            before = data[_line_start(data, m.start()):m.start()]
            if before.replace(b" ", b"").replace(b"\t", b"") == b"#":
                name = m.group(1).decode("ascii")
                if unknown.match(name):
                    out.add(name)
    if b"{" in data:
        rev = data[::-1]
        n = len(data)
        for m in _FUNC_REVERSED.finditer(rev):
            name = m.group(1)[::-1].decode("ascii", "replace")
            if not unknown.match(name):
                continue
            type_start = n - m.end(2)  # where the return type's last word starts in `data`
            line = data[_line_start(data, type_start):type_start]
            if _QUALIFIERS.fullmatch(line):
                out.add(name)
    return out


def _unknown() -> re.Pattern[str]:
    global _UNKNOWN
    if _UNKNOWN is None:
        _UNKNOWN = re.compile(UNKNOWN_PATTERN)
    return _UNKNOWN


_UNKNOWN: re.Pattern[str] | None = None


class NameIndex:
    """`defined_names` with each file's facts kept by (size, mtime): a tree asked again (the app after an
    edit) reads only the files that changed."""

    def __init__(self) -> None:
        self._facts: dict[str, tuple[tuple[int, int], frozenset[str], tuple[str, ...]]] = {}

    def names(self, paths: Iterable[Path | str], include_dirs: Iterable[str] = ()) -> frozenset[str]:
        """CUDA-looking names the given C/C++/CUDA files (and the headers they include with quotes, found
        as the preprocessor finds them) define as macros or functions. Other files are left out."""
        dirs = tuple(include_dirs)
        todo = [os.path.abspath(p) for p in paths if language_for(str(p)) in _C_FAMILY]
        seen = set(todo)
        out: set[str] = set()
        while todo:
            path = todo.pop()
            facts = self._file(path)
            if facts is None:
                continue
            out |= facts[0]
            here: Path | None = None
            for spelled in facts[1]:
                here = here or Path(path).parent
                found = resolve_quoted(spelled, here, dirs)
                if found is not None and found not in seen:
                    seen.add(found)
                    todo.append(found)
        return frozenset(out)

    def _file(self, path: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
        """(names the file defines, what its quoted includes spell), or None when it cannot be read."""
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):  # a FIFO or device named like a source: never read (it blocks)
                return None
            key = (st.st_size, st.st_mtime_ns)
            kept = self._facts.get(path)
            if kept is not None and kept[0] == key:
                return kept[1], kept[2]
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        names = frozenset(names_in(data)) if (b"cu" in data or b"CU" in data or b"nv" in data) else frozenset()
        includes = tuple(m.group(1).decode("utf-8", "replace") for m in _QUOTED_INCLUDE.finditer(data)) \
            if b"include" in data else ()
        self._facts[path] = (key, names, includes)
        return names, includes


def defined_names(paths: Iterable[Path | str], include_dirs: Iterable[str] = ()) -> frozenset[str]:
    """CUDA-looking names the given C/C++/CUDA files (and the headers they include with quotes) define
    as macros or functions (see NameIndex.names)."""
    return NameIndex().names(paths, include_dirs)


def with_project_names(options: TranslateOptions, paths: Sequence[str | Path]) -> TranslateOptions:
    """`options` knowing the CUDA-looking names the files at `paths` (and the headers they include)
    define themselves: scan, convert and the app pass the same files' names, so they report the same."""
    return dataclasses.replace(options, project_names=defined_names(paths, options.include_dirs))
