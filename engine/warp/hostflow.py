"""Host block width 32 for a kernel that takes its lanes from warpSize (issue 9): is every use understood?

`int thread_x = 32; dim3 threads(thread_x, MAX / 32); k<<<g, threads>>>()` where `k` computes
`threadIdx.y * warpSize + threadIdx.x` (HeCBench scatterAdd, quantAQLM's `threads = 32 * thread_m`):
the host means "one warp" by 32, the kernel means the wavefront by warpSize. The fix (the host's warp
size) is SAFE only when every use of the width was understood:
- on the host, each variable the 32 flows through is used only by the next step (the dim3 that takes it,
  the launch's block argument); no other arithmetic reads it;
- in each kernel launched with that block, every `threadIdx.x` / `blockDim.x` goes through warpSize:
  `threadIdx.x % warpSize`, `/ warpSize`, `& (warpSize - 1)`, `y * warpSize + threadIdx.x`,
  `blockDim.x / warpSize`, a loop starting at `threadIdx.x` that steps by warpSize or blockDim.x, or
  `j0 + threadIdx.x` with `j0` stepping by warpSize; and every `threadIdx.y` is `threadIdx.y * warpSize`
  or `i0 + threadIdx.y` with `i0` stepping by a warpSize expression.
Anything else (a 32-wide tile indexed by `threadIdx.x`, a width read by host arithmetic) leaves the fix
REVIEW, and the reason names that use.
"""

from __future__ import annotations

from .facts import ProjectFacts
from .lex import ID
from .scopes import Func
from .tokens import Tokens


def width_uses_reason(tokens: Tokens, project: ProjectFacts, a: int, b: int, chain: list[tuple[str, int]]) -> str:
    """Why the host width whose value flows through `chain` (launch block name first, then each variable
    it was defined from, with its defining token) is not fully understood; "" when it is."""
    if not chain:
        return "the block expression of the launch is not a variable the analysis can follow"
    for pos, (name, q) in enumerate(chain):
        consumer = chain[pos - 1][1] if pos else None
        for r in range(a, b):
            if r == q or tokens.texts[r] != name or tokens.kinds[r] != ID or tokens.texts[r - 1] in (".", "->"):
                continue
            if consumer is not None and inside_definition(tokens, r, consumer):
                continue
            if consumer is None and launch_block_of(tokens, r, a):
                why = kernel_reason(tokens, project, launch_kernel(tokens, r, a), "x")
                if why:
                    return why
                continue
            return f"{name} is also used at line {tokens.line(r)}"
    return ""


def inside_definition(tokens: Tokens, r: int, q: int) -> bool:
    """Token r lies in the initializer of the definition whose name is at q (`dim3 t(x, y)`, `int v = ...`)."""
    if tokens.texts[q + 1] in ("(", "{") and (q + 1) in tokens.partner:
        return q + 1 < r < tokens.partner[q + 1]
    if tokens.texts[q + 1] == "=":
        return q + 1 < r <= tokens.scan_to(q + 2, tokens.count, (";", ","))
    return False


def launch_block_of(tokens: Tokens, r: int, a: int) -> bool:
    """Token r is the whole block argument of a `<<<grid, r ...>>>` launch."""
    return tokens.texts[r - 1] == "," and tokens.texts[r + 1] in (",", ">>>") and launch_start(tokens, r, a) is not None


def launch_start(tokens: Tokens, r: int, a: int) -> int | None:
    q = r - 1
    while q > a and tokens.texts[q] not in ("<<<", ";", "{", "}"):
        q -= 1
    if tokens.texts[q] != "<<<":
        return None
    args = tokens.split_commas(q + 1, tokens.scan_to(q + 1, tokens.count, (">>>",)))
    return q if len(args) >= 2 and args[1] == (r, r + 1) else None


def launch_kernel(tokens: Tokens, r: int, a: int) -> str:
    """Name of the kernel launched by the `<<<...>>>` whose block argument is token r ("" if none)."""
    k = launch_start(tokens, r, a)
    if k is None:
        return ""
    q = k - 1
    if tokens.texts[q] == ">":  # K<T><<<...>>>
        while q > a and tokens.texts[q] != "<":
            q -= 1
        q -= 1
    return tokens.texts[q]


