"""CUDA features HIP lacks that no API table lists: reported as `unsupported` with file:line.

What is reported (data: mapping/features.tsv, except the tile-size rule):
- cooperative-groups members HIP does not have (cg::reduce and its operators, labeled_partition,
  block_tile_memory, memcpy_async, clusters, ...), recognised through the namespace, its aliases
  (`namespace cg = cooperative_groups;`) and `using namespace cooperative_groups`;
- tiles wider than a wavefront: `tiled_partition<N>` / `thread_block_tile<N>` with N > 64;
- `__grid_constant__`.
Inline PTX and the graph-conditional API (cudaGraphConditionalHandle, ...) are reported by the
translation itself (asm statements; AMD's tables list those names as unsupported).

`feature_of(report)` names the feature a report belongs to, for the one-line summary
(`summarize`). The scan runs only on files that mention cooperative groups or __grid_constant__.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..cxx.lexer import IDENT, LITERAL, Tokens
from .ptx import ASM_KEYWORDS

MAX_TILE = 64  # a tile is at most one wavefront: 64 lanes on gfx9 (CDNA), 32 on RDNA
_CG = "cooperative_groups"
_OP_HEADERS = ("cooperative_groups/reduce.h", "cooperative_groups/scan.h")


@dataclass(frozen=True, slots=True)
class Feature:
    name: str
    feature: str
    scope: str      # cg | cg-op | member | any
    hip_added: str  # "" = no HIP release known to have it
    note: str


@functools.cache
def features() -> dict[str, Feature]:
    from ..mapping import _read_tsv

    return {r["name"]: Feature(r["name"], r["feature"], r["scope"], r["hip_added"], r["note"])
            for r in _read_tsv("features.tsv")}


def wanted(text: str) -> bool:
    """Cheap pre-check: does the scan have anything to look at?"""
    return _CG in text or "__grid_constant__" in text


# (kind "unsupported" | "needs-newer-rocm", name, token start, token end, message, since, token index)
Found = tuple[str, str, int, int, str, str, int]


def scan(toks: Tokens, rocm: tuple[int, int], skip: Callable[[int], bool] = lambda i: False) -> list[Found]:
    """Reports for the features above in `toks` (token indices for which `skip(i)` is true are
    left out: directives, inactive branches)."""
    from ..mapping import version_at_least

    text, kinds, starts, ends = toks.text, toks.kinds, toks.starts, toks.ends
    n = len(kinds)
    feats = features()

    def sp(i: int) -> str:
        return text[starts[i]:ends[i]] if 0 <= i < n else ""

    names = _CgNames.of(toks, sp)
    out: list[Found] = []
    v = ".".join(map(str, rocm))
    for i in range(n):
        if kinds[i] != IDENT or skip(i):
            continue
        name = sp(i)
        if name in ("tiled_partition", "thread_block_tile") or name.startswith("cooperative_groups"):
            _tile(toks, i, sp, out)
            continue
        f = feats.get(name)
        if f is None or not names.refers_to(f, toks, i, sp):
            continue
        if f.hip_added and version_at_least(rocm, f.hip_added):
            continue
        if f.hip_added:
            out.append(("needs-newer-rocm", name, starts[i], ends[i],
                        f"{name} needs ROCm {f.hip_added} (target is ROCm {v}; use --rocm): {f.note}", f.hip_added, i))
        else:
            out.append(("unsupported", name, starts[i], ends[i], f"{name} has no HIP equivalent: {f.note}", "", i))
    return out


@dataclass(frozen=True, slots=True)
class _CgNames:
    """How the file names cooperative groups: namespace aliases, `using namespace`, operator headers."""
    aliases: frozenset[str]
    using_ns: bool
    op_headers: bool
    mentions_cg: bool

    @classmethod
    def of(cls, toks: Tokens, sp: Callable[[int], str]) -> _CgNames:
        aliases = {_CG}
        using_ns = False
        for i in range(len(toks.kinds) - 3):
            if toks.kinds[i] == IDENT and sp(i) == _CG:
                if sp(i - 1) == "=" and sp(i - 3) == "namespace":
                    aliases.add(sp(i - 2))
                elif sp(i - 1) == "namespace" and sp(i - 2) == "using":
                    using_ns = True
        return cls(frozenset(aliases), using_ns, any(h in toks.text for h in _OP_HEADERS), _CG in toks.text)

    def refers_to(self, f: Feature, toks: Tokens, i: int, sp: Callable[[int], str]) -> bool:
        """Token i (named like feature f) is that feature where it stands."""
        prev = sp(i - 1)
        if f.scope == "any":
            return True
        if f.scope == "member":
            return prev in (".", "->") and (self.using_ns or len(self.aliases) > 1 or self.mentions_cg)
        if prev == "::":
            j = i - 2  # walk the qualifier chain: cg::experimental::block_tile_memory
            quals = []
            while j >= 0 and toks.kinds[j] == IDENT:
                quals.append(sp(j))
                if sp(j - 1) != "::":
                    break
                j -= 2
            return any(q in self.aliases for q in quals)
        return prev not in (".", "->") and self.using_ns and (f.scope == "cg" or self.op_headers)


def _tile(toks: Tokens, i: int, sp: Callable[[int], str], out: list[Found]) -> None:
    """tiled_partition<N> / thread_block_tile<N> / tiled_partition(g, N) with N > 64."""
    j = i + 1
    if sp(j) == "<" and toks.kinds[j + 1] == LITERAL and sp(j + 2) in (">", ","):
        lit = j + 1
    elif sp(j) == "(":
        depth, k, lit = 0, j, -1
        while k < len(toks.kinds):
            s = sp(k)
            if s in "([{":
                depth += 1
            elif s in ")]}":
                depth -= 1
                if depth == 0:
                    break
            elif s == "," and depth == 1 and toks.kinds[k + 1] == LITERAL and sp(k + 2) == ")":
                lit = k + 1
            k += 1
        if lit < 0:
            return
    else:
        return
    size = _int(sp(lit))
    if size is not None and size > MAX_TILE:
        out.append(("unsupported", sp(i), toks.starts[i], toks.ends[lit],
                    f"a {size}-thread tile: HIP tiles are at most one wavefront ({MAX_TILE} threads on gfx9, "
                    "32 on RDNA); split the work into wavefront-sized tiles or use the whole block", "", i))


def _int(s: str) -> int | None:
    try:
        return int(s.replace("'", "").rstrip("uUlL"), 0)
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# The one-line summary of reports by kind (the CLI prints it; the app can show the same counts)

def feature_of(kind: str, name: str, message: str = "") -> str:
    """The feature a report belongs to: 'inline PTX', 'cooperative groups', 'headers', or the API
    family of a table name ('runtime API', 'device API', ...)."""
    if kind == "not-exact":
        return name  # the logical-warp port's own kinds: lockstep-wait, hardware, inline-ptx, coalesced-group
    if name in ASM_KEYWORDS:
        return "inline PTX"
    f = features().get(name)
    if f is not None:
        return f.feature
    if name in ("tiled_partition", "thread_block_tile") or name.startswith("cooperative_groups"):
        return "cooperative groups"
    if name.startswith("__CUDA") or name in ("CUDA_VERSION", "CUDART_VERSION", "__NVCC__"):
        return "preprocessor tests"
    if name.endswith((".h", ".hpp", ".cuh")):
        return "headers"
    if "Conditional" in name or name.startswith("cudaGraphCond"):
        return "graph conditional nodes"
    from .struct_members import table as struct_table

    if any(name in members for members in struct_table().values()):
        return "struct members"
    from ..mapping import load

    e = load().lookup(name)
    if e is not None:
        return f"{e.family} API"
    return "other"


def summarize(reports: Iterable[Any]) -> dict[str, collections.Counter[str]]:
    """{kind: Counter(feature -> count)} over reports (Report objects or their dicts)."""
    out: dict[str, collections.Counter[str]] = {}
    for r in reports:
        if isinstance(r, dict):
            kind, name, msg = r["kind"], r["name"], r.get("message", "")
        else:
            kind, name, msg = str(r.kind.value), r.name, r.message
        if kind == "info":
            continue
        out.setdefault(kind, collections.Counter())[feature_of(kind, name, msg)] += 1
    return out


def summary_line(counts: dict[str, collections.Counter[str]]) -> str:
    """'unsupported 5 (inline PTX 2, cooperative groups 2, runtime API 1); needs-newer-rocm 3 (...)'."""
    order = ["unsupported", "needs-newer-rocm", "manual", "unknown", "not-exact", "deprecated", "python"]
    parts = []
    for kind in sorted(counts, key=lambda k: (order.index(k) if k in order else len(order), k)):
        c = counts[kind]
        detail = ", ".join(f"{f} {n}" for f, n in sorted(c.items(), key=lambda x: (-x[1], x[0])))
        parts.append(f"{kind} {sum(c.values())} ({detail})")
    return "; ".join(parts) if parts else "none"
