"""Host code (W64-10, W64-12, W64-20): launch geometry and host-side warp-size arithmetic. A block width of
32 at the launch of a kernel that takes its lanes from warpSize is SAFE to change only when every use of the
width is understood (hostflow.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..facts import FileFacts
from ..hits import Hit, HitLog
from ..hostflow import inside_definition, kernel_reason, launch_block_of, launch_kernel, width_uses_reason
from ..lex import ID, NUM, int_value
from ..scopes import Func
from ..tokens import Tokens
from ..words import HOST_THREADS, HOST_TRIGGERS, WARPISH
from .interface import CheckOutput, Upstream
from .warp_size import guard

HOST_WARP_SIZES = ("warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__")


@dataclass
class HostFunction:
    facts: FileFacts
    log: HitLog
    func: Func
    # dim3 definition -> its kernels' threadIdx.y verdicts, for the widths of 32 understood (launch_width)
    understood_blocks: dict[int, list[str]] = field(default_factory=dict)

    @property
    def tokens(self) -> Tokens:
        return self.facts.tokens

    @property
    def key(self) -> str:
        return f"host:{self.func.index}"


def check_host(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    log = HitLog(upstream.claimed)
    for f in facts.tokens.functions:
        if not f.device:
            host_function(HostFunction(facts, log, f))
    return CheckOutput(log)


def host_function(h: HostFunction) -> None:
    a, b = h.func.body
    tx = h.tokens.texts
    block_names = launches(h)
    for k in [j for j in range(a, b) if tx[j] in HOST_TRIGGERS or tx[j] == "32"]:
        x = tx[k]
        # dim3 block(32) used as a launch's block
        if x == "dim3" and h.tokens.kinds[k + 1] == ID and tx[k + 2] == "(" and tx[k + 1] in block_names:
            block_literal(h, k + 3, h.tokens.partner.get(k + 2, k + 3))
        if h.tokens.kinds[k] == NUM and int_value(x) == 32 and "." not in x:
            launch_math(h, k)
        if h.tokens.kinds[k] == ID and x in HOST_WARP_SIZES:
            host_warp_size(h, k)
        if x in ("==", "!="):
            guard(h.tokens, h.log, k, h.key)


def launches(h: HostFunction) -> set[str]:
    """The launches' block arguments (W64-12, W64-10 widths); returns the block names they use."""
    a, b = h.func.body
    tokens = h.tokens
    tx = tokens.texts
    block_names = set()
    for k in [j for j in range(a, b) if tx[j] == "<<<" or tx[j] == "hipLaunchKernelGGL"]:
        if tx[k] == "<<<":
            end = next((q for q in range(k, b) if tx[q] == ">>>"), None)
            args = tokens.split_commas(k + 1, end) if end is not None else []
            block_at = 1
        elif tx[k + 1] == "(" and (k + 1) in tokens.partner:
            args = tokens.split_args(k + 1)
            block_at = 2
        else:
            continue
        if len(args) <= block_at:
            continue
        ba, bb = args[block_at]
        if bb == ba + 1 and tokens.kinds[ba] == ID:
            block_names.add(tx[ba])
        block_literal(h, ba, bb)
        if tx[k] == "<<<":
            launch_width(h, a, b, k, ba, bb, h.key)
    return block_names


