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
- Decisions are saved after every change (autosave) to .hipport/state.json; nothing touches the
  person's code until `write`, and nothing touches git until `commit`.
- A file whose bytes changed since its decisions were made is STALE: the decisions are kept and shown
  (`stale_decisions`), never applied or written, until `resolve_stale` says what to do with them.

Errors are one-line exceptions: ReviewError (and its GroupRefused, StaleError), StateError on open,
config.ConfigError, fsutil.WriteError, vcs.VcsError.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from .config import Config, ConfigError, load_config
from .diffrows import Row, build_rows
from .discover import discover
from .edits import Edit, EditConflict, apply_edits, find_conflict
from .fsutil import WriteError, atomic_write, is_inside
from .model import Analysis, Finding, FixGroup, FixStyle, Translation
from .outputs import output_folder_rel, output_path, output_rel
from .pipeline import dedupe
from .review_state import (
    Decision,
    DecisionRecord,
    FileState,
    State,
    StateError,
    WrittenRecord,
    check_inside_state_dir,
    ensure_state_dir,
    load_state,
    original_copy_path,
    quarantine,
    save_state,
    sha256_bytes,
    sha256_file,
    state_path,
)
from .source import Language, Source, SourceError, language_for, read_source

TranslateFn = Callable[[Source, Any], Translation]
AnalyzeFn = Callable[[Source, Translation, Any], Analysis]

__all__ = [
    "Change", "Decision", "FileEntry", "FileReview", "FileStatus", "GroupRefused", "ReviewError",
    "ReviewSession", "StaleError", "StateError",
]


class ReviewError(Exception):
    """Something the session will not do; the message is one line a person can act on."""


class GroupRefused(ReviewError):
    """Deciding would split a fix group, or the group's fix conflicts with another accepted fix."""


class StaleError(ReviewError):
    """The file changed on disk since its decisions were made; they are not applied."""


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

    def group_of(self, finding_id: str) -> tuple[str, ...]:
        return self.groups[self.by_id[finding_id].group]


