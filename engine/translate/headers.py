"""The include pass: CUDA headers -> HIP headers (engine/translate/includes.py), the one hip/hip_runtime.h a file
needs, and after it the headers of renamed types and the blocks of the shims the other passes took."""

from __future__ import annotations

from ..cxx.lexer import COMMENT
from ..edits import Edit
from ..model import ReportKind
from . import bf16, shims
from .includes import IncludeResult, include_edits, runtime_insertion
from .state import NO_SHIM_HINT, TranslationState
from .tables import HIP_RUNTIME_HEADER, TYPE_HEADERS

_SHIMS_NOTE = "exact replacements (shims)"


def translate_headers(st: TranslationState) -> None:
    v = st.view
    skip_dirs = None  # directives in inactive #if branches
    if v.inactive is not None:
        skip_dirs = {k for k, (a, _b, _nm) in enumerate(v.directives) if v.inactive[a]}
    inc = _include_lines(st, skip_dirs)
    runtime_at = _insert_runtime(st, inc, skip_dirs)
    _insert_after_runtime(st, inc, runtime_at)
    for nm in st.shims.replaced:
        st.out.count(f"shim.{nm}")


def _include_lines(st: TranslationState, skip_dirs: set[int] | None) -> IncludeResult:
    """The file's #include lines translated; a header a shim stands in for points at the shim."""
    v, out, options = st.view, st.out, st.options
    inc = include_edits(v.toks, v.directives, st.mapping, roc=options.roc, miopen=options.miopen, skip=skip_dirs)
    if st.bf16_context == "device":  # cuda_bf16.h: the header of __hip_bfloat16
        inc.edits = [Edit(e.start, e.end, e.replacement.replace("hip/hip_bfloat16.h", bf16.HIP_BF16_HEADER), e.rule,
                          e.note) for e in inc.edits]
    for ed in inc.edits:
        out.edit(ed.start, ed.end, ed.replacement, ed.rule, ed.note)
    out.count("include", len(inc.edits))
    for prob in inc.problems:
        sh = shims.get(prob.header, "include")
        if sh is not None and sh.needed(options.rocm) and options.shims:
            # the shim block (after hip_runtime.h) is what the header was for
            out.edit(prob.start, prob.end, f"/* hipport: <{prob.header}> is the {sh.name} shim below hip_runtime.h */",
                     "shim", f"{prob.header}: replaced by a shim")
            st.shims.take(sh, out, prob.start, prob.end, prob.header)
            continue
        out.report(ReportKind.UNSUPPORTED, prob.header, prob.start, prob.end,
                   prob.message + (NO_SHIM_HINT if sh is not None and sh.needed(options.rocm) else ""))
    return inc


def _insert_runtime(st: TranslationState, inc: IncludeResult, skip_dirs: set[int] | None) -> int | None:
    """hipify-clang inserts hip_runtime.h into every file it translates; hipport into CUDA files (nvcc
    includes cuda_runtime.h implicitly) and into other files whose code uses CUDA names or device
    code (not a header that only tests `#ifdef __CUDACC__`: plain C++ compilers include it too), never
    into an empty or comment-only file. Returns the offset it is inserted at (None: not inserted)."""
    v = st.view
    has_code = any(k != COMMENT for k in v.toks.kinds)
    if not (st.insert_runtime and not inc.has_runtime and has_code and (st.used_in_code or st.has_device_code())):
        return None
    ins = runtime_insertion(v.toks, v.directives, st.newline, inc.first_include, skip_dirs)
    repl = ins.replacement
    if st.c_header and not st.cuda_file:
        # a .h may also be included by C files (HeCBench frna: cu.h from main.c), and
        # hip_runtime.h is C++ only: "Must define exactly one of __HIP_PLATFORM_AMD__ ..."
        line = f"#include <{HIP_RUNTIME_HEADER}>"
        repl = repl.replace(line, f"#ifdef __cplusplus{st.newline}{line}{st.newline}#endif")
    st.out.edit(ins.start, ins.end, repl, ins.rule, ins.note)
    st.out.count("include")
    return ins.start


def _insert_after_runtime(st: TranslationState, inc: IncludeResult, runtime_at: int | None) -> None:
    """A renamed type brings its HIP header (hip_bfloat16 lives in hip/hip_bfloat16.h, which neither
    hip_runtime.h nor any mapped CUDA header includes); the shims' blocks follow."""
    v, newline = st.view, st.newline
    text = v.text
    have = {text[v.toks.starts[a]:v.toks.ends[b - 1]] for a, b, nm in v.directives if nm == "include"}
    have |= {e.replacement for e in inc.edits}
    type_headers = sorted({h for t, h in TYPE_HEADERS.items() if t in st.renamed_to
                           and not any(h in x for x in have)})
    # a block the file already has (a second translation of a port) is not inserted again
    needed = {g: sh for g, sh in st.shims.needed.items() if f"#ifndef {g} " not in text}
    if not (type_headers or needed):
        return
    block = "".join(f"#include <{h}> // hipport: for {', '.join(t for t, x in TYPE_HEADERS.items() if x == h)}\n"
                    for h in type_headers)
    block = block.replace("\n", newline) + "".join(sh.block(newline) for sh in needed.values())
    at = _after_runtime_line(st, inc)
    if at is not None:
        st.out.edit(at, at, block, "shim", _SHIMS_NOTE)
    elif runtime_at is not None:  # right after the inserted hip_runtime.h
        st.out.edit(runtime_at, runtime_at, block, "shim", _SHIMS_NOTE)
    else:  # no hip_runtime.h in the file
        st.out.edit(0, 0, f"#include <{HIP_RUNTIME_HEADER}>{newline}{block}", "shim", _SHIMS_NOTE)
    st.out.count("shim", len(needed))
    st.out.count("include", len(type_headers))


def _after_runtime_line(st: TranslationState, inc: IncludeResult) -> int | None:
    """The offset after the line of the file's hip_runtime.h include (translated or already there)."""
    v = st.view
    runtime_end = next((e.end for e in inc.edits if HIP_RUNTIME_HEADER in e.replacement), None)
    if runtime_end is None:
        runtime_end = next((v.toks.ends[b - 1] for a, b, nm in v.directives if nm == "include"
                            and HIP_RUNTIME_HEADER in v.text[v.toks.starts[a]:v.toks.ends[b - 1]]), None)
    if runtime_end is None:
        return None
    eol = v.text.find("\n", runtime_end)
    return len(v.text) if eol < 0 else eol + 1
