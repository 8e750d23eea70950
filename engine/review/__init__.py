"""The review of a project's port: its files, their translations and warp findings, the person's
decisions, and writing and committing the result (session.py's ReviewSession; the app renders it).

    session.py    ReviewSession: opens, lists, loads and renders; hands the rest to its collaborators
    persist.py    StateStore: decision and write records in memory, saved to .hipport/state.json
    decisions.py  Decisions: deciding whole fix groups, the REVIEW-tier confirmation, undo/redo
    results.py    ResultCache: the composed edits and held groups under the decisions
    stale.py      StalenessChecker: files changed on disk; carrying decisions over to the new text
    write.py      Writer: output paths, writing through outputs.write_port (the CLI's write policy)
    commit.py     Committer: committing exactly what hipport wrote
    identical.py  identical fix groups across the project (one decision for all)
    state.py      the state.json format;  types.py  the session's data and errors

The names below are what the app and the command line use.
"""

from .session import ReviewSession
from .state import Decision, StateError
from .types import (
    Change,
    FileEntry,
    FileReview,
    FileStatus,
    GroupRefused,
    NeedsReview,
    OutputExists,
    OutputShared,
    ReportItem,
    ReviewError,
    StaleError,
    is_report,
)

__all__ = [
    "Change", "Decision", "FileEntry", "FileReview", "FileStatus", "GroupRefused", "NeedsReview", "OutputExists",
    "OutputShared", "ReportItem", "ReviewError", "ReviewSession", "StaleError", "StateError", "is_report",
]
