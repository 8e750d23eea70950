"""CUDA's own preprocessor macros (`__CUDA_ARCH__`, `CUDART_VERSION`, `__CUDACC__`, mapping/macros.tsv):
their HIP meaning. A comparison with a number is decided (the CUDA API level HIP covers; AMD device
code as compute capability tables.ARCH_AVAILABLE_UP_TO); a device-code `#if` branch that calls what the
target ROCm lacks gives way to its `#else` branch."""

from __future__ import annotations

from ..cxx.lexer import IDENT, KEYWORD, LITERAL
from ..mapping import MacroEntry
from ..model import ReportKind
from . import inline_asm, shims
from .decisions import Action
from .ptx import ASM_KEYWORDS
from .state import MEMBER_OR_SCOPE, TranslationState
from .tables import ARCH_AVAILABLE_UP_TO, CUDA_API_LEVEL

_COMPARE = {">=", ">", "<=", "<", "==", "!="}
_ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~"}
_DEFINED_TESTS = ("ifdef", "ifndef", "elifdef", "elifndef")
_DEVICE_PASS_VALUE = {(True, True): "1", (False, False): "0", (False, True): "defined(__HIP_DEVICE_COMPILE__)",
                      (True, False): "!defined(__HIP_DEVICE_COMPILE__)"}


def _number(s: str) -> int | None:
    s = s.replace("'", "").rstrip("uUlL")
    try:
        return int(s, 0)
    except ValueError:
        return None


def _compare(a: int, op: str, b: int) -> bool:
    return {">=": a >= b, ">": a > b, "<=": a <= b, "<": a < b, "==": a == b, "!=": a != b}[op]


def translate_macro(st: TranslationState, i: int, name: str, m: MacroEntry, d: int, dname: str) -> None:
    """Identifier token i names a CUDA macro (`m` its mapping/macros.tsv entry); `d` is the first token
    of its directive (-1 in code), `dname` that directive's name."""
    v, out = st.view, st.out
    starts, ends = v.toks.starts, v.toks.ends
    kind, hip = m.kind, m.hip
    p = v.toks.prev_sig(i)
    ps = v.sp(p)
    in_defined = ps == "defined" or (ps == "(" and v.sp(v.toks.prev_sig(p)) == "defined") or (
        d >= 0 and dname in _DEFINED_TESTS and i == d + 2)
    j = v.toks.next_sig(i)
    k = v.toks.next_sig(j)
    num = _number(v.sp(k)) if k < v.n and v.toks.kinds[k] == LITERAL else None
    after = v.sp(v.toks.next_sig(k))
    if (kind in ("device-pass", "version") and not in_defined and v.sp(j) in _COMPARE and num is not None
            and ps not in _ARITH and after not in _ARITH):
        _decide_comparison(st, i, k, name, kind == "version", v.sp(j), num, d, dname)
    elif kind == "version" and in_defined:
        out.edit(starts[i], ends[i], "HIP_VERSION", "preproc", f"{name} -> HIP_VERSION (defined-test only)")
        out.count("preproc")
    elif hip and (in_defined or kind != "device-pass"):
        out.edit(starts[i], ends[i], hip, "preproc", f"{name} -> {hip}")
        out.count("preproc")
    elif kind in ("device-pass", "version"):
        out.report(ReportKind.MANUAL, name, starts[i], ends[i],
                   f"{name} used as a number has no HIP equivalent (HIP_VERSION and __HIP_DEVICE_COMPILE__ "
                   "use other encodings); rewrite the test by hand")


def _decide_comparison(st: TranslationState, i: int, k: int, name: str, version: bool, op: str, num: int,
                       d: int, dname: str) -> None:
    """`MACRO op num` (tokens i..k) replaced by its value, the original kept in a comment."""
    v, out = st.view, st.out
    starts, ends = v.toks.starts, v.toks.ends
    orig = v.text[starts[i] : ends[k]]
    if version:
        val = "1" if _compare(CUDA_API_LEVEL, op, num) else "0"
        why = f"decided as CUDA API level {CUDA_API_LEVEL} (what the HIP tables cover)"
    else:
        dev = _compare(ARCH_AVAILABLE_UP_TO, op, num)
        val = _DEVICE_PASS_VALUE[(_compare(0, op, num), dev)]
        why = (f"AMD device code counts as compute capability {ARCH_AVAILABLE_UP_TO} "
               "features (no Hopper/Blackwell-only paths); host code as no __CUDA_ARCH__")
        if d < 0 and "defined" in val:
            out.report(ReportKind.MANUAL, name, starts[i], ends[k],
                       f"{orig}: no HIP equivalent in C++ code; test __HIP_DEVICE_COMPILE__ in #if instead")
            return
        if d >= 0 and dname in ("if", "elif"):
            val, why = _device_branch(st, i, k, name, orig, d, dev, val, why)
    out.edit(starts[i], ends[k], f"{val} /* hipport: {orig} */", "preproc", f"{orig} -> {val}")
    out.count("preproc")
    out.report(ReportKind.INFO, name, starts[i], ends[k], f"{orig} -> {val}: {why}", val)


