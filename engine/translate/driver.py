"""The translation's entry points.

translate(source): the translator for the source's language (Python: engine/translate/python_host.py; Makefile and
CMake: engine/buildsys; C++/CUDA: translate_text, with the AST's user declarations where available).

translate_text(text): one C++/CUDA text through the passes, in this order (each pass reads what the
earlier ones left in the TranslationState; edits are made on the original text, so the order only
decides which pass sees which edits and the order of ties):

names (renames, reports, shims, argument rewrites) -> checks (collapsed overloads, CUDA features,
struct members, vector operators) -> headers (includes, hip_runtime.h, type headers, shim blocks)
-> half2 members -> launches -> strings and comments -> launches written at macro call sites.
"""

from __future__ import annotations

from collections.abc import Callable

from ..cxx.lexer import Tokens, directive_spans, tokenize
from ..model import Report, ReportKind, Translation, TranslationMode
from ..source import BUILD_LANGUAGES, Language, Source
from . import bf16, checks
from .decisions import decider, load_mapping
from .headers import translate_headers
from .launches import compose_macro_launches, translate_launches
from .literals import translate_literals
from .names import translate_names
from .options import TranslateError, TranslateOptions
from .python_host import translate_python
from .state import Output, TextView, TranslationState
from .tables import CUDA_SUFFIXES


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
    toks: Tokens | None = None,
) -> Output:
    """Translate C++/CUDA `text`. Offsets in the result are shifted by `base` (for code held in a
    Python string); `locate(offset)` gives (line, col) of an offset in the original file.
    `user_spans`: start offsets (in `text`) of identifiers the AST found to be user declarations."""
    mapping = load_mapping()
    toks = toks if toks is not None else tokenize(text)
    st = TranslationState(
        view=TextView.of(text, toks, options), out=Output(base, locate), options=options, mapping=mapping,
        decide=decider(mapping, options), cuda_file=cuda_file, c_header=c_header, insert_runtime=insert_runtime,
        newline=newline, user_spans=user_spans, bf16_context=bf16.device_context(text, options.rocm))
    translate_names(st)
    checks.collapsed_overloads(st)
    checks.cuda_features(st)
    checks.struct_members(st)
    checks.vector_operators(st)
    translate_headers(st)
    checks.half2_members(st)
    macro_sites = translate_launches(st)
    translate_literals(st)
    compose_macro_launches(st, macro_sites)
    return st.out


def translate(source: Source, options: TranslateOptions | None = None) -> Translation:
    """Translate one source. Python files go to engine/translate/python_host.py, build scripts to engine/buildsys."""
    options = options or TranslateOptions()
    if source.language == Language.PYTHON:
        return translate_python(source, options, translate_text)
    if source.language in BUILD_LANGUAGES:
        from ..buildsys import translate_build_source

        return translate_build_source(source, options)
    toks = tokenize(source.text)
    mode, user_spans, extra = _ast_mode(source, options, toks)
    suffix = source.path.suffix.lower() if source.path is not None else ""
    cuda_file = suffix in CUDA_SUFFIXES or (source.path is None and source.language == Language.CUDA)
    out = translate_text(source.text, options, source.line_col, cuda_file=cuda_file, c_header=suffix == ".h",
                         newline=source.newline, user_spans=user_spans, toks=toks)
    if options.sibling_outputs and source.path is not None:
        from ..local_includes import local_include_edits

        les = local_include_edits(toks, directive_spans(toks), source.path, options.sibling_outputs,
                                  options.include_dirs)
        out.edits.extend(les)
        out.count("include", len(les))
    out.stats["lines"] = len(source.line_starts)
    reports = tuple(sorted(extra + out.reports, key=lambda r: (r.start, r.end)))
    return Translation(source=source, edits=tuple(sorted(out.edits, key=lambda e: (e.start, e.end))),
                       reports=reports, mode=mode, stats=out.stats)


def _ast_mode(source: Source, options: TranslateOptions, toks: Tokens) -> tuple[TranslationMode, frozenset[int],
                                                                                list[Report]]:
    """AST mode where asked and available: (mode, user-declared identifier offsets, reports about it)."""
    if options.ast == "off":
        return TranslationMode.TOKENS, frozenset(), []
    from . import semantic

    why = semantic.unavailable_reason()
    if why is not None:
        if options.ast == "on":
            raise TranslateError(f"AST mode unavailable: {why}")
        return TranslationMode.TOKENS, frozenset(), []
    try:
        return TranslationMode.AST, semantic.user_declared_spans(source, options, toks), []
    except semantic.SemanticError as e:
        if options.ast == "on":
            raise TranslateError(str(e)) from None
        return TranslationMode.TOKENS, frozenset(), [
            Report(ReportKind.INFO, "ast", 0, 0, 1, 1, f"AST mode failed, tokens used: {e}")]
