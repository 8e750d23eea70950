"""Device forms that span a statement: shuffle loops, per-warp shared arrays, unrolled shuffle chains,
warp-synchronous tails and inline PTX."""

from __future__ import annotations

import re

from ..edits import Edit
from .base import (
    CHAIN_COPY_BUDGET,
    FULL32,
    LANEISH,
    PTX_WARP,
    SHFL_CALLS,
    Hit,
)
from .lex import ID, NUM, STR, int_value
from .masks import MaskRules


class DeviceForms(MaskRules):
    def loop(self, k: int, b: int, key: str) -> None:
        fl = self.for_loop(k, b)
        if fl is None:
            return
        var, init, (ca, cb), sa, step, body = fl.var, fl.init, fl.cond, fl.step_span[0], fl.step, fl.body
        shfl_in_body = any(self.tx[q] in SHFL_CALLS and self.uses_name(var, q, self.pairs.get(q + 1, q + 1) + 1)
                           for q in range(body[0], body[1]) if self.tx[q + 1] == "(")
        halving = fl.halving
        doubling = step in ([var, "<<=", "1"], [var, "*=", "2"], [var, "+=", var], [var, "=", var, "*", "2"],
                            [var, "=", var, "<<", "1"])
        if shfl_in_body and halving and init[1] == init[0] + 1 and self.is_int(init[0], 16):
            q = init[0]
            self.add(Hit("W64-06", q, [self.edit(q, "32", "W64-06")], [self.edit(q, "(warpSize / 2)", "W64-06")],
                         "start the shuffle reduction at 32", "start at warpSize / 2",
                         "Shuffle reduction starting at offset 16 combines only 32 lanes: on a 64-lane wavefront "
                         "lanes 32-63 never reach lane 0.", key))
        if shfl_in_body and doubling:
            for q in range(ca, cb):
                if self.tx[q] == "<" and self.is_int(q + 1, 32) and self.tx[q - 1] == var:
                    self.add(Hit("W64-06", q + 1, [self.edit(q + 1, "64", "W64-06")],
                                 [self.edit(q + 1, "warpSize", "W64-06")],
                                 "scan up to 64 lanes", "scan up to warpSize lanes",
                                 "Shuffle scan bounded by 32 covers only half of a 64-lane wavefront.", key))
                if self.tx[q] == "<=" and self.is_int(q + 1, 16) and self.tx[q - 1] == var:
                    self.add(Hit("W64-06", q + 1, [self.edit(q + 1, "32", "W64-06")],
                                 [self.edit(q + 1, "(warpSize / 2)", "W64-06")],
                                 "scan up to 64 lanes", "scan up to warpSize lanes",
                                 "Shuffle scan bounded by 16 covers only half of a 64-lane wavefront.", key))
        # W64-18: for (i = lane; i < n; i += 32)
        if step[:2] == [var, "+="] and len(step) == 3 and self.is_int(sa + 2, 32) and self.laneish(*init):
            q = sa + 2
            self.add(Hit("W64-18", q, [self.edit(q, "64", "W64-18")], [self.edit(q, "warpSize", "W64-18")],
                         "stride 64", "stride warpSize",
                         "Warp-strided loop with stride 32 starting at a lane id: with 64 lanes per wavefront "
                         "elements are processed twice.", key))

    def shared_array(self, k: int, a: int, b: int, key: str) -> None:
        s, e = self.stmt_bounds(k, a, b)
        if any(self.tx[q] == "TempStorage" for q in range(s, e)):
            return  # W64-21
        q = k
        while q < e and not (self.kd[q] == ID and self.tx[q + 1] == "["):
            q += 1
        if q >= e or (q + 1) not in self.pairs:
            return
        name = self.tx[q]
        da, db = q + 2, self.pairs[q + 1]
        div = next((r + 1 for r in range(da, db) if self.tx[r] == "/" and self.is_int(r + 1, 32)), None)
        exact = db == da + 1 and self.is_int(da, 32)
        # `[32 * F]` in a kernel whose lanes come from warpSize: one row per lane of the real wavefront
        mul = next((r for r in range(da, db) if self.is_int(r, 32) and db - da == 3
                    and "*" in (self.tx[r - 1], self.tx[r + 1])), None)
        if mul is not None and "warpSize" in self.tx[a:b] and "%" not in self.tx[da:db]:
            self.add(Hit("W64-07", mul, [self.edit(mul, "64", "W64-07")], [self.edit(mul, "64", "W64-07")],
                         "rows for 64 lanes", "sized by the largest warp (64)",
                         f"Shared array `{name}` is sized for 32 lanes while this kernel's lanes come from "
                         "warpSize: on a 64-lane wavefront lanes 32-63 index past its end.", key, "medium"))
            return
        if div is None and not exact:
            return
        idx_warp = idx_lane = False
        for r in range(a, b):
            if r != q and self.tx[r] == name and self.tx[r + 1] == "[" and (r + 1) in self.pairs:
                ia, ib = r + 2, self.pairs[r + 1]
                ns = self.names(ia, ib)
                warp_index = bool(ns & self.warp or self.warpid32(ia, ib) is not None or (
                    "warpSize" in ns and "/" in {self.tx[z] for z in range(ia, ib)}))
                idx_warp |= warp_index
                # `partial[lane]` read only where `lane < blockDim.x / warpSize`: the warp-0 step over the
                # per-warp slots, one slot per warp (at most 32 on any target): not a per-lane use
                if (ns & self.lane or self.has_lane32(ia, ib) is not None or "__lane_id" in ns) \
                        and not self.bounded_by_warp_count(r, a, b):
                    idx_lane = True
        if div is not None and idx_warp:
            self.add(Hit("W64-07", div, [self.edit(div, "64", "W64-07")], [],
                         "one slot per 64-lane wavefront", "kept: BLOCK/32 is the most warps any target has",
                         f"Per-warp array `{name}` sized with 32 lanes per warp: on a 64-lane wavefront half the "
                         "slots are never written, and loops over all of them read uninitialised data.", key))
        elif exact and idx_lane:
            what = (f"Per-warp array `{name}[32]` (one slot per warp) is also read by a lane id that no warp count "
                    "bounds: on a 64-lane wavefront lanes 32-63 read past its end." if idx_warp else
                    f"Per-lane array `{name}[32]` indexed by a lane id overflows on a 64-lane wavefront.")
            self.add(Hit("W64-07", da, [self.edit(da, "64", "W64-07")], [self.edit(da, "64", "W64-07")],
                         "one slot per lane of a 64-lane wavefront", "sized by the largest warp (64)", what, key))

    def bounded_by_warp_count(self, r: int, a: int, b: int) -> bool:
        """The access at token r is guarded by `x < <expr> / warpSize` (or `/ 32`, `/ WS`): in a `?:` of its
        own statement or in the condition of the `if` that holds the statement."""
        s = self.stmt_start(r, a)
        conds: list[tuple[int, int]] = []
        qm = next((z for z in range(s, r) if self.tx[z] == "?"), None)
        if qm is not None:
            conds.append((s, qm))
        if self.tx[s] == "if" and self.pairs.get(s + 1, r) < r:  # if (lane < n / warpSize) v = a[lane];
            conds.append((s + 2, self.pairs[s + 1]))
        head = s - 1
        if self.tx[head] == "{" and self.tx[head - 1] == ")":
            head -= 1
        if self.tx[head] == ")" and head in self.pairs and self.tx[self.pairs[head] - 1] == "if":
            conds.append((self.pairs[head] + 1, head))
        w32 = {"warpSize", *self.w32_consts, *self.facts.w32}
        for ca, cb in conds:
            for z in range(ca, cb):
                if self.tx[z] == "<" and any(self.tx[y] == "/" and (self.tx[y + 1] in w32 or self.is_int(y + 1, 32))
                                             for y in range(z + 1, cb)):
                    return True
        return False

    def unrolled_chain(self, k: int, a: int, b: int, key: str) -> None:
        args = self.split_args(k + 1)
        sync = self.tx[k].endswith("_sync")
        if len(args) != (3 if sync else 2):  # an explicit width means deliberate sub-warp logic
            return
        oa, ob = args[-1]
        if not (ob == oa + 1 and self.is_int(oa, 16)):
            return
        # a chain already starting at 32 (or a loop) needs nothing
        if self.has_offset32_shuffle(a, b):
            return
        s = self.stmt_start(k, a)
        _, e = self.stmt_bounds(k, a, b)
        if self.tx[e] != ";" or self.tx[s] in ("for", "if", "while", "return"):
            return
        start, end = self.st[s], self.en[e]
        masks = self._full32_at.get((s, e))
        if masks is None:  # once per statement: a statement may hold thousands of chain heads
            masks = self._full32_at[(s, e)] = [q for q in range(s, e + 1)
                                               if self.kd[q] == NUM and int_value(self.tx[q]) == FULL32]
        if masks:
            self.needs.mask_t = True
        if self.dropped("W64-06", [oa]):
            return  # its edits, a copy of the statement each, would be built for nothing
        if end - start > self.chain_copy_left:
            self.add(Hit("W64-06", oa, None, None, "", "",
                         "Unrolled shuffle reduction starting at offset 16 combines only 32 lanes: on a 64-lane "
                         "wavefront lanes 32-63 never reach lane 0. Too complex to fix here (this file's "
                         f"statements holding chains exceed {CHAIN_COPY_BUDGET >> 20} MB of copies): add the "
                         "offset-32 step by hand.", key, "medium"))
            return
        self.chain_copy_left -= end - start

        def copy(mask_text: str) -> str:
            """The statement with offset 32 and the mask literal widened like the rest of the group."""
            out = []
            pos = start
            for q in sorted([*masks, oa]):
                out.append(self.text[pos:self.st[q]])
                out.append("32" if q == oa else mask_text)
                pos = self.en[q]
            out.append(self.text[pos:end])
            return "".join(out)

        line_start = self.text.rfind("\n", 0, start) + 1
        indent = self.text[line_start:start] if self.text[line_start:start].strip() == "" else ""
        nl = "\r\n" if "\r\n" in self.text[:200] else "\n"
        w = [Edit(start, start, f"{copy('0xffffffffffffffffull')}{nl}{indent}", "W64-06")]
        p = [Edit(start, start, f"if (warpSize > 32) {copy('(~lane_mask_t{0})')}{nl}{indent}", "W64-06")]
        self.add(Hit("W64-06", oa, w, p, "add the offset-32 step", "add the offset-32 step when warpSize > 32",
                     "Unrolled shuffle reduction starting at offset 16 combines only 32 lanes: on a 64-lane "
                     "wavefront lanes 32-63 never reach lane 0.", key))

    def has_offset32_shuffle(self, a: int, b: int) -> bool:
        """Whether tokens [a, b) hold a shuffle with the literal offset 32. Computed once per range: a
        function with thousands of unrolled shuffles must not rescan itself for each one."""
        found = self._offset32.get((a, b))
        if found is None:
            found = False
            for q in range(a, b):
                if self.tx[q] in SHFL_CALLS and self.tx[q + 1] == "(" and (q + 1) in self.pairs:
                    qa = self.split_args(q + 1)
                    if qa and qa[-1][1] == qa[-1][0] + 1 and self.is_int(qa[-1][0], 32):
                        found = True
                        break
            self._offset32[(a, b)] = found
        return found

    def sync_tail(self, k: int, a: int, b: int, key: str) -> None:
        lp = k + 1
        rp = self.pairs.get(lp)
        if rp is None:  # unbalanced '('
            return
        # if (L < 16) S;  where S reads [... + 16]
        if not (rp - lp == 4 and self.tx[lp + 2] == "<" and self.is_int(lp + 3, 16)):
            return
        lane_name = self.tx[lp + 1]
        if not (lane_name in self.lane or LANEISH.match(lane_name)):
            return
        ss, se = rp + 1, self.stmt_bounds(rp + 1, rp + 1, b)[1]
        sixteen = [q for q in range(ss, se) if self.is_int(q, 16) and self.tx[q - 1] == "+"]
        if not sixteen or self.tx[se] != ";":
            return
        stmt = self.text_of(ss, se + 1)
        step32 = re.sub(r"\b16\b", "32", stmt)
        line_start = self.text.rfind("\n", 0, self.st[k]) + 1
        indent = self.text[line_start:self.st[k]]
        indent = indent if indent.strip() == "" else ""
        nl = "\r\n" if "\r\n" in self.text[:200] else "\n"
        syncw = "__syncwarp();"
        if self.rocm < (7, 0):
            self.needs.syncwarp_shim = True
        w = [self.insert_before(k, f"{syncw}{nl}{indent}if ({lane_name} < 32) {step32}{nl}{indent}{syncw}{nl}{indent}",
                                "W64-14")]
        p = [self.insert_before(k, f"{syncw}{nl}{indent}if (warpSize > 32 && {lane_name} < 32) {step32}{nl}{indent}"
                                   f"{syncw}{nl}{indent}", "W64-14")]
        # keep later steps of the unrolled tail ordered, too
        q = se + 1
        while self.tx[q] == "if" and self.tx[q + 1] == "(" and (q + 1) in self.pairs:
            e2 = self.stmt_bounds(self.pairs[q + 1] + 1, q, b)[1]
            if self.tx[e2] != ";":
                break
            w.append(self.insert_after(q - 1, f"{nl}{indent}{syncw}", "W64-14"))
            p.append(self.insert_after(q - 1, f"{nl}{indent}{syncw}", "W64-14"))
            q = e2 + 1
        self.add(Hit("W64-14", lp + 3, w, p, "add the 32-lane step and __syncwarp()",
                     "add the step when warpSize > 32, and __syncwarp()",
                     "Warp-synchronous tail that starts at 16 lanes and relies on implicit lockstep: on a 64-lane "
                     "wavefront lanes 32-63 are never folded in.", key))

    def inline_ptx(self, k: int, b: int, key: str) -> None:
        q = k + 1
        while self.tx[q] in ("volatile", "__volatile__"):
            q += 1
        if self.tx[q] != "(" or q not in self.pairs:
            return
        rp = self.pairs[q]
        strs = [self.tx[z] for z in range(q, rp) if self.kd[z] == STR]
        if not strs or not PTX_WARP.search(strs[0]):
            return
        w: list[Edit] | None = None
        m = re.match(r'"\s*mov\.u32\s+%0\s*,\s*%%(laneid|lanemask_lt|lanemask_gt|lanemask_eq)\s*;?\s*"', strs[0])
        call = "__lane_id()" if m is None or m.group(1) == "laneid" else f"__{m.group(1)}()"
        var = ""
        if m:
            outs = [z for z in range(q, rp) if self.kd[z] == STR and self.tx[z].startswith('"=r"')]
            if outs and self.tx[outs[0] + 1] == "(" and outs[0] + 1 in self.pairs:
                z = outs[0] + 1
                var = self.text_of(z + 1, self.pairs[z])
                w = [Edit(self.st[k], self.en[rp], f"{var} = {call}", "W64-15")]
        if w and call != "__lane_id()" and self.owner[k] >= 0:
            # HIP's __lanemask_*() are 64-bit: the variable that held the 32-bit PTX mask widens with it
            self.narrow_mask_name(var.strip(), self.owner[k], f"asm:{k}", f"holds {call}")
        self.add(Hit("W64-15", k, w, list(w) if w else None,
                     call if w else "", call if w else "",
                     "Inline PTX with warp semantics does not compile for AMD and assumes 32-lane masks "
                     "(rewrite with __lane_id, __lanemask_lt, __ballot, __shfl*).", f"asm:{k}",
                     "high" if w else "medium"), claim=range(k, rp + 1))

