"""Decisions on findings and their undo: whole fix groups change together, every change is one undo
step, and a decision whose fix would be held back (see compose) is refused. Part of ReviewSession."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from .model import Finding, FixStyle
from .review_persist import SessionCore
from .review_state import Decision, DecisionRecord, FileState
from .review_types import Change, FileReview, GroupRefused, ReviewError, StaleError, Step, decision_record


class Decisions(SessionCore):
    def decision(self, rel: str, finding_id: str) -> Decision:
        with self._lock:
            return self._record(rel, finding_id).decision

    def style(self, rel: str, finding_id: str) -> FixStyle:
        with self._lock:
            return self._record(rel, finding_id).style

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

    def decide_groups(self, targets: Sequence[tuple[str, str]], decision: Decision, message: str) -> Change:
        """Decide whole fix groups in several files, e.g. one decision applied to every identical
        finding (review_identical.py): ONE undo step. A group whose fix would be held back is skipped;
        the message says how many were. Change.path is the first file changed."""
        steps: list[Step] = []
        skipped = 0
        with self._lock:
            by_rel: dict[str, list[str]] = {}
            for rel, gid in targets:
                by_rel.setdefault(rel, []).append(gid)
            for rel, gids in by_rel.items():
                fr = self._editable(rel)
                fs = self._state.files.setdefault(rel, FileState())
                for gid in gids:
                    todo = {m: (decision, self._record(rel, m).style) for m in fr.groups.get(gid, ())}
                    changes = []
                    for fid, (d, st) in todo.items():
                        before = fs.decisions.get(fid)
                        after = decision_record(fr, fr.by_id[fid], d, st)
                        default = dataclasses.replace(after, decision=Decision.PENDING, style=self.config.fix_style)
                        if (before or default) != after:
                            changes.append((fid, before, after))
                    if not changes:
                        continue
                    held_before = self._result(fr)[1]
                    self._set(rel, changes, forward=True)
                    if any(g not in held_before for g in self._result(fr)[1]):
                        self._set(rel, changes, forward=False)
                        skipped += 1
                        continue
                    if fs.sha256 is None:
                        fs.sha256 = fr.sha256
                    fs.findings = len(fr.findings)
                    steps.append(Step(rel, tuple(changes), message))
            if skipped:
                message += f" ({skipped} skipped: their fix would conflict with another accepted fix)"
            if not steps:
                return Change("", (), message if skipped else "nothing changed")
            merged: dict[str, list[tuple[str, DecisionRecord | None, DecisionRecord | None]]] = {}
            for one in steps:
                merged.setdefault(one.rel, []).extend(one.changes)
            parts = [Step(rel, tuple(ch), message) for rel, ch in merged.items()]
            self._undo.append(Step(parts[0].rel, parts[0].changes, message, tuple(parts[1:])))
            self._redo.clear()
            ids = tuple(c[0] for c in parts[0].changes)
            return Change(parts[0].rel, ids, message + self._autosave())

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
            after = decision_record(fr, fr.by_id[fid], d, s)
            if (before or dataclasses.replace(after, decision=Decision.PENDING, style=self.config.fix_style)) == after:
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
        self._undo.append(Step(rel, tuple(changes), message))
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
            note = self._autosave()
            return Change(step.rel, tuple(c[0] for c in step.changes), f"{verb}: {step.message}{note}")

    def can_undo(self) -> bool:
        return bool(self._undo)
