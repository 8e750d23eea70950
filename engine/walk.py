"""Command-line paths -> the source files to translate, each with the path relative to the folder
it was found under (so `-o OUT` can mirror the tree).

Folders are walked with engine/discover.py's rules (the usual extensions .cu .cuh .cpp .cc .cxx .h
.hpp .inl .py and a few more; .git/.hipport/build/venv folders skipped; linked folders not entered;
a linked file counted only when its target lies inside the folder). A file named explicitly is
taken whatever its extension.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .discover import discover


class WalkError(Exception):
    """A path that cannot be walked; one line."""


@dataclass(frozen=True, slots=True)
class WalkItem:
    path: Path   # the file, as given or joined to its folder
    rel: str     # posix path relative to the folder argument (the file name for a file argument)
    root: Path | None  # the folder argument it was found under (None for a file argument)


def walk(paths: Sequence[str | Path], exclude: Iterable[str] = (), skip: Iterable[str] = ()) -> list[WalkItem]:
    """Expand files and folders into WalkItems, each file once, in argument order then sorted."""
    items: list[WalkItem] = []
    seen: set[Path] = set()
    exclude = tuple(exclude)
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for rel in discover(p, exclude=exclude, skip=skip):
                f = p / rel
                key = f.resolve()
                if key not in seen:
                    seen.add(key)
                    items.append(WalkItem(f, rel, p))
        elif p.exists():
            key = p.resolve()
            if key not in seen:
                seen.add(key)
                items.append(WalkItem(p, p.name, None))
        elif p.is_symlink():
            raise WalkError(f"{p}: broken symbolic link")
        else:
            raise WalkError(f"{p}: no such file or folder")
    return items
