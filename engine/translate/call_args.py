"""Argument rewrites of calls whose HIP/ROC counterpart takes different arguments.

The operations come from tables.ARG_REWRITES (hipify-clang's FuncArgCasts). Edits stay
minimal where they can (a wrap or an added argument is an insertion, so renames inside the
arguments stay separate edits); a reordering replaces the argument list with the reordered,
already-translated arguments, absorbing the renames made inside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cxx.brackets import closing
from ..cxx.lexer import Tokens
from ..edits import Edit, apply_edits
from .launch import split_arguments
from .tables import ArgOp


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    name_i: int               # token index of the called name
    open_i: int               # token index of "("
    ops: tuple[ArgOp, ...]


def call_arguments(toks: Tokens, open_i: int) -> tuple[int, list[tuple[int, int]]] | None:
    """(index of ")", [(start, end) str spans of each argument]) or None when unbalanced."""
    close = closing(toks.spellings(), open_i, len(toks))
    if close < 0:
        return None
    if close == open_i + 1:
        return close, []
    pieces = split_arguments(toks, open_i + 1, close)
    if pieces is None:
        return None
    return close, [(toks.starts[a], toks.ends[b - 1]) for a, b in pieces]


def rewrite_calls(toks: Tokens, calls: Sequence[Call], edits: list[Edit], base: int) -> tuple[list[Edit], list[Call]]:
    """Apply the calls' argument operations to `edits` (offsets shifted by `base`). Returns the new
    edit list and the calls that could not be rewritten (their argument count does not fit)."""
    text = toks.text
    failed: list[Call] = []
    todo = []
    for c in calls:
        ca = call_arguments(toks, c.open_i)
        if ca is None:
            failed.append(c)
            continue
        close, args = ca
        todo.append((toks.ends[close] - toks.starts[c.open_i], c, close, args))
    todo.sort(key=lambda t: t[0])  # inner calls first: an outer reorder absorbs their edits
    for _size, c, close, args in todo:
        n = len(args)
        ok = all((kind == "add" or k < n) and kind != "manual" for kind, k, _ in c.ops)
        ok = ok and all(v[0] <= n and k + v[1] <= n for kind, k, v in c.ops if kind == "move" and isinstance(v, tuple))
        if not ok:
            failed.append(c)
            continue
        lo = base + toks.ends[c.open_i]
        hi = base + toks.starts[close]
        if any(kind == "move" for kind, _, _ in c.ops):
            edits = _reorder(text, args, c.ops, edits, base, lo, hi)
            continue
        new, dead = _op_edits(text, args, c.ops, edits, base, lo)
        if dead:
            edits = [e for e in edits if not any(a <= e.start and e.end <= b and e.start < b for a, b in dead)]
        edits.extend(new)
    return edits, failed


def _op_edits(text: str, args: list[tuple[int, int]], ops: tuple[ArgOp, ...], edits: list[Edit], base: int,
              lo: int) -> tuple[list[Edit], list[tuple[int, int]]]:
    """The edits of a call's non-moving operations, and the spans whose older edits they replace."""
    n = len(args)
    new: list[Edit] = []
    dead: list[tuple[int, int]] = []
    for kind, k, v in ops:
        if kind == "add":
            new.append(_added(args, k, str(v), base, lo))
        elif kind == "copy" and isinstance(v, tuple):
            new.append(_copied(text, args, k, v[0], edits, base))
        elif kind == "wrap":
            s, e = args[k]
            new.append(Edit(base + s, base + s, f"{v}(", "api-args", f"{v}(...)"))
            new.append(Edit(base + e, base + e, ")", "api-args", f"{v}(...)"))
        elif kind == "replace":
            s, e = args[k]
            dead.append((base + s, base + e))
            new.append(Edit(base + s, base + e, str(v), "api-args", f"argument becomes {v}"))
        elif kind == "remove":
            if k + 1 < n:
                s, e = args[k][0], args[k + 1][0]
            elif k > 0:
                s, e = args[k - 1][1], args[k][1]
            else:
                s, e = args[k]
            dead.append((base + s, base + e))
            new.append(Edit(base + s, base + e, "", "api-args", "argument HIP does not take"))
    return new, dead


def _added(args: list[tuple[int, int]], k: int, value: str, base: int, lo: int) -> Edit:
    """`value` inserted before argument k (appended when k is past the last one)."""
    if not args:
        return Edit(lo, lo, value, "api-args", f"adds {value}")
    if k >= len(args):
        return Edit(base + args[-1][1], base + args[-1][1], f", {value}", "api-args", f"adds {value}")
    return Edit(base + args[k][0], base + args[k][0], f"{value}, ", "api-args", f"adds {value}")


def _copied(text: str, args: list[tuple[int, int]], k: int, to: int, edits: list[Edit], base: int) -> Edit:
    """Argument k (with the edits made inside it) copied before argument `to` (appended past the last)."""
    s, e = args[k]
    own = [Edit(x.start - base - s, x.end - base - s, x.replacement, x.rule, x.note)
           for x in edits if base + s <= x.start and x.end <= base + e]
    arg = apply_edits(text[s:e], own)
    if to < len(args):
        at = base + args[to][0]
        return Edit(at, at, f"{arg}, ", "api-args", f"copies argument {k + 1}")
    return Edit(base + args[-1][1], base + args[-1][1], f", {arg}", "api-args", f"copies argument {k + 1}")


def _reorder(text: str, args: list[tuple[int, int]], ops: tuple[ArgOp, ...], edits: list[Edit], base: int,
             lo: int, hi: int) -> list[Edit]:
    """Replace the argument list [lo, hi) by the reordered arguments, each with its edits applied."""
    keys: dict[int, tuple[int, int, int]] = {i: (i, 1, 0) for i in range(len(args))}
    extra: list[tuple[tuple[int, int, int], str]] = []
    removed: set[int] = set()
    replaced: dict[int, str] = {}
    for kind, k, v in ops:
        if kind == "move" and isinstance(v, tuple):
            to, count = v
            for j in range(count):
                keys[k + j] = (to, 0, j)
        elif kind == "remove":
            removed.add(k)
        elif kind == "add":
            extra.append(((k, -1, 0), str(v)))
        elif kind == "replace":
            replaced[k] = str(v)
    inside = [e for e in edits if lo <= e.start and e.end <= hi]
    rest = [e for e in edits if not (lo <= e.start and e.end <= hi)]
    pieces: list[tuple[tuple[int, int, int], str]] = list(extra)
    for i, (s, e) in enumerate(args):
        if i in removed:
            continue
        if i in replaced:
            pieces.append((keys[i], replaced[i]))
            continue
        own = [Edit(x.start - base - s, x.end - base - s, x.replacement, x.rule, x.note)
               for x in inside if base + s <= x.start and x.end <= base + e]
        pieces.append((keys[i], apply_edits(text[s:e], own)))
    pieces.sort(key=lambda p: p[0])
    joined = ", ".join(p[1] for p in pieces)
    return [*rest, Edit(lo, hi, joined, "api-args", "arguments reordered for the ROC library")]
