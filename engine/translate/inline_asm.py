"""Inline PTX (`asm(...)`): the instructions with an exact HIP counterpart are translated (engine/translate/ptx.py),
the rest reported."""

from __future__ import annotations

from ..model import ReportKind
from . import ptx, shims
from .state import NO_SHIM_HINT, TranslationState

_PTX = "inline assembly (PTX) does not run on AMD GPUs: rewrite it with HIP intrinsics"
_QUALIFIERS = ("volatile", "__volatile__", "goto", "inline")


def translate_asm(st: TranslationState, i: int) -> None:
    """Token i is `asm`/`__asm__`: translate or report the statement it starts."""
    v, out, options = st.view, st.out, st.options
    starts, ends = v.toks.starts, v.toks.ends
    j = v.toks.next_sig(i)
    while v.sp(j) in _QUALIFIERS:
        j = v.toks.next_sig(j)
    if v.sp(j) != "(":
        return
    rw = ptx.rewrite(v.toks, i)
    if rw == ptx.EMPTY:
        return  # `asm volatile("" ::: "memory")`: a compiler barrier for hip-clang too
    if isinstance(rw, str):
        out.report(ReportKind.UNSUPPORTED, v.sp(i), starts[i], ends[i], f"{_PTX} ({rw})")
        return
    sh = shims.get(f"ptx.{rw.helper}", "ptx") if rw.helper else None
    if rw.helper and (sh is None or not options.shims):
        out.report(ReportKind.UNSUPPORTED, v.sp(i), starts[i], ends[i],
                   f"{_PTX} (`{rw.instruction}` needs hipport's exact helper{NO_SHIM_HINT})")
        return
    out.edit(rw.start, rw.end, rw.text, "ptx", f"{rw.instruction} -> {rw.text}")
    out.count("ptx")
    if sh is not None:
        st.shims.needed.setdefault(sh.guard, sh)
    st.shims.replaced.add("inline PTX")
    out.report(ReportKind.INFO, v.sp(i), starts[i], ends[i], f"inline PTX `{rw.instruction}` -> {rw.text}")


def is_gap(st: TranslationState, i: int) -> bool:
    """The asm statement at token i stays untranslated (what translate_asm reports)."""
    rw = ptx.rewrite(st.view.toks, i)
    return (isinstance(rw, str) and rw != ptx.EMPTY) or (
        isinstance(rw, ptx.Rewrite) and bool(rw.helper) and not st.options.shims)
