"""The launch pass (with --launch-syntax ggl): `kernel<<<...>>>(...)` -> hipLaunchKernelGGL (engine/translate/launch.py),
also where a macro's body holds the launch (written at the macro's call site, after the other passes)."""

from __future__ import annotations

import bisect

from ..edits import Edit, apply_edits
from ..model import ReportKind
from .launch import MacroLaunch, launch_edits, macro_launches
from .state import TextView, TranslationState


def translate_launches(st: TranslationState) -> list[MacroLaunch]:
    """Launch edits and reports; returns the macro call sites whose launches compose_macro_launches
    writes once every other pass has made its edits."""
    v = st.view
    if st.options.launch_syntax != "ggl" or "<<<" not in v.text:
        return []
    sites, in_macros = macro_launches(v.toks, v.directives, v.dir_of)
    les, probs = launch_edits(v.toks, v.dir_of, v.dir_names, in_macros)
    if v.inactive is not None:
        sites = [m for m in sites if not _in_inactive(v, m.start)]
        les = [e for e in les if not _in_inactive(v, e.start)]
    for ed in les:
        st.out.edit(ed.start, ed.end, ed.replacement, ed.rule, ed.note)
    st.out.count("launch", sum(1 for e in les if e.replacement.startswith("hipLaunchKernelGGL(")))
    for pr in probs:
        st.out.report(ReportKind.MANUAL, "<<<", pr.start, pr.end, pr.message)
    return sites


def compose_macro_launches(st: TranslationState, sites: list[MacroLaunch]) -> None:
    """Replace each call site by its hipLaunchKernelGGL text; the edits inside a call-site span
    (renames in the arguments) are applied to that span's text, and dropped from the list."""
    if not sites:
        return
    text, base = st.view.text, st.out.base
    edits = st.out.edits
    for m in sites:
        lo, hi = base + m.start, base + m.end
        inside = [e for e in edits if lo <= e.start and e.end <= hi]
        if not inside and any(e.start < hi and lo < e.end for e in edits):
            continue  # something else rewrites across the call: leave it
        parts: list[str] = []
        for p in m.pieces:
            if isinstance(p, str):
                parts.append(p)
                continue
            s, e = p
            own = [Edit(x.start - base - s, x.end - base - s, x.replacement, x.rule, x.note)
                   for x in inside if base + s <= x.start and x.end <= base + e]
            parts.append(apply_edits(text[s:e], own))
        edits = [e for e in edits if not (lo <= e.start and e.end <= hi)]
        edits.append(Edit(lo, hi, "".join(parts), "launch", "launch written at the macro's call site"))
    st.out.edits = edits
    st.out.count("launch", len(sites))


def _in_inactive(v: TextView, offset: int) -> bool:
    assert v.inactive is not None
    i = bisect.bisect_right(v.toks.starts, offset) - 1
    return 0 <= i < len(v.inactive) and v.inactive[i]
