"""What a loaded file becomes under its decisions: compose's final edits and the fix groups it holds
back, remembered per file for the decisions they were composed for."""

from __future__ import annotations

import threading

from ..compose import compose
from ..edits import Edit, EditConflict
from ..model import FixStyle
from .persist import StateStore
from .state import Decision
from .types import FileReview, ReviewError

Result = tuple[tuple[Edit, ...], dict[str, str]]  # the final edits, held group id -> why


class ResultCache:
    """`result(fr)`: the file's edits and held groups under the accepted decisions in the StateStore.
    One entry per file, reused while the same load has the same accepted findings in the same styles."""

    def __init__(self, store: StateStore, lock: threading.RLock) -> None:
        self._store = store
        self._lock = lock
        # rel -> (the load, the accepted findings' styles it was composed for, its result)
        self._memo: dict[str, tuple[FileReview, dict[str, FixStyle], Result]] = {}

    def result(self, fr: FileReview) -> Result:
        """A STALE file gets the translation only (no decision is applied to a changed file; its warp
        code is still ported, logically). Raises ReviewError when the translation's edits overlap."""
        with self._lock:
            if fr.stale:
                c = compose(fr.translation.edits, None, {}, allow_review=False, logical=fr.logical)
                return c.edits, {}
            fs = self._store.file(fr.rel)
            chosen = {fid: rec.style for fid, rec in (fs.decisions.items() if fs else ())
                      if rec.decision == Decision.ACCEPTED and fid in fr.index}
            cached = self._memo.get(fr.rel)
            if cached is not None and cached[0] is fr and cached[1] == chosen:
                return cached[2]
            try:
                # accepting a group is the deliberate act a REVIEW-tier fix needs (Decisions asks for it)
                c = compose(fr.translation.edits, fr.analysis, chosen, allow_review=True, logical=fr.logical)
            except EditConflict as e:
                raise ReviewError(f"{fr.rel}: the translation produced overlapping edits ({e})") from None
            self._memo[fr.rel] = (fr, chosen, (c.edits, c.held))
            return c.edits, c.held

    def forget(self, rel: str) -> None:
        """Drop the file's entry (its load is gone)."""
        with self._lock:
            self._memo.pop(rel, None)