@dataclass(frozen=True)
class _Step:
    rel: str
    changes: tuple[tuple[str, DecisionRecord | None, DecisionRecord | None], ...]  # fid, before, after
    message: str


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """Identity of a file's current version (a rename-into-place changes the inode)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _engine(module: str) -> Any:
    """Import an engine module lazily (the translator pulls in libclang)."""
    return importlib.import_module(f"{__package__}.{module}")


def _default_translate(source: Source, options: Any) -> Translation:
    result: Translation = _engine("translate").translate(source, options)
    return result


def _default_analyze(source: Source, translation: Translation, options: Any) -> Analysis:
    result: Analysis = _engine("warp").analyze(source, translation, options)
    return result


@functools.lru_cache(maxsize=65536)
def _language(rel: str) -> Language:
    return language_for(rel) or Language.CPP


def _anchor(fr: FileReview, f: Finding) -> str:
    """Short hash of the stripped source line(s) of a finding."""
    starts = fr.source.line_starts
    a = starts[f.line - 1] if 0 < f.line <= len(starts) else f.start
    end = fr.source.text.find("\n", max(f.end, a))
    line = fr.source.text[a : end if end >= 0 else len(fr.source.text)]
    return hashlib.sha256(line.strip().encode("utf-8", "surrogatepass")).hexdigest()[:12]


class ReviewSession:
    """See the module docstring. Thread-safe: `load` may run in worker threads while the UI decides."""

    def __init__(self, root: Path, config: Config, state: State, translate: TranslateFn | None,
                 analyze: AnalyzeFn | None, autosave: bool) -> None:
        self.root = Path(root)
        self.config = config
        self.autosave = autosave
        self.save_error: str | None = None  # why the last automatic save failed, if it did
        self._state = state
        self._translate = translate or _default_translate
        self._analyze = analyze or _default_analyze
        self._lock = threading.RLock()
        self._commit_lock = threading.Lock()
        self._load_locks: dict[str, threading.Lock] = {}
        self._loaded: dict[str, FileReview] = {}
        # rel -> (the load it was computed for, result edits, held groups)
        self._results: dict[str, tuple[FileReview, tuple[Edit, ...], dict[str, str]]] = {}
        self._errors: dict[str, str] = {}
        self._undo: list[_Step] = []
        self._redo: list[_Step] = []
        self._rels: list[str] = []
        self._disk_stale: set[str] = set()
        self._outs: dict[str, str] = {}
        self._touched: set[str] = set()  # files whose saved entry this session changed
        self._state_stamp = _stamp(state_path(self.root))
        self.rescan()

    # ----------------------------------------------------------------------------------- opening

    @classmethod
    def open(cls, root: Path, config: Config | None = None, *, translate: TranslateFn | None = None,
             analyze: AnalyzeFn | None = None, fresh: bool = False, autosave: bool = True) -> ReviewSession:
        """Open the project at `root` (a folder; a git work tree or not). Cheap: no translation yet.

        Raises StateError if .hipport/state.json is corrupt or from a newer hipport; `fresh=True`
        moves such a file aside (state.json.bad-<time>) and starts with no decisions.
        `translate`/`analyze` replace the engine's functions (same signatures), e.g. in tests.
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
        return cls(root, cfg, state, translate, analyze, autosave)

    def rescan(self) -> list[str]:
        """Walk the tree again (new/removed files); returns the file list's paths."""
        skip = [s for s in (output_folder_rel(self.config),) if s]
        rels = list(discover(self.root, self.config.include, self.config.exclude, skip))
        outputs: set[str] = set()
        if self.config.output_mode == "sibling":
            for r in rels:
                o = self._out_rel(r)
                if o != r:
                    outputs.add(o)
        with self._lock:
            for src, fs in self._state.files.items():
                if fs.written is not None and fs.written.path != src:
                    outputs.add(fs.written.path)
            # a file that is some other file's output is not itself reviewed (gemm.hip beside gemm.cu)
            self._rels = [r for r in rels if r not in outputs or (r in self._state.files and
                                                                  self._state.files[r].decisions)]
        self._check_disk()
        return list(self._rels)

    def _check_disk(self) -> None:
        """Notice files changed on disk: a file with saved decisions becomes STALE; a loaded file without
        decisions is simply translated again when next loaded. Reads only those files."""
        stale: set[str] = set()
        changed: set[str] = set()
        with self._lock:
            entries = {rel: (fs.sha256, fs.written) for rel, fs in self._state.files.items()
                       if fs.decisions and fs.sha256}
            outdated = {rel: (fs.sha256, fs.written) for rel, fs in self._state.files.items()
                        if not fs.decisions and fs.sha256 and fs.written}
            loaded = dict(self._loaded)
        for group, out in ((entries, stale), (outdated, changed)):
            for rel, (sha, written) in group.items():
                disk = sha256_file(self.root / rel)
                if disk is None or disk == sha:
                    continue
                if written is not None and written.path == rel and disk == written.sha256:
                    continue  # written in place by hipport
                out.add(rel)
        with self._lock:
            self._disk_stale = stale
            for rel in changed:  # written before, nothing decided: its output is simply out of date now
                fs = self._state.files.get(rel)
                if fs is not None and not fs.decisions:
                    fs.sha256 = None
            for rel, fr in loaded.items():
                if rel in stale:
                    if not fr.stale:
                        fr.stale = True
                        self._results.pop(rel, None)
                elif rel not in entries and self._loaded.get(rel) is fr:
                    disk = sha256_file(self.root / rel)
                    fs = self._state.files.get(rel)
                    w = fs.written if fs else None
                    if disk != fr.sha256 and not (w is not None and w.path == rel and disk == w.sha256):
                        self._loaded.pop(rel, None)
                        self._results.pop(rel, None)

    def set_config(self, config: Config) -> None:
        """Use new settings (e.g. output mode chosen in the app). Translations are redone lazily when
        the translation/analysis options changed."""
        old = self.config
        with self._lock:
            self.config = config
            self._results.clear()
            self._outs = {}
            # output_mode too: build scripts name sibling outputs (gemm.cu -> gemm.hip) in sibling mode
            if ((old.rocm, old.archs, old.launch_syntax, old.output_mode)
                    != (config.rocm, config.archs, config.launch_syntax, config.output_mode)):
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
        lang = _language(rel)
        out = ""
        try:
            out = self._out_rel(rel)
        except ConfigError:
            pass
        if rel in self._errors:
            return FileEntry(rel, lang, FileStatus.ERROR, 0, 0, self._errors[rel], out)
        fs = self._state.files.get(rel)
        fr = self._loaded.get(rel)
        if fr is not None:
            total = len(fr.findings)
            decided = sum(1 for f in fr.findings if self._record(rel, f.id).decision != Decision.PENDING)
        else:
            total = fs.findings if fs and fs.findings is not None else 0
            decided = sum(1 for r in fs.decisions.values() if r.decision != Decision.PENDING) if fs else 0
        if (fr is not None and fr.stale) or (fr is None and rel in self._disk_stale):
            return FileEntry(rel, lang, FileStatus.STALE, total, decided, None, out)
        status = FileStatus.UNTRANSLATED
        if fs is not None and fs.written is not None and fs.written.fingerprint == self._fingerprint(rel):
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
        with lock:
            with self._lock:
                fr = self._loaded.get(rel)
                if fr is not None:
                    return fr
            try:
                fr = self._load(rel)
            except ReviewError as e:
                with self._lock:
                    self._errors[rel] = str(e)
                raise
            with self._lock:
                self._errors.pop(rel, None)
                self._loaded[rel] = fr
                fs = self._state.files.get(rel)
                if fs is not None and not fr.stale:
                    fs.findings = len(fr.findings)
                    fs.sha256 = fr.sha256  # unchanged, or new bytes of a file without decisions
            return fr

    def _path(self, rel: str) -> Path:
        p = self.root / rel
        if not is_inside(p, self.root):
            raise ReviewError(f"{rel}: outside the project root")
        return p

    def _read_original(self, rel: str) -> tuple[Source, bool]:
        """The original source and whether it is stale against the saved decisions."""
        path = self._path(rel)
        lang = language_for(rel) or Language.CPP
        try:
            src = read_source(path, lang)
        except SourceError as e:
            raise ReviewError(str(e)) from None
        disk_sha = sha256_bytes(src.raw or b"")
        with self._lock:
            fs = self._state.files.get(rel)
            recorded = fs.sha256 if fs else None
            written = fs.written if fs else None
            decided = bool(fs and fs.decisions)
        if recorded is None or disk_sha == recorded:
            return src, False
        if written is not None and written.path == rel and disk_sha == written.sha256:
            # written in place: review the kept original
            copy = original_copy_path(self.root, rel)
            try:
                orig = read_source(copy, lang)
            except SourceError:
                return src, decided
            if sha256_bytes(orig.raw or b"") == recorded:
                return dataclasses.replace(orig, path=path), False
        return src, decided  # without decisions there is nothing to keep: simply the new text

    def _options(self) -> tuple[Any, Any]:
        topt: Any = None
        wopt: Any = None
        try:
            topt = _engine("translate").TranslateOptions(rocm=self.config.rocm,
                                                         launch_syntax=self.config.launch_syntax,
                                                         archs=self.config.archs,
                                                         output_mode=self.config.output_mode)
        except (ImportError, AttributeError):
            pass
        try:
            wopt = _engine("warp").WarpOptions(rocm=self.config.rocm, archs=self.config.archs)
        except (ImportError, AttributeError):
            pass
        return topt, wopt

    def _load(self, rel: str) -> FileReview:
        src, stale = self._read_original(rel)
        topt, wopt = self._options()
        try:
            tr = self._translate(src, topt)
        except ImportError as e:
            raise ReviewError(f"{rel}: the translator is not available ({e})") from None
        except Exception as e:  # an engine bug must not take the app down: report it on the file
            raise ReviewError(f"{rel}: translation failed: {type(e).__name__}: {e}") from None
        try:
            an = self._analyze(src, tr, wopt)
        except ImportError as e:
            raise ReviewError(f"{rel}: warp analysis is not available ({e})") from None
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
        return FileReview(
            rel=rel, source=src, translation=tr, analysis=an, stale=stale,
            sha256=sha256_bytes(src.raw or b""), findings=findings,
            by_id={f.id: f for f in findings},
            index={f.id: i for i, f in enumerate(findings)},
            groups={g: tuple(ids) for g, ids in groups.items()},
            fix_groups={g.id: g for g in an.groups},
        )

    def review(self, rel: str) -> FileReview:
        """The loaded file (loads it if needed)."""
        return self.load(rel)

    # ----------------------------------------------------------------------------------- decisions

    def _record(self, rel: str, fid: str) -> DecisionRecord:
        fs = self._state.files.get(rel)
        rec = fs.decisions.get(fid) if fs else None
        return rec or DecisionRecord(Decision.PENDING, self.config.fix_style, "")

    def decision(self, rel: str, finding_id: str) -> Decision:
        with self._lock:
            return self._record(rel, finding_id).decision

    def style(self, rel: str, finding_id: str) -> FixStyle:
        with self._lock:
            return self._record(rel, finding_id).style

    def stale_decisions(self, rel: str) -> dict[str, Decision]:
        """Saved decisions of a STALE file (shown as stale, never applied); {} when not stale."""
        fr = self.load(rel)
        if not fr.stale:
            return {}
        with self._lock:
            fs = self._state.files.get(rel)
            return {fid: r.decision for fid, r in fs.decisions.items()} if fs else {}

    def _editable(self, rel: str) -> FileReview:
        fr = self.load(rel)
        if fr.stale:
            raise StaleError(f"{rel} changed on disk since it was reviewed; its decisions are kept but "
                             "not applied (resolve the stale file first)")
        return fr

    def _finding(self, fr: FileReview, fid: str) -> Finding:
        f = fr.by_id.get(fid)
        if f is None:
            raise ReviewError(f"{fr.rel}: no finding {fid!r}")
        return f

    def decide(self, rel: str, finding_id: str, decision: Decision) -> Change:
        """Accept/reject/reset the finding and every other finding of its fix group. One undo step.
        Raises GroupRefused if the accepted fix would conflict with another accepted fix."""
        fr = self._editable(rel)
        f = self._finding(fr, finding_id)
        members = fr.groups[f.group]
        with self._lock:
            style = self._record(rel, finding_id).style
            return self._apply(fr, {fid: (decision, style) for fid in members},
                               self._describe(decision, fr, members, style))

    def decide_one(self, rel: str, finding_id: str, decision: Decision) -> Change:
        """Decide this finding only; raises GroupRefused if it belongs to a fix group of more than one."""
        fr = self._editable(rel)
        f = self._finding(fr, finding_id)
        members = fr.groups[f.group]
        if len(members) > 1:
            g = fr.fix_groups.get(f.group)
            why = f" ({g.reason})" if g and g.reason else ""
            raise GroupRefused(f"{finding_id} is one of {len(members)} findings in fix group {f.group} that "
                               f"must change together{why}; decide the whole group")
        return self.decide(rel, finding_id, decision)

    def decide_rest(self, rel: str, decision: Decision) -> Change:
        """Decide every still-pending finding of the file (whole groups). One undo step."""
        fr = self._editable(rel)
        with self._lock:
            todo: dict[str, tuple[Decision, FixStyle]] = {}
            for f in fr.findings:
                if self._record(rel, f.id).decision == Decision.PENDING:
                    for m in fr.groups[f.group]:
                        todo[m] = (decision, self._record(rel, m).style)
            if not todo:
                return Change(rel, (), "no pending findings in this file")
            verb = {Decision.ACCEPTED: "accepted", Decision.REJECTED: "rejected"}.get(decision, "reset")
            return self._apply(fr, todo, f"{verb} the remaining {len(todo)} findings of {rel}")

    def set_style(self, rel: str, style: FixStyle, finding_id: str | None = None) -> Change:
        """Choose the fix style for the finding's group, or (finding_id=None) for every group of the file
        that has a fix in that style. One undo step."""
        fr = self._editable(rel)
        with self._lock:
            if finding_id is not None:
                f = self._finding(fr, finding_id)
                groups = [f.group]
            else:
                groups = list(dict.fromkeys(f.group for f in fr.findings))
            todo: dict[str, tuple[Decision, FixStyle]] = {}
            skipped = 0
            for g in groups:
                members = fr.groups[g]
                lacking = [m for m in members if fr.by_id[m].fixes and fr.by_id[m].fix(style) is None]
                if lacking:
                    if finding_id is not None:
                        raise ReviewError(f"{lacking[0]} has no {style.value} fix")
                    skipped += 1
                    continue
                for m in members:
                    todo[m] = (self._record(rel, m).decision, style)
            msg = f"fix style {style.value} for " + (f"group {groups[0]}" if finding_id else rel)
            if skipped:
                msg += f" ({skipped} groups have no {style.value} fix)"
            return self._apply(fr, todo, msg)

    def _describe(self, decision: Decision, fr: FileReview, members: Sequence[str], style: FixStyle) -> str:
        f = fr.by_id[members[0]]
        what = f"{f.rule} at line {f.line}"
        if len(members) > 1:
            what += f" and {len(members) - 1} more in its group"
        if decision == Decision.ACCEPTED:
            if not any(fr.by_id[m].fixes for m in members):
                return f"marked {what} reviewed (no automatic fix; change it by hand)"
            return f"accepted {what} ({style.value})"
        if decision == Decision.REJECTED:
            return f"rejected {what}"
        return f"reset {what} to pending"

    def _apply(self, fr: FileReview, todo: dict[str, tuple[Decision, FixStyle]], message: str) -> Change:
        rel = fr.rel
        fs = self._state.files.setdefault(rel, FileState())
        changes: list[tuple[str, DecisionRecord | None, DecisionRecord | None]] = []
        for fid, (d, s) in todo.items():
            before = fs.decisions.get(fid)
            after = DecisionRecord(d, s, fr.by_id[fid].rule, _anchor(fr, fr.by_id[fid]))
            if (before or DecisionRecord(Decision.PENDING, self.config.fix_style, after.rule, after.anchor)) == after:
                continue
            changes.append((fid, before, after))
        if not changes:
            return Change(rel, tuple(todo), "nothing changed")
        held_before = self._result(fr)[1]
        self._set(rel, changes, forward=True)
        held_after = self._result(fr)[1]
        new = {g: why for g, why in held_after.items() if g not in held_before}
        if new:
            self._set(rel, changes, forward=False)
            gid, why = next(iter(new.items()))
            raise GroupRefused(f"{rel}: fix group {gid} cannot be applied: {why}; reject one of them")
        if fs.sha256 is None:
            fs.sha256 = fr.sha256
        fs.findings = len(fr.findings)
        self._undo.append(_Step(rel, tuple(changes), message))
        self._redo.clear()
        return Change(rel, tuple(c[0] for c in changes), message + self._autosave())

    def _set(self, rel: str, changes: Iterable[tuple[str, DecisionRecord | None, DecisionRecord | None]],
             forward: bool) -> None:
        self._results.pop(rel, None)
        self._touched.add(rel)
        fs = self._state.files.setdefault(rel, FileState())
        for fid, before, after in changes:
            rec = after if forward else before
            if rec is None or (rec.decision == Decision.PENDING and rec.style == self.config.fix_style):
                fs.decisions.pop(fid, None)
            else:
                fs.decisions[fid] = rec

    def undo(self) -> Change | None:
        """Take back the last decide*/set_style; None when there is nothing to undo."""
        with self._lock:
            if not self._undo:
                return None
            step = self._undo.pop()
            self._set(step.rel, step.changes, forward=False)
            self._redo.append(step)
            note = self._autosave()
            return Change(step.rel, tuple(c[0] for c in step.changes), f"undid: {step.message}{note}")

    def redo(self) -> Change | None:
        """Do again what `undo` took back; None when there is nothing to redo."""
        with self._lock:
            if not self._redo:
                return None
            step = self._redo.pop()
            self._set(step.rel, step.changes, forward=True)
            self._undo.append(step)
            note = self._autosave()
            return Change(step.rel, tuple(c[0] for c in step.changes), f"redid: {step.message}{note}")

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

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
                if not undecided_only or self._record(rel, ids[j]).decision == Decision.PENDING:
                    return ids[j]
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
        return list(self._result(self.load(rel))[0])

    def held(self, rel: str) -> dict[str, str]:
        """Fix groups with accepted findings that are NOT applied: group id -> one-line reason."""
        return dict(self._result(self.load(rel))[1])

    def _result(self, fr: FileReview) -> tuple[tuple[Edit, ...], dict[str, str]]:
        rel = fr.rel
        with self._lock:
            cached = self._results.get(rel)
            if cached is not None and cached[0] is fr:
                return cached[1], cached[2]
            base = tuple(fr.translation.edits)
            if fr.stale:
                return base, {}
            fs = self._state.files.get(rel)
            acc = {fid: rec for fid, rec in (fs.decisions.items() if fs else ())
                   if rec.decision == Decision.ACCEPTED and fid in fr.index}
            held: dict[str, str] = {}
            owner: dict[int, str] = {}  # id(edit) -> group that brought it
            edits: list[Edit] = list(base)
            if acc:
                for gid, members in fr.groups.items():
                    n_acc = sum(1 for m in members if m in acc)
                    if not n_acc:
                        continue
                    if n_acc != len(members):
                        held[gid] = f"only {n_acc} of its {len(members)} findings are accepted"
                        continue
                    # the group's style is its first member's (decide/set_style keep members alike)
                    style = acc[members[0]].style
                    group_edits: list[Edit] = []
                    for m in members:
                        fix = fr.by_id[m].fix(style)
                        if fix is not None:
                            group_edits.extend(fix.edits)
                    g = fr.fix_groups.get(gid)
                    for shared in g.shared if g is not None else ():
                        if shared.style == style:
                            group_edits.extend(shared.edits)
                    for e in group_edits:
                        owner.setdefault(id(e), gid)
                    edits.extend(group_edits)
            edits = dedupe(edits)
            while True:
                conflict = find_conflict(edits)
                if conflict is None:
                    break
                a, b = conflict
                ga, gb = owner.get(id(a)), owner.get(id(b))
                victim, other = (gb, ga) if gb is not None else (ga, gb)
                if victim is None:
                    raise ReviewError(f"{rel}: the translation produced overlapping edits ({EditConflict(a, b)})")
                held[victim] = ("its fix overlaps the translation" if other is None
                                else f"its fix overlaps the accepted fix of group {other}")
                edits = [e for e in edits if owner.get(id(e)) != victim]
            result = tuple(edits)
            self._results[rel] = (fr, result, held)
            return result, held

    def result_text(self, rel: str) -> str:
        """The HIP text: translation + accepted fixes (whole groups)."""
        fr = self.load(rel)
        return apply_edits(fr.source.text, self.result_edits(rel))

    def rows(self, rel: str, context: int = 3, expanded: frozenset[int] = frozenset()) -> list[Row]:
        """diffrows.build_rows for this file as it stands (cheap to call after each decision)."""
        fr = self.load(rel)
        return build_rows(fr.source.text, self._result(fr)[0], fr.findings, context, expanded, checked=True)

    # ----------------------------------------------------------------------------------- writing

    def _out_rel(self, rel: str) -> str:
        """output_rel under the current config, cached (the file list asks for every file)."""
        out = self._outs.get(rel)
        if out is None:
            out = self._outs[rel] = output_rel(self.config, rel)
        return out

    def output_path(self, rel: str) -> Path:
        return output_path(self.config, self.root, rel)

    def _fingerprint(self, rel: str) -> str:
        """Of everything that decides the written bytes: decisions, styles, options, output place."""
        fs = self._state.files.get(rel)
        accepted = sorted(
            (fid, r.style.value) for fid, r in (fs.decisions.items() if fs else ())
            if r.decision == Decision.ACCEPTED
        )
        try:
            out = self._out_rel(rel)
        except ConfigError:
            out = ""
        key = [accepted, list(self.config.rocm), list(self.config.archs), self.config.launch_syntax,
               fs.sha256 if fs else None, out]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]

    def write(self, rel: str, *, overwrite: bool = False) -> Path:
        """Write the result of `rel` atomically to its output path; returns that path.

        Refuses (StaleError) a file changed on disk since review; refuses (ReviewError) to replace an
        output file hipport did not write, or one edited since, unless `overwrite`.
        In-place mode keeps the original under .hipport/originals/ first.
        """
        fr = self._editable(rel)
        src_path = self._path(rel)
        with self._lock:
            fs = self._state.files.setdefault(rel, FileState())
            if fs.sha256 is None:
                fs.sha256 = fr.sha256
            out = self.output_path(rel)
            out_rel = self._out_rel(rel)
            data = fr.source.encode(self.result_text(rel))
            disk = sha256_file(src_path)
            in_place = out_rel == rel
            twins = sorted(r for r in self._rels if r != rel and self._out_rel(r) == out_rel)
            twins += sorted(r for r, other in self._state.files.items()
                            if r != rel and r not in twins and other.written and other.written.path == out_rel)
            if twins:
                raise ReviewError(f"{rel} and {twins[0]} would both be written to {out_rel}; "
                                  "use output_mode = \"folder\" or rename one")
            ours = fs.written is not None and fs.written.path == out_rel
            if disk != fr.sha256 and not (in_place and ours and fs.written and disk == fs.written.sha256):
                fr.stale = True
                self._results.pop(rel, None)
                raise StaleError(f"{rel} changed on disk since it was loaded; not written (reopen it)")
            if not in_place and out.exists():
                current = sha256_file(out)
                mine = ours and fs.written is not None and current == fs.written.sha256
                if not (mine or current == sha256_bytes(data) or overwrite):
                    raise ReviewError(f"{out_rel} already exists and was not written by hipport (or was edited "
                                      "since); not overwritten")
            if in_place:
                try:
                    ensure_state_dir(self.root)
                except OSError as e:
                    raise WriteError(f"{self.root / '.hipport'}: cannot create ({e.strerror or e}); "
                                     "the original could not be kept, so it was not overwritten") from None
                copy = original_copy_path(self.root, rel)
                if sha256_file(copy) != fr.sha256:
                    check_inside_state_dir(self.root, copy)
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    check_inside_state_dir(self.root, copy)
                    atomic_write(copy, fr.source.raw or fr.source.encode(fr.source.text))
            out.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(out, data)
            self._touched.add(rel)
            fs.written = WrittenRecord(out_rel, sha256_bytes(data), self._fingerprint(rel))
            fs.committed = None
            fs.findings = len(fr.findings)
            self._autosave()
            return out

    def unwritten(self) -> list[str]:
        """Files with decisions whose current result is not on disk (excludes STALE files)."""
        with self._lock:
            out = []
            listed = set(self._rels)
            for rel in sorted(self._state.files):
                fs = self._state.files[rel]
                fr = self._loaded.get(rel)
                if fr is not None and fr.stale:
                    continue
                if not fs.decisions or rel not in listed:
                    continue
                if fs.written is None or fs.written.fingerprint != self._fingerprint(rel):
                    out.append(rel)
            return out

    # ----------------------------------------------------------------------------------- git

    def committable(self) -> dict[str, str]:
        """root-relative output path -> sha256 hipport wrote, for outputs written and not yet committed
        whose bytes on disk are still exactly what hipport wrote."""
        with self._lock:
            res: dict[str, str] = {}
            for fs in self._state.files.values():
                w = fs.written
                if w is None or fs.committed:
                    continue
                if sha256_file(self.root / w.path) == w.sha256:
                    res[w.path] = w.sha256
            return dict(sorted(res.items()))

    def commit_message(self) -> str:
        """A message for committing `committable()`: files, rules fixed (by style), fixes rejected."""
        with self._lock:
            paths = self.committable()
            sources = [rel for rel, fs in sorted(self._state.files.items())
                       if fs.written and fs.written.path in paths]
            fixed: dict[tuple[str, str], int] = {}
            rejected: dict[str, int] = {}
            for rel in sources:
                for fid, r in self._state.files[rel].decisions.items():
                    rule = r.rule or fid.split(":", 1)[0]
                    if r.decision == Decision.ACCEPTED:
                        fixed[(rule, r.style.value)] = fixed.get((rule, r.style.value), 0) + 1
                    elif r.decision == Decision.REJECTED:
                        rejected[rule] = rejected.get(rule, 0) + 1
        n = len(sources)
        lines = [f"Port {n} file{'s' if n != 1 else ''} to HIP with hipport" if n else "Port to HIP with hipport", ""]
        if sources:
            lines.append("Files:")
            for rel in sources:
                w = self._state.files[rel].written
                assert w is not None
                lines.append(f"  {rel} -> {w.path}" if w.path != rel else f"  {rel} (in place)")
        if fixed:
            lines += ["", "Warp-width fixes applied:"]
            lines += [f"  {rule} ({style}) x{k}" for (rule, style), k in sorted(fixed.items())]
        if rejected:
            lines += ["", "Warp-width fixes rejected (left as translated):"]
            lines += [f"  {rule} x{k}" for rule, k in sorted(rejected.items())]
        return "\n".join(lines).rstrip() + "\n"

    def commit(self, message: str, branch: str | None = None) -> str:
        """Commit exactly the files hipport wrote (and nothing else staged); returns the commit sha.
        `branch` commits on `hipport/<branch>` (created from HEAD). Raises vcs.VcsError / ReviewError."""
        from .vcs import commit_paths

        if not message.strip():
            raise ReviewError("the commit message is empty")
        with self._commit_lock:
            paths = self.committable()
            if not paths:
                raise ReviewError("nothing to commit: write a file first (w)")
            # git runs without the session lock: the UI keeps deciding while a commit is made
            sha = commit_paths(self.root, list(paths), message, branch, expected=paths)
            with self._lock:
                for src, fs in self._state.files.items():
                    w = fs.written
                    if w is not None and w.path in paths and w.sha256 == paths[w.path] and not fs.committed:
                        fs.committed = sha
                        self._touched.add(src)
                self._autosave()
            return sha

    # ----------------------------------------------------------------------------------- stale files

    def resolve_stale(self, rel: str, keep: bool = True) -> Change:
        """Accept the file's new bytes as the reviewed ones. keep=True re-applies saved decisions to the
        findings that still exist under the same id and rule; keep=False drops them. Clears undo."""
        with self._lock:
            self._loaded.pop(rel, None)
            self._disk_stale.discard(rel)
            fs = self._state.files.get(rel)
            old = dict(fs.decisions) if fs else {}
            if fs is not None:
                fs.sha256 = None
                fs.decisions.clear()
        fr = self.load(rel)
        with self._lock:
            fs = self._state.files.setdefault(rel, FileState())
            fs.sha256 = fr.sha256
            self._touched.add(rel)
            kept: list[str] = []
            if keep:
                # a decision carries over only to a finding with the same id, rule and source line, and
                # only when its whole fix group carries over alike (never a half-decided group)
                for members in fr.groups.values():
                    recs = []
                    for fid in members:
                        f = fr.by_id[fid]
                        rec = old.get(fid)
                        if rec is None or rec.rule != f.rule or (rec.anchor and rec.anchor != _anchor(fr, f)):
                            break
                        recs.append(rec)
                    else:
                        if len({(r.decision, r.style) for r in recs}) == 1:
                            for fid, rec in zip(members, recs, strict=True):
                                fs.decisions[fid] = rec
                                kept.append(fid)
            self._undo.clear()
            self._redo.clear()
            self._autosave()
        return Change(rel, tuple(kept), f"{rel}: kept {len(kept)} of {len(old)} decisions on the new text")

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
        now = _stamp(path)
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
        self._state_stamp = _stamp(path)
