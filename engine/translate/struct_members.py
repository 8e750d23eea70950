"""Members of CUDA structs that the target HIP's struct lacks (cudaDeviceProp::unifiedAddressing is in
hipDeviceProp_t from HIP 6.0): reported at the member with the version that has it (data:
mapping/struct_members.tsv). Member names are common words (`uuid`, `luid`), so only accesses on a
variable the file declares with the CUDA struct type count: `p.m`, `p->m`, `p[i].m`."""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..cxx.lexer import IDENT, Tokens

# (kind "unsupported" | "needs-newer-rocm", member, start, end, message, since)
Found = tuple[str, str, int, int, str, str]


@functools.cache
def table() -> dict[str, dict[str, tuple[str, str]]]:
    """{CUDA struct: {member: (hip_added, note)}}."""
    from ..mapping import _read_tsv

    out: dict[str, dict[str, tuple[str, str]]] = {}
    for r in _read_tsv("struct_members.tsv"):
        out.setdefault(r["struct"], {})[r["member"]] = (r["hip_added"], r["note"])
    return out


@functools.cache
def _members() -> frozenset[str]:
    return frozenset(m for members in table().values() for m in members)


def wanted(text: str) -> bool:
    return any(s in text for s in table())


def scan(toks: Tokens, rocm: tuple[int, int], skip: Callable[[int], bool] = lambda i: False) -> list[Found]:
    words = toks.spellings()
    kinds = toks.kinds
    structs = table()
    var_type = _variables(toks, structs)
    if not var_type:
        return []
    out: list[Found] = []
    members = _members()
    for i in [i for i, w in enumerate(words) if w in members]:
        if i < 2 or kinds[i] != IDENT or skip(i) or words[i - 1] not in (".", "->"):
            continue
        obj = _object_name(words, i - 2)
        struct = var_type.get(words[obj]) if obj >= 0 and kinds[obj] == IDENT else None
        if struct is None:
            continue
        row = structs[struct].get(words[i])
        if row is not None:
            found = _lacking_member(toks, i, struct, row, rocm)
            if found is not None:
                out.append(found)
    return out


def _variables(toks: Tokens, structs: dict[str, dict[str, tuple[str, str]]]) -> dict[str, str]:
    """{variable: CUDA struct} of the declarations `cudaDeviceProp p`, `const cudaDeviceProp *p`, ..."""
    words, kinds, n = toks.spellings(), toks.kinds, len(toks)
    var_type: dict[str, str] = {}
    for i in [i for i, w in enumerate(words) if w in structs]:
        if kinds[i] != IDENT:
            continue
        j = i + 1
        while j < n and words[j] in ("*", "&", "const"):
            j += 1
        if j < n and kinds[j] == IDENT:
            var_type[words[j]] = words[i]
    return var_type


def _object_name(words: list[str], obj: int) -> int:
    """The token naming the object whose member follows token obj: `p.m` -> p; `p[i].m` -> p (back
    over the subscript, counting square brackets only)."""
    if words[obj] != "]":
        return obj
    depth = 0
    while obj > 0:
        if words[obj] == "]":
            depth += 1
        elif words[obj] == "[":
            depth -= 1
            if depth == 0:
                break
        obj -= 1
    return obj - 1


def _lacking_member(toks: Tokens, i: int, struct: str, row: tuple[str, str], rocm: tuple[int, int]) -> Found | None:
    """The report for member token i of `struct` (row: (hip_added, note)), None when the target has it."""
    from ..mapping import version_at_least

    member = toks.spellings()[i]
    added, note = row
    hip_struct = {"cudaDeviceProp": "hipDeviceProp_t", "CUmemAllocationProp": "hipMemAllocationProp"}.get(
        struct, struct.replace("cuda", "hip", 1))
    if added and version_at_least(rocm, added):
        return None
    if added:
        v = ".".join(map(str, rocm))
        return ("needs-newer-rocm", member, toks.starts[i], toks.ends[i],
                f"{struct}::{member}: {hip_struct} has it from HIP {added} (target is ROCm {v}; use --rocm)", added)
    return ("unsupported", member, toks.starts[i], toks.ends[i], f"{struct}::{member} has no HIP equivalent ({note})", "")
