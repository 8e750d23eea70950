"""The identifier pass: every identifier token is renamed (mapping tables), reported (no HIP
counterpart at the target ROCm, or CUDA-looking but in no table), given an exact replacement (a shim,
mapping/shims.tsv) or left alone (members, other scopes, the file's own macros and declarations).
Calls whose arguments change too are collected and rewritten at the end (call_args.py)."""

from __future__ import annotations

import bisect

from ..cxx.lexer import IDENT, KEYWORD, declared_names
from ..model import ReportKind
from . import bf16, shims
from .call_args import Call, call_arguments, rewrite_calls
from .cuda_macros import translate_macro
from .decisions import (
    ARG_REWRITTEN_NAMES,
    Action,
    Decision,
    Unlisted,
    unknown_name_re,
    unlisted_kind,
)
from .inline_asm import translate_asm
from .name_rewrites import REWRITES
from .ptx import ASM_KEYWORDS
from .state import MEMBER_OR_SCOPE, NO_SHIM_HINT, TranslationState
from .tables import ARG_REWRITES, ARG_REWRITES_HIP_ONLY, OVERLOADS

# directives whose identifiers are no code (`#include <cuda.h>`, `#pragma unroll`, `#error ...`)
SKIP_DIRECTIVES = frozenset({"include", "include_next", "import", "error", "warning", "line", "pragma"})


def translate_names(st: TranslationState) -> None:
    NamePass(st).run()


