"""CUDA -> HIP translation of one source: identifier renames, includes, launches, reports.

Only identifier tokens are renamed; comments and string literals stay byte for byte unless asked
(`translate_comments` / `translate_strings`). Preprocessor lines and macro bodies are translated like
code. Every CUDA-looking identifier that is not translated becomes a Report. The result is a set of
Edits on the original text, so unchanged text keeps its exact bytes, and translating the output
again changes nothing (nothing in it is a CUDA name any more).

Modes: TOKENS always works (no headers, no CUDA SDK). AST (engine/semantic.py) is used when a clang
resource directory and CUDA headers are found; it resolves what tokens cannot, e.g. a function the
file itself declares under a CUDA name, which must not be renamed.

Options and per-name decisions live in translate_decide.py, helpers of translate_text in
translate_parts.py; the public names stay importable from here.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from . import name_rewrites, shims
from .config import parse_rocm
from .cxx.lexer import COMMENT, IDENT, KEYWORD, LITERAL, Tokens, declared_names, directive_spans, tokenize
from .edits import Edit
from .launch import launch_edits, macro_launches
from .model import Report, ReportKind, Translation, TranslationMode
from .ppcond import inactive_tokens
from .python_host import translate_python
from .source import BUILD_LANGUAGES, Language, Source
from .translate_args import Call, call_arguments, rewrite_calls
from .translate_decide import (
    _ARG_NAMES,
    _KEEP,
    _NAMESPACE,
    _RENAME,
    _REPORT,
    TranslateError,
    TranslateOptions,
    _decider,
    _mapping,
    _other,
    _unknown_re,
)
from .translate_parts import (
    _compose_macro_launches,
    _has_cuda_code,
    _in_inactive,
    _Out,
    _translate_inside,
)
from .translate_tables import (
    ARCH_AVAILABLE_UP_TO,
    ARG_REWRITES,
    ARG_REWRITES_HIP_ONLY,
    CUDA_API_LEVEL,
    CUDA_SUFFIXES,
    HIP_RUNTIME_HEADER,
    OVERLOADS,
    TYPE_HEADERS,
    VERSION_MACROS,
)

__all__ = ["TranslateError", "TranslateOptions", "rocm_version", "translate", "translate_text"]


rocm_version = parse_rocm  # the one ROCm version rule (config.py), under its old name


# ---------------------------------------------------------------------------------------------
# The translation of C++/CUDA text

_COMPARE = {">=", ">", "<=", "<", "==", "!="}
_SKIP_DIRECTIVES = {"include", "include_next", "import", "error", "warning", "line", "pragma"}
_ASM = {"asm", "__asm__", "__asm"}
_ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~"}
_PTX = "inline assembly (PTX) does not run on AMD GPUs: rewrite it with HIP intrinsics"


def _number(s: str) -> int | None:
    s = s.replace("'", "").rstrip("uUlL")
    try:
        return int(s, 0)
    except ValueError:
        return None


def _compare(a: int, op: str, b: int) -> bool:
    return {">=": a >= b, ">": a > b, "<=": a <= b, "<": a < b, "==": a == b, "!=": a != b}[op]


def translate_text(
    text: str,
    options: TranslateOptions,
    locate: Callable[[int], tuple[int, int]],
    *,
    base: int = 0,
    cuda_file: bool = True,
    c_header: bool = False,
    insert_runtime: bool = True,
    newline: str = "\n",
    user_spans: frozenset[int] = frozenset(),
    mapping: Any = None,
    toks: Tokens | None = None,
) -> _Out:
    """Translate C++/CUDA `text`. Offsets in the result are shifted by `base` (for code held in a
    Python string); `locate(offset)` gives (line, col) of an offset in the original file.
    `user_spans`: start offsets (in `text`) of identifiers the AST found to be user declarations."""
    mapping = mapping if mapping is not None else _mapping()
    out = _Out()
    toks = toks if toks is not None else tokenize(text)
    kinds, starts, ends = toks.kinds, toks.starts, toks.ends
    n = len(kinds)
    directives = directive_spans(toks)
    dir_of = [-1] * n
    dir_names: dict[int, str] = {}
    for a, b, name in directives:
        for j in range(a, b):
            dir_of[j] = a
        dir_names[a] = name
    inactive = inactive_tokens(toks, directives, options.defines) if options.skip_inactive else None

    def rep(kind: ReportKind, name: str, s: int, e: int, msg: str, hip: str = "", since: str = "") -> None:
        line, col = locate(base + s)
        out.reports.append(Report(kind, name, base + s, base + e, line, col, msg, hip, since))

    def edit(s: int, e: int, repl: str, rule: str, note: str = "") -> None:
        out.edits.append(Edit(base + s, base + e, repl, rule, note))

    def prev_sig(i: int) -> int:
        i -= 1
        while i >= 0 and kinds[i] == COMMENT:
            i -= 1
        return i

    def next_sig(i: int) -> int:
        i += 1
        while i < n and kinds[i] == COMMENT:
            i += 1
        return i

    def sp(i: int) -> str:
        return text[starts[i] : ends[i]] if 0 <= i < n else ""

    # names this file defines as macros are its own (CUDA_CHECK, or a shim named like a CUDA API);
    # a compiler's own macro (`#define __CUDACC__`) is not: hipify-clang renames it (driver_defines.cu)
    macro_of = getattr(mapping, "macro", None)

    def compiler_macro(nm: str) -> bool:
        m = macro_of(nm) if macro_of is not None else None
        return m is not None and m.kind == "compiler" and bool(m.hip)

    user_macros = {sp(a + 2) for a, b, name in directives if name in ("define", "undef") and b - a > 2}
    user_macros = {nm for nm in user_macros if not compiler_macro(nm)}
    # CAFFE2's names are renamed where the file defines them too: code written against CAFFE2
    # stubs its macros and classes (hipify-clang's caffe2_02.cu)
    decide0 = _decider(mapping, options)
    user_macros = {nm for nm in user_macros if (decide0(nm) or (0, "", ""))[2] != "caffe2"}

    def _macro(i: int, name: str, m: Any, d: int, dname: str) -> None:
        """CUDA's own preprocessor macros: their HIP meaning (see mapping/macros.tsv)."""
        kind = m.kind if m is not None else "version"
        hip = m.hip if m is not None else ""
        p = prev_sig(i)
        ps = sp(p)
        in_defined = ps == "defined" or (ps == "(" and sp(prev_sig(p)) == "defined") or (
            d >= 0 and dname in ("ifdef", "ifndef", "elifdef", "elifndef") and i == d + 2)
        j = next_sig(i)
        k = next_sig(j)
        num = _number(sp(k)) if k < n and kinds[k] == LITERAL else None
        after = sp(next_sig(k))
        if (kind in ("device-pass", "version") and not in_defined and sp(j) in _COMPARE and num is not None
                and ps not in _ARITH and after not in _ARITH):
            op = sp(j)
            orig = text[starts[i] : ends[k]]
            if kind == "version":
                val = "1" if _compare(CUDA_API_LEVEL, op, num) else "0"
                why = f"decided as CUDA API level {CUDA_API_LEVEL} (what the HIP tables cover)"
            else:
                host, dev = _compare(0, op, num), _compare(ARCH_AVAILABLE_UP_TO, op, num)
                val = {(True, True): "1", (False, False): "0", (False, True): "defined(__HIP_DEVICE_COMPILE__)",
                       (True, False): "!defined(__HIP_DEVICE_COMPILE__)"}[(host, dev)]
                why = (f"AMD device code counts as compute capability {ARCH_AVAILABLE_UP_TO} "
                       "features (no Hopper/Blackwell-only paths); host code as no __CUDA_ARCH__")
                if d < 0 and "defined" in val:
                    rep(ReportKind.MANUAL, name, starts[i], ends[k],
                        f"{orig}: no HIP equivalent in C++ code; test __HIP_DEVICE_COMPILE__ in #if instead")
                    return
                if d >= 0 and dname in ("if", "elif"):
                    # the branch device code takes must not call what the target ROCm lacks
                    # (e.g. __reduce_add_sync before 7.0): then the other branch is kept
                    taken, other = _branches(dir_index[d], dev)
                    lacking = _lacking(taken)
                    rv = ".".join(map(str, options.rocm))
                    # only a condition that is this comparison alone is changed (a compound one
                    # such as `defined(__CUDA_ARCH__) && ...` is reported below instead)
                    whole = i == next_sig(next_sig(d)) and next_sig(k) >= directives[dir_index[d]][1]
                    if lacking and whole and other is not None and not _lacking(other):
                        # host and device passes both take the fallback: hip-clang looks names up in
                        # both, so the other branch must not be seen by either
                        val = "1" if not dev else "0"
                        dead.append(taken)
                        why += (f"; both passes keep the other branch: this one uses {', '.join(lacking)}, "
                                f"which ROCm {rv} lacks")
                    elif lacking:
                        rep(ReportKind.MANUAL, name, starts[i], ends[k],
                            f"{orig}: device code takes a branch that uses {', '.join(lacking)}, which ROCm {rv} "
                            "lacks" + (", and there is no #else branch to keep instead" if whole else
                                       " (a compound condition hipport does not rewrite)")
                            + ": port it by hand or raise --rocm")
            edit(starts[i], ends[k], f"{val} /* hipport: {orig} */", "preproc", f"{orig} -> {val}")
            out.count("preproc")
            rep(ReportKind.INFO, name, starts[i], ends[k], f"{orig} -> {val}: {why}", val)
            return
        if kind == "version" and in_defined:
            edit(starts[i], ends[i], "HIP_VERSION", "preproc", f"{name} -> HIP_VERSION (defined-test only)")
            out.count("preproc")
            return
        if hip and (in_defined or kind != "device-pass"):
            edit(starts[i], ends[i], hip, "preproc", f"{name} -> {hip}")
            out.count("preproc")
            return
        if kind in ("device-pass", "version"):
            rep(ReportKind.MANUAL, name, starts[i], ends[i],
                f"{name} used as a number has no HIP equivalent (HIP_VERSION and __HIP_DEVICE_COMPILE__ "
                "use other encodings); rewrite the test by hand")

    dir_index = {a: k for k, (a, _b, _nm) in enumerate(directives)}
    dead: list[tuple[int, int]] = []  # branches dropped for lacking names: their names are not reported

    def _branches(k: int, first: bool) -> tuple[tuple[int, int], tuple[int, int] | None]:
        """Token ranges of the branch after directive k (an #if/#elif) and of the #else branch of
        the same chain (None when there is none); `first` False: the #else branch is the one taken."""
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

    def _lacking(span: tuple[int, int]) -> list[str]:
        names: list[str] = []
        for j in range(span[0], span[1]):
            if kinds[j] != IDENT and kinds[j] != KEYWORD:
                continue
            nm = sp(j)
            if nm in _ASM:  # inline PTX hipport translates is no gap (engine/ptx.py)
                from . import ptx

                rw = ptx.rewrite(toks, j)
                hit = (isinstance(rw, str) and rw != ptx.EMPTY) or (
                    isinstance(rw, ptx.Rewrite) and bool(rw.helper) and not options.shims)
            else:
                dj = decide(nm) if kinds[j] == IDENT else None
                hit = dj is not None and dj[0] == _REPORT and sp(prev_sig(j)) not in (".", "->", "::") and not (
                    options.shims and shims.get(nm, "call") is not None)
            if hit and nm not in names:
                names.append(nm)
        return names

    decide = _decider(mapping, options)
    shims_needed: dict[str, shims.Shim] = {}  # by guard: the blocks to insert
    replaced: set[str] = set()  # what the convert summary lists (shims and rewrites)
    shim_decls: set[str] | None = None  # shim triggers the file declares itself (never shimmed)

    def take_shim(sh: shims.Shim, s: int, e: int, what: str) -> None:
        shims_needed.setdefault(sh.guard, sh)
        replaced.add(sh.name)
        rep(ReportKind.INFO, what, s, e, f"{what}: exact replacement inserted ({sh.name}; --no-shims leaves it "
            f"out): {sh.note}")

    def shim_for(sh: shims.Shim | None, i: int) -> shims.Shim | None:
        """`sh` when the target lacks it and the file does not declare the name itself."""
        nonlocal shim_decls
        if sh is None or not sh.needed(options.rocm):
            return None
        if shim_decls is None:
            trig = shims.declarable_triggers()
            shim_decls = declared_names(toks, lambda nm: nm in trig)
        return None if sp(i) in shim_decls or sp(i) in options.project_names else sh

    no_shim_hint = "; hipport inserts an exact replacement unless --no-shims is given"

    def apply_rewrite(name: str, s: int, e: int, rw: shims.MemberRewrite | str, msg: str) -> str | None:
        """Make the exact rewrite `rw` of the use of `name` at [s, e) (None: done), or return the report
        message `msg` saying why not (`rw` is the reason) or that --no-shims left it."""
        if isinstance(rw, str):
            return msg + f"; no exact replacement here: {rw}"
        if not options.shims:
            return msg + no_shim_hint
        edit(rw.start, rw.end, rw.text, "shim", f"{name} -> {rw.text}")
        if rw.shim is not None:
            shims_needed.setdefault(rw.shim.guard, rw.shim)
        replaced.add(rw.label)
        rep(ReportKind.INFO, name, s, e, f"{name}: replaced by {rw.shown} ({rw.why}; --no-shims leaves it)")
        return None
    device_code: list[bool] = []

    def has_device_code() -> bool:
        """A CUDA file, or one with device code (min/max overloads are not for plain C++ files)."""
        if not device_code:
            device_code.append(cuda_file or _has_cuda_code(toks))
        return device_code[0]

    def handle_asm(i: int) -> None:
        """Inline PTX: the instructions with an exact HIP counterpart are translated (engine/ptx.py),
        the rest reported."""
        from . import ptx

        j = next_sig(i)
        while sp(j) in ("volatile", "__volatile__", "goto", "inline"):
            j = next_sig(j)
        if sp(j) != "(":
            return
        rw = ptx.rewrite(toks, i)
        if rw == ptx.EMPTY:
            return  # `asm volatile("" ::: "memory")`: a compiler barrier for hip-clang too
        if isinstance(rw, str):
            rep(ReportKind.UNSUPPORTED, sp(i), starts[i], ends[i], f"{_PTX} ({rw})")
            return
        sh = shims.get(f"ptx.{rw.helper}", "ptx") if rw.helper else None
        if rw.helper and (sh is None or not options.shims):
            rep(ReportKind.UNSUPPORTED, sp(i), starts[i], ends[i],
                f"{_PTX} (`{rw.instruction}` needs hipport's exact helper{no_shim_hint})")
            return
        edit(rw.start, rw.end, rw.text, "ptx", f"{rw.instruction} -> {rw.text}")
        out.count("ptx")
        if sh is not None:
            shims_needed.setdefault(sh.guard, sh)
        replaced.add("inline PTX")
        rep(ReportKind.INFO, sp(i), starts[i], ends[i], f"inline PTX `{rw.instruction}` -> {rw.text}")
    renamed_to: set[str] = set()
    used_in_code = False  # a CUDA name translated outside preprocessor lines
    # legacy cuBLAS names hipBLAS/rocBLAS have only in the v2 API: translated when cublas_v2.h is included
    blas_v2_only: frozenset[str] = getattr(mapping, "blas_v2_only", frozenset())
    has_cublas_v2 = any(name == "include" and "cublas_v2.h" in text[starts[a]:ends[b - 1]]
                        for a, b, name in directives)
    calls: list[Call] = []  # calls whose arguments change (translate_args.py)
    # __nv_bfloat16 by context (engine/bf16.py): CUDA-compatible __hip_bfloat16 for device arithmetic
    from . import bf16

    bf16_ctx = bf16.device_context(text, options.rocm)
    bf16_map = bf16.device_names() if bf16_ctx else {}
    bf16_told = bf16_ctx != "old"
    shim_table = shims.table()
    call_triggers = shims.call_triggers()
    own_decls: set[str] | None = None

    for i in range(n):
        if kinds[i] != IDENT:
            if kinds[i] == KEYWORD and sp(i) in _ASM:
                handle_asm(i)
            continue
        skipped = inactive is not None and inactive[i]
        if skipped and not options.amap:
            continue  # --amap: names in skipped branches are still renamed, nothing else is done there
        d = dir_of[i]
        dname = dir_names[d] if d >= 0 else ""
        if d >= 0 and (dname in _SKIP_DIRECTIVES or i <= d + 1):
            continue
        name = text[starts[i] : ends[i]]
        if d >= 0 and dname in ("define", "undef") and i == d + 2 and name in user_macros:
            continue  # the macro being defined
        if name in user_macros or (starts[i] in user_spans and (decide(name) or (0, "", ""))[2] != "caffe2"):
            continue
        dec = decide(name)
        if bf16_map and name in bf16_map and bf16_ctx == "device":
            hip_name = bf16_map[name]
            dec = (_RENAME if hip_name != name else _KEEP, hip_name, "device", None, "", "")
        elif bf16_map and name in bf16_map and (dec is None or dec[0] == _REPORT):
            dec = (_REPORT, "", "device", ReportKind.NEEDS_NEWER_ROCM,
                   f"{name} -> {bf16_map[name]} (hip/hip_bf16.h) needs ROCm 6.2.0 (target is ROCm "
                   f"{'.'.join(map(str, options.rocm))}; use --rocm)", "6.2.0")
        elif not bf16_told and name == "__nv_bfloat16":
            bf16_told = True
            rep(ReportKind.INFO, name, starts[i], ends[i], "__nv_bfloat16 -> hip_bfloat16 (HIPIFY's type, whose float "
                "constructor is explicit: `x = f` or `{{0}}` do not compile); ROCm 6.2's __hip_bfloat16 is CUDA's type "
                "(--rocm 6.2)")
        if dec is None and name in call_triggers:
            sh = shim_for(shim_table[name], i)
            ps = sp(prev_sig(i))
            if sh is not None and ps not in (".", "->", "::") and (sh.use == "name" or sp(next_sig(i)) == "("):
                if options.shims:
                    take_shim(sh, starts[i], ends[i], name)
                else:
                    rep(ReportKind.UNSUPPORTED, name, starts[i], ends[i],
                        f"{name} has no HIP equivalent ({sh.note})" + no_shim_hint)
                    out.count("unconverted")
            continue
        if dec is None:
            other = _other.get(name)
            if other is None:
                other = _other[name] = (1 if name in _ASM else
                                        2 if (macro_of is not None and macro_of(name) is not None)
                                        or name in VERSION_MACROS else
                                        3 if _unknown_re().match(name) else 0)
            if not other:
                continue
            if other == 1:
                handle_asm(i)
                continue
            if other == 2:
                _macro(i, name, macro_of(name) if macro_of is not None else None, d, dname)
                continue
            if other == 3:
                if own_decls is None:  # the file's own functions/variables named like CUDA APIs
                    own_decls = declared_names(toks, lambda nm: bool(_unknown_re().match(nm)))
                p = prev_sig(i)
                if sp(p) not in (".", "->", "::") and name not in own_decls and name not in options.project_names:
                    rep(ReportKind.UNKNOWN, name, starts[i], ends[i],
                        f"{name} looks like a CUDA API but is in no CUDA->HIP table; check it by hand")
            continue
        action, repl, fam, rkind, msg, since = dec
        p = prev_sig(i)
        ps = sp(p)
        if ps in (".", "->"):
            continue  # a member: prop.major, obj->cudaStream
        if ps == "::":
            pp = prev_sig(p)
            if pp >= 0 and (kinds[pp] == IDENT or sp(pp) in (">", ">>")):
                continue  # qualified by another scope (ns::cudaMalloc is not CUDA's)
        if action == _NAMESPACE:
            nx = sp(next_sig(i))
            if nx == "::" or ps == "namespace":
                edit(starts[i], ends[i], repl, "api", f"{name} -> {repl}")
                out.count("api")
                out.count(f"family.{fam}")
            continue
        if name in blas_v2_only and not has_cublas_v2:
            rep(ReportKind.MANUAL, name, starts[i], ends[i],
                f"{name}: legacy cuBLAS API; hipBLAS/rocBLAS have only its v2 form (include cublas_v2.h, "
                "whose calls take a handle first), so it is left as is")
            out.count("unconverted")
            continue
        if action == _REPORT:
            assert rkind is not None
            if dead and any(a <= i < b for a, b in dead):
                continue
            name_rewrite = name_rewrites.REWRITES.get(name)  # decided by the code around the name
            if name_rewrite is not None:
                nrw = name_rewrite(toks, i)
                left = msg if nrw is None else apply_rewrite(name, starts[i], ends[i], nrw, msg)
                if left is None:
                    assert nrw is not None and not isinstance(nrw, str)
                    dead.append((i, bisect.bisect_left(starts, nrw.end)))  # names it replaced are not reported
                    continue
                msg = left
            sh = shim_for(shims.get(name, "call"), i)
            if sh is not None and sp(next_sig(i)) == "(":
                if options.shims:
                    take_shim(sh, starts[i], ends[i], name)
                    continue
                msg += no_shim_hint
            rep(rkind, name, starts[i], ends[i], msg, "", since)
            out.count("unconverted")
            continue
        sh = shim_table.get(name)
        if sh is not None and not sh.use.startswith("overload"):
            sh = None
        if sh is not None and sh.use == "overload-device":
            sh = shim_for(sh, i)  # a file with its own min/max keeps them alone
        if (sh is not None and sh.needed(options.rocm) and sp(next_sig(i)) == "("
                and shims.call_needs(sh, toks, next_sig(i))
                and (sh.use != "overload-device" or has_device_code())):
            if options.shims:
                take_shim(sh, starts[i], ends[i], name)
            else:
                rep(ReportKind.MANUAL, name, starts[i], ends[i], f"{name}: {sh.note}" + no_shim_hint)
        used_in_code = used_in_code or d < 0
        out.count(f"family.{fam}")
        out.count("converted")
        if name in _ARG_NAMES and not skipped and sp(next_sig(i)) == "(":
            o = next_sig(i)
            ov = OVERLOADS.get(name)
            if ov is not None:
                ca = call_arguments(toks, o)
                if ca is not None and len(ca[1]) in ov:
                    repl = ov[len(ca[1])]
            rw = ARG_REWRITES.get(name)
            if rw is not None and (rw[0] == "any" or options.roc or options.miopen):
                calls.append(Call(name, i, o, rw[1]))
            elif not (options.roc or options.miopen) and name in ARG_REWRITES_HIP_ONLY:
                calls.append(Call(name, i, o, ARG_REWRITES_HIP_ONLY[name]))
        if repl != name:
            renamed_to.add(repl)
            edit(starts[i], ends[i], repl, "api", f"{name} -> {repl}")
            out.count("api")
        if rkind is not None:
            rep(rkind, name, starts[i], ends[i], msg, repl, since)

    if calls:
        out.edits, failed = rewrite_calls(toks, calls, out.edits, base)
        for c in failed:
            rep(ReportKind.MANUAL, c.name, starts[c.name_i], ends[c.name_i],
                f"{c.name}: its HIP/ROC counterpart takes other arguments that hipport does not fill in "
                "here (unexpected argument count, or a value only the caller knows); adjust them by hand")

    # overloads on two CUDA types that map to one HIP type would be redefinitions (engine/collapse.py,
    # which looks further only in files defining one name twice)
    if out.edits:
        from .collapse import collapsed_definitions

        for cd in collapsed_definitions(toks, directives, out.edits, base):
            kept_line = locate(base + cd.kept_at)[0]
            why = (f"{cd.name}({cd.hip_params}) is already defined at line {kept_line}: its CUDA overloads take types "
                   "that are one HIP type; this definition is left out, calls reach that one")
            ls = text.rfind("\n", 0, cd.start) + 1
            le = text.find("\n", cd.end)
            rest = text[cd.end:] if le < 0 else text[cd.end:le]
            if text[ls:cd.start].strip() or (rest.strip() and not rest.strip().startswith("//")):
                rep(ReportKind.MANUAL, cd.name, cd.start, cd.start + len(cd.name), why + " (not on lines of its own: "
                    "remove one by hand)")
                continue
            edit(ls, ls, f"#if 0 // hipport: {cd.name}({cd.hip_params}) is defined above{newline}", "collapse", why)
            if le < 0:
                edit(len(text), len(text), f"{newline}#endif // hipport{newline}", "collapse", why)
            else:
                edit(le + 1, le + 1, f"#endif // hipport{newline}", "collapse", why)
            rep(ReportKind.MANUAL, cd.name, cd.start, cd.end, why)

    # CUDA features no table lists (cooperative-groups members, wide tiles, __grid_constant__)
    from . import cuda_features

    if cuda_features.wanted(text):
        def skip(i: int) -> bool:
            return dir_of[i] >= 0 or (inactive is not None and inactive[i])

        for kind, name, s, e, msg, since, i in cuda_features.scan(toks, options.rocm, skip):
            sh = shims.get(name, "feature")
            if sh is not None and sh.needed(options.rocm):
                why = shims.not_exact(toks, i, sh)
                if why:
                    msg += f"; no exact replacement here: {why}"
                elif options.shims:
                    take_shim(sh, s, e, name)
                    continue
                else:
                    msg += no_shim_hint
            elif name in shims.REWRITTEN_MEMBERS:
                mrw = shims.member_rewrite(toks, i)
                left = None if mrw is None else apply_rewrite(name, s, e, mrw, msg)
                if left is None:
                    continue  # rewritten, or HIP's own member does what CUDA's does
                msg = left
            rep(ReportKind(kind), name, s, e, msg, "", since)
            out.count("unconverted")

    # members of CUDA structs the target's HIP struct lacks (cudaDeviceProp::unifiedAddressing before 6.0)
    from . import struct_members

    if struct_members.wanted(text):
        for kind, name, s, e, msg, since in struct_members.scan(
                toks, options.rocm, lambda i: dir_of[i] >= 0 or (inactive is not None and inactive[i])):
            rep(ReportKind(kind), name, s, e, msg, "", since)
            out.count("unconverted")

    # operators the code defines on CUDA vector types: HIP's vector types have them already
    if "operator" in text:
        from .vector_ops import guard_edits, vector_operator_spans

        vspans = vector_operator_spans(toks, lambda i: dir_of[i] >= 0 or (inactive is not None and inactive[i]))
        if vspans:
            for ge in guard_edits(toks, vspans, newline):
                edit(ge.start, ge.end, ge.replacement, ge.rule, ge.note)
            ops = sorted({op for *_x, op in vspans})
            rep(ReportKind.INFO, "operator", starts[vspans[0][0]], ends[vspans[0][1]],
                f"{len(vspans)} operator definition(s) on CUDA vector types ({' '.join(ops)}) kept for NVIDIA "
                "only: HIP's vector types define them, and both would make every use ambiguous")
            out.count("vector-ops", len(vspans))

    # includes
    from .includes import include_edits, runtime_insertion

    runtime_ins_at: int | None = None
    skip_dirs = None
    if inactive is not None:
        skip_dirs = {k for k, (a, _b, _nm) in enumerate(directives) if inactive[a]}
    inc = include_edits(toks, directives, mapping, roc=options.roc, miopen=options.miopen, skip=skip_dirs)
    if bf16_ctx == "device":  # cuda_bf16.h: the header of __hip_bfloat16
        inc.edits = [Edit(e.start, e.end, e.replacement.replace("hip/hip_bfloat16.h", bf16.HIP_BF16_HEADER), e.rule,
                          e.note) for e in inc.edits]
    for ed in inc.edits:
        edit(ed.start, ed.end, ed.replacement, ed.rule, ed.note)
    out.count("include", len(inc.edits))
    for prob in inc.problems:
        sh = shims.get(prob.header, "include")
        if sh is not None and sh.needed(options.rocm) and options.shims:
            # the shim block (after hip_runtime.h) is what the header was for
            edit(prob.start, prob.end, f"/* hipport: <{prob.header}> is the {sh.name} shim below hip_runtime.h */",
                 "shim", f"{prob.header}: replaced by a shim")
            take_shim(sh, prob.start, prob.end, prob.header)
            continue
        rep(ReportKind.UNSUPPORTED, prob.header, prob.start, prob.end,
            prob.message + (no_shim_hint if sh is not None and sh.needed(options.rocm) else ""))
    # hipify-clang inserts hip_runtime.h into every file it translates; hipport into CUDA files (nvcc
    # includes cuda_runtime.h implicitly) and into other files whose code uses CUDA names or device
    # code (not a header that only tests `#ifdef __CUDACC__`: plain C++ compilers include it too)
    # (an empty or comment-only file is left alone)
    has_code = any(k != COMMENT for k in kinds)
    if (insert_runtime and not inc.has_runtime and has_code
            and (cuda_file or used_in_code or _has_cuda_code(toks))):
        ins = runtime_insertion(toks, directives, newline, inc.first_include, skip_dirs)
        repl = ins.replacement
        if c_header and not cuda_file:
            # a .h may also be included by C files (HeCBench frna: cu.h from main.c), and
            # hip_runtime.h is C++ only: "Must define exactly one of __HIP_PLATFORM_AMD__ ..."
            line = f"#include <{HIP_RUNTIME_HEADER}>"
            repl = repl.replace(line, f"#ifdef __cplusplus{newline}{line}{newline}#endif")
        edit(ins.start, ins.end, repl, ins.rule, ins.note)
        runtime_ins_at = ins.start
        out.count("include")

    # a renamed type brings its HIP header (hip_bfloat16 lives in hip/hip_bfloat16.h, which neither
    # hip_runtime.h nor any mapped CUDA header includes)
    have = {text[toks.starts[a]:toks.ends[b - 1]] for a, b, nm in directives if nm == "include"}
    have |= {e.replacement for e in inc.edits}
    type_headers = sorted({h for t, h in TYPE_HEADERS.items() if t in renamed_to
                           and not any(h in x for x in have)})
    # a block the file already has (a second translation of a port) is not inserted again
    if any(f"#ifndef {g} " in text for g in shims_needed):
        shims_needed = {g: sh for g, sh in shims_needed.items() if f"#ifndef {g} " not in text}
    if type_headers or shims_needed:
        block = "".join(f"#include <{h}> // hipport: for {', '.join(t for t, x in TYPE_HEADERS.items() if x == h)}\n"
                        for h in type_headers)
        block = block.replace("\n", newline) + "".join(sh.block(newline) for sh in shims_needed.values())
        runtime_end = next((e.end for e in inc.edits if HIP_RUNTIME_HEADER in e.replacement), None)
        if runtime_end is None:
            runtime_end = next((toks.ends[b - 1] for a, b, nm in directives if nm == "include"
                                and HIP_RUNTIME_HEADER in text[toks.starts[a]:toks.ends[b - 1]]), None)
        if runtime_end is not None:
            eol = text.find("\n", runtime_end)
            at = len(text) if eol < 0 else eol + 1
            edit(at, at, block, "shim", "exact replacements (shims)")
        elif runtime_ins_at is not None:  # right after the inserted hip_runtime.h
            edit(runtime_ins_at, runtime_ins_at, block, "shim", "exact replacements (shims)")
        else:  # no hip_runtime.h in the file
            edit(0, 0, f"#include <{HIP_RUNTIME_HEADER}>{newline}{block}", "shim", "exact replacements (shims)")
        out.count("shim", len(shims_needed))
        out.count("include", len(type_headers))
    for nm in replaced:
        out.count(f"shim.{nm}")

    # half2 members read as half
    from .members import half2_member_edits

    for ed in half2_member_edits(toks, inactive if inactive is not None else None):
        edit(ed.start, ed.end, ed.replacement, ed.rule, ed.note)

    # launches
    macro_sites: list[Any] = []
    if options.launch_syntax == "ggl" and "<<<" in text:
        macro_sites, in_macros = macro_launches(toks, directives, dir_of)
        if inactive is not None:
            macro_sites = [m for m in macro_sites if not _in_inactive(toks, inactive, m.start)]
        les, probs = launch_edits(toks, dir_of, dir_names, in_macros)
        if inactive is not None:
            les = [e for e in les if not _in_inactive(toks, inactive, e.start)]
        for ed in les:
            edit(ed.start, ed.end, ed.replacement, ed.rule, ed.note)
        out.count("launch", sum(1 for e in les if e.replacement.startswith("hipLaunchKernelGGL(")))
        for pr in probs:
            rep(ReportKind.MANUAL, "<<<", pr.start, pr.end, pr.message)

    if options.translate_comments or options.translate_strings:
        def skip_literal(i: int) -> bool:
            d = dir_of[i]
            return (d >= 0 and dir_names[d] in _SKIP_DIRECTIVES) or (
                inactive is not None and inactive[i] and not options.amap)

        _translate_inside(toks, options, decide, edit, out, skip_literal)

    if macro_sites:  # launches hipify-clang writes at a macro's call site (engine/launch.py)
        out.edits = _compose_macro_launches(text, macro_sites, out.edits, base)
        out.count("launch", len(macro_sites))
    return out



