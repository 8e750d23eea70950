"""Files changed on disk since review: a file with saved decisions becomes STALE (its decisions kept,
shown, never applied) until the session's `resolve_stale` (which carries decisions over with
`carry_over`); a file written in place is reviewed from its kept original."""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Mapping
from pathlib import Path

from ..outputs import kept_copy_holding
from ..source import Language, Source, SourceError, language_for, read_source
from .persist import StateStore
from .state import DecisionRecord, WrittenRecord, sha256_bytes, sha256_file
from .types import FileReview, ReviewError, anchor, context


class StalenessChecker:
    """Compares the files on disk with the bytes their saved decisions were made on (StateStore)."""

    def __init__(self, root: Path, store: StateStore, lock: threading.RLock) -> None:
        self._root = root
        self._store = store
        self._lock = lock
        self._on_disk: set[str] = set()  # files with decisions whose bytes on disk changed (last check)

    def is_stale(self, rel: str) -> bool:
        """Whether the last `check` found `rel`'s decisions made on other bytes than the disk's."""
        with self._lock:
            return rel in self._on_disk

    def forget(self, rel: str) -> None:
        """`rel`'s new bytes are the reviewed ones now (resolve_stale)."""
        with self._lock:
            self._on_disk.discard(rel)

    def check(self, loaded: Mapping[str, FileReview]) -> list[tuple[str, FileReview]]:
        """Notice files changed on disk: a file with saved decisions becomes STALE (a loaded one is marked
        so); returns the loaded files without decisions whose bytes changed, to translate again when
        next loaded. Reads only those files."""
        stale: set[str] = set()
        changed: set[str] = set()
        with self._lock:
            files = self._store.state.files
            entries = {rel: (fs.sha256, fs.written) for rel, fs in files.items() if fs.decisions and fs.sha256}
            outdated = {rel: (fs.sha256, fs.written) for rel, fs in files.items()
                        if not fs.decisions and fs.sha256 and fs.written}
        for group, out in ((entries, stale), (outdated, changed)):
            for rel, (sha, written) in group.items():
                disk = sha256_file(self._root / rel)
                if disk is None or disk == sha:
                    continue
                if _ours_in_place(rel, written, disk):
                    continue
                out.add(rel)
        with self._lock:
            self._on_disk = stale
            for rel in changed:  # written before, nothing decided: its output is simply out of date now
                fs = self._store.file(rel)
                if fs is not None and not fs.decisions:
                    fs.sha256 = None
            again: list[tuple[str, FileReview]] = []
            for rel, fr in loaded.items():
                if rel in stale:
                    fr.stale = True
                elif rel not in entries:
                    disk = sha256_file(self._root / rel)
                    fs = self._store.file(rel)
                    if disk != fr.sha256 and not _ours_in_place(rel, fs.written if fs else None, disk):
                        again.append((rel, fr))
            return again

    def changed_outside(self, rel: str, fr: FileReview | None) -> bool:
        """Whether `rel` on disk is neither what was loaded (`fr`) nor hipport's own in-place write of it
        (the app's disk watch: its own `w` is no change made outside hipport)."""
        disk = sha256_file(self._root / rel)
        if fr is None or disk is None or disk == fr.sha256:
            return False
        with self._lock:
            fs = self._store.file(rel)
            return not _ours_in_place(rel, fs.written if fs else None, disk)

    def read_original(self, rel: str, path: Path) -> tuple[Source, bool]:
        """The original source of `rel` (at `path`) and whether it is stale against the saved decisions."""
        lang = language_for(rel) or Language.CPP
        try:
            src = read_source(path, lang)
        except SourceError as e:
            raise ReviewError(str(e)) from None
        disk_sha = sha256_bytes(src.raw or b"")
        with self._lock:
            fs = self._store.file(rel)
            recorded = fs.sha256 if fs else None
            written = fs.written if fs else None
            decided = bool(fs and fs.decisions)
        if recorded is None or disk_sha == recorded:
            return src, False
        if _ours_in_place(rel, written, disk_sha):
            # written in place: review the kept original (<file>.prehip, or a later kept copy: outputs.py)
            copy = kept_copy_holding(path, recorded)
            if copy is None:
                return src, decided
            try:
                orig = read_source(copy, lang)
            except SourceError:
                return src, decided
            if sha256_bytes(orig.raw or b"") == recorded:
                return dataclasses.replace(orig, path=path), False
        return src, decided  # without decisions there is nothing to keep: simply the new text


