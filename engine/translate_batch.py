"""Translating many files in one process: plain-data results, and all cores for large trees.

`port_file` is the unit of work (read, translate, optionally apply warp fixes, render, diff); it
returns a FileResult of plain data so it crosses process boundaries cheaply. `port_files` runs it
serially for small inputs and on a pool for large ones (engine/workers.py: forkserver-started workers,
the engine imported once in the fork server, gone when this process dies).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .model import FixStyle

# Below these, a pool costs more than it saves: starting the fork server and its workers takes about
# 0.5 s (measured against fork's 0.1 s on 10 files), and 2 MB take about 3 s on one core.
PARALLEL_MIN_FILES = 8
PARALLEL_MIN_BYTES = 2 * 1024 * 1024


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
    """Read, translate and render one file. Errors become FileResult.error (one line)."""
    from .edits import EditConflict
    from .pipeline import port
    from .report import report_dict
    from .source import BUILD_LANGUAGES, SourceError, read_source
    from .translate.options import TranslateError

    res = FileResult(job.path, job.rel)
    try:
        src = read_source(job.path)
    except SourceError as e:
        res.error = str(e)
        return res
    res.language = src.language.value
    res.bytes_in = len(src.raw or b"")
    options = job.options
    archs = getattr(job.warp_options, "archs", None)
    if src.language in BUILD_LANGUAGES and archs and options is not None and hasattr(options, "archs"):
        options = dataclasses.replace(options, archs=tuple(archs))  # one target list: --arch also sets the build's
    try:
        pr = port(src, options, fixes=job.fixes, style=job.style, warp_options=job.warp_options,
                  allow_review=job.allow_review)
    except (TranslateError, EditConflict, ValueError) as e:
        res.error = f"{job.path}: {e}"
        return res
    except Exception as e:  # an engine bug must cost this file only, never the rest of a tree
        res.error = (f"{job.path}: internal error ({type(e).__name__}: {e}); a hipport bug, please report it "
                     "with this file; the file was not written")
        return res
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
        import difflib

        a = src.text.splitlines(keepends=True)
        b = pr.text.splitlines(keepends=True)
        res.diff = "".join(difflib.unified_diff(a, b, fromfile=job.path, tofile=job.diff_label or job.path))
        if res.diff and not res.diff.endswith("\n"):
            res.diff += "\n"
    return res


def port_files(jobs: Sequence[Job], jobs_n: int | None = None,
               progress: Callable[[FileResult], None] | None = None) -> Iterator[FileResult]:
    """Yield a FileResult per job, in job order. Uses a process pool when the input is large."""
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
        for j in jobs:
            r = port_file(j)
            if progress:
                progress(r)
            yield r
        return
    from .workers import WorkerDied, ordered_results, worker_pool

    workers = min(n, len(jobs))
    chunk = max(1, len(jobs) // (workers * 4))
    done = 0
    with worker_pool(workers) as pool:  # workers that end with this process, even after kill -9
        try:
            for r in ordered_results(pool, port_file, jobs, chunk):
                done += 1
                if progress:
                    progress(r)
                yield r
        except WorkerDied as e:  # the files not done yet cost an error each, not a wait without end
            for j in jobs[done:]:
                r = FileResult(j.path, j.rel, error=f"{j.path}: not translated: {e}")
                if progress:
                    progress(r)
                yield r
