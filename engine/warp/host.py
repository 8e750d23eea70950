"""Host code: launch geometry and host-side warp-size arithmetic."""

from __future__ import annotations

from .base import (
    HOST_THREADS,
    HOST_TRIGGERS,
    WARPISH,
    Hit,
)
from .hostflow import HostFlow
from .lex import ID, NUM, int_value
from .scopes import Func


class HostRules(HostFlow):
    def host_function(self, f: Func) -> None:
        a, b = f.body
        key = f"host:{f.index}"
        block_names = set()
        self.understood_blocks = {}
        tx = self.tx
        for k in [j for j in range(a, b) if tx[j] == "<<<" or tx[j] == "hipLaunchKernelGGL"]:
            x = self.tx[k]
            if x == "<<<":
                end = next((q for q in range(k, b) if self.tx[q] == ">>>"), None)
                if end is None:
                    continue
                args = self.split_commas(k + 1, end)
                if len(args) >= 2:
                    ba, bb = args[1]
                    if bb == ba + 1 and self.kd[ba] == ID:
                        block_names.add(self.tx[ba])
                    self.block_literal(ba, bb)
                    self.launch_width(a, b, k, ba, bb, key)
            if x == "hipLaunchKernelGGL" and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                args = self.split_args(k + 1)
                if len(args) >= 3:
                    ba, bb = args[2]
                    if bb == ba + 1 and self.kd[ba] == ID:
                        block_names.add(self.tx[ba])
                    self.block_literal(ba, bb)
        trig = HOST_TRIGGERS
        for k in [j for j in range(a, b) if tx[j] in trig or tx[j] == "32"]:
            x = self.tx[k]
            # dim3 block(32) used as a launch's block
            if x == "dim3" and self.kd[k + 1] == ID and self.tx[k + 2] == "(" and self.tx[k + 1] in block_names:
                self.block_literal(k + 3, self.pairs.get(k + 2, k + 3))
            # host launch math with 32
            if self.kd[k] == NUM and int_value(x) == 32 and "." not in x:
                other = None
                if self.tx[k - 1] == "*" and self.kd[k - 2] == ID:
                    other = self.tx[k - 2]
                    mode = "mul"
                elif self.tx[k + 1] == "*" and self.kd[k + 2] == ID:
                    other = self.tx[k + 2]
                    mode = "mul"
                elif (self.tx[k - 1] == "/" and self.kd[k - 2] in (ID,)) or (self.tx[k - 1] == "/" and self.tx[k - 2] == ")"):
                    la, lb = self.left_operand(k - 1, a)
                    ns = self.names(la, lb)
                    if any(HOST_THREADS.search(n) for n in ns) or "blockDim" in ns:
                        other = next(iter(ns))
                    mode = "div"
                if other is not None and (mode == "div" or WARPISH.search(other)):
                    self.needs.host_ws = True
                    review = "" if mode == "div" and self.block_height_understood(k, a, b) else (
                        f"host launch math at line {self.line(k)}: whether it means one hardware wavefront "
                        "depends on the kernel")
                    self.add(Hit("W64-10", k, [self.edit(k, "64", "W64-10")],
                                 [self.edit(k, "hipport_host_warp_size()", "W64-10")],
                                 "64 threads per wavefront", "query the device's warp size",
                                 "Host launch math assumes 32 threads per warp: on MI-series GPUs a wavefront "
                                 "has 64, so thread counts, warp counts or shared-memory sizes disagree with the "
                                 "kernel.", key, "medium", review=review))
            # a warp-size constant used on the host is one of the constant's uses (roles.py)
            if self.kd[k] == ID and x in ("warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__") \
                    and self.tx[k - 1] not in (".", "->") and (x != "warpSize" or self.rocm >= (7, 0)) \
                    and x not in self.host_vars and x not in self.w32_consts:  # a local `int warpSize = 32;`
                self.needs.host_ws = True
                self.add(Hit("W64-10", k, [self.edit(k, "64", "W64-10")],
                             [self.edit(k, "hipport_host_warp_size()", "W64-10")],
                             "64", "query the device's warp size",
                             f"{x} used in host code: " + ("device-only from ROCm 7.0." if x == "warpSize" else
                                                           "it is 64 in the host pass even for wave32 GPUs."),
                             key, "high"))
            if x in ("==", "!="):
                self.guard(k, key)

    def host_runtime_context(self, k: int, a: int, b: int) -> bool:
        s, e = self.stmt_bounds(k, a, b)
        words = {self.tx[q] for q in range(s, e)}
        return not (words & {"constexpr", "static_assert", "template"}) and not any(
            self.tx[q] == "[" for q in range(s, k)) and self.tx[k - 1] != "<"

    def block_literal(self, a: int, b: int) -> None:
        lits = [q for q in range(a, b) if self.kd[q] == NUM]
        if not lits or any(self.kd[q] == ID and self.tx[q] != "dim3" for q in range(a, b)):
            return
        prod = 1
        for q in lits:
            v = int_value(self.tx[q])
            if v is None:
                return
            prod *= v
        if prod % 64 and 1 < prod <= 1024:  # a launch of one thread is deliberate (`<<<1, 1>>>`)
            self.add(Hit("W64-12", lits[0], None, None, "", "",
                         f"Block of {prod} threads is not a multiple of 64: on MI-series GPUs the last wavefront "
                         "runs partly empty, and width-64 reductions read inactive lanes as 0.",
                         f"perf:{lits[0]}", "medium"))


    def launch_width(self, a: int, b: int, k: int, ba: int, bb: int, key: str) -> None:
        """`int threads = 32 * rows; K<<<g, threads>>>` or `dim3 t(32, y)` where kernel K takes its lanes from
        warpSize: the host passes a width of 32 while the kernel uses the wavefront (issue 9). SAFE when every
        use of the width is understood (hostflow.py), else REVIEW naming the use."""
        q = k - 1
        if self.tx[q] == ">":  # K<T><<<...>>>
            while q > a and self.tx[q] != "<":
                q -= 1
            q -= 1
        kern = next((g for g in self.funcs if g.kernel and g.name == self.tx[q]), None)
        name = self.tx[q]
        uses_ws = kern is not None and "warpSize" in self.tx[kern.body[0]:kern.body[1]]
        if not (uses_ws or (kern is None and name in self.facts.warp_kernels)):
            return
        chain: list[tuple[str, int]] = []
        x = self.block_x(a, k, ba, bb, 0, chain)
        if x is None:
            return
        self.needs.host_ws = True
        why = self.width_uses_reason(a, b, chain) if chain else self.kernel_reason(name, "x")
        if not why:
            for nm, q in chain:
                if self.tx[q - 1] == "dim3":
                    self.understood_blocks[q] = [self.kernel_reason(self.launch_kernel(r, a), "y")
                                                 for r in range(a, b) if self.tx[r] == nm and self.launch_block_of(r, a)]
        self.add(Hit("W64-10", x, [self.edit(x, "64", "W64-10")], [self.edit(x, "hipport_host_warp_size()", "W64-10")],
                     "64 threads per wavefront", "query the device's warp size",
                     f"The block's width of 32 threads at the launch of {name} is one warp, but the kernel takes "
                     "its lanes from warpSize: on a 64-lane wavefront half of each wave's lanes get no work.",
                     key, "medium", review=why))

    def block_x(self, a: int, k: int, ba: int, bb: int, depth: int,
                chain: list[tuple[str, int]] | None = None) -> int | None:
        """Token index of a literal 32 that sets the x size of the block expression [ba, bb), else None.
        `chain` receives each variable the value goes through (name, its defining token), launch side first."""
        if depth > 3:
            return None
        lits = [q for q in range(ba, bb) if self.is_int(q, 32) and self.tx[q - 1] not in ("/", "%")
                and self.tx[q + 1] not in ("/", "%")]
        if lits and all(self.tx[q] not in ("+", "-") for q in range(ba, bb)):
            return lits[0]
        if bb == ba + 1 and self.kd[ba] == ID:
            name = self.tx[ba]
            for q in range(k - 1, a, -1):  # the nearest definition before the launch
                if self.tx[q] != name or self.tx[q - 1] in (".", "->"):
                    continue
                if self.tx[q + 1] == "=" and self.tx[q - 1] in ("int", "unsigned", "size_t", ",", "const", "auto"):
                    e = self.scan_to(q + 2, k, (";", ","))
                    if chain is not None:
                        chain.append((name, q))
                    return self.block_x(a, q, q + 2, e, depth + 1, chain)
                if self.tx[q - 1] == "dim3" and self.tx[q + 1] in ("(", "{") and (q + 1) in self.pairs:
                    parts = self.split_commas(q + 2, self.pairs[q + 1])
                    if chain is not None:
                        chain.append((name, q))
                    return self.block_x(a, q, parts[0][0], parts[0][1], depth + 1, chain) if parts else None
        return None

    def block_height_understood(self, k: int, a: int, b: int) -> bool:
        """`int ty = MAX / 32;` (k: the 32) whose only use is the y size of a dim3 whose width of 32 was
        understood, for kernels that use threadIdx.y only through warpSize (hostflow.py)."""
        s = self.stmt_start(k, a)
        if self.tx[s] not in ("int", "unsigned", "const", "size_t") or self.tx[k + 1] != ";":
            return False
        q = next((z - 1 for z in range(s, k) if self.tx[z] == "="), None)
        if q is None or self.kd[q] != ID:
            return False
        name = self.tx[q]
        uses = [r for r in range(a, b) if r != q and self.tx[r] == name and self.tx[r - 1] not in (".", "->")]
        if len(uses) != 1:
            return False
        d = next((d for d in self.understood_blocks if self.inside_definition(uses[0], d)), None)
        if d is None:
            return False
        parts = self.split_commas(d + 2, self.pairs[d + 1])
        return len(parts) >= 2 and parts[1] == (uses[0], uses[0] + 1) and not any(self.understood_blocks[d])