def carry_over(old: dict[str, DecisionRecord], fr: FileReview) -> dict[str, DecisionRecord]:
    """The saved decisions of a changed file that still apply to its new findings: finding id -> record
    (with the new anchor and context). A decision carries over to the finding of the same rule on the
    same line content (its context and position break ties: match_decisions), and only when its whole
    fix group carries over alike (never a half-decided group)."""
    found = match_decisions(old, fr)
    kept: dict[str, DecisionRecord] = {}
    for members in fr.groups.values():
        recs = [found.get(fid) for fid in members]
        if any(r is None for r in recs):
            continue
        if len({(r.decision, r.style) for r in recs if r is not None}) == 1:
            for fid, rec in zip(members, recs, strict=True):
                assert rec is not None
                f = fr.by_id[fid]
                kept[fid] = dataclasses.replace(rec, anchor=anchor(fr, f), context=context(fr, f))
    return kept


_ID_PLACE = re.compile(r":(\d+):(\d+)(?:#\d+)?$")


def match_decisions(old: dict[str, DecisionRecord], fr: FileReview) -> dict[str, DecisionRecord]:
    """Which saved decision belongs to which finding of the changed file: new finding id -> record.

    A record and a finding belong together only when their rule and the content of their source line
    (`anchor`) agree; line numbers do not have to, so a line inserted above moves nothing. Among
    several candidates (identical lines) the one with the same surrounding lines (`context`) wins, then
    the one whose line moved by the same amount as the unambiguous pairs moved, then the nearest column.
    A record saved without an anchor (an old state file) matches only its own finding id."""
    places: dict[str, tuple[int, int]] = {}
    for fid in old:
        m = _ID_PLACE.search(fid)
        places[fid] = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    facts = {f.id: (anchor(fr, f), context(fr, f)) for f in fr.findings}
    by_content: dict[tuple[str, str], list[str]] = {}
    for f in fr.findings:
        by_content.setdefault((f.rule, facts[f.id][0]), []).append(f.id)
    pairs: list[tuple[str, str]] = []
    for fid, rec in old.items():
        if rec.anchor:
            pairs.extend((fid, b) for b in by_content.get((rec.rule, rec.anchor), ()))
        elif fid in fr.by_id and fr.by_id[fid].rule == rec.rule:
            pairs.append((fid, fid))
    # the shift of the unambiguous pairs (one candidate each way): how far the file's lines moved
    by_old: dict[str, int] = {}
    by_new: dict[str, int] = {}
    for a, b in pairs:
        by_old[a] = by_old.get(a, 0) + 1
        by_new[b] = by_new.get(b, 0) + 1
    shifts = sorted(fr.by_id[b].line - places[a][0] for a, b in pairs if by_old[a] == by_new[b] == 1)
    shift = shifts[len(shifts) // 2] if shifts else 0

    def rank(pair: tuple[str, str]) -> tuple[int, int, int, int]:
        a, b = pair
        f = fr.by_id[b]
        line, col = places[a]
        same_context = bool(old[a].context) and old[a].context == facts[b][1]
        return (0 if same_context else 1, abs(f.line - line - shift), abs(f.col - col), line)

    out: dict[str, DecisionRecord] = {}
    used: set[str] = set()
    for a, b in sorted(pairs, key=rank):
        if a not in used and b not in out:
            used.add(a)
            out[b] = old[a]
    return out


def _ours_in_place(rel: str, written: WrittenRecord | None, disk_sha: str | None) -> bool:
    """`rel` holds exactly what hipport wrote over it in place (not a change made outside hipport)."""
    return written is not None and written.path == rel and disk_sha == written.sha256
