"""Exact replacements for what the target ROCm lacks ("shims"), inserted by default (`--no-shims`:
reported instead). Data: mapping/shims.tsv, one row per CUDA name that triggers a shim; the C++ is
on the row (one line) or in mapping/shims/<file> (`@file`). A replacement is exact (the CUDA result
for every input) or it is not inserted and the name stays reported.

Row fields:
- trigger: what in the CUDA source needs the shim; `use` says how it is recognised:
  `call` a call of the name (not a member, not a name the file or project declares itself),
  `overload-ptr` a call of a name the tables translate whose HIP function lacks the CUDA template
  taking `T**` (needed unless the first argument is cast to `void**`), `overload-argc=N` such a call
  with N arguments (CUDA's default arguments HIP lacks; `call_needs` decides), `overload-any` any call
  of it, `overload-device` a call with an unsigned argument (`_mentions_unsigned`) in a file with
  device code (CUDA's integer min/max overloads),
  `name` any use in code
  (a macro such as CUDART_CB), `feature` a use engine/translate/cuda_features.py finds (cg::reduce and its
  operators, `__grid_constant__`),
  `include` an `#include` of the header `trigger` (it becomes `replace_header`).
  `member` the helper block a member-call rewrite calls (`member_rewrite`; the trigger names it).
- guard: the `#ifndef` guard of the inserted block; rows sharing a guard share one block.
- hip_since: the HIP release that has it ("" = none known): from that target on nothing is inserted.
- label: the name the convert summary lists ("" = the trigger).
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from dataclasses import dataclass

from ..cxx.brackets import scan_to
from ..cxx.lexer import IDENT as _IDENT
from ..cxx.lexer import Tokens

_HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mapping")  # engine/mapping


@dataclass(frozen=True, slots=True)
class Shim:
    trigger: str
    guard: str
    hip_since: str
    use: str
    code: str
    note: str
    label: str = ""

    @property
    def name(self) -> str:
        """What the convert summary calls it."""
        return self.label or self.trigger

    def needed(self, rocm: tuple[int, int]) -> bool:
        """Does target ROCm `rocm` lack what this shim supplies?"""
        from ..mapping import version_at_least

        return not self.hip_since or not version_at_least(rocm, self.hip_since)

    def text(self) -> str:
        """The C++ of the shim (the row's line, or the file it names)."""
        if self.code.startswith("@"):
            return _file(self.code[1:])
        return self.code

    def block(self, newline: str = "\n") -> str:
        """The inserted block: the code under its guard (a macro shim whose code defines the guard
        itself is not defined twice)."""
        code = self.text().rstrip("\n")
        head = f"#ifndef {self.guard} // hipport shim (--no-shims leaves it out)\n"
        if not code.startswith(f"#define {self.guard}"):
            head += f"#define {self.guard}\n"
        return (head + code + "\n#endif\n").replace("\n", newline)


@functools.cache
def _file(name: str) -> str:
    with open(os.path.join(_HERE, "shims", name), encoding="utf-8") as f:
        return f.read()


@functools.cache
def table() -> dict[str, Shim]:
    """mapping/shims.tsv by trigger."""
    from ..mapping import _read_tsv

    return {r["trigger"]: Shim(r["trigger"], r["guard"], r["hip_since"], r["use"], r["code"], r["note"],
                               r.get("label", "")) for r in _read_tsv("shims.tsv")}


def get(trigger: str, use: str | tuple[str, ...]) -> Shim | None:
    """The shim `trigger` has for a use of this kind (None: none)."""
    sh = table().get(trigger)
    uses = (use,) if isinstance(use, str) else use
    return sh if sh is not None and sh.use in uses else None


def call_needs(sh: Shim, toks: Tokens, open_paren: int) -> bool:
    """Does this call (its `(` at token `open_paren`) need the overload shim `sh`?"""
    if sh.use == "overload-ptr":
        j = open_paren + 1
        head = "".join(toks.spelling(k) for k in range(j, min(j + 6, len(toks))))
        return not (head.startswith(("(void**", "reinterpret_cast<void**>", "static_cast<void**>")))
    if sh.use == "overload-device":
        return _mentions_unsigned(toks, open_paren)
    if sh.use.startswith("overload-argc="):
        from .call_args import call_arguments

        ca = call_arguments(toks, open_paren)
        return ca is not None and len(ca[1]) == int(sh.use.split("=", 1)[1])
    return True


_COORDINATES = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})
_UNSIGNED_WORDS = frozenset({"unsigned", "size_t", "uint32_t", "uint64_t", "uint16_t", "uint8_t", "uint"})


