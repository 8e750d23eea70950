"""Passes over constructs no name table covers: CUDA overloads that collapse into one HIP definition
(engine/translate/collapse.py), CUDA features and struct members the target lacks (engine/translate/cuda_features.py,
engine/translate/struct_members.py), operators the code defines on CUDA vector types (engine/translate/vector_ops.py), and
half2 members read as half (engine/translate/members.py)."""

from __future__ import annotations

from ..model import ReportKind
from . import shims
from .state import NO_SHIM_HINT, TranslationState


def collapsed_overloads(st: TranslationState) -> None:
    """Overloads on two CUDA types that map to one HIP type would be redefinitions: the second is
    left out under `#if 0` (engine/translate/collapse.py, which looks further only in files defining one name twice)."""
    if not st.out.edits:
        return
    from .collapse import collapsed_definitions

    v, out = st.view, st.out
    text, newline = v.text, st.newline
    for cd in collapsed_definitions(v.toks, v.directives, out.edits, out.base):
        kept_line = out.locate(out.base + cd.kept_at)[0]
        why = (f"{cd.name}({cd.hip_params}) is already defined at line {kept_line}: its CUDA overloads take types "
               "that are one HIP type; this definition is left out, calls reach that one")
        ls = text.rfind("\n", 0, cd.start) + 1
        le = text.find("\n", cd.end)
        rest = text[cd.end:] if le < 0 else text[cd.end:le]
        if text[ls:cd.start].strip() or (rest.strip() and not rest.strip().startswith("//")):
            out.report(ReportKind.MANUAL, cd.name, cd.start, cd.start + len(cd.name), why + " (not on lines of its "
                       "own: remove one by hand)")
            continue
        out.edit(ls, ls, f"#if 0 // hipport: {cd.name}({cd.hip_params}) is defined above{newline}", "collapse", why)
        if le < 0:
            out.edit(len(text), len(text), f"{newline}#endif // hipport{newline}", "collapse", why)
        else:
            out.edit(le + 1, le + 1, f"#endif // hipport{newline}", "collapse", why)
        out.report(ReportKind.MANUAL, cd.name, cd.start, cd.end, why)


def cuda_features(st: TranslationState) -> None:
    """CUDA features no table lists (cooperative-groups members, wide tiles, __grid_constant__): a shim
    or member rewrite where one is exact, else a report."""
    from . import cuda_features as features

    v = st.view
    if not features.wanted(v.text):
        return
    for kind, name, s, e, msg, since, i in features.scan(v.toks, st.options.rocm, v.in_directive_or_inactive):
        sh = shims.get(name, "feature")
        if sh is not None and sh.needed(st.options.rocm):
            why = shims.not_exact(v.toks, i, sh)
            if why:
                msg += f"; no exact replacement here: {why}"
            elif st.options.shims:
                st.shims.take(sh, st.out, s, e, name)
                continue
            else:
                msg += NO_SHIM_HINT
        elif name in shims.REWRITTEN_MEMBERS:
            mrw = shims.member_rewrite(v.toks, i)
            left = None if mrw is None else st.apply_rewrite(name, s, e, mrw, msg)
            if left is None:
                continue  # rewritten, or HIP's own member does what CUDA's does
            msg = left
        st.out.report(ReportKind(kind), name, s, e, msg, "", since)
        st.out.count("unconverted")


def struct_members(st: TranslationState) -> None:
    """Members of CUDA structs the target's HIP struct lacks (cudaDeviceProp::unifiedAddressing before 6.0)."""
    from . import struct_members as members

    v = st.view
    if not members.wanted(v.text):
        return
    for kind, name, s, e, msg, since in members.scan(v.toks, st.options.rocm, v.in_directive_or_inactive):
        st.out.report(ReportKind(kind), name, s, e, msg, "", since)
        st.out.count("unconverted")


def vector_operators(st: TranslationState) -> None:
    """Operators the code defines on CUDA vector types: HIP's vector types have them already, so the
    definitions are kept for NVIDIA only."""
    v = st.view
    if "operator" not in v.text:
        return
    from .vector_ops import guard_edits, vector_operator_spans

    vspans = vector_operator_spans(v.toks, v.in_directive_or_inactive)
    if not vspans:
        return
    for ge in guard_edits(v.toks, vspans, st.newline):
        st.out.edit(ge.start, ge.end, ge.replacement, ge.rule, ge.note)
    ops = sorted({op for *_x, op in vspans})
    st.out.report(ReportKind.INFO, "operator", v.toks.starts[vspans[0][0]], v.toks.ends[vspans[0][1]],
                  f"{len(vspans)} operator definition(s) on CUDA vector types ({' '.join(ops)}) kept for NVIDIA "
                  "only: HIP's vector types define them, and both would make every use ambiguous")
    st.out.count("vector-ops", len(vspans))


def half2_members(st: TranslationState) -> None:
    """`.x` / `.y` of half2 values read as half (hipify-clang's half2Member)."""
    from .members import half2_member_edits

    for ed in half2_member_edits(st.view.toks, st.view.inactive):
        st.out.edit(ed.start, ed.end, ed.replacement, ed.rule, ed.note)
