"""j/k (undecided findings and reports) and J/K (any) past the end of the shown file: on through the whole
project in the file list's order, around its end, to the next file with something to stop at."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hipport.engine.review import ReviewSession

from .review_project import ProjectRows


@dataclass(frozen=True)
class WalkStop:
    rel: str | None     # the file to show (None: stay where the cursor is)
    item: str | None    # the finding or report to show in it (None: its first, or going back last, stop)
    message: str
    severity: str = "information"


def walk_files(session: ReviewSession, rows: ProjectRows, order: Sequence[str], shown: str | None,
               current: str | None, step: int, undecided_only: bool, origin: str) -> WalkStop | None:
    """Where the walk goes from the `shown` file (whose finding under review is `current`); `origin`: the
    file the walk started in (it ends there). None: no file to go to."""
    what = "undecided finding or report" if undecided_only else "finding or report"
    here = order.index(shown) if shown in order else (-1 if step > 0 else len(order))
    for k in range(1, len(order) + 1):
        i = here + step * k
        cand = order[i % len(order)]
        if cand == origin:  # around the whole project: only the file the walk started in is left
            first = session.next_item(cand, None, step, undecided_only) if session.is_loaded(cand) else None
            if first is None or (cand == shown and first == current):
                return WalkStop(None, None, f"No other {what} in the project.", "warning")
            if cand == shown:
                return WalkStop(cand, first, f"{what.capitalize()}: back to the {'top' if step > 0 else 'end'} of "
                                             f"{cand}, the only file with one.")
            return WalkStop(cand, first, "")
        if not rows.may_stop_in(cand, undecided_only):
            continue
        if session.is_loaded(cand) and session.next_item(cand, None, step, undecided_only) is None:
            continue
        around = " (around the end of the file list)" if not 0 <= i < len(order) else ""
        return WalkStop(cand, None, f"{'Next' if step > 0 else 'Previous'} {what}: in {cand}{around}")
    return None