def _mentions_unsigned(toks: Tokens, open_paren: int) -> bool:
    """Do the call's arguments hold something unsigned that makes hip-clang's min/max ambiguous against
    a signed argument or a coordinate: a built-in coordinate not cast first (`blockDim.x`), a
    u-suffixed literal, an unsigned type name? (Calls of two ints or two floats need nothing.)"""
    from .call_args import call_arguments

    ca = call_arguments(toks, open_paren)
    close = ca[0] if ca is not None else open_paren
    sp = toks.spelling
    for k in range(open_paren + 1, close):
        w = sp(k)
        if w in _COORDINATES and sp(k + 1) == "." and sp(k - 1) != ")":
            return True
        if w in _UNSIGNED_WORDS or (w[:1].isdigit() and w.rstrip("lL")[-1:] in ("u", "U")):
            return True
    return False


@functools.cache
def declarable_triggers() -> frozenset[str]:
    """Triggers a file may declare itself (then it gets no shim for them)."""
    return frozenset(t for t, sh in table().items() if sh.use in ("call", "name", "overload-device"))


@functools.cache
def call_triggers() -> frozenset[str]:
    """Names whose plain call or use needs a shim: checked for names no API table has."""
    return frozenset(t for t, sh in table().items() if sh.use in ("call", "name"))


# ---------------------------------------------------------------------------------------------
# Where a feature shim would not be exact, and the member rewrites (no block: an expression)

_COALESCED = frozenset({"coalesced_group", "coalesced_threads", "binary_partition", "labeled_partition"})
_STATEMENT_EDGE = frozenset({";", "{", "}"})


def _declaration(toks: Tokens, name: str, before: int) -> tuple[int, int] | None:
    """Token range of the statement (or parameter) that last declares `name` before token `before`:
    the name preceded by a type-like token (an identifier, `auto`, `>`, `&`, `*`)."""
    sp = toks.spelling
    for j in range(before - 1, 0, -1):
        if sp(j) != name or (sp(j - 1) not in ("auto", ">", "&", "*", "&&") and toks.kinds[j - 1] != _IDENT):
            continue
        if j + 1 < len(toks) and sp(j + 1) not in ("=", ";", "(", "{", ",", ")"):
            continue
        a = j
        depth = 0
        while a > 0:
            s = sp(a - 1)
            if s in (")", "]", ">"):
                depth += 1
            elif s in ("(", "[", "<"):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (s in _STATEMENT_EDGE or s == ","):
                break
            a -= 1
        return a, scan_to(toks.spellings(), j, len(toks), (";", ","))
    return None


def _first_argument(toks: Tokens, name_i: int) -> str | None:
    """The first argument of the call whose name is token `name_i`, when it is one identifier."""
    sp = toks.spelling
    j = name_i + 1
    if j + 2 < len(toks) and sp(j) == "(" and toks.kinds[j + 1] == _IDENT and sp(j + 2) in (",", ")"):
        return sp(j + 1)
    return None


def not_exact(toks: Tokens, i: int, sh: Shim) -> str:
    """Why the `feature` shim `sh` would not give CUDA's result for the use at token `i` ("" = it would):
    cg::reduce on a coalesced group (CUDA reduces a partial coalesced group through a scan, in
    another order, and HIP 5.2 has no coalesced-group reduction to build on)."""
    if toks.spelling(i) != "reduce":
        return ""
    group = _first_argument(toks, i)
    decl = _declaration(toks, group, i) if group else None
    if decl is not None and any(toks.spelling(k) in _COALESCED for k in range(*decl)):
        return (f"`{group}` is a coalesced group (CUDA reduces it in another order; hipport's reduce covers "
                "thread_block_tile only)")
    return ""


_SHUFFLES = frozenset({"shfl", "shfl_up", "shfl_down", "shfl_xor"})
REWRITTEN_MEMBERS = frozenset({"meta_group_rank", "meta_group_size", *_SHUFFLES})


