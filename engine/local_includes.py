"""Includes between the files of one conversion, when their outputs get new names (sibling mode).

`hipport convert --suffix` (and the app's "sibling" output mode) writes `a.cu` -> `a.hip` and
`b.cuh` -> `b_hip.cuh` beside the originals. `a.hip` must then include `b_hip.cuh`, the port, not
`b.cuh`, the CUDA original. A quoted `#include "X"` that resolves (relative to the including file,
then to the -I folders, as the preprocessor looks for quoted includes) to a file of the same
conversion is rewritten to the name that file's output gets; the names come from
engine/outputs.py's `sibling_name`, the one output-naming rule. Folder mode (-o OUT) and in-place
keep every name, so includes need no change there.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from .cxx.lexer import Tokens
from .edits import Edit
from .outputs import sibling_name

# Quoted includes, the two ways they are read (here, so that the knowledge of their spelling lives in one place):
# in a directive the lexer found (translation: local_include_edits), and in raw text, line by line, where no
# lexing is wanted (the warp analysis following a file's headers and their includers, warp/project.py, and the
# analysis cache keying a file on them, analysis_cache.py; an include inside a /* */ comment counts there: at
# worst a header too many is read).
_QUOTED = re.compile(r'#\s*include\s*"([^"\r\n]+)"')
_QUOTED_LINE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\r\n]+)"', re.M)


_ANY_QUOTED = re.compile(r'include[ \t]*"')  # found by a literal scan: most files have no quoted include


def quoted_includes(text: str) -> list[str]:
    """What each line's `#include "..."` spells, in order (raw text, no lexing)."""
    return _QUOTED_LINE.findall(text) if _ANY_QUOTED.search(text) else []


def resolve_quoted(spelled: str, here: Path, include_dirs: Iterable[str] = ()) -> str | None:
    """The file a quoted `#include "spelled"` in folder `here` names (absolute, normalised), looked for as
    the preprocessor does: beside the including file, then in the -I folders; None when there is none.
    The one resolver of quoted includes (the warp analysis reads the project's headers through it too)."""
    for base in (here, *map(Path, include_dirs)):
        cand = os.path.normpath(os.path.join(os.path.abspath(base), spelled))
        if os.path.isfile(cand):
            return cand
    return None


def local_include_edits(toks: Tokens, directives: list[tuple[int, int, str]], path: Path,
                        renamed: frozenset[str], include_dirs: Iterable[str] = ()) -> list[Edit]:
    """Edits that point quoted includes of files in `renamed` (absolute, normalised paths of the
    inputs whose outputs get sibling names) at those outputs."""
    here = Path(os.path.abspath(path)).parent
    dirs = tuple(include_dirs)
    edits: list[Edit] = []
    for a, b, name in directives:
        if name != "include":
            continue
        m = _QUOTED.match(toks.text, toks.starts[a], toks.ends[b - 1])
        if not m:
            continue
        spelled = m.group(1).strip()
        target = resolve_quoted(spelled, here, dirs)
        if target is None or target not in renamed:
            continue
        head, _sep, base = spelled.rpartition("/")
        new = (head + "/" if head else "") + sibling_name(base)
        if new != spelled:
            edits.append(Edit(m.start(1), m.end(1), new, "include",
                              f'"{spelled}" -> "{new}" (the port of that file in this conversion)'))
    return edits