def launch_math(h: HostFunction, k: int) -> None:
    """W64-10: host launch math with the literal 32 at k (`n * 32` with a warp-ish name, `threads / 32`)."""
    tokens = h.tokens
    tx, kd = tokens.texts, tokens.kinds
    other = None
    mode = ""
    if tx[k - 1] == "*" and kd[k - 2] == ID:
        other, mode = tx[k - 2], "mul"
    elif tx[k + 1] == "*" and kd[k + 2] == ID:
        other, mode = tx[k + 2], "mul"
    elif tx[k - 1] == "/" and (kd[k - 2] == ID or tx[k - 2] == ")"):
        la, lb = tokens.left_operand(k - 1, h.func.body[0])
        ns = tokens.names(la, lb)
        if any(HOST_THREADS.search(n) for n in ns) or "blockDim" in ns:
            other = next(iter(ns))
        mode = "div"
    if other is None or not (mode == "div" or WARPISH.search(other)):
        return
    h.log.needs.host_ws = True
    review = "" if mode == "div" and block_height_understood(h, k, *h.func.body) else (
        f"host launch math at line {tokens.line(k)}: whether it means one hardware wavefront depends on the kernel")
    h.log.add(Hit("W64-10", k, [tokens.edit(k, "64", "W64-10")], [tokens.edit(k, "hipport_host_warp_size()", "W64-10")],
                  "64 threads per wavefront", "query the device's warp size",
                  "Host launch math assumes 32 threads per warp: on MI-series GPUs a wavefront "
                  "has 64, so thread counts, warp counts or shared-memory sizes disagree with the "
                  "kernel.", h.key, "medium", review=review))


def host_warp_size(h: HostFunction, k: int) -> None:
    """W64-10: warpSize (ROCm >= 7) or __AMDGCN_WAVEFRONT_SIZE used in host code; a local `int warpSize = 32;`
    or a warp-size constant is not (a constant's host use is one of its roles: roles.py)."""
    tokens, facts = h.tokens, h.facts
    x = tokens.texts[k]
    if tokens.texts[k - 1] in (".", "->") or (x == "warpSize" and facts.rocm < (7, 0)) \
            or x in facts.host_warp_size_vars or x in facts.warp_size_constants:
        return
    h.log.needs.host_ws = True
    h.log.add(Hit("W64-10", k, [tokens.edit(k, "64", "W64-10")], [tokens.edit(k, "hipport_host_warp_size()", "W64-10")],
                  "64", "query the device's warp size",
                  f"{x} used in host code: " + ("device-only from ROCm 7.0." if x == "warpSize" else
                                                "it is 64 in the host pass even for wave32 GPUs."),
                  h.key, "high"))


def block_literal(h: HostFunction, a: int, b: int) -> None:
    lits = [q for q in range(a, b) if h.tokens.kinds[q] == NUM]
    if not lits or any(h.tokens.kinds[q] == ID and h.tokens.texts[q] != "dim3" for q in range(a, b)):
        return
    prod = 1
    for q in lits:
        v = int_value(h.tokens.texts[q])
        if v is None:
            return
        prod *= v
    if prod % 64 and 1 < prod <= 1024:  # a launch of one thread is deliberate (`<<<1, 1>>>`)
        h.log.add(Hit("W64-12", lits[0], None, None, "", "",
                     f"Block of {prod} threads is not a multiple of 64: on MI-series GPUs the last wavefront "
                     "runs partly empty, and width-64 reductions read inactive lanes as 0.",
                     f"perf:{lits[0]}", "medium"))


def launch_width(h: HostFunction, a: int, b: int, k: int, ba: int, bb: int, key: str) -> None:
    """`int threads = 32 * rows; K<<<g, threads>>>` or `dim3 t(32, y)` where kernel K takes its lanes from
    warpSize: the host passes a width of 32 while the kernel uses the wavefront (issue 9). SAFE when every
    use of the width is understood (hostflow.py), else REVIEW naming the use."""
    q = k - 1
    if h.tokens.texts[q] == ">":  # K<T><<<...>>>
        while q > a and h.tokens.texts[q] != "<":
            q -= 1
        q -= 1
    kern = next((g for g in h.tokens.functions if g.kernel and g.name == h.tokens.texts[q]), None)
    name = h.tokens.texts[q]
    uses_ws = kern is not None and "warpSize" in h.tokens.texts[kern.body[0]:kern.body[1]]
    if not (uses_ws or (kern is None and name in h.facts.project.warp_kernels)):
        return
    chain: list[tuple[str, int]] = []
    x = block_x(h, a, k, ba, bb, 0, chain)
    if x is None:
        return
    h.log.needs.host_ws = True
    why = width_uses_reason(h.tokens, h.facts.project, a, b, chain) if chain else kernel_reason(h.tokens, h.facts.project, name, "x")
    if not why:
        for nm, q in chain:
            if h.tokens.texts[q - 1] == "dim3":
                h.understood_blocks[q] = [kernel_reason(h.tokens, h.facts.project, launch_kernel(h.tokens, r, a), "y")
                                             for r in range(a, b) if h.tokens.texts[r] == nm and launch_block_of(h.tokens, r, a)]
    h.log.add(Hit("W64-10", x, [h.tokens.edit(x, "64", "W64-10")], [h.tokens.edit(x, "hipport_host_warp_size()", "W64-10")],
                 "64 threads per wavefront", "query the device's warp size",
                 f"The block's width of 32 threads at the launch of {name} is one warp, but the kernel takes "
                 "its lanes from warpSize: on a 64-lane wavefront half of each wave's lanes get no work.",
                 key, "medium", review=why))


