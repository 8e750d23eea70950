"""One file through the pipeline: read it, translate it, analyse or port it; every way that can fail is
one FileError, worded here, so `hipport convert`, `hipport scan`, the app and its background analysis say
the same thing about the same broken file, and an engine bug costs that file only.

`port_file` is the unit of work of convert and scan (read, port, render, diff): it returns a FileResult
of plain data, so it crosses process boundaries cheaply; `port_files` runs many on hipport's one worker
pool (engine/workers.py: forkserver workers, gone when this process dies) when the input is large.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..model import FixStyle

if TYPE_CHECKING:
    from ..source import Language, Source
    from . import PortResult

R = TypeVar("R")


class FileError(Exception):
    """A file that could not be read, translated, analysed or ported: one line that names it. The other
    files of the run go on."""


def failure(shown: str, error: Exception) -> FileError:
    """The one wording of a file's failure (`shown`: the file's name as the output shows it)."""
    from ..edits import EditConflict
    from ..source import SourceError
    from ..translate.options import TranslateError

    if isinstance(error, FileError):
        return error
    if isinstance(error, SourceError):  # its message names the file already
        return FileError(str(error))
    if isinstance(error, (TranslateError, EditConflict, ValueError)):
        return FileError(f"{shown}: {error}")
    return FileError(f"{shown}: internal error ({type(error).__name__}: {error}); a hipport bug, please report "
                     "it with this file; the file was not written")


def guarded(shown: str, work: Callable[[], R]) -> R:
    """work(), any exception it raises turned into the FileError `failure` words."""
    try:
        return work()
    except Exception as e:  # an engine bug must cost this file only, never the rest of a tree
        raise failure(shown, e) from None


def read(path: str | Path, language: Language | None = None, shown: str | None = None) -> Source:
    """The file at `path` as a Source; FileError when it cannot be read."""
    from ..source import read_source

    return guarded(shown if shown is not None else str(path), lambda: read_source(path, language))


@dataclass(frozen=True)
class Job:
    path: str
    rel: str
    options: Any = None             # TranslateOptions
    fixes: Any = "all"              # pipeline.port's fixes: "none" (translation only) | "all" | set of rule ids
    style: FixStyle | None = None   # 64-wide fix style of the chosen groups; None: logical warps only
    warp_options: Any = None
    allow_review: bool = False      # apply REVIEW-tier fix groups too (convert --fixes-review)
    render: bool = True             # return the encoded output
    diff: bool = False              # return a unified diff
    diff_label: str = ""            # name for the "+++" side of the diff


@dataclass
class FileResult:
    path: str
    rel: str
    error: str | None = None
    mode: str = "tokens"
    language: str = ""
    changed: bool = False
    output: bytes | None = None
    diff: str = ""
    reports: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    edits: int = 0
    applied_findings: tuple[str, ...] = ()
    held: dict[str, str] = field(default_factory=dict)  # fix group id -> why it was not applied
    wide_groups: int = 0            # fix groups applied as 64-wide rewrites
    logical_groups: int = 0         # fix groups of the analysis left as logical warps (0 without analysis)
    logical_rewrites: int = 0       # logical-warp rewrites in the output
    not_exact: list[dict[str, Any]] = field(default_factory=list)  # places the port cannot make exact
    bytes_in: int = 0
    replaced_bytes: int = 0
    changed_lines: int = 0


def port_file(job: Job) -> FileResult:
    """Read, port and render one file. Its failure becomes FileResult.error (one line)."""
    res = FileResult(job.path, job.rel)
    try:
        src = read(job.path)
        res.language = src.language.value
        res.bytes_in = len(src.raw or b"")
        pr = guarded(job.path, lambda: _port(src, job))
    except FileError as e:
        res.error = str(e)
        return res
    _fill(res, src, pr, job)
    return res


def _port(src: Source, job: Job) -> PortResult:
    from ..source import BUILD_LANGUAGES
    from . import port  # looked up at each call: tests put a failing port in its place

    options = job.options
    archs = getattr(job.warp_options, "archs", None)
    if src.language in BUILD_LANGUAGES and archs and options is not None and hasattr(options, "archs"):
        options = dataclasses.replace(options, archs=tuple(archs))  # one target list: --arch also sets the build's
    return port(src, options, fixes=job.fixes, style=job.style, warp_options=job.warp_options,
                allow_review=job.allow_review)


def _fill(res: FileResult, src: Source, pr: PortResult, job: Job) -> None:
    """`res` from the port of `src`: the plain data convert and scan print."""
    from ..report import report_dict

    tr = pr.translation
    res.mode = tr.mode.value
    res.stats = dict(tr.stats)
    res.edits = len(tr.edits)
    res.applied_findings = pr.applied_findings
    res.held = dict(pr.held)
    res.wide_groups = len(pr.wide_groups)
    res.logical_groups = len(pr.analysis.groups) - len(pr.wide_groups) if pr.analysis is not None else 0
    res.logical_rewrites = pr.logical_rewrites
    if pr.logical is not None:
        res.not_exact = [{"kind": x.kind, "line": x.line, "col": x.col, "message": x.message}
                         for x in pr.logical.not_exact]
    res.changed = pr.text != src.text
    res.replaced_bytes = sum(e.end - e.start for e in tr.edits)
    res.reports = [report_dict(r) for r in pr.reports]  # the one serialisation (report.py)
    res.changed_lines = len({src.line_col(e.start)[0] for e in tr.edits})
    if job.render:
        res.output = src.encode(pr.text) if res.changed else (src.raw if src.raw is not None else src.encode(src.text))
    if job.diff and res.changed:
        res.diff = _unified_diff(src.text, pr.text, job.path, job.diff_label or job.path)


def _unified_diff(before: str, after: str, name: str, label: str) -> str:
    import difflib

    diff = "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=name, tofile=label))
    return diff + "\n" if diff and not diff.endswith("\n") else diff


# Below these, a pool costs more than it saves: starting the fork server and its workers takes about
# 0.5 s (measured against fork's 0.1 s on 10 files), and 2 MB take about 3 s on one core.
PARALLEL_MIN_FILES = 8
PARALLEL_MIN_BYTES = 2 * 1024 * 1024


def port_files(jobs: Sequence[Job], jobs_n: int | None = None) -> Iterator[FileResult]:
    """A FileResult per job, in job order: on the worker pool when the input is large (or `jobs_n` asks)."""
    total = 0
    for j in jobs:
        try:
            total += os.path.getsize(j.path)
        except OSError:
            pass
    cpus = os.cpu_count() or 1
    n = cpus if jobs_n is None else max(1, jobs_n)
    parallel = n > 1 and len(jobs) >= PARALLEL_MIN_FILES and (total >= PARALLEL_MIN_BYTES or jobs_n is not None)
    if not parallel:
        yield from map(port_file, jobs)
        return
    from ..workers import WorkerDied, on_workers

    workers = min(n, len(jobs))
    done = 0
    try:
        for r in on_workers(port_file, jobs, workers, max(1, len(jobs) // (workers * 4))):
            done += 1
            yield r
    except WorkerDied as e:  # the files not done yet cost an error each, not a wait without end
        for j in jobs[done:]:
            yield FileResult(j.path, j.rel, error=f"{j.path}: not translated: {e}")