class NamePass:
    """One file's identifier pass: the per-file facts it reads once, then one visit per identifier."""

    def __init__(self, st: TranslationState) -> None:
        self.st = st
        v = st.view
        self.user_macros = _user_macros(st)
        # legacy cuBLAS names hipBLAS/rocBLAS have only in the v2 API: translated when cublas_v2.h is included
        self.blas_v2_only = st.mapping.blas_v2_only
        self.has_cublas_v2 = any(name == "include" and "cublas_v2.h" in v.text[v.toks.starts[a]:v.toks.ends[b - 1]]
                                 for a, b, name in v.directives)
        self.calls: list[Call] = []  # calls whose arguments change (call_args.py)
        # __nv_bfloat16 by context (engine/translate/bf16.py): CUDA-compatible __hip_bfloat16 for device arithmetic
        self.bf16_map = bf16.device_names() if st.bf16_context else {}
        self.bf16_told = st.bf16_context != "old"
        self.shim_table = shims.table()
        self.call_triggers = shims.call_triggers()
        self.own_decls: set[str] | None = None  # the file's own functions/variables named like CUDA APIs

    def run(self) -> None:
        v = self.st.view
        kinds = v.toks.kinds
        for i in range(v.n):
            if kinds[i] == IDENT:
                self.identifier(i)
            elif kinds[i] == KEYWORD and v.sp(i) in ASM_KEYWORDS:
                translate_asm(self.st, i)
        if self.calls:
            self.rewrite_calls()

    def identifier(self, i: int) -> None:
        st, v = self.st, self.st.view
        skipped = v.inactive is not None and v.inactive[i]
        if skipped and not st.options.amap:
            return  # --amap: names in skipped branches are still renamed, nothing else is done there
        d = v.dir_of[i]
        dname = v.dir_names[d] if d >= 0 else ""
        if d >= 0 and (dname in SKIP_DIRECTIVES or i <= d + 1):
            return
        name = v.text[v.toks.starts[i] : v.toks.ends[i]]
        if d >= 0 and dname in ("define", "undef") and i == d + 2 and name in self.user_macros:
            return  # the macro being defined
        if name in self.user_macros or (v.toks.starts[i] in st.user_spans and not _caffe2(st.decide(name))):
            return
        dec = self.bf16_decision(i, name, st.decide(name))
        if dec is None and name in self.call_triggers:
            self.call_trigger(i, name)
        elif dec is None:
            self.unlisted(i, name, d, dname)
        else:
            self.listed(i, name, dec, d, skipped)

    def bf16_decision(self, i: int, name: str, dec: Decision | None) -> Decision | None:
        """`dec`, or what engine/translate/bf16.py decides for the bf16 names of a device-arithmetic file."""
        st = self.st
        if self.bf16_map and name in self.bf16_map and st.bf16_context == "device":
            hip_name = self.bf16_map[name]
            return Decision(Action.RENAME if hip_name != name else Action.KEEP, hip_name, "device", None, "", "")
        if self.bf16_map and name in self.bf16_map and (dec is None or dec.action == Action.REPORT):
            return Decision(Action.REPORT, "", "device", ReportKind.NEEDS_NEWER_ROCM,
                            f"{name} -> {self.bf16_map[name]} (hip/hip_bf16.h) needs ROCm 6.2.0 (target is ROCm "
                            f"{st.options.rocm_text}; use --rocm)", "6.2.0")
        if not self.bf16_told and name == "__nv_bfloat16":
            self.bf16_told = True
            st.out.report(ReportKind.INFO, name, st.view.toks.starts[i], st.view.toks.ends[i],
                          "__nv_bfloat16 -> hip_bfloat16 (HIPIFY's type, whose float constructor is explicit: "
                          "`x = f` or `{{0}}` do not compile); ROCm 6.2's __hip_bfloat16 is CUDA's type (--rocm 6.2)")
        return dec

    def call_trigger(self, i: int, name: str) -> None:
        """A name in no table that a shim supplies (e.g. a device function HIP lacks)."""
        st, v = self.st, self.st.view
        sh = st.shims.usable(self.shim_table[name], v, i, st.options)
        if sh is None or v.sp(v.toks.prev_sig(i)) in MEMBER_OR_SCOPE or not (sh.use == "name" or v.sp(v.toks.next_sig(i)) == "("):
            return
        s, e = v.toks.starts[i], v.toks.ends[i]
        if st.options.shims:
            st.shims.take(sh, st.out, s, e, name)
        else:
            st.out.report(ReportKind.UNSUPPORTED, name, s, e, f"{name} has no HIP equivalent ({sh.note})" + NO_SHIM_HINT)
            st.out.count("unconverted")

    def unlisted(self, i: int, name: str, d: int, dname: str) -> None:
        st, v = self.st, self.st.view
        kind = unlisted_kind(name, st.mapping)
        if kind == Unlisted.INLINE_ASM:
            translate_asm(st, i)
        elif kind == Unlisted.CUDA_MACRO:
            macro = st.mapping.macro(name)
            assert macro is not None  # what CUDA_MACRO means: mapping/macros.tsv lists it
            translate_macro(st, i, name, macro, d, dname)
        elif kind == Unlisted.CUDA_LOOKING:
            if self.own_decls is None:
                self.own_decls = declared_names(v.toks, lambda nm: bool(unknown_name_re().match(nm)))
            if (v.sp(v.toks.prev_sig(i)) not in MEMBER_OR_SCOPE and name not in self.own_decls
                    and name not in st.options.project_names):
                st.out.report(ReportKind.UNKNOWN, name, v.toks.starts[i], v.toks.ends[i],
                              f"{name} looks like a CUDA API but is in no CUDA->HIP table; check it by hand")

    def listed(self, i: int, name: str, dec: Decision, d: int, skipped: bool) -> None:
        """A name the mapping tables list."""
        st, v = self.st, self.st.view
        p = v.toks.prev_sig(i)
        ps = v.sp(p)
        if ps in (".", "->"):
            return  # a member: prop.major, obj->cudaStream
        if ps == "::":
            pp = v.toks.prev_sig(p)
            if pp >= 0 and (v.toks.kinds[pp] == IDENT or v.sp(pp) in (">", ">>")):
                return  # qualified by another scope (ns::cudaMalloc is not CUDA's)
        s, e = v.toks.starts[i], v.toks.ends[i]
        if dec.action == Action.NAMESPACE:
            if v.sp(v.toks.next_sig(i)) == "::" or ps == "namespace":
                st.out.edit(s, e, dec.hip, "api", f"{name} -> {dec.hip}")
                st.out.count("api")
                st.out.count(f"family.{dec.family}")
        elif name in self.blas_v2_only and not self.has_cublas_v2:
            st.out.report(ReportKind.MANUAL, name, s, e,
                          f"{name}: legacy cuBLAS API; hipBLAS/rocBLAS have only its v2 form (include cublas_v2.h, "
                          "whose calls take a handle first), so it is left as is")
            st.out.count("unconverted")
        elif dec.action == Action.REPORT:
            self.unconverted(i, name, dec)
        else:
            self.converted(i, name, dec, d, skipped)

    def unconverted(self, i: int, name: str, dec: Decision) -> None:
        """A listed name the target lacks: a shim where one is exact, else a report."""
        st, v = self.st, self.st.view
        assert dec.report is not None
        if any(a <= i < b for a, b in st.silent_ranges):
            return
        s, e = v.toks.starts[i], v.toks.ends[i]
        msg = dec.message
        name_rewrite = REWRITES.get(name)  # decided by the code around the name
        if name_rewrite is not None:
            nrw = name_rewrite(v.toks, i)
            left = msg if nrw is None else st.apply_rewrite(name, s, e, nrw, msg)
            if left is None:
                assert nrw is not None and not isinstance(nrw, str)
                st.silent_ranges.append((i, bisect.bisect_left(v.toks.starts, nrw.end)))
                return
            msg = left
        sh = st.shims.usable(shims.get(name, "call"), v, i, st.options)
        if sh is not None and v.sp(v.toks.next_sig(i)) == "(":
            if st.options.shims:
                st.shims.take(sh, st.out, s, e, name)
                return
            msg += NO_SHIM_HINT
        st.out.report(dec.report, name, s, e, msg, "", dec.since)
        st.out.count("unconverted")

    def converted(self, i: int, name: str, dec: Decision, d: int, skipped: bool) -> None:
        """A listed name with a HIP counterpart: renamed (by argument count for overloads)."""
        st, v = self.st, self.st.view
        s, e = v.toks.starts[i], v.toks.ends[i]
        self.overload_shim(i, name)
        st.used_in_code = st.used_in_code or d < 0
        st.out.count(f"family.{dec.family}")
        st.out.count("converted")
        repl = dec.hip
        if name in ARG_REWRITTEN_NAMES and not skipped and v.sp(v.toks.next_sig(i)) == "(":
            repl = self.argument_rewrite(i, name, repl)
        if repl != name:
            st.renamed_to.add(repl)
            st.out.edit(s, e, repl, "api", f"{name} -> {repl}")
            st.out.count("api")
        if dec.report is not None:
            st.out.report(dec.report, name, s, e, dec.message, repl, dec.since)

    def overload_shim(self, i: int, name: str) -> None:
        """HIP's overloads of a renamed call that differ from CUDA's for these arguments (min/max on
        mixed types): the shim's overloads are inserted."""
        st, v = self.st, self.st.view
        sh = self.shim_table.get(name)
        if sh is None or not sh.use.startswith("overload"):
            return
        if sh.use == "overload-device":
            sh = st.shims.usable(sh, v, i, st.options)  # a file with its own min/max keeps them alone
        if (sh is not None and sh.needed(st.options.rocm) and v.sp(v.toks.next_sig(i)) == "("
                and shims.call_needs(sh, v.toks, v.toks.next_sig(i))
                and (sh.use != "overload-device" or st.has_device_code())):
            s, e = v.toks.starts[i], v.toks.ends[i]
            if st.options.shims:
                st.shims.take(sh, st.out, s, e, name)
            else:
                st.out.report(ReportKind.MANUAL, name, s, e, f"{name}: {sh.note}" + NO_SHIM_HINT)

    def argument_rewrite(self, i: int, name: str, repl: str) -> str:
        """The call at token i changes its arguments: collected for rewrite_calls. Returns the name
        the call gets (an overload chosen by its argument count)."""
        st, v = self.st, self.st.view
        roc = st.options.roc or st.options.miopen
        o = v.toks.next_sig(i)
        ov = OVERLOADS.get(name)
        if ov is not None:
            ca = call_arguments(v.toks, o)
            if ca is not None and len(ca[1]) in ov:
                repl = ov[len(ca[1])]
        rw = ARG_REWRITES.get(name)
        if rw is not None and (rw[0] == "any" or roc):
            self.calls.append(Call(name, i, o, rw[1]))
        elif not roc and name in ARG_REWRITES_HIP_ONLY:
            self.calls.append(Call(name, i, o, ARG_REWRITES_HIP_ONLY[name]))
        return repl

    def rewrite_calls(self) -> None:
        st, v = self.st, self.st.view
        st.out.edits, failed = rewrite_calls(v.toks, self.calls, st.out.edits, st.out.base)
        for c in failed:
            st.out.report(ReportKind.MANUAL, c.name, v.toks.starts[c.name_i], v.toks.ends[c.name_i],
                          f"{c.name}: its HIP/ROC counterpart takes other arguments that hipport does not fill in "
                          "here (unexpected argument count, or a value only the caller knows); adjust them by hand")


def _caffe2(dec: Decision | None) -> bool:
    # CAFFE2's names are renamed where the file defines them too: code written against CAFFE2 stubs
    # its macros and classes (hipify-clang's caffe2_02.cu)
    return dec is not None and dec.family == "caffe2"


def _user_macros(st: TranslationState) -> set[str]:
    """Names this file defines as macros are its own (CUDA_CHECK, or a shim named like a CUDA API); a
    compiler's own macro (`#define __CUDACC__`) is not: hipify-clang renames it (driver_defines.cu)."""
    v = st.view

    def compiler_macro(nm: str) -> bool:
        m = st.mapping.macro(nm)
        return m is not None and m.kind == "compiler" and bool(m.hip)

    names = {v.sp(a + 2) for a, b, name in v.directives if name in ("define", "undef") and b - a > 2}
    return {nm for nm in names if not compiler_macro(nm) and not _caffe2(st.decide(nm))}
