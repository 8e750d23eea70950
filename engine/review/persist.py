"""The review's saved state in memory and on disk: the decision records and write records of every
file (review/state.py's `State`), and saving them to .hipport/state.json, merged per file with what
another hipport saved for the same project meanwhile."""

from __future__ import annotations

from pathlib import Path

from ..fsutil import WriteError
from ..model import FixStyle
from .state import (
    Decision,
    DecisionRecord,
    FileState,
    State,
    StateError,
    load_state,
    save_state,
    state_path,
)
from .types import stamp


class StateStore:
    """The State of one project and its saving. Not locked itself: the session's lock guards it.

    `file(rel)` is a file's entry or None, `entry(rel)` makes one; `touch(rel)` marks a file whose
    entry this session changed (its entry wins over another hipport's when saving)."""

    def __init__(self, root: Path, state: State, autosave: bool) -> None:
        self.root = Path(root)
        self.state = state
        self.autosave = autosave
        self.save_error: str | None = None  # why the last automatic save failed, if it did
        self._touched: set[str] = set()  # files whose saved entry this session changed
        self._stamp = stamp(state_path(self.root))

    def file(self, rel: str) -> FileState | None:
        return self.state.files.get(rel)

    def entry(self, rel: str) -> FileState:
        return self.state.files.setdefault(rel, FileState())

    def touch(self, rel: str) -> None:
        self._touched.add(rel)

    def record(self, rel: str, fid: str, default_style: FixStyle) -> DecisionRecord:
        """The decision on a finding: PENDING in `default_style` when none was saved."""
        fs = self.state.files.get(rel)
        rec = fs.decisions.get(fid) if fs else None
        return rec or DecisionRecord(Decision.PENDING, default_style, "")

    def save(self) -> None:
        """Write .hipport/state.json (readable JSON, "version": 1) atomically. Raises WriteError."""
        self._persist()
        self.save_error = None

    def autosave_note(self) -> str:
        """Save after a change. A failure does not undo the change (it stays in memory): it is kept in
        `save_error` and returned as a note for the change's message ("" when saved or not autosaving)."""
        if not self.autosave:
            return ""
        try:
            self._persist()
        except WriteError as e:
            self.save_error = str(e)
            return f" (decisions not saved: {e})"
        self.save_error = None
        return ""

    def _persist(self) -> None:
        """Save, first taking in what another hipport on the same project saved meanwhile: its entries
        for files this session has not changed (per file: the last one to change a file wins it)."""
        path = state_path(self.root)
        now = stamp(path)
        if now is not None and now != self._stamp:
            try:
                other = load_state(self.root)
            except StateError as e:
                raise WriteError(f"state.json was changed by another program and cannot be read ({e}); "
                                 "not overwritten") from None
            for rel, ofs in other.files.items():
                if rel not in self._touched:
                    self.state.files[rel] = ofs
        save_state(self.root, self.state)
        self._stamp = stamp(path)
