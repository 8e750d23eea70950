"""The review session's data: errors, file statuses and entries, one loaded file, one undo step."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model import (
    PERSON_KINDS,
    Analysis,
    Finding,
    FixGroup,
    FixStyle,
    FixTier,
    Report,
    ReportKind,
    Translation,
)
from ..source import Language, Source, language_for
from .state import Decision, DecisionRecord

if TYPE_CHECKING:
    from ..warp.logical import LogicalWarps

TranslateFn = Callable[[Source, Any], Translation]
AnalyzeFn = Callable[[Source, Translation, Any], Analysis]


class ReviewError(Exception):
    """Something the session will not do; the message is one line a person can act on."""


class GroupRefused(ReviewError):
    """Deciding would split a fix group, or the group's fix conflicts with another accepted fix."""


class NeedsReview(ReviewError):
    """Accepting a fix group of tier REVIEW (model.FixTier) that the caller did not confirm was read:
    `decide(..., review_confirmed=True)` accepts it. The app asks for that confirmation (Y)."""


class StaleError(ReviewError):
    """The file changed on disk since its decisions were made; they are not applied."""


class OutputExists(ReviewError):
    """The output file exists and hipport did not write it (or it was edited since): `write` replaces it
    only with overwrite=True. The app asks; the command line says so."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path  # root-relative output path


class OutputShared(ReviewError):
    """Two sources would be written to one output path (sibling mode with `a.cu` and `a.cpp`)."""


class FileStatus(StrEnum):
    UNTRANSLATED = "untranslated"  # not loaded yet, no saved decisions
    TRANSLATED = "translated"      # loaded; nothing to decide
    HAS_FINDINGS = "has-findings"  # findings still pending
    REVIEWED = "reviewed"          # every finding decided, result not written
    WRITTEN = "written"            # the current result is on disk
    COMMITTED = "committed"        # ... and committed by hipport
    STALE = "stale"                # changed on disk since review: decisions kept, not applied
    ERROR = "error"                # could not be read/translated/analyzed (FileEntry.error says why)


@dataclass
class FileEntry:
    rel: str
    language: Language
    status: FileStatus
    findings: int   # total findings (last known)
    decided: int    # accepted + rejected
    error: str | None = None
    output: str = ""  # root-relative output path under the current config


@dataclass(frozen=True)
class Change:
    """What one key press did: the app repaints these findings of this file and shows the message."""

    path: str
    finding_ids: tuple[str, ...]
    message: str


REPORT_PREFIX = "report:"


@dataclass(frozen=True, slots=True)
class ReportItem:
    """A translation report a person has to act on (model.PERSON_KINDS), as the review shows it: a mark
    in the diff's gutter, an entry in the panel and the overview, a stop for j/k. Nothing to decide: the
    code is ported by hand."""

    id: str           # "report:<kind>:<line>:<col>", unique within the file
    kind: ReportKind
    name: str
    start: int
    end: int
    line: int
    col: int
    message: str
    hip_name: str = ""
    since: str = ""


def is_report(item_id: str | None) -> bool:
    return item_id is not None and item_id.startswith(REPORT_PREFIX)


def report_items(reports: Iterable[Report]) -> tuple[ReportItem, ...]:
    """The reports of the kinds a person acts on, with ids, in the order of the text."""
    items: list[ReportItem] = []
    seen: dict[str, int] = {}
    for r in sorted(reports, key=lambda r: (r.start, r.end)):
        if r.kind not in PERSON_KINDS:
            continue
        rid = f"{REPORT_PREFIX}{r.kind.value}:{r.line}:{r.col}"
        n = seen[rid] = seen.get(rid, 0) + 1
        items.append(ReportItem(rid if n == 1 else f"{rid}#{n}", r.kind, r.name, r.start, r.end, r.line, r.col,
                                r.message, r.hip_name, r.since))
    return tuple(items)


@dataclass
class FileReview:
    """One loaded file. `findings` are sorted by position; groups map group id -> member finding ids."""

    rel: str
    source: Source
    translation: Translation
    analysis: Analysis
    stale: bool = False
    sha256: str = ""  # of source.raw (the original bytes)
    findings: tuple[Finding, ...] = ()
    by_id: dict[str, Finding] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)  # finding id -> position in `findings`
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fix_groups: dict[str, FixGroup] = field(default_factory=dict)
    # the logical-warp port of the file: written for every warp group not accepted as 64-wide
    logical: LogicalWarps | None = None
    names: frozenset[str] = frozenset()  # the project's own CUDA-looking names the translation knew
    reports: tuple[ReportItem, ...] = ()  # the reports a person acts on (report_items)
    report_by_id: dict[str, ReportItem] = field(default_factory=dict)
    # findings and reports in the order of the text (a finding before a report at the same place): what
    # the diff marks and what j/k walk
    marked: tuple[Finding | ReportItem, ...] = ()

    def group_of(self, finding_id: str) -> tuple[str, ...]:
        return self.groups[self.by_id[finding_id].group]

    def review_reason(self, finding_id: str) -> str | None:
        """Why the finding's fix group must be read before it is accepted (its tier is REVIEW); None for
        a SAFE group or a finding without one."""
        g = self.fix_groups.get(self.by_id[finding_id].group)
        if g is None or g.tier != FixTier.REVIEW:
            return None
        return g.tier_reason or "the analysis did not understand every use of the value"


@dataclass(frozen=True)
class Step:
    """One undo step: the decision records of one file before and after (`also`: the same step's
    changes in other files, e.g. one decision applied to every identical finding of the project)."""

    rel: str
    changes: tuple[tuple[str, DecisionRecord | None, DecisionRecord | None], ...]  # fid, before, after
    message: str
    also: tuple[Step, ...] = ()


def stamp(path: Path) -> tuple[int, int, int] | None:
    """Identity of a file's current version (a rename-into-place changes the inode)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


