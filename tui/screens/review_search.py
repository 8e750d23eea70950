"""`/`, `n`, `N`: search the shown file (CUDA and HIP sides), then the other files of the project.

`FileSearch` holds the query and decides where the cursor goes; the screen, which owns the diff, turns
matches into diff rows (unfolding where needed) and applies the `SearchMove`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from hipport.engine.review import ReviewSession
from hipport.engine.search import line_matches, next_file_with

Side = Literal["old", "new"]


@dataclass(frozen=True)
class SearchMove:
    row: int | None         # put the diff's cursor on this row
    other_file: str | None  # or go on in this file (its first or last match once it is shown)
    message: str
    severity: str = "information"


class FileSearch:
    def __init__(self, session: ReviewSession) -> None:
        self.session = session
        self.query: str | None = None
        self.arriving: int | None = None  # the search went on to another file: 1 its first match, -1 its last

    def matches(self, rel: str) -> list[tuple[Side, int]]:
        """(side, line) of every match in the file: CUDA side, then HIP side."""
        query = self.query or ""
        hits: list[tuple[Side, int]] = [("old", n) for n in line_matches(self.session.load(rel).source.text, query)]
        hits += [("new", n) for n in line_matches(self.session.result_text(rel), query)]
        return hits

    def step(self, rel: str, found: Sequence[int], here: int, step: int, include_current: bool,
             order: Sequence[str]) -> SearchMove:
        """From diff row `here` to the next (step 1) or previous (-1) of the rows `found` in `rel`; past the
        last one, on to the next file in `order` that has a match."""
        query = self.query
        if step > 0:
            nxt = next((i for i in found if i > here or (include_current and i == here)), None)
        else:
            nxt = next((i for i in reversed(found) if i < here), None)
        if nxt is not None:
            k = found.index(nxt) + 1
            return SearchMove(nxt, None, f"/{query}: match {k}/{len(found)} in {rel} (n/N: next/previous, esc "
                                         "ends the search)")
        other = next_file_with(self.session.root, list(order), rel, step, query or "", self._loaded_result)
        if other is not None:
            self.arriving = step
            return SearchMove(None, other, f"/{query}: continuing in {other}")
        if found:
            return SearchMove(found[0] if step > 0 else found[-1], None, f"/{query}: only in {rel}; wrapped around")
        return SearchMove(None, None, f"/{query}: not found in any file", "warning")

    def arrive(self, rel: str, rows: Callable[[], Sequence[int]]) -> SearchMove | None:
        """The file the search went on to is shown: its first (or last) match. `rows`: the diff rows of the
        matches, asked for only then (finding them may unfold the diff)."""
        step, self.arriving = self.arriving, None
        if step is None or not self.query:
            return None
        found = rows()
        if not found:
            return None
        row = found[0] if step > 0 else found[-1]
        return SearchMove(row, None, f"/{self.query}: match {1 if step > 0 else len(found)}/{len(found)} in {rel}")

    def _loaded_result(self, rel: str) -> str | None:
        """The HIP text of a file already translated (searching it costs no translation)."""
        if not self.session.is_loaded(rel):
            return None
        try:
            return self.session.result_text(rel)
        except Exception:  # a stale or failing file: its source is searched anyway
            return None
