"""What the finding panel shows for the finding (or translation report) under review, as data: built
from the engine's session, painted by widgets/finding_panel.py."""

from __future__ import annotations

from hipport.engine.edits import Edit
from hipport.engine.model import FixTier
from hipport.engine.review import Decision, FileReview, ReviewSession

from ..labels import HELD_MARK, REPORT_SYMBOL, REPORT_WORD, STALE_MARK, decision_word
from ..widgets.finding_panel import PanelData, ReportData, line_text
from .review_support import rule_text


def panel_content(session: ReviewSession, rel: str, current: str | None,
                  uses_open: bool) -> PanelData | ReportData | str:
    """The panel's finding, report, or (neither under review) the line it says instead. `uses_open`: the
    list of the finding's uses is expanded."""
    fr = session.load(rel)
    report = fr.report_by_id.get(current) if current is not None else None
    if report is not None:
        reports = [r.id for r in fr.reports]
        return ReportData(
            report, REPORT_SYMBOL.get(report.kind, "?"), REPORT_WORD.get(report.kind, report.kind.value),
            f"{reports.index(report.id) + 1}/{len(reports)}", line_text(fr.source.text, report.line))
    if current is None or current not in fr.by_id:
        if fr.findings:
            return "Move to a finding with j/k."
        n = len(fr.translation.edits)
        k = len(fr.reports)
        to_hand = f" {k} report{'s' if k != 1 else ''} to port by hand (j/k reach them)." if k else ""
        return f"No warp findings in {rel}. {n} translation edit{'s' if n != 1 else ''}." + to_hand
    f = fr.by_id[current]
    style = session.style(rel, f.id)
    fix = f.fix(style)
    title, explanation = rule_text(f.rule)
    ids = [x.id for x in fr.findings]
    group = fr.fix_groups.get(f.group)
    tier = group.tier if group is not None else FixTier.SAFE
    tier_reason = (group.tier_reason if group is not None else "") or (
        "the analysis did not understand every use of the value" if tier == FixTier.REVIEW else "")
    return PanelData(
        finding=f,
        rule_title=title,
        explanation=explanation,
        decision=_decision_label(session, fr, rel, current),
        style=style.value,
        group_size=len(fr.group_of(f.id)),
        source_text=fr.source.text,
        fix_edits=fix.edits if fix else (),
        fix_summary=fix.summary if fix else "",
        position=f"{ids.index(f.id) + 1}/{len(ids)}",
        tier=tier.value,
        tier_reason=tier_reason,
        group_edits=_group_edits(session, fr, rel, current),
        uses_open=uses_open,
    )


def _decision_label(session: ReviewSession, fr: FileReview, rel: str, fid: str) -> str:
    if fr.stale:
        return STALE_MARK[2] if fid in session.stale_decisions(rel) else decision_word(Decision.PENDING)
    decision = session.decision(rel, fid)
    held = session.held(rel).get(fr.by_id[fid].group)
    if held and decision == Decision.ACCEPTED:
        return f"{HELD_MARK[2]}: {held}"
    return decision_word(decision)


def _group_edits(session: ReviewSession, fr: FileReview, rel: str, fid: str) -> list[Edit]:
    """The whole group's edits (every member's fix + the group's shared edits): a group changes together,
    so its preview shows every edit, not only this finding's half."""
    style = session.style(rel, fid)
    edits: list[Edit] = []
    for m in fr.group_of(fid):
        mf = fr.by_id[m].fix(style)
        if mf is not None:
            edits.extend(mf.edits)
    group = fr.fix_groups.get(fr.by_id[fid].group)
    if group is not None:
        edits.extend(e for sf in group.shared if sf.style == style for e in sf.edits)
    return edits
