"""The one C/C++/CUDA lexer (engine/cxx) splits text exactly as libclang's lexer does (checked token by
token); the warp analysis's view of it and the shared bracket helpers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.cxx.brackets import angle_open, closing, match_brackets, scan_to, split_commas
from hipport.engine.cxx.lexer import (
    COMMENT,
    IDENT,
    KEYWORD,
    LITERAL,
    PUNCT,
    directive_index,
    directive_spans,
    is_number,
    tokenize,
)
from hipport.engine.warp import lex as warp_lex

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


def test_directive_index_numbers_directives_in_order() -> None:
    text = "int a; /* c */ #define W 32 // w\n#if W == 64\nint b;\n#endif\n"
    toks = tokenize(text)
    got = [(toks.spelling(i), d) for i, d in enumerate(directive_index(toks))]
    assert got == [("int", -1), ("a", -1), (";", -1), ("/* c */", -1), ("#", -1), ("define", -1),
                   ("W", -1), ("32", -1), ("// w", -1), ("#", 0), ("if", 0), ("W", 0), ("==", 0),
                   ("64", 0), ("int", -1), ("b", -1), (";", -1), ("#", 1), ("endif", 1)]
    # a `#` after a comment at the start of a line does begin a directive
    toks = tokenize("/* c */ #define W 32\nint x;\n")
    assert directive_index(toks) == [-1, 0, 0, 0, 0, -1, -1, -1]


def test_numbers_and_strings_are_told_apart() -> None:
    toks = tokenize("1 .5 0x1Fu 1'000 'c' \"s\" u8\"u\" R\"(r)\" L'w'")
    assert [is_number(s) for s in toks.spellings()] == [True, True, True, True, False, False, False, False, False]


def test_warp_view_is_the_lexer_without_comments() -> None:
    text = "#define WARP 32 // lanes\n__global__ void k() { int x = 0x1F + 'c'; /* b */ f(\"s\", x); }\n"
    toks = tokenize(text)
    warp = warp_lex.tokenize(text)
    sig = [i for i, k in enumerate(toks.kinds) if k != COMMENT]
    assert [(t.text, t.start, t.end) for t in warp] == [(toks.spelling(i), toks.starts[i], toks.ends[i]) for i in sig]
    kinds = {t.text: t.kind for t in warp}
    assert (kinds["WARP"], kinds["32"], kinds["'c'"], kinds['"s"'], kinds["void"], kinds["{"]) == (
        warp_lex.ID, warp_lex.NUM, warp_lex.STR, warp_lex.STR, warp_lex.ID, warp_lex.PUNCT)
    assert [t.pp for t in warp[:5]] == [0, 0, 0, 0, -1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_ATOMS), max_size=30))
def test_warp_view_keeps_every_significant_token(atoms: list[str]) -> None:
    text = " ".join(atoms) + "\n"
    toks = tokenize(text)
    assert [t.text for t in warp_lex.tokenize(text)] == [s for k, s in zip(toks.kinds, toks.spellings(), strict=True)
                                                           if k != COMMENT]


def test_bracket_helpers() -> None:
    tx = tokenize("f(a, g(b, c)[1], {d, e}); x = y, z; }").spellings()
    assert tx[:3] == ["f", "(", "a"]
    close = closing(tx, 1, len(tx))
    assert tx[close] == ")" and tx[close + 1] == ";"
    assert match_brackets(tx)[1] == close and match_brackets(tx)[close] == 1
    assert [" ".join(tx[a:b]) for a, b in split_commas(tx, 2, close)] == ["a", "g ( b , c ) [ 1 ]", "{ d , e }"]
    assert split_commas(tx, 2, 2) == [(2, 2)]
    # statement end and assignment-expression end
    x = tx.index("x")
    assert tx[scan_to(tx, x, len(tx), (";",))] == ";"
    assert tx[scan_to(tx, x + 2, len(tx), (";", ","))] == ","
    # an unmatched closing bracket ends the scan
    assert tx[scan_to(tx, close + 2, len(tx), ())] == "}"
    # a `;` directly inside an open call means it was never closed
    tx = tokenize("f(a; b)").spellings()
    assert closing(tx, 1, len(tx)) == -1
    assert 0 not in match_brackets(tokenize("(]").spellings())


def test_angle_open_walks_back_over_template_arguments() -> None:
    tx = tokenize("std::map<int, std::vector<T>> m; if (a < b && c > d) {}").spellings()
    stops = frozenset({";", "{", "}", "&&", "||"})
    k = angle_open(tx.__getitem__, tx.index(">>"), 0, stops)
    assert tx[k - 1] == "map"
    assert angle_open(tx.__getitem__, tx.index(">"), 0, stops) == -1  # `c > d` after `&&`: no template
    assert angle_open(tx.__getitem__, tx.index(">>"), k + 1, stops) == -1  # not before lo


def test_the_same_text_twice_is_lexed_once_and_a_new_text_afresh() -> None:
    """translate and the warp analysis lex the same source: the second call reuses the first's Tokens."""
    from hipport.engine.cxx import lexer

    a = "__global__ void k(int* x) { x[threadIdx.x] = __shfl_down_sync(0xffffffff, 1, 16); }\n"
    b = a.replace("16", "8")
    first = lexer.tokenize(a)
    assert lexer.tokenize("".join([a[:10], a[10:]])) is first  # equal text, another str object
    assert first == lexer._tokenize(a)
    second = lexer.tokenize(b)
    assert second is not first and second == lexer._tokenize(b)
    assert "8" in second.spellings() and "16" not in second.spellings()
    assert lexer.tokenize(a) == first  # back to a: lexed again, same result


def test_a_header_lexed_in_between_does_not_evict_the_file() -> None:
    """The warp analysis lexes a file's quoted headers between translating and analysing the file:
    the file's Tokens must still be reused (real code lexed each such file twice with one entry)."""
    from hipport.engine.cxx import lexer

    main = '#include "w.cuh"\n__global__ void k(int* x) { x[threadIdx.x % WARP] = 1; }\n'
    header = "#pragma once\n#define WARP 32\n"
    first = lexer.tokenize(main)
    lexer.tokenize(header)
    assert lexer.tokenize(main) is first
    for i in range(lexer._CACHE_ENTRIES):  # older entries go once the cache is full
        lexer.tokenize(f"int v{i};\n")
    assert lexer.tokenize(main) is not first and lexer.tokenize(main) == first
