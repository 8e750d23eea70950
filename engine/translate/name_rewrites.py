"""Exact rewrites of a CUDA name the target HIP lacks, decided by the code around it (the table
reports the name otherwise). `REWRITES`: name -> its rewrite (a shims.MemberRewrite), or why not, or
None where the use is not the pattern the rewrite is for (the report stays as it is).

A host `cudaMemLocation` (hipMemLocationTypeHost arrives in ROCm 7.1; HIP 5.2 has Invalid and Device
only). CUDA 12.2+ code writes `cudaMemLocation loc; loc.type = cudaMemLocationTypeHost;` and passes
`loc` to cudaMemPrefetchAsync / cudaMemAdvise (CUDA 13 has only that form; the id of a host location
is ignored). The legacy form of both calls names the host with the device number cudaCpuDeviceId,
whose HIP counterpart hipCpuDeviceId HIP's int-device hipMemPrefetchAsync / hipMemAdvise take
(hipamd's hipMemAdvise: `use_cpu = device == hipCpuDeviceId`). hipport's location-taking overloads
(mapping/shims.tsv) call those with `loc.id` for a device location, so the host is stored as that:
the assignment becomes `loc.type = (loc.id = hipCpuDeviceId, hipMemLocationTypeDevice)`. Exact only
where nothing else reads the struct: every use of `loc` in its block is such an assignment or the
location argument of those two calls.

`curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT)` (hipRAND has the call from ROCm 6.2).
QUASI_DEFAULT is the one ordering of a quasirandom generator and the one it has from creation, so on a
generator the block creates only as quasirandom (`curandCreateGenerator(&g, CURAND_RNG_QUASI_*)`) and
has not generated from yet (the call resets the generator's state), the call changes nothing and
returns success: it becomes `((void)g, HIPRAND_STATUS_SUCCESS)`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..cxx.brackets import match_brackets
from ..cxx.lexer import IDENT, Tokens
from .shims import MemberRewrite

HOST = "cudaMemLocationTypeHost"
_LOCATION_ARGUMENT = {"cudaMemPrefetchAsync": 2, "cudaMemAdvise": 3}  # 0-based index of the location


def host_rewrite(toks: Tokens, i: int) -> MemberRewrite | str:
    """The rewrite of `cudaMemLocationTypeHost` at token `i`, or why there is none."""
    sp = toks.spellings()
    if not (i >= 4 and sp[i - 1] == "=" and sp[i - 2] == "type" and sp[i - 3] == "." and toks.kinds[i - 4] == IDENT
            and i + 1 < len(sp) and sp[i + 1] == ";"):
        return "not an assignment `loc.type = cudaMemLocationTypeHost;`"
    loc = sp[i - 4]
    decl = _declaration(sp, "cudaMemLocation", loc, i - 4)
    if decl is None:
        return f"the declaration `cudaMemLocation {loc};` is not in this block"
    pairs = match_brackets(sp)
    block_end = _block_end(sp, pairs, decl)
    for k in range(decl + 1, block_end):
        if sp[k] == loc and toks.kinds[k] == IDENT and not (_host_assignment(sp, k) or _location_argument(sp, pairs, k)):
            line = toks.text.count("\n", 0, toks.starts[k]) + 1
            return (f"`{loc}` is used on line {line} other than in `{loc}.type = {HOST};` or as the location of "
                    "cudaMemPrefetchAsync/cudaMemAdvise")
    text = f"({loc}.id = hipCpuDeviceId, hipMemLocationTypeDevice)"
    return MemberRewrite(toks.starts[i], toks.ends[i], text, text,
                         "the host as the device number hipCpuDeviceId, which hipport's hipMemPrefetchAsync/"
                         "hipMemAdvise overloads pass on", "host cudaMemLocation")


def _declaration(sp: list[str], type_name: str, var: str, before: int) -> int | None:
    """Token index of `var` in the last `type_name var;` before token `before`."""
    for k in range(before - 1, 0, -1):
        if sp[k] == var and sp[k - 1] == type_name and k + 1 < len(sp) and sp[k + 1] == ";":
            return k
    return None


def _block_end(sp: list[str], pairs: dict[int, int], k: int) -> int:
    """Index of the `}` closing the block that holds token `k` (the end of the file at top level)."""
    depth = 0
    for j in range(k - 1, -1, -1):
        if sp[j] == "}":
            depth += 1
        elif sp[j] == "{":
            if depth == 0:
                return pairs.get(j, len(sp))
            depth -= 1
    return len(sp)


def _host_assignment(sp: list[str], k: int) -> bool:
    return sp[k + 1:k + 6] == [".", "type", "=", HOST, ";"] and (k == 0 or sp[k - 1] in (";", "{", "}"))


def _location_argument(sp: list[str], pairs: dict[int, int], k: int) -> bool:
    """Is token `k` the whole location argument of a cudaMemPrefetchAsync/cudaMemAdvise call?"""
    if sp[k - 1] not in (",", "(") or sp[k + 1] not in (",", ")"):
        return False
    depth, commas = 0, 0
    for j in range(k - 1, 0, -1):
        if sp[j] in (")", "]", "}"):
            depth += 1
        elif sp[j] in ("(", "[", "{"):
            if depth == 0:
                return sp[j] == "(" and _LOCATION_ARGUMENT.get(sp[j - 1]) == commas and j in pairs
            depth -= 1
        elif sp[j] == "," and depth == 0:
            commas += 1
    return False


SET_ORDERING = "curandSetGeneratorOrdering"


def ordering_rewrite(toks: Tokens, i: int) -> MemberRewrite | str | None:
    """The rewrite of `curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT)` at token `i`, or why
    there is none (None: another call, such as a pseudorandom ordering, which only hipRAND 6.2 has)."""
    sp = toks.spellings()
    if not (sp[i + 1:i + 6:2] == ["(", ",", ")"] and toks.kinds[i + 2] == IDENT
            and sp[i + 4] == "CURAND_ORDERING_QUASI_DEFAULT"):
        return None
    g = sp[i + 2]
    decl = _declaration(sp, "curandGenerator_t", g, i)
    if decl is None:
        return f"the declaration `curandGenerator_t {g};` is not in this block"
    created = False
    for k in range(decl + 1, _block_end(sp, match_brackets(sp), decl)):
        if sp[k] != g or toks.kinds[k] != IDENT:
            continue
        if sp[k - 1] == "&":  # written only by curandCreateGenerator(&g, CURAND_RNG_QUASI_...)
            if not (sp[k - 3:k - 1] == ["curandCreateGenerator", "("] and sp[k + 1] == ","
                    and sp[k + 2].startswith("CURAND_RNG_QUASI_")):
                return f"`{g}` is set other than by curandCreateGenerator(&{g}, CURAND_RNG_QUASI_...)"
            created = created or k < i
        elif k < i and sp[k - 2].startswith("curandGenerate"):
            return f"`{g}` has generated numbers before this call (which resets its state)"
    if not created:
        return f"`{g}` is not created as a quasirandom generator before this call"
    close = i + 5
    text = f"((void){g}, HIPRAND_STATUS_SUCCESS)"
    return MemberRewrite(toks.starts[i], toks.ends[close], text, text,
                         "QUASI_DEFAULT is the only ordering of a quasirandom generator and the one it has "
                         "from creation: cuRAND changes nothing and returns success", f"{SET_ORDERING}(quasi)")


REWRITES: dict[str, Callable[[Tokens, int], MemberRewrite | str | None]] = {
    HOST: host_rewrite,
    SET_ORDERING: ordering_rewrite,
}