def translate(source: Source, options: TranslateOptions | None = None) -> Translation:
    """Translate one source. Python files go to engine/python_host.py."""
    options = options or TranslateOptions()
    if source.language == Language.PYTHON:
        return translate_python(source, options, translate_text)
    if source.language in BUILD_LANGUAGES:
        from .buildsys import translate_build_source

        return translate_build_source(source, options)
    mode = TranslationMode.TOKENS
    user_spans: frozenset[int] = frozenset()
    extra: list[Report] = []
    toks = tokenize(source.text)
    if options.ast != "off":
        from . import semantic

        why = semantic.unavailable_reason()
        if why is None:
            try:
                user_spans = semantic.user_declared_spans(source, options, toks)
                mode = TranslationMode.AST
            except semantic.SemanticError as e:
                if options.ast == "on":
                    raise TranslateError(str(e)) from None
                extra.append(Report(ReportKind.INFO, "ast", 0, 0, 1, 1, f"AST mode failed, tokens used: {e}"))
        elif options.ast == "on":
            raise TranslateError(f"AST mode unavailable: {why}")
    suffix = source.path.suffix.lower() if source.path is not None else ""
    cuda_file = suffix in CUDA_SUFFIXES or (source.path is None and source.language == Language.CUDA)
    out = translate_text(source.text, options, source.line_col, cuda_file=cuda_file, c_header=suffix == ".h",
                         newline=source.newline, user_spans=user_spans, toks=toks)
    if options.sibling_outputs and source.path is not None:
        from .cxx.lexer import directive_spans
        from .local_includes import local_include_edits

        les = local_include_edits(toks, directive_spans(toks), source.path, options.sibling_outputs,
                                  options.include_dirs)
        out.edits.extend(les)
        out.count("include", len(les))
    out.stats["lines"] = len(source.line_starts)
    reports = tuple(sorted(extra + out.reports, key=lambda r: (r.start, r.end)))
    return Translation(source=source, edits=tuple(sorted(out.edits, key=lambda e: (e.start, e.end))),
                       reports=reports, mode=mode, stats=out.stats)
