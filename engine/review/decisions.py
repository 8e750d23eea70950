"""Decisions on findings and their undo: whole fix groups change together, every change is one undo
step, a decision whose fix would be held back (see compose) is refused, and a fix group of tier REVIEW
is accepted only when the caller confirms it was read (`review_confirmed`).

The session hands every method the loaded file (`FileReview`) after checking it is not stale; the
decision records themselves live in the StateStore, the undo history here."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..model import Finding, FixStyle
from .persist import StateStore
from .results import ResultCache
from .state import Decision, DecisionRecord
from .types import Change, FileReview, GroupRefused, NeedsReview, ReviewError, Step, decision_record

RecordChange = tuple[str, DecisionRecord | None, DecisionRecord | None]  # finding id, before, after


class Decisions:
    """The decide*/set_style/undo half of the review session (see session.py)."""

    def __init__(self, store: StateStore, results: ResultCache, lock: threading.RLock,
                 default_style: Callable[[], FixStyle]) -> None:
        self._store = store
        self._results = results
        self._lock = lock
        self._default_style = default_style  # the configured fix style: a decision's style until chosen
        self._undo: list[Step] = []
        self._redo: list[Step] = []

    def record(self, rel: str, finding_id: str) -> DecisionRecord:
        with self._lock:
            return self._store.record(rel, finding_id, self._default_style())

    def decide(self, fr: FileReview, finding_id: str, decision: Decision, *,
               review_confirmed: bool = False) -> Change:
        """Accept/reject/reset the finding and every other finding of its fix group. One undo step.
        Raises NeedsReview when accepting a REVIEW-tier group without `review_confirmed`, GroupRefused
        if the accepted fix would conflict with another accepted fix."""
        f = _finding(fr, finding_id)
        members = fr.groups[f.group]
        why = fr.review_reason(finding_id) if decision == Decision.ACCEPTED and not review_confirmed else None
        if why is not None:
            raise NeedsReview(f"{fr.rel}: the fix of {f.rule} at line {f.line} needs review ({why}); "
                              "read it, then confirm accepting it")
        with self._lock:
            style = self.record(fr.rel, finding_id).style
            return self._apply(fr, {fid: (decision, style) for fid in members},
                               _describe(decision, fr, members, style))

    def decide_one(self, fr: FileReview, finding_id: str, decision: Decision, *,
                   review_confirmed: bool = False) -> Change:
        """Decide this finding only; raises GroupRefused if it belongs to a fix group of more than one."""
        f = _finding(fr, finding_id)
        members = fr.groups[f.group]
        if len(members) > 1:
            g = fr.fix_groups.get(f.group)
            why = f" ({g.reason})" if g and g.reason else ""
            raise GroupRefused(f"{finding_id} is one of {len(members)} findings in fix group {f.group} that "
                               f"must change together{why}; decide the whole group")
        return self.decide(fr, finding_id, decision, review_confirmed=review_confirmed)

    def decide_rest(self, fr: FileReview, decision: Decision) -> Change:
        """Decide every still-pending finding of the file (whole groups). One undo step. Accepting them
        is refused (NeedsReview) while a pending one has a REVIEW-tier fix: those are confirmed one by one."""
        rel = fr.rel
        with self._lock:
            pending = [f for f in fr.findings if self.record(rel, f.id).decision == Decision.PENDING]
            review = [f for f in pending if decision == Decision.ACCEPTED and fr.review_reason(f.id)]
            if review:
                raise NeedsReview(f"{len(review)} pending finding(s) of {rel} have fixes that need review: "
                                  "accept those one by one after reading them")
            todo: dict[str, tuple[Decision, FixStyle]] = {}
            for f in pending:
                for m in fr.groups[f.group]:
                    todo[m] = (decision, self.record(rel, m).style)
            if not todo:
                return Change(rel, (), "no pending findings in this file")
            verb = {Decision.ACCEPTED: "accepted", Decision.REJECTED: "rejected"}.get(decision, "reset")
            return self._apply(fr, todo, f"{verb} the remaining {len(todo)} findings of {rel}")

    def set_style(self, fr: FileReview, style: FixStyle, finding_id: str | None = None) -> Change:
        """Choose the fix style for the finding's group, or (finding_id=None) for every group of the file
        that has a fix in that style. One undo step."""
        with self._lock:
            if finding_id is not None:
                groups = [_finding(fr, finding_id).group]
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
                    todo[m] = (self.record(fr.rel, m).decision, style)
            msg = f"fix style {style.value} for " + (f"group {groups[0]}" if finding_id else fr.rel)
            if skipped:
                msg += f" ({skipped} groups have no {style.value} fix)"
            return self._apply(fr, todo, msg)

    def decide_groups(self, files: Mapping[str, FileReview], targets: Sequence[tuple[str, str]],
                      decision: Decision, message: str) -> Change:
        """Decide whole fix groups in several files (`files`: each target's loaded file), e.g. one
        decision applied to every identical finding (identical.py): ONE undo step. A group whose fix
        would be held back is skipped; the message says how many were. Accepting is refused
        (NeedsReview) when a target is a REVIEW-tier group. Change.path is the first file changed."""
        if decision == Decision.ACCEPTED:
            review = sum(1 for rel, gid in targets if _review_group(files[rel], gid))
            if review:
                raise NeedsReview(f"{review} of these fix groups need review: accept those one by one "
                                  "after reading them")
        steps: list[Step] = []
        skipped = 0
        with self._lock:
            for rel, gid in targets:
                fr = files[rel]
                changes = self._changes(fr, {m: (decision, self.record(rel, m).style) for m in fr.groups.get(gid, ())})
                if not changes:
                    continue
                if self._set_unless_held(fr, changes):
                    skipped += 1
                    continue
                steps.append(Step(rel, tuple(changes), message))
            if skipped:
                message += f" ({skipped} skipped: their fix would conflict with another accepted fix)"
            if not steps:
                return Change("", (), message if skipped else "nothing changed")
            merged: dict[str, list[RecordChange]] = {}
            for one in steps:
                merged.setdefault(one.rel, []).extend(one.changes)
            parts = [Step(rel, tuple(ch), message) for rel, ch in merged.items()]
            self._push(Step(parts[0].rel, parts[0].changes, message, tuple(parts[1:])))
            ids = tuple(c[0] for c in parts[0].changes)
            return Change(parts[0].rel, ids, message + self._store.autosave_note())

    def _changes(self, fr: FileReview, todo: dict[str, tuple[Decision, FixStyle]]) -> list[RecordChange]:
        """The records `todo` changes: (finding id, before, after), leaving out the ones already so."""
        fs = self._store.entry(fr.rel)
        changes: list[RecordChange] = []
        for fid, (d, s) in todo.items():
            before = fs.decisions.get(fid)
            after = decision_record(fr, fr.by_id[fid], d, s)
            default = dataclasses.replace(after, decision=Decision.PENDING, style=self._default_style())
            if (before or default) != after:
                changes.append((fid, before, after))
        return changes

    def _set_unless_held(self, fr: FileReview, changes: list[RecordChange]) -> dict[str, str]:
        """Make the changes unless they hold back a fix group that was applied; returns {} when they
        were made, else the newly held groups (group id -> why), with nothing changed."""
        held_before = self._results.result(fr)[1]
        self._set(fr.rel, changes, forward=True)
        new = {g: why for g, why in self._results.result(fr)[1].items() if g not in held_before}
        if new:
            self._set(fr.rel, changes, forward=False)
            return new
        fs = self._store.entry(fr.rel)
        if fs.sha256 is None:
            fs.sha256 = fr.sha256
        fs.findings = len(fr.findings)
        return {}

    def _apply(self, fr: FileReview, todo: dict[str, tuple[Decision, FixStyle]], message: str) -> Change:
        rel = fr.rel
        changes = self._changes(fr, todo)
        if not changes:
            return Change(rel, tuple(todo), "nothing changed")
        new = self._set_unless_held(fr, changes)
        if new:
            gid, why = next(iter(new.items()))
            raise GroupRefused(f"{rel}: fix group {gid} cannot be applied: {why}; reject one of them")
        self._push(Step(rel, tuple(changes), message))
        return Change(rel, tuple(c[0] for c in changes), message + self._store.autosave_note())

    def _set(self, rel: str, changes: Iterable[RecordChange], forward: bool) -> None:
        self._store.touch(rel)
        fs = self._store.entry(rel)
        for fid, before, after in changes:
            rec = after if forward else before
            if rec is None or (rec.decision == Decision.PENDING and rec.style == self._default_style()):
                fs.decisions.pop(fid, None)
            else:
                fs.decisions[fid] = rec

    def _push(self, step: Step) -> None:
        self._undo.append(step)
        self._redo.clear()

    # ----------------------------------------------------------------------------------- history

    def undo(self) -> Change | None:
        """Take back the last decide*/set_style; None when there is nothing to undo."""
        return self._replay(self._undo, self._redo, forward=False, verb="undid")

    def redo(self) -> Change | None:
        """Do again what `undo` took back; None when there is nothing to redo."""
        return self._replay(self._redo, self._undo, forward=True, verb="redid")

    def _replay(self, source: list[Step], target: list[Step], forward: bool, verb: str) -> Change | None:
        """Move the last step of `source` to `target`, applying it forward or backward."""
        with self._lock:
            if not source:
                return None
            step = source.pop()
            for part in (step, *step.also):
                self._set(part.rel, part.changes, forward=forward)
            target.append(step)
            note = self._store.autosave_note()
            return Change(step.rel, tuple(c[0] for c in step.changes), f"{verb}: {step.message}{note}")

    def can_undo(self) -> bool:
        return bool(self._undo)

    def clear_history(self) -> None:
        """Forget undo and redo (the decisions they would change were replaced, e.g. resolve_stale)."""
        self._undo.clear()
        self._redo.clear()


def _finding(fr: FileReview, fid: str) -> Finding:
    f = fr.by_id.get(fid)
    if f is None:
        raise ReviewError(f"{fr.rel}: no finding {fid!r}")
    return f


def _review_group(fr: FileReview, gid: str) -> bool:
    members = fr.groups.get(gid, ())
    return bool(members) and fr.review_reason(members[0]) is not None


def _describe(decision: Decision, fr: FileReview, members: Sequence[str], style: FixStyle) -> str:
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
