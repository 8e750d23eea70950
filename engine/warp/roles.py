"""Roles of warp-width values (issue 9, WAVE64.md "Roles before rules").

A warp-width constant (`#define WS 32`, `constexpr int kWarp = 32`, a host `warp_size = 32`) is followed to
every use in the file, and each use gets a role:

- `lane`: the hardware lane/wave width (lane ids, warp ids, shuffle loop bounds, last lane, per-lane arrays);
- `virtual`: a 32-wide sub-group (`width` argument of a shuffle, `tiled_partition<WS>`, or any use in a
  function whose every cross-lane operation is such a sub-group);
- `launch`: block and launch sizing, host arithmetic;
- `bit-word`: bits per 32-bit word (`x % WS` on a bit index, `WS != sizeof(int) * 8`);
- `number`: anything else (not understood).

Only `lane` uses need a wave64 change. A constant whose uses are all `lane` is raised (SAFE). One with
`lane` uses and other roles is SPLIT: a new `<NAME>_LANES` constant takes the lane uses and the original
keeps its value; the group is SAFE only when every other use was understood as `virtual` or `bit-word`.
A constant with no `lane` use gets no finding.

Functions are classified too: a device function whose cross-lane operations (its own and its device
callees') are all 32-wide sub-group operations is a *virtual warp*; its lane ids, warp ids and loops are
correct on wave64 and are not rewritten (`base.VIRTUAL_OK`).
"""

from __future__ import annotations

from pathlib import Path

from ..edits import Edit
from .base import BALLOT_CALLS, BLOCK_WORDS, MAX_INCLUDERS, PTX_WARP, SHFL_CALLS, Base, Hit
from .lex import ID, NUM, STR, int_value

LANE, VIRTUAL, LAUNCH, BITWORD, NUMBER = "lane", "virtual", "launch", "bit-word", "number"
# whole-wavefront operations. __activemask is not one: as a *_sync mask it only has to be 64 bits wide (W64-04)
# `__all` is not one either: true on a 64-lane wavefront only when both 32-lane halves agree, it is the
# conservative answer for each half (a fast path taken less often), so a 32-lane group that votes stays right.
HW_OPS = (BALLOT_CALLS - {"__activemask"}) | frozenset({
    "__any", "__any_sync", "__lanemask_lt", "__lanemask_gt", "__lanemask_eq", "__lane_id",
    "warpSize", "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
    "__reduce_or_sync", "__reduce_xor_sync"})
TILE_WORDS = frozenset({"tiled_partition", "thread_block_tile"})
UNDERSTOOD = frozenset({LANE, VIRTUAL, BITWORD})
ROLE_TEXT = {LAUNCH: "sizes the launch or host arithmetic", BITWORD: "counts the bits of a 32-bit word",
             NUMBER: "is used as a plain number", VIRTUAL: "is the width of a 32-lane sub-group"}