def kernel_reason(tokens: Tokens, project: ProjectFacts, name: str, dim: str) -> str:
    """kernel_width_reason for the kernel called `name`, defined here or in one of the file's own headers."""
    kern = next((g for g in tokens.functions if g.kernel and g.name == name), None)
    if kern is not None:
        return kernel_width_reason(tokens, kern, dim)
    for n, why_x, why_y in project.kernel_widths:
        if n == name:
            return why_x if dim == "x" else why_y
    return f"the kernel {name or '?'} is not in this file or its headers"


def kernel_width_reason(tokens: Tokens, kern: Func, dim: str, where: str = "line ") -> str:
    """Why the kernel's use of blockDim.<dim>/threadIdx.<dim> is not all through warpSize; "" if it is.
    `where` prefixes the line number ("line " here, "kernels.h:" for a header's kernel)."""
    a, b = kern.body
    steps = loop_steps(tokens, a, b)
    seen = False
    for r in range(a, b):
        if tokens.texts[r] not in ("threadIdx", "blockDim") or tokens.texts[r + 1] != "." or tokens.texts[r + 2] != dim:
            continue
        if not width_use_ok(tokens, r, r + 3, dim, steps):
            return f"{tokens.texts[r]}.{dim} in {kern.name} at {where}{tokens.line(r)} is not taken through warpSize"
        seen |= tokens.texts[r] == "threadIdx"
    # a kernel that never reads threadIdx.<dim> would only run more (or fewer) copies of the same work
    return "" if seen else f"{kern.name} does not read threadIdx.{dim}: a wider block repeats its work"


def width_use_ok(tokens: Tokens, r: int, e: int, dim: str, steps: dict[str, set[str]]) -> bool:
    tx = tokens.texts
    after, before = tx[e:e + 5], tx[r - 3:r]
    if dim == "y":
        return (after[:2] == ["*", "warpSize"]
                or (before[-1:] == ["+"] and "warpSize" in steps.get(before[-2], set())))
    if tx[r] == "blockDim":  # blockDim.x / warpSize; a block-stride step `i += blockDim.x`, `i = i + blockDim.x`
        return after[:2] == ["/", "warpSize"] or before[-1:] == ["+="] or (
            before[0] == "=" and before[2] == "+" and tx[r - 4] == before[1])
    if after[:2] in (["%", "warpSize"], ["/", "warpSize"]) or after == ["&", "(", "warpSize", "-", "1"]:
        return True
    if before[-3:] == ["*", "warpSize", "+"]:  # y * warpSize + threadIdx.x: blockDim.x is the warp
        return True
    if before[-1:] == ["+"] and "warpSize" in steps.get(before[-2], set()):  # j0 + threadIdx.x, j0 += warpSize
        return True
    # for (int i = threadIdx.x; ...; i += warpSize | blockDim.x)
    return before[-1:] == ["="] and after[:1] == [";"] and bool(
        steps.get(before[-2], set()) & {"warpSize", "blockDim"})


def loop_steps(tokens: Tokens, a: int, b: int) -> dict[str, set[str]]:
    """For each `for` loop variable in [a, b): the names in its step expression (`i += warpSize`)."""
    out: dict[str, set[str]] = {}
    for q in range(a, b):
        if tokens.texts[q] != "for" or tokens.texts[q + 1] != "(" or (q + 1) not in tokens.partner:
            continue
        rp = tokens.partner[q + 1]
        s1 = tokens.scan_to(q + 2, rp, (";",))
        s2 = tokens.scan_to(s1 + 1, rp, (";",))
        if not (s1 < s2 < rp):
            continue
        var = next((tokens.texts[z - 1] for z in range(q + 2, s1) if tokens.texts[z] == "="), None)
        if var is not None and tokens.uses_name(var, s2 + 1, rp):
            out.setdefault(var, set()).update(tokens.names(s2 + 1, rp) - {var})
    return out
