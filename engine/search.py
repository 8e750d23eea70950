"""Plain-text search for the review app: lines of one text, and the next file of a project that
contains a query. Smart case (as in vim/less): a query with no capital letter ignores case."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path


def _fold(query: str) -> bool:
    return query == query.lower()


def line_matches(text: str, query: str) -> list[int]:
    """1-based numbers of the lines of `text` that contain `query`."""
    if not query:
        return []
    hay = text.lower() if _fold(query) else text
    return [i for i, line in enumerate(hay.split("\n"), 1) if query in line]


def contains(path: Path, query: str) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return (query.lower() in text.lower()) if _fold(query) else (query in text)


def next_file_with(root: Path, rels: Sequence[str], current: str | None, step: int, query: str,
                   also: Callable[[str], str | None] | None = None) -> str | None:
    """The next (step=1) or previous (step=-1) file after `current` in `rels`, cyclically, whose text
    contains `query`; None when no other file does. Reads the files from disk (the originals); `also(rel)`
    may give a second text to search (the HIP result of a file already translated)."""
    if not rels or not query:
        return None
    n = len(rels)
    start = rels.index(current) if current in rels else (-1 if step > 0 else n)
    for k in range(1, n + 1):
        rel = rels[(start + step * k) % n]
        if rel == current:
            return None
        if contains(root / rel, query):
            return rel
        extra = also(rel) if also is not None else None
        if extra and line_matches(extra, query):
            return rel
    return None
