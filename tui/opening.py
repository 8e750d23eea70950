"""Which file the app shows first (the app preloads it while Textual starts; the screen opens it)."""

from __future__ import annotations

from typing import Any


def first_file(session: Any, entries: list[Any] | None = None) -> str | None:
    """The first file with findings or a stale review (known from saved state), else the first CUDA
    file, else the first file that is not known to fail. `entries`: session.files(), if at hand."""
    if entries is None:
        entries = session.files()
    for e in entries:
        if e.status.value in ("has-findings", "stale"):
            return str(e.rel)
    usable = [e for e in entries if e.status.value != "error"] or entries
    for e in usable:
        if e.language.value == "cuda":
            return str(e.rel)
    return str(usable[0].rel) if usable else None