@dataclass(frozen=True, slots=True)
class MemberRewrite:
    """A member call rewritten: str span [start, end) and its replacement text, the call as the report
    shows it, why it is exact, the name the convert summary lists, and the shim block it calls (if any)."""
    start: int
    end: int
    text: str
    shown: str
    why: str
    label: str
    shim: Shim | None = None


def _tile_of(toks: Tokens, name: str, before: int, depth: int = 0) -> tuple[str, str | None] | str:
    """(tile size text, parent tile size text or None for the thread block) of the tile variable
    `name`, from its declaration `... name = [cg::]tiled_partition<N>(parent)`; a string says why not."""
    sp = toks.spelling
    decl = _declaration(toks, name, before)
    if decl is None:
        return f"the declaration of `{name}` is not in this file"
    a, b = decl
    words = [sp(k) for k in range(a, b)]
    if "tiled_partition" not in words:
        return f"`{name}` is not initialised by tiled_partition<N>(...) here"
    k = a + words.index("tiled_partition") + 1
    if sp(k) != "<":
        return f"`{name}` is a tiled_partition(g, n) group (its size is a run-time value)"
    close = k + 1
    level = 1
    while close < b and level:
        level += {"<": 1, ">": -1}.get(sp(close), 0)
        close += 1
    size = toks.text[toks.starts[k + 1]:toks.ends[close - 2]]
    if sp(close) != "(":
        return f"`{name}`'s partition is not a call"
    arg = close + 1
    if sp(arg) in ("cg", "cooperative_groups") or sp(arg) == "this_thread_block":
        inner = [sp(x) for x in range(arg, min(arg + 6, b))]
        if "this_thread_block" in inner:
            return size, None
    if toks.kinds[arg] != _IDENT or sp(arg + 1) != ")":
        return f"the parent of `{name}` is not a named group"
    parent = sp(arg)
    pdecl = _declaration(toks, parent, a)
    if pdecl is None:
        return f"the declaration of `{parent}` is not in this file"
    pwords = {sp(x) for x in range(*pdecl)}
    if "this_thread_block" in pwords or ("thread_block" in pwords and "tiled_partition" not in pwords):
        return size, None
    if depth == 0 and "tiled_partition" in pwords:
        outer = _tile_of(toks, parent, a, depth + 1)
        if isinstance(outer, str):
            return outer
        if outer[1] is None:
            return size, outer[0]
    return f"the parent group of `{name}` is neither the thread block nor a tile of it"


def member_rewrite(toks: Tokens, i: int) -> MemberRewrite | str | None:
    """The rewrite of the member call at token `i` (a name in REWRITTEN_MEMBERS); a string says why
    there is none (reported); None: HIP's own member does what CUDA's does (nothing to change)."""
    if toks.spelling(i) in _SHUFFLES:
        return _shuffle_rewrite(toks, i)
    return _meta_group_rewrite(toks, i)


def _meta_group_rewrite(toks: Tokens, i: int) -> MemberRewrite | str:
    """`tile.meta_group_rank()` / `tile.meta_group_size()` as an expression over the thread block (HIP's
    tiles before ROCm 5.7 do not record their parent). Exact for a tile partitioned from the thread
    block (rank in the block / N, ceil(block size / N)) or from such a tile of P threads ((rank % P) / N,
    P / N): HIP, like CUDA, lays tiles over the block's linear thread rank."""
    sp = toks.spelling
    if not (i >= 2 and sp(i - 1) in (".", "->") and toks.kinds[i - 2] == _IDENT
            and i + 2 < len(toks) and sp(i + 1) == "(" and sp(i + 2) == ")"):
        return "not a call on a named tile"
    tile = _tile_of(toks, sp(i - 2), i - 2)
    if isinstance(tile, str):
        return tile
    n, parent = tile
    block = "cooperative_groups::this_thread_block()"
    if sp(i) == "meta_group_rank":
        rank = f"{block}.thread_rank()" if parent is None else f"({block}.thread_rank() % ({parent}))"
        text = f"({rank} / ({n}))"
    else:
        text = (f"(({block}.size() + ({n}) - 1) / ({n}))" if parent is None else f"(({parent}) / ({n}))")
    return MemberRewrite(toks.starts[i - 2], toks.ends[i + 2], text, text,
                         "exact for a tile partitioned from the thread block", sp(i))