def block_x(h: HostFunction, a: int, k: int, ba: int, bb: int, depth: int,
            chain: list[tuple[str, int]] | None = None) -> int | None:
    """Token index of a literal 32 that sets the x size of the block expression [ba, bb), else None.
    `chain` receives each variable the value goes through (name, its defining token), launch side first."""
    if depth > 3:
        return None
    lits = [q for q in range(ba, bb) if h.tokens.is_int(q, 32) and h.tokens.texts[q - 1] not in ("/", "%")
            and h.tokens.texts[q + 1] not in ("/", "%")]
    if lits and all(h.tokens.texts[q] not in ("+", "-") for q in range(ba, bb)):
        return lits[0]
    if bb == ba + 1 and h.tokens.kinds[ba] == ID:
        name = h.tokens.texts[ba]
        for q in range(k - 1, a, -1):  # the nearest definition before the launch
            if h.tokens.texts[q] != name or h.tokens.texts[q - 1] in (".", "->"):
                continue
            if h.tokens.texts[q + 1] == "=" and h.tokens.texts[q - 1] in ("int", "unsigned", "size_t", ",", "const", "auto"):
                e = h.tokens.scan_to(q + 2, k, (";", ","))
                if chain is not None:
                    chain.append((name, q))
                return block_x(h, a, q, q + 2, e, depth + 1, chain)
            if h.tokens.texts[q - 1] == "dim3" and h.tokens.texts[q + 1] in ("(", "{") and (q + 1) in h.tokens.partner:
                parts = h.tokens.split_commas(q + 2, h.tokens.partner[q + 1])
                if chain is not None:
                    chain.append((name, q))
                return block_x(h, a, q, parts[0][0], parts[0][1], depth + 1, chain) if parts else None
    return None


def block_height_understood(h: HostFunction, k: int, a: int, b: int) -> bool:
    """`int ty = MAX / 32;` (k: the 32) whose only use is the y size of a dim3 whose width of 32 was
    understood, for kernels that use threadIdx.y only through warpSize (hostflow.py)."""
    s = h.tokens.stmt_start(k, a)
    if h.tokens.texts[s] not in ("int", "unsigned", "const", "size_t") or h.tokens.texts[k + 1] != ";":
        return False
    q = next((z - 1 for z in range(s, k) if h.tokens.texts[z] == "="), None)
    if q is None or h.tokens.kinds[q] != ID:
        return False
    name = h.tokens.texts[q]
    uses = [r for r in range(a, b) if r != q and h.tokens.texts[r] == name and h.tokens.texts[r - 1] not in (".", "->")]
    if len(uses) != 1:
        return False
    d = next((d for d in h.understood_blocks if inside_definition(h.tokens, uses[0], d)), None)
    if d is None:
        return False
    parts = h.tokens.split_commas(d + 2, h.tokens.partner[d + 1])
    return len(parts) >= 2 and parts[1] == (uses[0], uses[0] + 1) and not any(h.understood_blocks[d])