@functools.lru_cache(maxsize=65536)
def language_of(rel: str) -> Language:
    return language_for(rel) or Language.CPP


def anchor(fr: FileReview, f: Finding) -> str:
    """Short hash of the stripped source line(s) of a finding."""
    starts = fr.source.line_starts
    a = starts[f.line - 1] if 0 < f.line <= len(starts) else f.start
    end = fr.source.text.find("\n", max(f.end, a))
    line = fr.source.text[a : end if end >= 0 else len(fr.source.text)]
    return hashlib.sha256(line.strip().encode("utf-8", "surrogatepass")).hexdigest()[:12]


def context(fr: FileReview, f: Finding) -> str:
    """Short hash of the nearest non-blank line above the finding and the nearest below it, stripped:
    tells apart findings on identical lines (two kernels' `for (int o = 16; ...)`) when a decision is
    carried over to a changed file (stale.match_decisions)."""
    text = fr.source.text
    starts = fr.source.line_starts
    n = len(starts)

    def line(i: int) -> str:  # 0-based, stripped
        a = starts[i]
        b = text.find("\n", a)
        return text[a:b if b >= 0 else len(text)].strip()

    first = min(max(f.line - 1, 0), max(n - 1, 0))
    last = min(first + text.count("\n", f.start, max(f.start, f.end - 1)), n - 1)
    above = next((t for i in range(first - 1, -1, -1) if (t := line(i))), "")
    below = next((t for i in range(last + 1, n) if (t := line(i))), "")
    return hashlib.sha256(f"{above}\0{below}".encode("utf-8", "surrogatepass")).hexdigest()[:12]


def decision_record(fr: FileReview, f: Finding, decision: Decision, style: FixStyle) -> DecisionRecord:
    """A decision on `f` with what finds it again on a changed file (its line's content and context)."""
    return DecisionRecord(decision, style, f.rule, anchor(fr, f), context(fr, f))
