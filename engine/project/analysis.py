"""Analysing a whole project in the background, so counts are exact before every file is opened.

The review session is lazy: it translates and analyses a file when the person opens it. The app still
needs, from the first second, how many findings the project has and which files need a person. This
module computes a small `FileSummary` per file (findings, translation edits, reports of things the
translation could not do) in the background and merges it with the session's own entries into the
`ProjectView` the file list and the header show:

    analysis = ProjectAnalysis(session)
    analysis.start()                 # returns at once; a thread (and, for large trees, a process pool) works
    view = project_view(session, analysis)
    view.done, view.total            # "analysing… 120/5000 files" until view.final
    view.rows[0].state               # ProjectState.NOT_ANALYSED / NOTHING / FINDINGS / ...

Small projects, and sessions with their own translate/analyze functions (tests), are analysed in the
thread through `session.load` (so the diff view then opens them at once). Large trees with the
engine's own functions go to a process pool of forkserver-started workers at a lower priority (nice
10), so the app's own process keeps the CPU it needs for key presses; only plain numbers come back.
A file the session has loaded is always counted from the session (it is the exact, current figure).
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..model import PERSON_KINDS, Translation

NEEDS_PERSON = frozenset(PERSON_KINDS)  # model.PERSON_KINDS: report kinds a person acts on
NO_REPORTS = (0,) * len(PERSON_KINDS)
POOL_MIN_FILES = 64   # below this the thread is as fast as a pool (forkserver start ~0.3 s)
CHUNK = 8             # files per pool task: fewer round trips, still a smooth progress bar
WORKER_GC_THRESHOLDS = (50_000, 20, 20)  # a pool worker's cycle collector (gc.set_threshold): _batch_gc


class ProjectState(StrEnum):
    """What the file list says about a file (its label is the value)."""

    NOT_ANALYSED = "not analysed yet"
    NOTHING = "nothing to port"        # no translation edit, no finding, nothing reported
    TRANSLATED = "translated"          # translation edits only: nothing to decide
    FINDINGS = "findings"              # warp findings still undecided
    UNSUPPORTED = "unsupported APIs"   # no finding pending, but the translation left things to a person
    REVIEWED = "reviewed"              # every finding decided, not written
    WRITTEN = "written"
    COMMITTED = "committed"
    STALE = "stale"
    ERROR = "error"


@dataclass(frozen=True)
class FileSummary:
    rel: str
    findings: int = 0
    edits: int = 0
    reports: tuple[int, ...] = NO_REPORTS  # reports of each kind of PERSON_KINDS
    error: str | None = None

    @property
    def unsupported(self) -> int:
        """Reports a person has to act on, of every kind in NEEDS_PERSON."""
        return sum(self.reports)


def report_counts(translation: Translation) -> tuple[int, ...]:
    """How many reports of each kind of PERSON_KINDS the translation made."""
    counts = dict.fromkeys(PERSON_KINDS, 0)
    for r in translation.reports:
        if r.kind in counts:
            counts[r.kind] += 1
    return tuple(counts.values())


def unsupported_count(translation: Translation) -> int:
    return sum(report_counts(translation))


def summarize(root: str, rel: str, topt: Any, wopt: Any) -> FileSummary:
    """Read, translate and analyse one file with the engine's own functions (a pool task)."""
    return _summarize(root, rel, topt, wopt)[0]


def _summarize(root: str, rel: str, topt: Any, wopt: Any) -> tuple[FileSummary, bool]:
    """The summary, and whether it may be kept across runs (not when libclang parsed the file: a parse
    reads its whole include tree, which the cache key does not cover)."""
    from ..pipeline.files import FileError, guarded, read
    from ..source import Language, language_for
    from ..translate import semantic
    from ..translate.driver import translate
    from ..warp import count_findings

    before = semantic.parses
    try:
        src = read(Path(root) / rel, language_for(rel) or Language.CPP, shown=rel)
        tr = guarded(rel, lambda: translate(src, topt))
        findings = guarded(rel, lambda: count_findings(src, wopt))  # analyze()'s number, no Finding built
    except FileError as e:  # reported on that file, the others go on
        return FileSummary(rel, error=str(e)), False
    keep = semantic.parses == before
    return FileSummary(rel, findings, len(tr.edits), report_counts(tr)), keep


# A pool worker's part of the run, set once by its initializer (not sent with every task): the
# options, the cache salt and the summaries stored by earlier runs (analysis_cache.py).
_WORKER: dict[str, Any] = {}


def _init_worker(root: str, topt: Any, wopt: Any, run_salt: str, cached: dict[str, tuple[int, ...]]) -> None:
    _lower_priority()
    _batch_gc()
    _WORKER.update(root=root, topt=topt, wopt=wopt, salt=run_salt, cached=cached)


