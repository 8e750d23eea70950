"""The review session: the files of a project, their translations and warp findings, the person's
decisions on each finding, and writing/committing the result. The app renders this and nothing else:
widgets hold no state the session does not have, so the UI can be rebuilt from it at any time.

    session = ReviewSession.open(root)            # cheap: walks the tree, loads .hipport/state.json
    session.files()                               # [FileEntry], sorted, with status and counts
    fr = session.load("gemm.cu")                  # translate + analyze (cached; fine in a worker thread)
    session.decide("gemm.cu", fid, Decision.ACCEPTED)   # whole fix group; one undo step
    session.rows("gemm.cu")                       # diffrows.Row list for the diff view
    session.write("gemm.cu"); session.commit(session.commit_message())

Rules the session keeps:
- A fix group changes together: `decide` applies to the whole group, `decide_one` refuses to split it.
- Every decide*/set_style is one undo step; `undo`/`redo` return the Change to repaint.
- A fix group of tier REVIEW is accepted only with `review_confirmed=True` (the person read it; the
  app's Y): otherwise `decide` raises NeedsReview, and `decide_rest`/`decide_groups` accept none.
- Decisions are saved after every change (autosave) to .hipport/state.json; nothing touches the
  person's code until `write`, and nothing touches git until `commit`.
- A file whose bytes changed since its decisions were made is STALE: the decisions are kept and shown
  (`stale_decisions`), never applied or written, until `resolve_stale` says what to do with them.

Errors are one-line exceptions: ReviewError (and its GroupRefused, NeedsReview, StaleError, OutputExists,
OutputShared), StateError on open, config.ConfigError, fsutil.WriteError, vcs.VcsError.

The session is composed of collaborators that it calls, each owning its own state: a StateStore
(persist.py: the decisions and write records, state.json), Decisions (decisions.py: deciding and
undo), a ResultCache (results.py: the composed edits under the decisions), a StalenessChecker
(stale.py: files changed on disk), a Writer (write.py: output paths, writing by outputs.py's policy)
and a Committer (commit.py: git). This module opens, lists, loads and renders, and hands the rest on.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..api import translate_options, warp_options
from ..compose import connected_groups
from ..config import Config, ConfigError, load_config
from ..diffrows import Row, build_rows
from ..discover import discover
from ..edits import Edit, EditConflict, apply_edits, find_conflict
from ..fsutil import is_inside, remove_leftover_temps
from ..model import Analysis, Finding, FixStyle, ReportKind, Translation
from ..outputs import output_folder_rel
from ..pipeline import logical_port, port_reports
from ..project.names import NameIndex
from ..source import Source
from ..translate.driver import translate
from ..translate.options import TranslateOptions
from ..warp import WarpOptions, analyze
from .commit import Committer
from .decisions import Decisions
from .persist import StateStore
from .results import ResultCache
from .stale import StalenessChecker, carry_over
from .state import Decision, State, StateError, load_state, quarantine, sha256_bytes, state_path
from .types import (
    AnalyzeFn,
    Change,
    FileEntry,
    FileReview,
    FileStatus,
    ReportItem,
    ReviewError,
    StaleError,
    TranslateFn,
    is_report,
    language_of,
    report_items,
)
from .write import Writer

if TYPE_CHECKING:
    from ..warp.logical import LogicalWarps

LogicalFn = Callable[[Source, Translation], "LogicalWarps | None"]


def _default_translate(source: Source, options: TranslateOptions) -> Translation:
    return translate(source, options)


def _default_analyze(source: Source, translation: Translation, options: WarpOptions) -> Analysis:
    return analyze(source, translation, options)


class ReviewSession:
    """See the module docstring. Thread-safe: `load` may run in worker threads while the UI decides."""

    def __init__(self, root: Path, config: Config, state: State, translate: TranslateFn, analyze: AnalyzeFn,
                 autosave: bool, logical: LogicalFn = logical_port) -> None:
        self.root = Path(root)
        self.config = config
        self._translate = translate
        self._analyze = analyze
        self._logical = logical
        self._lock = threading.RLock()  # one lock for the session and its collaborators
        self._store = StateStore(self.root, state, autosave)
        self._results = ResultCache(self._store, self._lock)
        self._decisions = Decisions(self._store, self._results, self._lock, lambda: self.config.fix_style)
        self._stale = StalenessChecker(self.root, self._store, self._lock)
        self._writer = Writer(self.root, self._store, self._lock, lambda: self.config)
        self._committer = Committer(self.root, self._store, self._lock)
        self._load_locks: dict[str, threading.Lock] = {}
        self._loaded: dict[str, FileReview] = {}
        self._errors: dict[str, str] = {}
        self._rels: list[str] = []
        # CUDA-looking names the project defines (engine/project_names.py), learned off the first screen's
        # path (learn_project_names); None until then
        self._project_names: frozenset[str] | None = None
        self._names_index = NameIndex()
        self.rescan()
        self.leftovers_removed = self._remove_leftover_temps()

    # ----------------------------------------------------------------------------------- opening

    @classmethod
    def open(cls, root: Path, config: Config | None = None, *, translate: TranslateFn | None = None,
             analyze: AnalyzeFn | None = None, fresh: bool = False, autosave: bool = True,
             logical: LogicalFn | None = None) -> ReviewSession:
        """Open the project at `root` (a folder; a git work tree or not). Cheap: no translation yet.

        Raises StateError if .hipport/state.json is corrupt or from a newer hipport; `fresh=True`
        moves such a file aside (state.json.bad-<time>) and starts with no decisions.
        `translate`/`analyze`/`logical` replace the engine's functions (same signatures), e.g. in tests
        (`logical`: the logical-warp port written for every warp group not accepted as 64-wide;
        pipeline.logical_port).
        """
        root = Path(root)
        if not root.is_dir():
            raise ReviewError(f"{root}: not a folder")
        cfg = config if config is not None else load_config(root)
        try:
            state = load_state(root)
        except StateError:
            if not fresh:
                raise
            quarantine(root)
            state = State()
        return cls(root, cfg, state, translate or _default_translate, analyze or _default_analyze, autosave,
                   logical or logical_port)

    def _remove_leftover_temps(self) -> list[Path]:
        """Temp files that a write killed midway (`w`, or a convert) left where this project's files and
        outputs are written: removed at the start (fsutil.remove_leftover_temps keeps live writers')."""
        parents = {rel.rpartition("/")[0] for rel in self._rels} | {""}
        out = output_folder_rel(self.config)
        folders = [self.root / p for p in sorted(parents)] + [state_path(self.root).parent]
        if out is not None:
            folders += [self.root / out / p for p in sorted(parents)]
        return remove_leftover_temps(folders)

    def rescan(self) -> list[str]:
        """Walk the tree again (new/removed files); returns the file list's paths."""
        skip = [s for s in (output_folder_rel(self.config),) if s]
        rels = list(discover(self.root, self.config.include, self.config.exclude, skip))
        outputs: set[str] = set()
        if self.config.output_mode == "sibling":
            for r in rels:
                o = self._writer.out_rel(r)
                if o != r:
                    outputs.add(o)
        with self._lock:
            files = self._store.state.files
            for src, fs in files.items():
                if fs.written is not None and fs.written.path != src:
                    outputs.add(fs.written.path)
            # a file that is some other file's output is not itself reviewed (gemm.hip beside gemm.cu)
            self._rels = [r for r in rels if r not in outputs or (r in files and files[r].decisions)]
        self._check_disk()
        if self._project_names is not None:  # a header may have gained or lost a #define: only changed files read
            self.learn_project_names()
        return list(self._rels)

    def set_config(self, config: Config) -> None:
        """Use new settings (e.g. output mode chosen in the app). Translations are redone lazily when
        the translation/analysis options changed."""
        old = self.config
        with self._lock:
            self.config = config
            # output_mode too: build scripts name sibling outputs (gemm.cu -> gemm.hip) in sibling mode
            if (translate_options(old), warp_options(old)) != (translate_options(config), warp_options(config)):
                self._loaded.clear()
                self._errors.clear()
        self.rescan()

    # ----------------------------------------------------------------------------------- listing

    def files(self) -> list[FileEntry]:
        """Every file under review, sorted by path, with its status. Cheap: reads no file."""
        with self._lock:
            return [self._entry(rel) for rel in self._rels]

    def entry(self, rel: str) -> FileEntry:
        with self._lock:
            return self._entry(rel)

    def _entry(self, rel: str) -> FileEntry:
        lang = language_of(rel)
        out = ""
        try:
            out = self._writer.out_rel(rel)
        except ConfigError:
            pass
        if rel in self._errors:
            return FileEntry(rel, lang, FileStatus.ERROR, 0, 0, self._errors[rel], out)
        fs = self._store.file(rel)
        fr = self._loaded.get(rel)
        if fr is not None:
            total = len(fr.findings)
            decided = sum(1 for f in fr.findings if self.decision(rel, f.id) != Decision.PENDING)
        else:
            total = fs.findings if fs and fs.findings is not None else 0
            decided = sum(1 for r in fs.decisions.values() if r.decision != Decision.PENDING) if fs else 0
        if (fr is not None and fr.stale) or (fr is None and self._stale.is_stale(rel)):
            return FileEntry(rel, lang, FileStatus.STALE, total, decided, None, out)
        status = FileStatus.UNTRANSLATED
        if fs is not None and fs.written is not None and fs.written.fingerprint == self._writer.fingerprint(rel):
            status = FileStatus.COMMITTED if fs.committed else FileStatus.WRITTEN
        elif fr is not None or (fs is not None and fs.findings is not None):
            if total and decided >= total:
                status = FileStatus.REVIEWED
            elif total:
                status = FileStatus.HAS_FINDINGS
            else:
                status = FileStatus.TRANSLATED
        return FileEntry(rel, lang, status, total, decided, None, out)

    # ----------------------------------------------------------------------------------- loading

    def is_loaded(self, rel: str) -> bool:
        with self._lock:
            return rel in self._loaded

    def load(self, rel: str) -> FileReview:
        """Translate and analyze `rel` (once; cached). Safe from a worker thread. Raises ReviewError
        (one line) when the file cannot be read, translated or analyzed; its status becomes ERROR."""
        with self._lock:
            fr = self._loaded.get(rel)
            if fr is not None:
                return fr
            lock = self._load_locks.setdefault(rel, threading.Lock())
        from ..pipeline.files import failure

        with lock:
            with self._lock:
                fr = self._loaded.get(rel)
                if fr is not None:
                    return fr
            try:
                fr = self._load(rel)
                for _ in range(2):  # the project's names were learned while it was translated: again
                    with self._lock:
                        if not self._names_affect(fr):
                            break
                    fr = self._load(rel)
            except Exception as e:  # a ReviewError as it is; anything else in the pipeline's one wording
                error = e if isinstance(e, ReviewError) else ReviewError(str(failure(rel, e)))
                with self._lock:
                    self._errors[rel] = str(error)
                if error is e:
                    raise
                raise error from None
            with self._lock:
                self._errors.pop(rel, None)
                self._loaded[rel] = fr
                fs = self._store.file(rel)
                if fs is not None and not fr.stale:
                    fs.findings = len(fr.findings)
                    fs.sha256 = fr.sha256  # unchanged, or new bytes of a file without decisions
            return fr

    def learn_project_names(self) -> list[str]:
        """Learn the CUDA-looking names the project's files define (engine/project/names.py: never
        "unknown"), as `hipport scan` and `convert` do over the same files. Reads every C/C++/CUDA file
        once (then only changed ones), so the app calls it from its background analysis, not before its
        first screen. Loaded files whose reports these names change are dropped (loaded again on
        demand); returns them."""
        with self._lock:
            rels = list(self._rels)
        names = self._names_index.names([self.root / r for r in rels], self.config.include_dirs)
        with self._lock:
            self._project_names = names
            dropped = [rel for rel, fr in self._loaded.items() if self._names_affect(fr)]
            for rel in dropped:
                self._loaded.pop(rel, None)
                self._results.forget(rel)
        return dropped

    def _names_affect(self, fr: FileReview) -> bool:
        """Whether the file was translated with other project names than the session's, in a way that
        changes its reports: a name now known that it reported as unknown, or one no longer known that
        its text uses."""
        now = self._project_names or frozenset()
        if fr.names == now:
            return False
        added, removed = now - fr.names, fr.names - now
        return (any(r.kind is ReportKind.UNKNOWN and r.name in added for r in fr.translation.reports)
                or any(name in fr.source.text for name in removed))

    def _options(self) -> tuple[TranslateOptions, WarpOptions]:
        topt = translate_options(self.config)
        if self._project_names:
            topt = dataclasses.replace(topt, project_names=self._project_names)
        if self.config.output_mode == "sibling":
            # sibling outputs get new names: includes between the reviewed files follow them
            key = (id(self._rels), len(self._rels))
            cached = getattr(self, "_siblings", None)
            if cached is None or cached[0] != key:
                cached = self._siblings = (key, frozenset(os.path.normpath(os.path.abspath(self.root / r))
                                                          for r in self._rels))
            topt = dataclasses.replace(topt, sibling_outputs=cached[1])
        return topt, warp_options(self.config)

    def _load(self, rel: str) -> FileReview:
        src, stale = self._stale.read_original(rel, self._path(rel))
        topt, wopt = self._options()
        try:
            tr = self._translate(src, topt)
        except Exception as e:  # an engine bug must not take the app down: report it on the file
            raise ReviewError(f"{rel}: translation failed: {type(e).__name__}: {e}") from None
        logical = self._logical(src, tr)
        if logical is not None:  # the reports of the port as written by default (pipeline.port_reports)
            tr = dataclasses.replace(tr, reports=port_reports(tr.reports, logical.edits(), logical))
        try:
            an = connected_groups(self._analyze(src, tr, wopt), logical)
        except Exception as e:
            raise ReviewError(f"{rel}: warp analysis failed: {type(e).__name__}: {e}") from None
        clash = find_conflict(tr.edits)
        if clash:
            raise ReviewError(f"{rel}: the translation produced overlapping edits ({EditConflict(*clash)})")
        findings = tuple(sorted(an.findings, key=lambda f: (f.start, f.end, f.id)))
        if len({f.id for f in findings}) != len(findings):  # ids must be unique for decisions to mean anything
            seen: dict[str, int] = {}
            unique = []
            for f in findings:
                n = seen[f.id] = seen.get(f.id, 0) + 1
                unique.append(f if n == 1 else dataclasses.replace(f, id=f"{f.id}#{n}"))
            findings = tuple(unique)
        groups: dict[str, list[str]] = {}
        for f in findings:
            groups.setdefault(f.group or f.id, []).append(f.id)
        # findings with an empty group id form groups of one
        findings = tuple(f if f.group else dataclasses.replace(f, group=f.id) for f in findings)
        reports = report_items(tr.reports)
        items: list[Finding | ReportItem] = [*findings, *reports]
        marked = tuple(sorted(items, key=lambda m: (m.start, isinstance(m, ReportItem), m.end)))
        return FileReview(
            rel=rel, source=src, translation=tr, names=topt.project_names,
            reports=reports, report_by_id={r.id: r for r in reports}, marked=marked, analysis=dataclasses.replace(an, findings=findings), stale=stale,
            sha256=sha256_bytes(src.raw or b""), findings=findings,
            by_id={f.id: f for f in findings},
            index={f.id: i for i, f in enumerate(findings)},
            groups={g: tuple(ids) for g, ids in groups.items()},
            fix_groups={g.id: g for g in an.groups},
            logical=logical,
        )

    # ----------------------------------------------------------------------------------- navigation

    def next_finding(self, rel: str, current: str | None, step: int = 1, undecided_only: bool = True,
                     wrap: bool = False) -> str | None:
        """The next (step=1) or previous (step=-1) finding after `current` in file order; with
        `undecided_only`, only pending ones. current=None starts before the first (or after the last
        for step<0). Returns None at the end of the file unless `wrap`."""
        fr = self.load(rel)
        ids = [f.id for f in fr.findings]
        n = len(ids)
        if not n:
            return None
        if current is None or current not in fr.by_id:
            start = -1 if step > 0 else n
        else:
            start = fr.index[current]
        d = 1 if step > 0 else -1
        with self._lock:
            for k in range(1, n + 1):
                j = start + d * k
                if wrap:
                    j %= n
                elif not 0 <= j < n:
                    return None
                if ids[j] == current:
                    return None
                if not undecided_only or self.decision(rel, ids[j]) == Decision.PENDING:
                    return ids[j]
        return None

    def next_item(self, rel: str, current: str | None, step: int = 1, undecided_only: bool = True) -> str | None:
        """Like next_finding, over the findings AND the reports a person acts on (fr.marked), in the order
        of the text; a report is never decided, so `undecided_only` keeps it. None at the end of the file."""
        fr = self.load(rel)
        ids = [m.id for m in fr.marked]
        n = len(ids)
        if not n:
            return None
        try:
            start = ids.index(current) if current is not None else (-1 if step > 0 else n)
        except ValueError:
            start = -1 if step > 0 else n
        d = 1 if step > 0 else -1
        with self._lock:
            j = start + d
            while 0 <= j < n:
                mid = ids[j]
                if not undecided_only or is_report(mid) or self.decision(rel, mid) == Decision.PENDING:
                    return mid
                j += d
        return None

    def progress(self, rel: str | None = None) -> tuple[int, int]:
        """(decided, total) findings: of one file, or (rel=None) of every file as last known."""
        with self._lock:
            if rel is not None:
                e = self._entry(rel)
                return e.decided, e.findings
            ds = [self._entry(r) for r in self._rels]
            return sum(e.decided for e in ds), sum(e.findings for e in ds)

    # ----------------------------------------------------------------------------------- rendering

    def result_edits(self, rel: str) -> list[Edit]:
        """Translation edits + fix edits of the accepted findings in their chosen style (+ each group's
        shared edits once). Only whole groups are applied: a group that is only partly accepted (saved
        state from another analysis) or whose fix overlaps another is held back, see `held`. A STALE file
        gets the translation only."""
        return list(self._results.result(self.load(rel))[0])

    def held(self, rel: str) -> dict[str, str]:
        """Fix groups with accepted findings that are NOT applied: group id -> one-line reason."""
        return dict(self._results.result(self.load(rel))[1])

    def result_text(self, rel: str) -> str:
        """The HIP text: translation + accepted fixes (whole groups)."""
        fr = self.load(rel)
        return apply_edits(fr.source.text, self.result_edits(rel))

    def rows(self, rel: str, context: int = 3, expanded: frozenset[int] = frozenset()) -> list[Row]:
        """diffrows.build_rows for this file as it stands (cheap to call after each decision)."""
        fr = self.load(rel)
        return build_rows(fr.source.text, self._results.result(fr)[0], fr.marked, context, expanded, checked=True)

    # ----------------------------------------------------------------------------------- decisions

    def decision(self, rel: str, finding_id: str) -> Decision:
        return self._decisions.record(rel, finding_id).decision

    def style(self, rel: str, finding_id: str) -> FixStyle:
        return self._decisions.record(rel, finding_id).style

    def decide(self, rel: str, finding_id: str, decision: Decision, *, review_confirmed: bool = False) -> Change:
        """Accept/reject/reset the finding and every other finding of its fix group. One undo step.
        Accepting a group of tier REVIEW needs `review_confirmed` (the person read the fix), else
        NeedsReview; GroupRefused if the accepted fix would conflict with another accepted fix."""
        return self._decisions.decide(self._editable(rel), finding_id, decision, review_confirmed=review_confirmed)

    def decide_one(self, rel: str, finding_id: str, decision: Decision, *, review_confirmed: bool = False) -> Change:
        """Decide this finding only; raises GroupRefused if it belongs to a fix group of more than one."""
        return self._decisions.decide_one(self._editable(rel), finding_id, decision,
                                          review_confirmed=review_confirmed)

    def decide_rest(self, rel: str, decision: Decision) -> Change:
        """Decide every still-pending finding of the file (whole groups). One undo step. Accepting is
        refused (NeedsReview) while a pending finding has a REVIEW-tier fix."""
        return self._decisions.decide_rest(self._editable(rel), decision)

    def set_style(self, rel: str, style: FixStyle, finding_id: str | None = None) -> Change:
        """Choose the fix style for the finding's group, or (finding_id=None) for every group of the file
        that has a fix in that style. One undo step."""
        return self._decisions.set_style(self._editable(rel), style, finding_id)

    def decide_groups(self, targets: Sequence[tuple[str, str]], decision: Decision, message: str) -> Change:
        """Decide whole fix groups (rel, group id) in several files, e.g. one decision applied to every
        identical finding (identical.py): ONE undo step. A group whose fix would be held back is
        skipped; the message says how many were. Accepting a REVIEW-tier group this way is refused
        (NeedsReview). Change.path is the first file changed. Nothing changes when a file is stale."""
        files = {rel: self._editable(rel) for rel in dict.fromkeys(rel for rel, _ in targets)}
        return self._decisions.decide_groups(files, targets, decision, message)

    def undo(self) -> Change | None:
        """Take back the last decide*/set_style; None when there is nothing to undo."""
        return self._decisions.undo()

    def redo(self) -> Change | None:
        """Do again what `undo` took back; None when there is nothing to redo."""
        return self._decisions.redo()

    def can_undo(self) -> bool:
        return self._decisions.can_undo()

    def _editable(self, rel: str) -> FileReview:
        fr = self.load(rel)
        if fr.stale:
            raise StaleError(f"{rel} changed on disk since it was reviewed; its decisions are kept but "
                             "not applied (resolve the stale file first)")
        return fr

    # ----------------------------------------------------------------------------------- files changed on disk

    def _check_disk(self) -> None:
        """Notice files changed on disk (StalenessChecker.check); a loaded file without decisions whose
        bytes changed is translated again when next loaded."""
        with self._lock:
            loaded = dict(self._loaded)
        again = self._stale.check(loaded)
        with self._lock:
            for rel, fr in again:
                if self._loaded.get(rel) is fr:
                    self._loaded.pop(rel, None)
                    self._results.forget(rel)

    def changed_outside(self, rel: str) -> bool:
        """Whether `rel` on disk is neither what was loaded nor hipport's own in-place write of it (the
        app's disk watch: its own `w` is no change made outside hipport)."""
        return self._stale.changed_outside(rel, self._loaded.get(rel))

    def stale_decisions(self, rel: str) -> dict[str, Decision]:
        """Saved decisions of a STALE file (shown as stale, never applied); {} when not stale."""
        fr = self.load(rel)
        if not fr.stale:
            return {}
        with self._lock:
            fs = self._store.file(rel)
            return {fid: r.decision for fid, r in fs.decisions.items()} if fs else {}

    def resolve_stale(self, rel: str, keep: bool = True) -> Change:
        """Accept the file's new bytes as the reviewed ones. keep=True carries the saved decisions over
        to the findings that are still there (stale.carry_over); keep=False drops them. Clears undo."""
        with self._lock:
            self._loaded.pop(rel, None)
            self._results.forget(rel)
            self._stale.forget(rel)
            fs = self._store.file(rel)
            old = dict(fs.decisions) if fs else {}
            if fs is not None:
                fs.sha256 = None
                fs.decisions.clear()
        fr = self.load(rel)
        with self._lock:
            fs = self._store.entry(rel)
            fs.sha256 = fr.sha256
            self._store.touch(rel)
            kept = carry_over(old, fr) if keep else {}
            fs.decisions.update(kept)
            self._decisions.clear_history()
            self._store.autosave_note()
        return Change(rel, tuple(kept), f"{rel}: kept {len(kept)} of {len(old)} decisions on the new text")

    # ----------------------------------------------------------------------------------- writing

    def output_path(self, rel: str) -> Path:
        return self._writer.output_path(rel)

    def write(self, rel: str, *, overwrite: bool = False) -> Path:
        """Write the result of `rel` atomically to its output path; returns that path.

        Refuses (StaleError) a file changed on disk since review; refuses (OutputExists) to replace an
        output file hipport did not write, or one edited since, unless `overwrite`; refuses
        (OutputShared) when another source has the same output path.
        Nothing is lost: the write goes through outputs.write_port, the policy `hipport convert`
        writes by (in place, the original is kept as <file>.prehip; an output replaced after
        `overwrite` is kept beside it too).
        """
        fr = self._editable(rel)
        src_path = self._path(rel)
        with self._lock:
            data = fr.source.encode(self.result_text(rel))
            return self._writer.write(fr, src_path, data, self._rels, overwrite=overwrite)

    def unwritten(self) -> list[str]:
        """Files with decisions whose current result is not on disk (excludes STALE files)."""
        with self._lock:
            return self._writer.unwritten(self._rels, self._loaded)

    # ----------------------------------------------------------------------------------- git

    def committable(self) -> dict[str, str]:
        """root-relative output path -> sha256 hipport wrote, for outputs written and not yet committed
        whose bytes on disk are still exactly what hipport wrote."""
        return self._committer.committable()

    def nothing_to_commit(self) -> str:
        """Why committable() is empty: one line that names a written output edited or deleted since."""
        return self._committer.nothing_to_commit()

    def commit_message(self) -> str:
        """A message for committing `committable()`: files, rules fixed (by style), fixes rejected."""
        return self._committer.commit_message()

    def commit(self, message: str, branch: str | None = None, cancel: threading.Event | None = None) -> str:
        """Commit exactly the files hipport wrote (and nothing else staged); returns the commit sha.
        `branch` commits on `hipport/<branch>` (created from HEAD); setting `cancel` stops git and its
        hooks. Raises vcs.VcsError / ReviewError."""
        return self._committer.commit(message, branch, cancel)

    # ----------------------------------------------------------------------------------- saving

    @property
    def autosave(self) -> bool:
        """Whether every change is saved to .hipport/state.json at once."""
        return self._store.autosave

    @property
    def save_error(self) -> str | None:
        """Why the last automatic save failed, if it did."""
        return self._store.save_error

    def save(self) -> None:
        """Write .hipport/state.json (readable JSON, "version": 1) atomically. Raises WriteError."""
        with self._lock:
            self._store.save()

    def _path(self, rel: str) -> Path:
        p = self.root / rel
        if not is_inside(p, self.root):
            raise ReviewError(f"{rel}: outside the project root")
        return p
