"""The token-mode lexer splits text exactly as libclang's lexer does (checked token by token)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.lexer import COMMENT, IDENT, KEYWORD, LITERAL, PUNCT, directive_spans, tokenize

ci = pytest.importorskip("clang.cindex")

_KIND = {0: PUNCT, 1: KEYWORD, 2: IDENT, 3: LITERAL, 4: COMMENT}


def clang_tokens(text: str) -> list[tuple[int, int, int]]:
    """(kind, byte start, byte end) from libclang's lexer (CUDA mode: `<<<` is one token)."""
    index = ci.Index.create()
    data = text.encode("utf-8")
    tu = index.parse("lex.cu", args=["-x", "cuda", "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version"],
                     unsaved_files=[("lex.cu", text)], options=ci.TranslationUnit.PARSE_INCOMPLETE)
    f = ci.File.from_name(tu, "lex.cu")
    rng = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(tu, f, 0),
                                        ci.SourceLocation.from_offset(tu, f, len(data)))
    out = []
    for t in tu.get_tokens(extent=rng):
        e = t.extent
        out.append((_KIND[t.kind.value], e.start.offset, e.end.offset))
    return out


def ours(text: str) -> list[tuple[int, int, int]]:
    toks = tokenize(text)
    enc = [len(text[:i].encode("utf-8")) for i in range(len(text) + 1)] if not text.isascii() else None
    res = []
    for k, s, e in zip(toks.kinds, toks.starts, toks.ends, strict=True):
        if enc is not None:
            s, e = enc[s], enc[e]
        res.append((k, s, e))
    return res


def same_split(text: str) -> None:
    a = [(k if k in (COMMENT, LITERAL) else IDENT if k == KEYWORD else k, s, e) for k, s, e in ours(text)]
    b = [(k if k in (COMMENT, LITERAL) else IDENT if k == KEYWORD else k, s, e) for k, s, e in clang_tokens(text)]
    assert a == b


SAMPLE = r'''
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); \
    if (e) abort(); } while (0)
// line comment with "quotes" and /* */ inside \
   continued comment line
/* block
   comment */ int a = 0x1Fu + 1'000'000 + 1.5e-3f + .5 + 0b1010 + 07;
const char* s = "esc \" \\ quote", *r = R"delim(raw "string" )delim", *u = u8"é";
char c = '\'', w = L'x';
template <typename T> __global__ void k(T* p) { p[threadIdx.x] <<= 1; p[0] >>= 2; }
void f() { k<float><<<dim3(1), 64, 0, 0>>>(nullptr); a->b.c::d; x ... y; }
auto lam = [&](int v) -> int { return v <=> 0 ? v : -v; };
'''


def test_lexer_matches_libclang_on_sample() -> None:
    same_split(SAMPLE)


def test_lexer_matches_libclang_non_ascii() -> None:
    same_split("// héllo ✓\nint café = 1; const char* s = \"ü\"; /* ß */ cudaMalloc(&p, 1);\n")


_ATOMS = ["cudaMalloc", "x1", "_y", "42", "0x1F", "1'000", "3.5e+2f", ".5", "\"s\"", "\"a\\\"b\"", "'c'",
          "R\"(r)\"", "u8\"u\"", "L'w'", "// c\n", "/* b */", "<<<", ">>>", "<<", ">>", "<", ">", "::", "->",
          "...", "##", "#", "(", ")", "{", "}", ",", ";", "+", "-", "*", "&", "&&", "|", "||", "=", "==",
          " ", "\n", "\t", "\\\n", "é"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(_ATOMS), max_size=30))
def test_lexer_matches_libclang_on_random_token_soup(atoms: list[str]) -> None:
    # separate atoms by a space so that adjacent atoms cannot form a different token in only one lexer
    same_split(" ".join(atoms) + "\n")


def test_directive_spans_follow_logical_lines() -> None:
    text = "#define A(x) \\\n  x + 1\nint a;\n  #  include <x.h>\n#if 1 // c\n#endif\n"
    toks = tokenize(text)
    names = [(name, toks.spelling(a), toks.spelling(b - 1)) for a, b, name in directive_spans(toks)]
    assert names == [("define", "#", "1"), ("include", "#", ">"), ("if", "#", "// c"), ("endif", "#", "endif")]
