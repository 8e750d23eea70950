"""The review session's state and its persistence: the fields every part of the session shares, the
decision record of a finding, and saving .hipport/state.json (merged per file with another hipport
saving the same project meanwhile). The parts: review_decisions.py (decisions and undo),
review_stale.py (files changed on disk), review_write.py (writing and committing); review.py puts them
together as ReviewSession.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .config import Config
from .edits import Edit
from .fsutil import WriteError, is_inside
from .project.names import NameIndex
from .review_state import Decision, DecisionRecord, State, StateError, load_state, save_state, state_path
from .review_types import AnalyzeFn, FileReview, ReviewError, Step, TranslateFn, stamp


class SessionCore:
    """Shared state of ReviewSession (see review.py); not used on its own."""

    def __init__(self, root: Path, config: Config, state: State, translate: TranslateFn,
                 analyze: AnalyzeFn, autosave: bool) -> None:
        self.root = Path(root)
        self.config = config
        self.autosave = autosave
        self.save_error: str | None = None  # why the last automatic save failed, if it did
        self._state = state
        self._translate = translate
        self._analyze = analyze
        self._lock = threading.RLock()
        self._commit_lock = threading.Lock()
        self._load_locks: dict[str, threading.Lock] = {}
        self._loaded: dict[str, FileReview] = {}
        # rel -> (the load it was computed for, result edits, held groups)
        self._results: dict[str, tuple[FileReview, tuple[Edit, ...], dict[str, str]]] = {}
        self._errors: dict[str, str] = {}
        self._undo: list[Step] = []
        self._redo: list[Step] = []
        self._rels: list[str] = []
        self._disk_stale: set[str] = set()
        self._outs: dict[str, str] = {}
        self._touched: set[str] = set()  # files whose saved entry this session changed
        # CUDA-looking names the project defines (engine/project/names.py), learned off the first screen's
        # path (learn_project_names); None until then
        self._project_names: frozenset[str] | None = None
        self._names_index = NameIndex()
        self._state_stamp = stamp(state_path(self.root))
        self.rescan()
        self.leftovers_removed = self._remove_leftover_temps()

    def _remove_leftover_temps(self) -> list[Path]:
        """Temp files that a write killed midway (`w`, or a convert) left where this project's files and
        outputs are written: removed at the start (fsutil.remove_leftover_temps keeps live writers')."""
        from .fsutil import remove_leftover_temps
        from .outputs import output_folder_rel

        parents = {rel.rpartition("/")[0] for rel in self._rels} | {""}
        out = output_folder_rel(self.config)
        folders = [self.root / p for p in sorted(parents)] + [state_path(self.root).parent]
        if out is not None:
            folders += [self.root / out / p for p in sorted(parents)]
        return remove_leftover_temps(folders)

    if TYPE_CHECKING:  # provided by the other parts of ReviewSession
        def rescan(self) -> list[str]: ...
        def load(self, rel: str) -> FileReview: ...
        def result_text(self, rel: str) -> str: ...
        def _result(self, fr: FileReview) -> tuple[tuple[Edit, ...], dict[str, str]]: ...
        def _editable(self, rel: str) -> FileReview: ...

    def _path(self, rel: str) -> Path:
        p = self.root / rel
        if not is_inside(p, self.root):
            raise ReviewError(f"{rel}: outside the project root")
        return p

    def _record(self, rel: str, fid: str) -> DecisionRecord:
        fs = self._state.files.get(rel)
        rec = fs.decisions.get(fid) if fs else None
        return rec or DecisionRecord(Decision.PENDING, self.config.fix_style, "")

    # ----------------------------------------------------------------------------------- persistence

    def save(self) -> None:
        """Write .hipport/state.json (readable JSON, "version": 1) atomically. Raises WriteError."""
        with self._lock:
            self._persist()
            self.save_error = None

    def _autosave(self) -> str:
        """Save after a change. A failure does not undo the change (it stays in memory): it is kept in
        `save_error` and returned as a note for the change's message."""
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
        if now is not None and now != self._state_stamp:
            try:
                other = load_state(self.root)
            except StateError as e:
                raise WriteError(f"state.json was changed by another program and cannot be read ({e}); "
                                 "not overwritten") from None
            for rel, ofs in other.files.items():
                if rel not in self._touched:
                    self._state.files[rel] = ofs
                    self._results.pop(rel, None)
        save_state(self.root, self._state)
        self._state_stamp = stamp(path)
