"""CUDA names inside string literals (hipify-clang's RewriteString) and, only when asked, comments."""

from __future__ import annotations

import re

from ..cxx.lexer import COMMENT, LITERAL
from .decisions import Action
from .names import SKIP_DIRECTIVES
from .state import TranslationState

_IDENT_IN_TEXT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def translate_literals(st: TranslationState) -> None:
    """A string literal is read as hipify-clang's HipifyAction::RewriteString reads it: from each `cu`
    up to the next space (looking from 4 characters on) is one candidate word; a candidate that is a
    CUDA name with a translation is replaced, anything else (`"CUDA error %s"`, `cudaMalloc()`,
    `cudaMallocX`) stays. Only plain `"..."` literals outside #include-like lines and (unless --amap)
    inactive #if branches."""
    options = st.options
    if not (options.translate_comments or options.translate_strings):
        return
    toks = st.view.toks
    text = toks.text
    for i, k in enumerate(toks.kinds):
        if k == LITERAL and options.translate_strings and text[toks.starts[i]] == '"' and not _skipped(st, i):
            _string(st, toks.starts[i] + 1, toks.ends[i] - 1)
        elif k == COMMENT and options.translate_comments:
            _comment(st, toks.starts[i], toks.ends[i])


def _skipped(st: TranslationState, i: int) -> bool:
    v = st.view
    d = v.dir_of[i]
    return (d >= 0 and v.dir_names[d] in SKIP_DIRECTIVES) or (
        v.inactive is not None and v.inactive[i] and not st.options.amap)


def _string(st: TranslationState, s: int, e: int) -> None:
    text = st.view.text
    begin = text.find("cu", s, e)
    while begin >= 0:
        end = text.find(" ", min(begin + 4, e), e)
        name = text[begin : end if end >= 0 else e]
        d = st.decide(name)
        if d is not None and d.action == Action.RENAME and d.hip != name:
            st.out.edit(begin, begin + len(name), d.hip, "api-text", f"{name} -> {d.hip} (in a string literal)")
            st.out.count("api")
        if end < 0:
            break
        begin = text.find("cu", end + 1, e)


def _comment(st: TranslationState, s: int, e: int) -> None:
    for m in _IDENT_IN_TEXT.finditer(st.view.text, s, e):
        d = st.decide(m.group())
        if d is not None and d.action == Action.RENAME and d.hip != m.group():
            st.out.edit(m.start(), m.end(), d.hip, "api-text", f"{m.group()} -> {d.hip} (in a comment)")
            st.out.count("api")
