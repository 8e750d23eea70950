"""Files changed on disk since review: a file with saved decisions becomes STALE (its decisions kept,
shown, never applied) until `resolve_stale`; a file written in place is reviewed from its kept
original. Part of ReviewSession."""

from __future__ import annotations

import dataclasses
import re

from .outputs import kept_copy_holding
from .review_persist import SessionCore
from .review_state import (
    Decision,
    DecisionRecord,
    FileState,
    WrittenRecord,
    sha256_bytes,
    sha256_file,
)
from .review_types import Change, FileReview, ReviewError, anchor, context
from .source import Language, Source, SourceError, language_for, read_source


class Staleness(SessionCore):
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
                if _ours_in_place(rel, written, disk):
                    continue
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
                    if disk != fr.sha256 and not _ours_in_place(rel, fs.written if fs else None, disk):
                        self._loaded.pop(rel, None)
                        self._results.pop(rel, None)

    def changed_outside(self, rel: str) -> bool:
        """Whether `rel` on disk is neither what was loaded nor hipport's own in-place write of it (the
        app's disk watch: its own `w` is no change made outside hipport)."""
        fr = self._loaded.get(rel)
        disk = sha256_file(self.root / rel)
        if fr is None or disk is None or disk == fr.sha256:
            return False
        with self._lock:
            fs = self._state.files.get(rel)
            return not _ours_in_place(rel, fs.written if fs else None, disk)

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

    def stale_decisions(self, rel: str) -> dict[str, Decision]:
        """Saved decisions of a STALE file (shown as stale, never applied); {} when not stale."""
        fr = self.load(rel)
        if not fr.stale:
            return {}
        with self._lock:
            fs = self._state.files.get(rel)
            return {fid: r.decision for fid, r in fs.decisions.items()} if fs else {}

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
                # a decision carries over to the finding of the same rule on the same line content (its
                # context and position break ties), and only when its whole fix group carries over alike
                # (never a half-decided group)
                found = match_decisions(old, fr)
                for members in fr.groups.values():
                    recs = [found.get(fid) for fid in members]
                    if any(r is None for r in recs):
                        continue
                    if len({(r.decision, r.style) for r in recs if r is not None}) == 1:
                        for fid, rec in zip(members, recs, strict=True):
                            assert rec is not None
                            f = fr.by_id[fid]
                            fs.decisions[fid] = dataclasses.replace(rec, anchor=anchor(fr, f), context=context(fr, f))
                            kept.append(fid)
            self._undo.clear()
            self._redo.clear()
            self._autosave()
        return Change(rel, tuple(kept), f"{rel}: kept {len(kept)} of {len(old)} decisions on the new text")


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
