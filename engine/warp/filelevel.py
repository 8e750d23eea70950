"""File level: warp-size and mask constants, lane-id helpers and macros, preprocessor selectors,
__launch_bounds__ and CUB storage."""

from __future__ import annotations

from ..edits import Edit
from .base import (
    BLOCK_WORDS,
    FILE_TRIGGERS,
    FULL32,
    SYNC_CALLS,
    TID_WORDS,
    TYPE_WORDS,
    WARPISH,
    Base,
    Hit,
    _hex8,
)
from .lex import ID, NUM, Columns, int_value
from .prelude import prelude_offset


class FileRules(Base):
    def collect_constants(self) -> None:
        kd, pp, tt = self.kd, self.pp, self.tt
        n = self.n
        # tokens spelled `define` or followed by `=`, in order
        for i in sorted(set(self.positions(("define",))) | {p - 1 for p in self.positions(("=",)) if p >= 1}):
            # #define NAME 32 / #define NAME (32)
            if pp[i] >= 0 and tt[i] == "define" and i + 2 < n and pp[i + 1] == pp[i] and kd[i + 1] == ID:
                name = tt[i + 1]
                body = [k for k in range(i + 2, min(n, i + 8)) if pp[k] == pp[i]]
                vals = [k for k in body if kd[k] == NUM]
                if len(vals) == 1 and all(tt[k] in ("(", ")") or k == vals[0] for k in body):
                    v = int_value(tt[vals[0]])
                    if v == 32 and WARPISH.search(name):
                        self.w32_consts[name] = vals[0]
                    elif v == FULL32 and _hex8(tt[vals[0]]):
                        self.mask_consts[name] = vals[0]
            # constexpr|const [static] T NAME = 32 ;   enum { NAME = 32 }
            if pp[i] < 0 and kd[i] == ID and self.tx[i + 1] == "=" and i + 3 < n and kd[i + 2] == NUM \
                    and self.tx[i + 3] in (";", ",", "}"):
                v = int_value(tt[i + 2])
                prev = {self.tx[k] for k in range(max(0, i - 5), i)}
                constish = bool(prev & {"constexpr", "const", "enum"}) or self.tx[i - 1] in ("{", ",")
                fi = self.owner[i]
                host = fi >= 0 and not self.funcs[fi].device
                declares = self.tx[i - 1] in TYPE_WORDS or self.tx[i - 1] in ("const", ",")
                if v == 32 and WARPISH.search(tt[i]) and host and declares:
                    self.host_vars[tt[i]] = i + 2  # `int devID, warp_size = 32;` (roles.host_variables)
                elif v == 32 and WARPISH.search(tt[i]) and constish:
                    self.w32_consts[tt[i]] = i + 2
                elif v == FULL32 and _hex8(tt[i + 2]) and prev & {"constexpr", "const"} \
                        and self.owner[i] < 0:
                    self.mask_consts[tt[i]] = i + 2

    def collect_lane_helpers(self) -> None:
        for f in self.funcs:
            if not f.device or f.kernel:
                continue
            a, b = f.body
            if b - a > 40:
                continue
            for k in range(a, b):
                if self.tx[k] == "return":
                    _, e = self.stmt_bounds(k + 1, a + 1, b)
                    if self.has_lane32(k + 1, e) is not None:
                        self.lane32_funcs.add(f.name)
                        self.lane_funcs.add(f.name)
                    elif self.laneish(k + 1, e) and "warpSize" in self.names(k + 1, e):
                        self.lane_funcs.add(f.name)
                    elif self.names(k + 1, e) & TID_WORDS and not self.names(k + 1, e) & BLOCK_WORDS:
                        self.tid_funcs.add(f.name)  # `static DEVICE int Tid() { return threadIdx.x; }`
        # macros: #define LANE (threadIdx.x % 32)
        for i in self.positions(("define",)):
            if self.pp[i] >= 0 and i + 1 < self.n and self.kd[i + 1] == ID:
                body = [k for k in range(i + 2, min(self.n, i + 20)) if self.pp[k] == self.pp[i]]
                if body and self.laneish(body[0], body[-1] + 1) and self.names(body[0], body[-1] + 1) & TID_WORDS:
                    self.macro_lane.add(self.tt[i + 1])

    def directives(self) -> None:
        en, pp, st, tt = self.en, self.pp, self.st, self.tt
        n = self.n
        i = 0
        hashes = self.positions(("#",))  # every other token is stepped over: go from one `#` to the next
        h = 0
        while i < n:
            while h < len(hashes) and hashes[h] < i:
                h += 1
            if h == len(hashes):
                break
            i = hashes[h]
            if pp[i] >= 0 and tt[i] == "#" and i + 1 < n and pp[i + 1] == pp[i]:
                d = tt[i + 1]
                j = i + 2
                end = j
                while end < n and pp[end] == pp[i]:
                    end += 1
                if d in ("if", "elif"):
                    for q in range(j, end):
                        if self.tx[q] in ("__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"):
                            if self.tx[q - 1] == "defined":
                                e = self.edit(q - 1, "1", "W64-22")
                            elif self.tx[q - 1] == "(" and self.tx[q - 2] == "defined":
                                e = self.edit(q - 2, "1", "W64-22", q + 1)
                            else:
                                e = self.edit(q, "(defined(__GFX8__) || defined(__GFX9__) ? 64 : 32)", "W64-22")
                            self.add(Hit("W64-22", q, [e], [e], "select 64 by __GFX8__/__GFX9__",
                                         "select 64 by __GFX8__/__GFX9__ (device pass)",
                                         "__AMDGCN_WAVEFRONT_SIZE is deprecated and removed in recent ROCm: "
                                         "#if on it silently picks 32.", f"w32sel:{i}"),
                                     claim=[z for z in range(q - 2, q + 2)
                                            if self.st[z] >= e.start and self.en[z] <= e.end])
                if d in ("ifdef", "if") and self.wave32:
                    names = self.names(j, end)
                    if "__HIP_PLATFORM_AMD__" in names or "__HIP_PLATFORM_HCC__" in names:
                        # does the branch define a warp constant of 64?
                        q = end
                        while q < n and not (pp[q] >= 0 and self.tx[q] == "#" and self.tx[q + 1] in ("else", "elif", "endif")):
                            if pp[q] >= 0 and self.tx[q] == "define" and WARPISH.search(self.tx[q + 1]) \
                                    and self.is_int(q + 2, 64):
                                e = Edit(st[i], en[end - 1],
                                         "#if defined(__GFX8__) || defined(__GFX9__)", "W64-22")
                                self.add(Hit("W64-22", i + 1, None, [e], "", "select 64 by __GFX8__/__GFX9__",
                                             "Warp size 64 chosen for every AMD target: RDNA (gfx10/11/12) in this "
                                             "fat binary has 32-lane waves.", f"w32sel:{i}"),
                                         claim=range(i, end))
                                break
                            q += 1
                i = end
                continue
            i += 1

    def macro_ids(self) -> None:
        """`#define LANE (threadIdx.x & 31)` / `#define WARP_ID (threadIdx.x / 32)`: findings in the macro."""
        for i in self.positions(("define",)):
            if self.pp[i] < 0 or i + 1 >= self.n or self.kd[i + 1] != ID:
                continue
            name = self.tx[i + 1]
            body = [k for k in range(i + 2, min(self.n, i + 40)) if self.pp[k] == self.pp[i]]
            if not body:
                continue
            ba, bb = body[0], body[-1] + 1
            key = f"macro:{name}"
            lit = self.has_lane32(ba, bb)
            if lit is not None and self.tx[lit] not in self.w32_consts:
                is31 = self.is_int(lit, 31)
                if self.add(Hit("W64-01", lit, [self.edit(lit, "63" if is31 else "64", "W64-01")],
                                [self.edit(lit, "(warpSize - 1)" if is31 else "warpSize", "W64-01")],
                                "lane = ... % 64", "lane = ... % warpSize",
                                f"Macro {name} computes a lane id from 32 lanes: lanes 32-63 of a 64-lane "
                                "wavefront alias lanes 0-31.", key)):
                    self.macro_keys.add(name)
            lit = self.warpid32(ba, bb)
            if lit is not None:
                five = self.is_int(lit, 5)
                port = [self.edit(lit - 1, "/ warpSize", "W64-02", lit)] if five else \
                    [self.edit(lit, "warpSize", "W64-02")]
                if self.add(Hit("W64-02", lit, [self.edit(lit, "6" if five else "64", "W64-02")], port,
                                "warp id by 64", "warp id by warpSize",
                                f"Macro {name} computes a warp id with 32 lanes per warp: a 64-lane wavefront "
                                "is counted as two warps.", key), claim=[lit - 1, lit] if five else [lit]):
                    self.macro_keys.add(name)

    def file_level(self) -> None:
        # W64-08 (warp-size constants) is decided by the roles of their uses: roles.py
        # W64-03 on mask constants that reach a *_sync builtin
        for name, lit in self.mask_consts.items():
            if any(self.tx[k - 1] == "(" and self.tx[k - 2] in SYNC_CALLS for k in self.positions((name,))):
                self.needs.mask_t = True
                s = lit
                while s > 0 and self.pp[s - 1] < 0 and self.tx[s - 1] not in (";", "{", "}"):
                    s -= 1
                w = [self.edit(lit, "0xffffffffffffffffull", "W64-03")]
                p = [self.edit(lit, "(~lane_mask_t{0})", "W64-03")]
                if self.pp[lit] < 0:
                    span = self.narrow_type_span(s, lit - 2)
                    if span is not None:
                        self.widen(span, "W64-03", w, p)
                self.add(Hit("W64-03", lit, w, p, "64-bit full mask", "full mask ~lane_mask_t{0}",
                             f"Full-mask constant {name} is 32-bit: ROCm >= 7.0 rejects it in *_sync builtins; "
                             "widened naively it would drop lanes 32-63.", f"mask:{name}"))
        # W64-19: __launch_bounds__(T, MIN)
        for k in self.positions(FILE_TRIGGERS):
            if self.tt[k] == "__launch_bounds__" and self.tx[k + 1] == "(" and (k + 1) in self.pairs:
                args = self.split_args(k + 1)
                if len(args) == 2:
                    comma = args[0][1]
                    end = self.en[args[1][1] - 1]
                    e = Edit(self.st[comma], end, "", "W64-19")
                    n_text = self.text[self.st[args[1][0]]:end].strip()
                    pe = Edit(self.st[comma], end, f" HIPPORT_CUDA_MIN_BLOCKS({n_text})", "W64-19")
                    self.needs.min_blocks = True
                    self.add(Hit("W64-19", comma + 1, [e], [pe], "drop the minimum-blocks argument",
                                 "keep the minimum-blocks argument on NVIDIA only",
                                 "__launch_bounds__' second argument means minimum waves per execution unit in HIP, "
                                 "not minimum blocks per SM: CUDA values can force register caps and spills.",
                                 f"perf:{k}", "high"), claim=range(comma, args[1][1]))
            # W64-21: CUB warp storage sized with 32
            if self.tt[k] == "TempStorage" and self.kd[k + 1] == ID and self.tx[k + 2] == "[" and (k + 2) in self.pairs:
                for q in range(k + 3, self.pairs[k + 2]):
                    if self.tx[q] == "/" and self.is_int(q + 1, 32):
                        key = f"fn:{self.owner[k]}" if self.owner[k] >= 0 else f"cub:{k}"
                        self.add(Hit("W64-21", q + 1, [self.edit(q + 1, "64", "W64-21")], [],
                                     "one TempStorage per 64-lane wavefront",
                                     "kept: sized by the most warps any target has; index by "
                                     "threadIdx.x / warpSize",
                                     "CUB/hipCUB warp TempStorage sized with 32 lanes per warp: hipCUB's logical "
                                     "warp is the 64-lane wavefront on gfx9, so storage and warp ids disagree.", key))
            if self.owner[k] < 0 and self.pp[k] < 0 and self.tt[k] in ("==", "!="):
                self.guard(k, "file")
            # W64-09 at file scope (constexpr int W = warpSize; template defaults)
            if self.tt[k] == "warpSize" and self.owner[k] < 0 and self.pp[k] < 0 and self.rocm >= (7, 0) \
                    and not self.default_argument(k):
                self.needs.ws = True
                self.add(Hit("W64-09", k, [self.edit(k, "64", "W64-09")], [self.edit(k, "HIPPORT_WS", "W64-09")],
                             "64 (compile-time)", "HIPPORT_WS (arch-selected constant)",
                             "warpSize is not constexpr from ROCm 7.0: it cannot initialise a constexpr, be a "
                             "template argument or size an array.", f"const:{k}"))

    def default_argument(self, k: int) -> bool:
        """`int width = warpSize` in a function's parameter list: evaluated in device code at each call."""
        call = self.enclosing_call(k)
        return call is not None and self.tx[k - 1] == "=" and self.tx[call] not in ("static_assert", "__launch_bounds__")

    def prelude_offset(self) -> int:
        return prelude_offset(self.text, Columns(self.kd, self.tt, self.st, self.en, self.pp))