class RoleRules(Base):
    # ------------------------------------------------------------------ functions
    def classify_functions(self) -> None:
        """Fill `virtual_fns`: device functions outside any hardware context (no whole-wavefront operation in
        them, their callees or their callers); their cross-lane operations are all 32-wide sub-groups."""
        by_name: dict[str, list[int]] = {}
        for f in self.funcs:
            if f.device:
                by_name.setdefault(f.name, []).append(f.index)
        own: dict[int, tuple[bool, bool]] = {}
        callees: dict[int, set[int]] = {}
        sure: set[int] = set()  # whole-wavefront by a ballot, vote, lane mask, warpSize or PTX (not a shuffle)
        for f in self.funcs:
            if not f.device:
                continue
            a, b = f.body
            virt = hw = False
            cs: set[int] = set()
            for k in range(a + 1, b):
                x = self.tx[k]
                if self.kd[k] == STR:
                    continue
                if x in SHFL_CALLS and self.tx[k + 1] == "(":
                    if self.shuffle_width(k) is not None or self.half_wave_offset(k, a):
                        virt = True
                    else:
                        hw = True
                elif x in HW_OPS and self.tx[k - 1] not in (".", "->") and not self.compared(k):
                    hw = True
                    sure.add(f.index)
                elif x in TILE_WORDS:
                    virt = True
                elif x in ("asm", "__asm__", "__asm"):
                    if any(self.kd[q] == STR and PTX_WARP.search(self.tx[q]) for q in range(k, min(b, k + 8))):
                        hw = True
                        sure.add(f.index)
                elif self.kd[k] == ID and x in by_name and self.is_call(k):
                    cs.update(by_name[x])
                elif x in self.facts.wave_funcs and self.kd[k] == ID and self.is_call(k):
                    hw = True  # a helper of the file's own headers that uses the whole wavefront
                    sure.add(f.index)
            own[f.index] = (virt, hw)
            callees[f.index] = cs
            for c in cs:
                self.links.append((f"fn:{f.index}", f"fn:{c}"))  # a helper and its callers change together
        # hardware context: a function with a whole-wavefront operation, everything it calls and everything
        # that calls it. Outside it, 32-lane "warps" are virtual: lockstep sub-groups of a 64-lane wavefront
        callers: dict[int, set[int]] = {}
        for fi, cs in callees.items():
            for c in cs:
                callers.setdefault(c, set()).add(fi)
        hw_ctx: set[int] = set()
        for graph in (callees, callers):
            todo = [fi for fi, (_v, hw) in own.items() if hw]
            seen = set(todo)
            while todo:
                for c in graph.get(todo.pop(), ()):
                    if c not in seen:
                        seen.add(c)
                        todo.append(c)
            hw_ctx |= seen
        # for the files that include this one (project.py): functions with a whole-wavefront operation other
        # than a shuffle (a shuffle by a variable offset may stay within 32 lanes), or calling one
        todo = list(sure)
        while todo:
            for c in callers.get(todo.pop(), ()):
                if c not in sure:
                    sure.add(c)
                    todo.append(c)
        self.wave_fns = {self.funcs[fi].name for fi in sure}
        self.virtual_fns = {fi for fi in own if fi not in hw_ctx}

    def compared(self, k: int) -> bool:
        """`warpSize == 32` / `if (warpSize > 32)`: a runtime check, not a use of the wavefront."""
        cmp = ("==", "!=", ">", "<", ">=", "<=")
        arith = ("%", "/", "*", "&", "-", "+", ">>", "<<", "|", "^")
        return self.tx[k] == "warpSize" and self.tx[k - 1] not in arith and self.tx[k + 1] not in arith and (
            self.tx[k + 1] in cmp or self.tx[k - 1] in cmp)

    def is_call(self, k: int) -> bool:
        """`f(` or `f<T, 4>(` at k."""
        if self.tx[k + 1] == "(":
            return True
        if self.tx[k + 1] != "<":
            return False
        for q in range(k + 2, min(k + 12, self.n)):
            if self.tx[q] in (";", "{", "}"):
                return False
            if self.tx[q] in (">", ">>"):
                return self.tx[q + 1] == "("
        return False

    def shuffle_width(self, k: int) -> int | None:
        """Token index of the explicit width argument of the shuffle at k (not warpSize), else None."""
        if (k + 1) not in self.pairs:
            return None
        args = self.split_args(k + 1)
        if len(args) != (4 if self.tx[k].endswith("_sync") else 3):
            return None
        wa, wb = args[-1]
        if "warpSize" in self.names(wa, wb):
            return None
        fi = self.owner[k]
        if wb == wa + 1 and fi >= 0:  # a helper parameter `int width = warpSize` is the whole wavefront
            ha, hb = self.funcs[fi].header
            if any(self.tx[q] == self.tx[wa] and self.tx[q + 1] == "=" and self.tx[q + 2] == "warpSize"
                   for q in range(ha, hb)):
                return None
        return wa

    def half_wave_offset(self, k: int, lo: int) -> bool:
        """A width-less `__shfl_down`/`__shfl_xor` whose offset is at most 16: lane i only reads lanes of its
        own 32-lane half (xor), or lanes that its half's leader never reads across (down). A reduction like
        that, with leaders `tid % 32 == 0`, computes one sum per 32 lanes on a 64-lane wavefront too."""
        base = self.tx[k].removesuffix("_sync")
        if base not in ("__shfl_down", "__shfl_xor") or (k + 1) not in self.pairs:
            return False
        args = self.split_args(k + 1)
        if len(args) != (3 if self.tx[k].endswith("_sync") else 2):
            return False
        oa, ob = args[-1]
        if ob == oa + 1 and self.kd[oa] == NUM:
            v = int_value(self.tx[oa])
            return v is not None and 0 < v <= 16
        if ob != oa + 1 or self.kd[oa] != ID:
            return False
        var = self.tx[oa]
        q = k
        while q > lo:  # the enclosing `for (int var = INIT; ...; var >>= 1)`
            q -= 1
            if self.tx[q] == "for" and self.tx[q + 1] == "(" and (q + 1) in self.pairs and self.pairs[q + 1] < k:
                hdr = self.tx[q + 2:self.pairs[q + 1]]
                if var in hdr and "=" in hdr and hdr.index("=") == hdr.index(var) + 1:
                    i = hdr.index("=") + 1
                    init = hdr[i:hdr.index(";")] if ";" in hdr else []
                    step = hdr[len(hdr) - 2:]
                    halving = step in ([">>=", "1"], ["/=", "2"])
                    if step in (["*=", "2"], ["<<=", "1"]) and hdr.count(";") == 2:
                        # doubling: `for (m = 1; m < 0x1f; m *= 2)`: offsets stay below the bound
                        c0 = hdr.index(";") + 1
                        cond = hdr[c0:hdr.index(";", c0)]
                        if len(cond) == 3 and cond[0] == var and cond[1] in ("<", "<="):
                            lim = int_value(cond[2])
                            if cond[2] in self.w32_consts or cond[2] in self.facts.w32:
                                lim = 32
                            return lim is not None and (lim <= 32 if cond[1] == "<" else lim <= 16)
                        return False
                    if not halving:
                        return False
                    if len(init) == 1 and (int_value(init[0]) or 99) <= 16:
                        return True
                    if len(init) == 3 and init[0] in self.w32_consts and init[1:] in (["/", "2"], [">>", "1"]):
                        return True
                    return False
        return False

    # ------------------------------------------------------------------ constants
    def use_role(self, k: int, name: str) -> str:
        """Role of the use of warp-width constant `name` at token k."""
        fi = self.owner[k]
        f = self.funcs[fi] if fi >= 0 else None
        tx = self.tx
        empty: set[str] = set()
        self.tid, self.gid, self.lane, self.lane32, self.warp, self.ballot = self.fn_state.get(
            fi, (empty, empty, empty, empty, empty, empty))
        lo = f.body[0] + 1 if f is not None else k
        if self.pp[k] >= 0:  # another macro's body
            lo = k
            while lo > 0 and self.pp[lo - 1] == self.pp[k]:
                lo -= 1
        elif f is None:
            lo = self.stmt_start(k, 0)
        # tile and width arguments: a 32-lane sub-group
        if tx[k - 1] == "<" and tx[k - 2] in TILE_WORDS:
            return VIRTUAL
        call = self.enclosing_call(k)
        if call is not None and tx[call] in SHFL_CALLS and self.shuffle_width(call) is not None:
            wa = self.shuffle_width(call)
            if wa is not None and wa <= k < self.pairs[call + 1]:
                return VIRTUAL
        if f is not None and not f.device:
            return LAUNCH
        if f is not None and f.index in self.virtual_fns:
            return VIRTUAL
        if call is not None and tx[call] in ("dim3", "__launch_bounds__"):
            return LAUNCH
        if "<<<" in tx[self.stmt_start(k, lo):k] or tx[k - 1] == "<<<":
            return LAUNCH
        if self.in_bits_context(k, lo):
            return BITWORD
        # lane id / warp id / warp count: tid % WS, tid & (WS - 1), tid / WS, blockDim.x / WS
        if tx[k - 1] in ("%", "/") or (tx[k - 1] == "(" and tx[k - 2] == "&" and tx[k + 1] == "-"):
            op = k - 1 if tx[k - 1] != "(" else k - 2
            la, lb = self.left_operand(op, lo)
            if self.tid_derived(la, lb) or self.is_blockdim(la, lb) or self.laneish(la, lb):
                return LANE
            if self.names(la, lb) & (BLOCK_WORDS | {"blockDim", "gridDim"}) or tx[la] == "sizeof":
                return LAUNCH
            return NUMBER
        # loop bounds and strides next to a shuffle, last lane, shuffle offsets
        s = self.stmt_start(k, lo)
        hdr = s - 2 if s >= 2 and tx[s - 1] == "(" and tx[s - 2] == "for" else None
        if hdr is None:
            q = k
            while q > lo and not (tx[q] == "(" and tx[q - 1] == "for" and q in self.pairs and self.pairs[q] > k):
                if tx[q] in ("{", "}"):
                    break
                q -= 1
            hdr = q - 1 if tx[q] == "(" and tx[q - 1] == "for" else None
        if hdr is not None:
            rp = self.pairs.get(hdr + 1, hdr + 1)
            end = self.pairs.get(rp + 1, rp + 40) if tx[rp + 1] == "{" else rp + 40
            if any(tx[q] in SHFL_CALLS or ("shfl" in tx[q] and tx[q + 1] == "(")
                   for q in range(rp, min(end, self.n))):
                return LANE
            init_lane = self.laneish(hdr + 2, rp)
            if init_lane and tx[k - 1] in ("+=",):
                return LANE
        if tx[k + 1] == "-" and self.is_int(k + 2, 1):  # WS - 1: the last lane or a lane mask
            a, b = self.stmt_bounds(k, lo, self.pairs.get(lo - 1, k + 40))
            if self.laneish(a, b) or self.names(a, b) & SHFL_CALLS:
                return LANE
        if call is not None and tx[call] in SHFL_CALLS:
            return LANE  # offset or source lane of a width-less shuffle
        # array of one slot per lane: __shared__ T s[WS]
        if tx[k - 1] == "[" and tx[k + 1] == "]":
            st = self.stmt_start(k, lo)
            if "__shared__" in tx[st:k]:
                return LANE
        if tx[k - 1] in ("*",) or tx[k + 1] in ("*",):
            other = tx[k - 2] if tx[k - 1] == "*" else tx[k + 2]
            if other in self.warp:
                return LANE  # `sbase = warp_id * WS`: the first lane of a warp moves with the warp id
            st = self.stmt_start(k, lo)
            if "__shared__" not in tx[st:k]:
                return LAUNCH
        return NUMBER


    def in_bits_context(self, k: int, lo: int) -> bool:
        """`WS` next to sizeof(...) * 8, or `x % WS` / `x / WS` feeding a shift of a non-lane value."""
        a, b = self.stmt_bounds(k, lo, k + 60)
        words = self.tx[a:b]
        if "sizeof" in words and "8" in words:
            return True
        if self.tx[k - 1] in ("%", "/") and "<<" in words:
            la, lb = self.left_operand(k - 1, lo)
            return not (self.tid_derived(la, lb) or self.laneish(la, lb))
        return False

    def constant_roles(self) -> None:
        """W64-08 for every warp-width constant: raise, split or leave alone, by the roles of its uses."""
        for name, lit in self.w32_consts.items():
            def_tok = self.def_token(name, lit)
            uses = [k for k, (x, kind) in enumerate(zip(self.tt, self.kd, strict=True))
                    if kind == ID and x == name and k != def_tok and self.tx[k - 1] not in (".", "->")
                    and not (self.tx[k - 1] == "define")]
            roles = [(k, self.use_role(k, name)) for k in uses]
            lane = [k for k, r in roles if r == LANE]
            other = [(k, r) for k, r in roles if r != LANE]
            if not lane:
                continue
            host_def = self.owner[lit] >= 0 and not self.funcs[self.owner[lit]].device
            if host_def:
                continue  # host definitions are host variables (host_variables)
            key = f"w32:{name}"
            for k in lane:
                if self.owner[k] >= 0:
                    self.links.append((key, f"fn:{self.owner[k]}"))
                elif self.pp[k] >= 0:
                    self.links.append((key, f"macro:{self.macro_name(k)}"))
            ext, complete = self.includer_roles(name)
            if not other and not ext and complete:
                self.needs.ws = True
                self.add(Hit("W64-08", lit, [self.edit(lit, "64", "W64-08")], [self.edit(lit, "HIPPORT_WS", "W64-08")],
                             f"{name} = 64", f"{name} = HIPPORT_WS (64 on gfx8/gfx9, 32 elsewhere)",
                             f"Warp-size constant {name} is 32 and every use ({len(lane)}) is the hardware lane width "
                             "(lane ids, warp ids, shuffle loops, per-lane slots): all of them are wrong on a "
                             "64-lane wavefront.", key, uses=lane, use_roles=dict.fromkeys(lane, LANE)))
                continue
            # split: a new lane constant takes the lane uses, the original keeps its other roles
            new = f"{name}_LANES"
            while new in self.tx_set:
                new += "_"
            w64 = [Edit(*self.def_insert(name, lit, new, "64"), "W64-08")]
            port = [Edit(*self.def_insert(name, lit, new, "HIPPORT_WS"), "W64-08")]
            for k in lane:
                w64.append(self.edit(k, new, "W64-08"))
                port.append(self.edit(k, new, "W64-08"))
            self.needs.ws = True
            first_bad = next(((k, r) for k, r in other if r not in UNDERSTOOD), None)
            ext_bad = next(((f, ln, r) for f, ln, r in ext if r not in UNDERSTOOD), None)
            if first_bad:
                review = f"{name} also {ROLE_TEXT[first_bad[1]]} at line {self.line(first_bad[0])}"
            elif ext_bad:
                review = f"{name} also {ROLE_TEXT[ext_bad[2]]} at {ext_bad[0]}:{ext_bad[1]}"
            elif not complete:
                review = (f"{name} is defined beside more than {MAX_INCLUDERS} project files: its uses in the "
                          "files that include it were not all read")
            else:
                review = ""
            parts = []
            if other:
                k0, _r0 = first_bad or other[0]
                parts.append(f"{len(other)} other here ({', '.join(sorted({r for _, r in other}))}, e.g. line "
                             f"{self.line(k0)})")
            if ext:
                f0, ln0, _r = ext_bad or ext[0]
                parts.append(f"{len(ext)} in files that include it ({', '.join(sorted({r for _, _, r in ext}))}, "
                             f"e.g. {f0}:{ln0})")
            if not complete:
                parts.append("its uses in files that include it not all read")
            self.add(Hit("W64-08", lit, w64, port, f"split: {new} = 64 for the {len(lane)} lane uses",
                         f"split: {new} = HIPPORT_WS for the {len(lane)} lane uses",
                         f"Warp-size constant {name} is 32 and plays more than one role: {len(lane)} of its uses "
                         f"are the hardware lane width, {' and '.join(parts)}. "
                         f"Raising it would break the latter: the fix adds {new} for the lane uses.",
                         key, review=review, uses=lane + [k for k, _ in other],
                         use_roles={**dict.fromkeys(lane, LANE), **dict(other)}),
                     claim=[lit, *lane])

    def includer_roles(self, name: str) -> tuple[list[tuple[str, int, str]], bool]:
        """Uses of this file's warp-size constant `name` in the project files that include this file, other
        than the lane width (those files change their own lane uses: header_constant_roles): (file, line,
        role); and whether every file that may include it was read (project.includer_uses)."""
        if not self.facts.path or self.facts.includer_uses is None:
            return [], True
        if self._includer_uses is None:
            names = frozenset(n for n, lit in self.w32_consts.items()
                              if not (self.owner[lit] >= 0 and not self.funcs[self.owner[lit]].device))
            self._includer_uses = self.facts.includer_uses(Path(self.facts.path), self.text, names, self.rocm, self.wave32)
        uses, complete = self._includer_uses
        return [(f, ln, r) for n, f, ln, r in uses if n == name and r != LANE], complete

    def header_constant_roles(self) -> None:
        """A warp-size constant defined in one of the file's own headers: its lane uses here take the lane
        width directly (64 / HIPPORT_WS), which agrees with whatever the header's own fix does (raise or
        split); its other uses keep the header's value."""
        for name in sorted(self.facts.w32 - self.w32_consts.keys()):
            uses = [k for k, (x, kind) in enumerate(zip(self.tt, self.kd, strict=True)) if kind == ID and x == name
                    and self.tx[k - 1] not in (".", "->", "define", "ifdef", "ifndef", "defined")]
            roles = [(k, self.use_role(k, name)) for k in uses]
            lane = [k for k, r in roles if r == LANE]
            if not lane:
                continue
            other = [(k, r) for k, r in roles if r != LANE]
            first_bad = next(((k, r) for k, r in other if r not in UNDERSTOOD), None)
            review = f"{name} also {ROLE_TEXT[first_bad[1]]} at line {self.line(first_bad[0])}" if first_bad else ""
            self.needs.ws = True
            key = f"w32:{name}"
            for k in lane:
                if self.owner[k] >= 0:
                    self.links.append((key, f"fn:{self.owner[k]}"))
            self.add(Hit("W64-08", lane[0], [self.edit(k, "64", "W64-08") for k in lane],
                         [self.edit(k, "HIPPORT_WS", "W64-08") for k in lane],
                         f"{name} -> 64 where it is the lane width", f"{name} -> HIPPORT_WS where it is the lane width",
                         f"Warp-size constant {name} (32, from a header of this file) is the hardware lane width in "
                         f"{len(lane)} uses here: on a 64-lane wavefront they need 64.", key, review=review,
                         uses=lane[1:] + [k for k, _ in other],
                         use_roles={**dict.fromkeys(lane, LANE), **dict(other)}), claim=lane)

    def def_token(self, name: str, lit: int) -> int:
        q = lit
        while q > 0 and self.tx[q] != name:
            q -= 1
        return q

    def def_insert(self, name: str, lit: int, new: str, value: str) -> tuple[int, int, str]:
        """(start, end, text) inserting a definition of `new` = value right after `name`'s definition."""
        if self.pp[lit] >= 0:
            end = self.text.find("\n", self.en[lit])
            end = len(self.text) if end < 0 else end
            while end > 0 and self.text[end - 1] == "\\":  # continued directive
                nxt = self.text.find("\n", end + 1)
                end = len(self.text) if nxt < 0 else nxt
            return end, end, f"\n#define {new} {value}"
        e = self.scan_to(lit, self.n, (";",))
        s = self.stmt_start(lit, 0)
        words = [self.tx[q] for q in range(s, lit) if self.tx[q] in ("static", "constexpr", "const", "__device__",
                                                                      "__constant__", "inline")]
        quals = " ".join(w for w in words if w != "__constant__") or "const"
        if "constexpr" not in quals and "const" not in quals.split():
            quals = "const " + quals
        if e >= self.n or self.tx[e] != ";" or self.tx[s] == "enum" or "{" in self.tx[s:lit]:
            return self.en[lit], self.en[lit], ""
        return self.en[e], self.en[e], f" {quals} int {new} = {value};"

    # ------------------------------------------------------------------ host variables
    def in_launch(self, k: int, a: int, b: int) -> bool:
        """The statement of token k is a kernel launch or a dim3, or sets a name that one uses."""
        s, e = self.stmt_bounds(k, a, b)
        words = self.tx[s:e]
        if "<<<" in words or "dim3" in words or "hipLaunchKernelGGL" in words:
            return True
        target = next((self.tx[q] for q in range(s, e) if self.tx[q + 1] == "=" and self.kd[q] == ID), None)
        if target is None:
            return False
        for q in range(a, b):
            if self.tx[q] == target and q not in range(s, e):
                s2, e2 = self.stmt_bounds(q, a, b)
                if "<<<" in self.tx[s2:e2] or "dim3" in self.tx[s2:e2]:
                    return True
        return False

    def host_variables(self) -> None:
        """`int devID, warp_size = 32;` in host code: one finding at the initializer, listing its uses."""
        for name, lit in self.host_vars.items():
            fi = self.owner[lit]
            a, b = self.funcs[fi].body
            uses = [k for k in range(a, b) if self.kd[k] == ID and self.tx[k] == name and k != lit - 2]
            if not any(self.in_launch(k, a, b) for k in uses):
                continue  # debug buffers, caps (`t > warpSize ? warpSize : t`): not launch geometry
            const_ctx = any(self.tx[q] in ("constexpr",) for q in range(self.stmt_start(lit, a), lit)) or any(
                self.tx[k - 1] == "<" or self.tx[k - 1] == "[" for k in uses)
            first = uses[0] if uses else lit
            w64 = [self.edit(lit, "64", "W64-10")]
            port = None if const_ctx else [self.edit(lit, "hipport_host_warp_size()", "W64-10")]
            if port is not None:
                self.needs.host_ws = True
            self.add(Hit("W64-10", lit, w64, port, f"{name} = 64", f"{name} = hipport_host_warp_size()",
                         f"Host variable {name} holds a warp size of 32 and is used {len(uses)} times on the host "
                         "(launch geometry, kernel arguments): on MI-series GPUs a wavefront has 64 lanes. Every use "
                         "derives from this one value, so querying the device here is exact for all of them.", f"hostvar:{name}:{fi}", "medium",
                         review="" if port is not None else f"{name} is a compile-time constant on the host "
                         f"(line {self.line(first)}): no runtime query fits", uses=uses,
                         use_roles=dict.fromkeys(uses, LAUNCH)))
