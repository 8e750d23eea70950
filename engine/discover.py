"""Finding the files a review covers: CUDA/C++/Python sources under a root, cheaply (no reading).

Skips version-control and tool folders, never follows a symbolic link out of the root (links to
folders are not entered at all; a linked file counts only if its target lies inside the root).
Include/exclude globs use fnmatch on the root-relative posix path (`*` also matches '/'); a pattern
without '/' is matched against the file name alone, like .gitignore.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path

from .fsutil import is_inside
from .source import language_for

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".hipport", "build", "__pycache__", ".venv", "venv", "node_modules",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".eggs",
})


def matches(rel: str, patterns: Iterable[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    for pat in patterns:
        pat = pat.strip()
        pat = pat[2:] if pat.startswith("./") else pat
        if not pat:
            continue
        target = rel if "/" in pat else name
        if fnmatchcase(target, pat) or (pat.endswith("/**") and rel.startswith(pat[:-2])):
            return True
    return False


def discover(
    root: Path,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    skip: Iterable[str] = (),
) -> Iterator[str]:
    """Yield root-relative posix paths of CUDA/C++/Python files, in sorted order.

    `skip` names extra root-relative folders to leave out (e.g. the output folder in folder mode).
    """
    root = Path(root)
    include = tuple(include)
    exclude = tuple(exclude)
    skip_rel = {s.strip("/") for s in skip if s.strip("/")}
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        keep = []
        for d in dirnames:
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d in SKIP_DIRS or d.startswith(".") or rel in skip_rel:
                continue
            if os.path.islink(os.path.join(dirpath, d)):
                continue  # never enter linked folders: they may lead out of the root or loop
            keep.append(d)
        dirnames[:] = sorted(keep)
        for f in filenames:
            if language_for(f) is None:
                continue
            rel = f"{rel_dir}/{f}" if rel_dir else f
            full = os.path.join(dirpath, f)
            if os.path.islink(full) and not is_inside(full, root):
                continue
            if include and not matches(rel, include):
                continue
            if exclude and matches(rel, exclude):
                continue
            found.append(rel)
    yield from sorted(found)