def summarize_keyed(rel: str) -> tuple[FileSummary, str | None, bool]:
    """(summary, its cache key or None, whether it came from the cache), in a pool worker."""
    from .. import analysis_cache

    w = _WORKER
    path = Path(w["root"]) / rel
    try:
        key: str | None = analysis_cache.file_key(w["salt"], path, rel, path.read_bytes(),
                                                  bool(getattr(w["wopt"], "project_headers", True)))
    except OSError:
        key = None
    hit = w["cached"].get(key) if key is not None else None
    if hit is not None:
        return FileSummary(rel, hit[0], hit[1], tuple(hit[2:])), key, True
    summary, keep = _summarize(w["root"], rel, w["topt"], w["wopt"])
    return summary, key if keep else None, False


def _batch_gc() -> None:
    """A worker allocates millions of short-lived objects (tokens, edits, findings) that reference
    counting frees; with the default thresholds the cycle collector ran every 700 allocations and took
    about 5% of a file's time (bench/bench_analysis_worker.py). Imported modules are frozen out of its
    view and it runs less often; cyclic garbage is still collected."""
    gc.freeze()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)


def _lower_priority() -> None:
    try:
        os.nice(10)
    except OSError:
        pass


class ProjectAnalysis:
    """Background analysis of every file of a session. Thread-safe reads; `cancel` stops it."""

    def __init__(self, session: Any, *, workers: int | None = None, pool: bool | None = None,
                 rels: list[str] | None = None, use_cache: bool = True) -> None:
        self.session = session
        self.rels: list[str] = rels if rels is not None else [e.rel for e in session.files()]
        self.workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        if pool is None:
            pool = len(self.rels) >= POOL_MIN_FILES and _engine_defaults(session)
        self.use_pool = pool
        if pool:
            prepare_process_pool()
        self._lock = threading.Lock()
        self._summaries: dict[str, FileSummary] = {}
        self._arrived: list[str] = []  # rels in the order their summaries came in
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._pool: Any = None
        self.error: str | None = None  # why the analysis stopped early, if it did
        # summaries kept across runs (.hipport/cache/analysis.json, pool runs only): off for a cold run
        self.use_cache = use_cache
        self.cache_hits = 0            # files whose summary came from there
        self.cache_note: str | None = None  # why it was not written, if it was not
        self.finished_at: float | None = None  # time.perf_counter() when the last summary came in

    # ---------------------------------------------------------------------------------- running
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="hipport-analysis", daemon=True)
            self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the analysis ends (tests, benchmarks); False on timeout. `finished` and `error`
        then say whether it ended complete."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def cancel(self) -> None:
        self._cancel.set()
        pool = self._pool
        if pool is not None:
            pool.terminate()

    def _run(self) -> None:
        try:
            # first the names the project defines itself, so every summary counts reports as
            # `hipport scan` does (a loaded file these names change is loaded again)
            learn = getattr(self.session, "learn_project_names", None)
            if learn is not None:
                learn()
            if self.use_pool:
                self._run_pool()
            else:
                self._run_here()
        except Exception as e:  # the analysis must never take the app down; the header says it stopped
            self.error = f"{type(e).__name__}: {e}"

    def _run_here(self) -> None:
        for rel in self.rels:
            if self._cancel.is_set():
                return
            self._put(summary_of_loaded(self.session, rel))

    def _run_pool(self) -> None:
        from .. import analysis_cache
        from ..workers import WorkerDied, on_workers

        topt, wopt = self.session._options()  # the session's own translate/warp options
        root = str(self.session.root)
        run_salt = analysis_cache.salt(topt, wopt)
        cached = analysis_cache.load(self.session.root) if self.use_cache else {}
        fresh: dict[str, tuple[int, ...]] = {}
        # the pipeline's worker pool: gone when the app is (even after kill -9)
        results = on_workers(summarize_keyed, self.rels, self.workers, CHUNK, ordered=False,
                             initializer=_init_worker, initargs=(root, topt, wopt, run_salt, cached),
                             started=self._started)
        try:
            for s, key, hit in results:
                if self._cancel.is_set():
                    return
                self._put(s)
                self.cache_hits += hit
                if key is not None and s.error is None:
                    fresh[key] = (s.findings, s.edits, *s.reports)
        except WorkerDied:
            if self._cancel.is_set():  # cancel() terminated the pool: not a failure
                return
            raise
        finally:
            results.close()  # the pool ends here, also when cancelled mid-way
            self._pool = None
        if self.use_cache and not self._cancel.is_set():
            self.cache_note = analysis_cache.save(self.session.root, fresh)

    def _started(self, pool: Any) -> None:
        self._pool = pool

    def _put(self, summary: FileSummary) -> None:
        with self._lock:
            if summary.rel not in self._summaries:
                self._arrived.append(summary.rel)
            self._summaries[summary.rel] = summary
            if self.finished_at is None and len(self._summaries) >= len(self.rels):
                self.finished_at = time.perf_counter()

    # ---------------------------------------------------------------------------------- reading
    @property
    def done(self) -> int:
        with self._lock:
            return len(self._summaries)

    @property
    def total(self) -> int:
        return len(self.rels)

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    def summary(self, rel: str) -> FileSummary | None:
        with self._lock:
            return self._summaries.get(rel)

    def arrived_since(self, n: int) -> list[str]:
        """Files whose summaries came in after the first `n` (the app updates only those rows)."""
        with self._lock:
            return self._arrived[n:]

    def summaries(self) -> dict[str, FileSummary]:
        with self._lock:
            return dict(self._summaries)


