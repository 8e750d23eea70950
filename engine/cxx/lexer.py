"""A C++/CUDA lexer with clang's raw-lexer token classes, in one compiled regex.

Why not libclang's own lexer for token mode: `clang_tokenize` needs a translation unit, and
libclang cannot build one for C++ without parsing the whole file (measured: ~37 µs per line
before the first token, more than the whole 50 µs/line budget). This lexer splits text the way
clang's raw lexer does (comments, string/char literals incl. raw strings and encoding prefixes,
pp-numbers with digit separators, `::`, CUDA's `<<<`/`>>>`, backslash-newline continuations) and
tests/engine/test_cxx_lexer.py checks it against libclang token for token.

This is the project's one C/C++/CUDA lexer: translation (translate/, launch.py, includes.py) reads
`Tokens` directly, the warp analysis reads it through `engine/warp/lex.py` (a list of token objects
with a directive index), and `engine/cxx/brackets.py` holds the bracket/comma/statement helpers both
share. Offsets are str offsets into the original text (never bytes), so non-ASCII text needs no mapping.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .brackets import angle_open

# Token kinds (small ints: cheap to compare in hot loops).
PUNCT, KEYWORD, IDENT, LITERAL, COMMENT = 0, 1, 2, 3, 4

_RAW_PREFIX = re.compile(r'(?:u8|u|U|L)?R"([^()\\ \t\r\n]{0,16})\(')

# Order matters: comments and literals before identifiers (prefixes like u8"..." and R"(...)"). The two
# most common tokens are tried first, which is ~20% cheaper for the regex engine: the one-character
# brackets and separators (no other token starts with them) and an identifier not followed by a quote
# (atomic: `u8"x"` and `R"(x)"` fall through to the literals; `id` below still catches `FOO"x"`).
# Blanks (no newline) before a token are skipped in the same match (the token is the group that matched:
# m.span(m.lastindex)), so a space run costs no Python iteration; only at the text's end does that prefix
# give one blank back to `ws` (not possessive: a possessive prefix made trailing blanks quadratic).
_TOKEN = re.compile(
    r"""
    [ \t\f\v]*
    (?:
    (?P<ws>(?:[ \t\r\n\f\v]|\\\r?\n)+)
  | (?P<pe>[()\[\]{};,])
  | (?P<idg>(?>(?:[^\W\d]|\$)(?:\w|\$)*)(?!["']))
  | (?P<lc>//(?:[^\r\n\\]|\\\r?\n|\\)*)
  | (?P<bc>/\*[\s\S]*?(?:\*/|\Z))
  | (?P<raw>(?:u8|u|U|L)?R"[^()\\ \t\r\n]{0,16}\()
  | (?P<str>(?:u8|u|U|L)?"(?:[^"\\\r\n]|\\[\s\S])*"?)
  | (?P<chr>(?:u8|u|U|L)?'(?:[^'\\\r\n]|\\[\s\S])*'?)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*)
  | (?P<id>(?:[^\W\d]|\$)(?:\w|\$)*)
  | (?P<p><<<|>>>|<<=|>>=|->\*|\.\.\.|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\#\#|[-+*/%&|^!=<>]=|[\s\S])
    )
    """,
    re.VERBOSE,
)

_GROUP_KIND = {"lc": COMMENT, "bc": COMMENT, "str": LITERAL, "chr": LITERAL, "num": LITERAL,
               "id": IDENT, "idg": IDENT, "p": PUNCT, "pe": PUNCT}

# C++ keywords clang reports as keywords (only used to tell identifiers apart; CUDA names are never keywords).
KEYWORDS = frozenset("""
alignas alignof asm auto bool break case catch char char8_t char16_t char32_t class const consteval
constexpr constinit const_cast continue co_await co_return co_yield decltype default delete do double
dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable
namespace new noexcept nullptr operator private protected public register reinterpret_cast requires
return short signed sizeof static static_assert static_cast struct switch template this thread_local
throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
_Bool _Complex __attribute__ __restrict__ __restrict __inline__ __asm__ __asm __volatile__
""".split())


@dataclass(frozen=True, slots=True)
class Tokens:
    """Parallel arrays of significant tokens (no whitespace). `bol[i]` is True when token i is
    the first token on its logical line (continuations joined), which is how `#` starts a directive."""

    kinds: list[int]
    starts: list[int]
    ends: list[int]
    bol: list[bool]
    text: str
    _spellings: list[str] | None = field(default=None, compare=False, repr=False)
    _directives: list[tuple[int, int, str]] | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.kinds)

    def spelling(self, i: int) -> str:
        return self.text[self.starts[i] : self.ends[i]]

    def prev_sig(self, i: int) -> int:
        """The token before i that is not a comment (-1 at the start)."""
        kinds = self.kinds
        i -= 1
        while i >= 0 and kinds[i] == COMMENT:
            i -= 1
        return i

    def next_sig(self, i: int) -> int:
        """The token after i that is not a comment (len at the end)."""
        kinds = self.kinds
        n = len(kinds)
        i += 1
        while i < n and kinds[i] == COMMENT:
            i += 1
        return i

    def spellings(self) -> list[str]:
        """Every token's text, in order (what the spelling-based helpers in brackets.py take);
        computed once per Tokens and shared, so do not modify the list."""
        if self._spellings is None:
            text = self.text
            object.__setattr__(self, "_spellings", [text[s:e] for s, e in zip(self.starts, self.ends, strict=True)])
        assert self._spellings is not None
        return self._spellings


# The last few texts tokenized and their tokens: a file is translated and then warp-analysed, and both
# passes lex the same source text; the second gets the first's Tokens (treat them as read-only). The
# warp analysis lexes the file's quoted headers in between (warp/project.py), so one entry is not
# enough: with one, real code (HeCBench) lexed a file twice whenever it included a header.
# Texts above _CACHE_MAX_CHARS are not kept (their token arrays would stay alive until evicted).
_CACHE_MAX_CHARS = 8_000_000
_CACHE_ENTRIES = 4
_recent: dict[str, Tokens] = {}  # insertion order = age; a str's hash is computed once per str object


def tokenize(text: str) -> Tokens:
    """Split `text` into tokens (clang's raw-lexer classes). Never fails: any byte is some token.
    The same text again soon after gives the same (read-only) Tokens."""
    hit = _recent.get(text)
    if hit is not None:
        return hit
    toks = _tokenize(text)
    if len(text) <= _CACHE_MAX_CHARS:
        try:  # threads (the app's file loader, its background analysis) may evict at the same time
            while len(_recent) >= _CACHE_ENTRIES:
                _recent.pop(next(iter(_recent)))
        except (KeyError, RuntimeError, StopIteration):
            pass
        _recent[text] = toks
    return toks


def _tokenize(text: str) -> Tokens:
    kinds: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    bol: list[bool] = []
    at_bol = True
    pos = 0
    n = len(text)
    gk = _GROUP_KIND
    keywords = KEYWORDS
    while pos < n:
        # finditer runs the scan loop in C; a raw string (whose end the regex cannot find) restarts it
        for m in _TOKEN.finditer(text, pos):
            g = m.lastgroup
            if g == "ws":
                seg = m.group()
                # a newline not escaped by a backslash ends the logical line
                if "\n" in seg or "\r" in seg:
                    stripped = seg.replace("\\\r\n", "").replace("\\\n", "")
                    if "\n" in stripped or "\r" in stripped:
                        at_bol = True
                continue
            start, end = m.span(m.lastindex)  # type: ignore[arg-type]
            if g == "raw":
                delim = _RAW_PREFIX.match(text, start)
                assert delim is not None
                close = text.find(")" + delim.group(1) + '"', m.end())
                pos = n if close < 0 else close + len(delim.group(1)) + 2
                kinds.append(LITERAL)
                starts.append(start)
                ends.append(pos)
                bol.append(at_bol)
                at_bol = False
                break
            kind = gk[g]  # type: ignore[index]
            if kind == IDENT and text[start:end] in keywords:
                kind = KEYWORD
            kinds.append(kind)
            starts.append(start)
            ends.append(end)
            bol.append(at_bol)
            if kind == COMMENT:
                if g == "lc":
                    at_bol = True  # a // comment runs to the end of the line
            else:
                at_bol = False
        else:
            break
    return Tokens(kinds, starts, ends, bol, text)


def directive_spans(toks: Tokens) -> list[tuple[int, int, str]]:
    """(first token index, end token index, directive name) for each preprocessor directive:
    a `#` that begins a logical line, up to the next token that begins a line. Computed once per
    Tokens (translation and the warp analysis share them): do not modify the list."""
    if toks._directives is None:
        object.__setattr__(toks, "_directives", _directive_spans(toks))
    assert toks._directives is not None
    return toks._directives


def _directive_spans(toks: Tokens) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    kinds, bol, n = toks.kinds, toks.bol, len(toks.kinds)
    i = 0
    while i < n:
        if bol[i] and kinds[i] == PUNCT and toks.text[toks.starts[i]] == "#" and toks.ends[i] - toks.starts[i] == 1:
            j = i + 1
            while j < n and not bol[j]:
                j += 1
            name = toks.spelling(i + 1) if i + 1 < j else ""
            out.append((i, j, name))
            i = j
        else:
            i += 1
    return out


def directive_index(toks: Tokens, spans: list[tuple[int, int, str]] | None = None) -> list[int]:
    """For each token, the ordinal of the preprocessor directive holding it (0, 1, ... in text
    order), or -1 outside directives."""
    out = [-1] * len(toks)
    for k, (a, b, _name) in enumerate(directive_spans(toks) if spans is None else spans):
        out[a:b] = [k] * (b - a)
    return out


def is_number(spelling: str) -> bool:
    """A LITERAL token's spelling is a number (pp-number), not a string or character literal."""
    c = spelling[:1]
    return c.isdigit() or (c == "." and spelling[1:2].isdigit())


# Tokens after which a name is used, not declared (`return cudaFoo(`), and tokens that may follow a
# declared name (`int cudaFoo(`, `cudaX x;` is a use of cudaX but `T cudaY;` declares cudaY).
_NOT_DECL = frozenset({"return", "else", "case", "throw", "new", "delete", "sizeof", "co_return", "co_yield",
                       "goto", "decltype", "alignof", "typeid", "do", "if", "while", "for", "switch", "define",
                       "undef", "ifdef", "ifndef", "defined", "include"})
_DECL_FOLLOW = frozenset({"(", ";", "=", ",", "[", "{", ")"})


def declared_names(toks: Tokens, accept: Callable[[str], bool]) -> set[str]:
    """Names (for which `accept` is true) that appear where a declaration names them: after a
    type-like token and before `(`, `;`, `=`, `,`, `[`, `{` or `)`. A cheap over-approximation
    used to leave a file's own entities alone and to decide whether an AST parse can matter."""
    text, kinds, starts, ends = toks.text, toks.kinds, toks.starts, toks.ends
    sig = [i for i, k in enumerate(kinds) if k != COMMENT]
    out: set[str] = set()
    for j in range(1, len(sig) - 1):
        i = sig[j]
        if kinds[i] != IDENT:
            continue
        name = text[starts[i] : ends[i]]
        if name in out or not accept(name):
            continue
        p = sig[j - 1]
        ps = text[starts[p] : ends[p]]
        nx = text[starts[sig[j + 1]] : ends[sig[j + 1]]]
        if kinds[p] == LITERAL or nx not in _DECL_FOLLOW:
            continue
        if ps == "namespace" and j > 1 and text[starts[sig[j - 2]] : ends[sig[j - 2]]] == "using":
            continue  # `using namespace cub;` names a namespace, declares nothing
        if toks.bol[i] and _directive_line(toks, p):
            continue  # `#endif` / `#ifdef X` above a call is no type
        if ps == ">" and not _closes_template(toks, sig, j - 1):
            continue  # `a > fabs(x)`: a comparison
        if (kinds[p] in (IDENT, KEYWORD) and ps not in _NOT_DECL) or ps in ("*", "&", ">"):
            out.add(name)
    return out


def _directive_line(toks: Tokens, i: int) -> bool:
    """Token i lies on a preprocessor directive's line."""
    while i > 0 and not toks.bol[i]:
        i -= 1
    return toks.spelling(i) == "#"


_TEMPLATE_STOPS = frozenset({"(", ")", ";", "{", "}", "&&", "||"})


def _closes_template(toks: Tokens, sig: list[int], j: int) -> bool:
    """The `>` at sig[j] closes a template argument list (`vector<int> f(`), as far as a walk back
    to its `<` shows: no `(`, `;`, `{` or `}` first, and a name before the `<`."""
    k = angle_open(lambda q: toks.spelling(sig[q]), j, 1, _TEMPLATE_STOPS)
    return k > 0 and toks.kinds[sig[k - 1]] == IDENT