def _device_branch(st: TranslationState, i: int, k: int, name: str, orig: str, d: int, dev: bool, val: str,
                   why: str) -> tuple[str, str]:
    """The branch device code takes must not call what the target ROCm lacks (e.g. __reduce_add_sync
    before 7.0): then the other branch is kept. Returns the (value, why) the condition gets."""
    v = st.view
    dk = v.dir_index[d]
    taken, other = _branches(st, dk, dev)
    lacking = _lacking(st, taken)
    if not lacking:
        return val, why
    rv = st.options.rocm_text
    # only a condition that is this comparison alone is changed (a compound one such as
    # `defined(__CUDA_ARCH__) && ...` is reported instead)
    whole = i == v.toks.next_sig(v.toks.next_sig(d)) and v.toks.next_sig(k) >= v.directives[dk][1]
    if whole and other is not None and not _lacking(st, other):
        # host and device passes both take the fallback: hip-clang looks names up in both, so the
        # other branch must not be seen by either
        st.silent_ranges.append(taken)
        return ("1" if not dev else "0"), why + (f"; both passes keep the other branch: this one uses "
                                                 f"{', '.join(lacking)}, which ROCm {rv} lacks")
    st.out.report(ReportKind.MANUAL, name, v.toks.starts[i], v.toks.ends[k],
                  f"{orig}: device code takes a branch that uses {', '.join(lacking)}, which ROCm {rv} "
                  "lacks" + (", and there is no #else branch to keep instead" if whole else
                             " (a compound condition hipport does not rewrite)")
                  + ": port it by hand or raise --rocm")
    return val, why


def _branches(st: TranslationState, k: int, first: bool) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """Token ranges of the branch after directive k (an #if/#elif) and of the #else branch of
    the same chain (None when there is none); `first` False: the #else branch is the one taken."""
    directives, n = st.view.directives, st.view.n
    depth, start = 0, directives[k][1]
    this: tuple[int, int] | None = None
    other: tuple[int, int] | None = None
    for a, b, nm in directives[k + 1:]:
        if nm in ("if", "ifdef", "ifndef"):
            depth += 1
        elif nm == "endif" and depth:
            depth -= 1
        elif depth == 0 and nm in ("elif", "else", "elifdef", "elifndef", "endif"):
            if this is None:
                this = (start, a)
            elif nm in ("endif",) and other is not None:
                other = (start, a)
            if nm == "else":
                other, start = (b, n), b
            elif nm != "endif":
                other = None  # an #elif chain: only a plain #else counts as the fallback
            if nm == "endif":
                break
    if this is None:
        this = (directives[k][1], n)
    if first:
        return this, other
    return (other, this) if other is not None else (this, None)


def _lacking(st: TranslationState, span: tuple[int, int]) -> list[str]:
    """The names in tokens span[0]..span[1] that the target lacks (reported, not translated, no shim)."""
    v = st.view
    kinds = v.toks.kinds
    names: list[str] = []
    for j in range(span[0], span[1]):
        if kinds[j] != IDENT and kinds[j] != KEYWORD:
            continue
        nm = v.sp(j)
        if nm in ASM_KEYWORDS:  # inline PTX hipport translates is no gap (engine/translate/ptx.py)
            hit = inline_asm.is_gap(st, j)
        else:
            dj = st.decide(nm) if kinds[j] == IDENT else None
            hit = dj is not None and dj.action == Action.REPORT and v.sp(v.toks.prev_sig(j)) not in MEMBER_OR_SCOPE and not (
                st.options.shims and shims.get(nm, "call") is not None)
        if hit and nm not in names:
            names.append(nm)
    return names