def prepare_process_pool() -> None:
    """Start multiprocessing's resource tracker now, while sys.stderr is the real one: once Textual
    runs it captures stderr (fileno -1), and starting the tracker then fails ("bad value(s) in
    fds_to_keep"). Create the ProjectAnalysis before the app runs."""
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()


def _engine_defaults(session: Any) -> bool:
    """Whether the session translates/analyses with the engine's own functions (a pool can run those)."""
    from ..review import session as review_session

    return (getattr(session, "_translate", None) is review_session._default_translate
            and getattr(session, "_analyze", None) is review_session._default_analyze)


def summary_of_loaded(session: Any, rel: str) -> FileSummary:
    """Load `rel` through the session (its cache, its functions) and summarise it."""
    from ..review import ReviewError

    try:
        fr = session.load(rel)
    except ReviewError as e:
        return FileSummary(rel, error=str(e))
    return FileSummary(rel, len(fr.findings), len(fr.translation.edits), report_counts(fr.translation))


# ---------------------------------------------------------------------------------- the merged view
@dataclass(frozen=True)
class FileView:
    rel: str
    state: ProjectState
    findings: int       # exact once analysed (0 before)
    decided: int
    reports: tuple[int, ...] = NO_REPORTS  # of each kind of PERSON_KINDS
    output: str = ""
    error: str | None = None

    @property
    def unsupported(self) -> int:
        return sum(self.reports)


@dataclass(frozen=True)
class ProjectView:
    rows: tuple[FileView, ...]
    done: int           # files analysed
    total: int          # files in the project
    findings: int       # over the analysed files
    decided: int
    reports: tuple[int, ...]  # of each kind of PERSON_KINDS, over the analysed files
    stopped: str | None = None  # why the background analysis stopped early

    @property
    def final(self) -> bool:
        return self.done >= self.total

    @property
    def unsupported(self) -> int:
        return sum(self.reports)

    def report_kinds(self) -> dict[str, int]:
        """{kind: count} of the kinds with reports, in PERSON_KINDS order (as `convert` lists them)."""
        return {k.value: n for k, n in zip(PERSON_KINDS, self.reports, strict=True) if n}

    @classmethod
    def of(cls, rows: Sequence[FileView], stopped: str | None = None) -> ProjectView:
        done = sum(1 for r in rows if r.state is not ProjectState.NOT_ANALYSED)
        reports = tuple(map(sum, zip(*(r.reports for r in rows), strict=True))) if rows else NO_REPORTS
        return cls(tuple(rows), done, len(rows), sum(r.findings for r in rows), sum(r.decided for r in rows),
                   reports, stopped)


def project_view(session: Any, analysis: ProjectAnalysis | None) -> ProjectView:
    """Session entries (decisions, written, stale, loaded counts) merged with background summaries."""
    summaries = analysis.summaries() if analysis is not None else {}
    rows = [file_view(session, e, summaries.get(e.rel)) for e in session.files()]
    return ProjectView.of(rows, analysis.error if analysis is not None else None)


def file_view(session: Any, e: Any, s: FileSummary | None) -> FileView:
    """One file's row from its session entry and its background summary (None: not analysed yet).
    Cheap; the app recomputes single rows as decisions and summaries come in."""
    from ..review import FileStatus

    reports = s.reports if s is not None else NO_REPORTS
    if e.status is FileStatus.ERROR:
        return FileView(e.rel, ProjectState.ERROR, 0, 0, reports, e.output, e.error)
    if e.status is FileStatus.UNTRANSLATED:
        if s is None:
            return FileView(e.rel, ProjectState.NOT_ANALYSED, 0, e.decided, NO_REPORTS, e.output)
        if s.error is not None:
            return FileView(e.rel, ProjectState.ERROR, 0, 0, NO_REPORTS, e.output, s.error)
        findings, decided = s.findings, min(e.decided, s.findings)
        return FileView(e.rel, _open_state(findings, decided, s.edits, sum(reports)), findings, decided,
                        reports, e.output)
    findings, decided = e.findings, e.decided
    edits = s.edits if s is not None else 0
    if session.is_loaded(e.rel):  # cached: the exact current figures
        tr = session.load(e.rel).translation
        edits, reports = len(tr.edits), report_counts(tr)
    state = {
        FileStatus.STALE: ProjectState.STALE,
        FileStatus.WRITTEN: ProjectState.WRITTEN,
        FileStatus.COMMITTED: ProjectState.COMMITTED,
    }.get(e.status) or _open_state(findings, decided, edits, sum(reports))
    return FileView(e.rel, state, findings, decided, reports, e.output)


def _open_state(findings: int, decided: int, edits: int, unsupported: int) -> ProjectState:
    if findings and decided < findings:
        return ProjectState.FINDINGS
    if unsupported:
        return ProjectState.UNSUPPORTED
    if findings:
        return ProjectState.REVIEWED
    return ProjectState.TRANSLATED if edits else ProjectState.NOTHING