# CUDA's vector and half types: HIP's counterparts are structs, which HIP's tile shuffles refuse
_VECTOR_TYPE = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]|__half2?|half2?"
                          r"|__nv_bfloat162?")


def _shuffle_rewrite(toks: Tokens, i: int) -> MemberRewrite | str | None:
    """`tile.shfl*(value, ...)` where `value` is of a CUDA vector type or a struct the file defines (a
    variable, or a member of a struct variable, whose declaration is in the file): CUDA shuffles such
    values as ints (cooperative_groups/details/helpers.h), HIP's tile shuffles take integer and floating
    types only, so the call goes to hipport's helper (mapping/shims/tile_shfl.h), which shuffles the
    ints through HIP's member. None for any other value (HIP's member takes it, or hipport cannot see
    its type); a string when the group is not a thread_block_tile the file declares."""
    sp = toks.spelling
    if not (i >= 2 and sp(i - 1) == "." and toks.kinds[i - 2] == _IDENT and sp(i + 1) == "("):
        return None
    value_type = _argument_type(toks, i + 2)
    if value_type is None or not (_VECTOR_TYPE.fullmatch(value_type) or _struct_body(toks, value_type)):
        return None
    group = sp(i - 2)
    decl = _declaration(toks, group, i - 2)
    words = [sp(k) for k in range(*decl)] if decl else []
    if "thread_block_tile" not in words and not any(
            w == "tiled_partition" and nxt == "<" for w, nxt in itertools.pairwise(words)):
        return (f"`{group}` is not declared here as a thread_block_tile (HIP's groups shuffle integer and "
                f"floating types only; `{value_type}` is neither)")
    return MemberRewrite(toks.starts[i - 2], toks.ends[i + 1], f"hipport_tile_{sp(i)}({group}, ",
                         f"hipport_tile_{sp(i)}({group}, ...)", f"a `{value_type}` shuffled as ints, as CUDA does", "tile shuffles of other types",
                         get("tile.shfl", "member"))


def _argument_type(toks: Tokens, j: int) -> str | None:
    """The type name of the call argument starting at token `j` when it is `v` or `s.m` and the file
    declares `v` (or `s`, and the struct with member `m`)."""
    sp = toks.spelling
    if toks.kinds[j] != _IDENT:
        return None
    if sp(j + 1) == ",":
        return _declared_type(toks, sp(j), j)
    if sp(j + 1) == "." and toks.kinds[j + 2] == _IDENT and sp(j + 3) == ",":
        outer = _declared_type(toks, sp(j), j)
        body = _struct_body(toks, outer) if outer else None
        return _member_type(toks, body, sp(j + 2)) if body else None
    return None


def _declared_type(toks: Tokens, name: str, before: int) -> str | None:
    """The last identifier of the type in the declaration of `name` before token `before`."""
    decl = _declaration(toks, name, before)
    if decl is None:
        return None
    names = []
    for k in range(*decl):
        if toks.spelling(k) == name:
            break
        if toks.kinds[k] == _IDENT:
            names.append(toks.spelling(k))
    return names[-1] if names else None


def _struct_body(toks: Tokens, name: str) -> tuple[int, int] | None:
    """Token range inside the braces of `struct name { ... }` / `class name { ... }` in the file."""
    sp = toks.spelling
    for k in range(1, len(toks) - 1):
        if sp(k) == name and sp(k - 1) in ("struct", "class") and sp(k + 1) == "{":
            depth = 0
            for e in range(k + 1, len(toks)):
                depth += {"{": 1, "}": -1}.get(sp(e), 0)
                if depth == 0:
                    return k + 2, e
    return None


def _member_type(toks: Tokens, body: tuple[int, int], member: str) -> str | None:
    """The type name of data member `member` in a struct body: the statement `T a, member, b;`."""
    sp = toks.spelling
    start = body[0]
    for k in range(body[0], body[1]):
        if sp(k) in (";", "{", "}"):
            start = k + 1
        elif sp(k) == member and (k - 1 == start or sp(k - 1) in (",", "*", "&")) and toks.kinds[start] == _IDENT:
            return sp(start)
    return None
