"""The logical-warp helpers (engine/warp/logical_warp.h, part DEVICE, AMD branch) keep CUDA's meaning
of every warp collective on a 64-wide wave (issue 18: "every collective, with partial masks, divergent
lanes, and widths 1-32").

How: g++ builds the helpers' text, as `helper_parts()` gives it, into logical_warp_model.cpp: a CPU
model of one gfx9 wave (64 lanes as coroutines; each cross-lane builtin runs for exactly the lanes that
reach it together, the "min-PC" rule of SIMT hardware, so a lane that left a loop or took the other
branch is inactive there and a shuffle from it reads 0, as ds_bpermute does). The expected results
come from `cuda_results` below: CUDA's semantics of a 32-lane warp, written from the PTX ISA text
(shfl.sync pseudo-code, vote/match/redux over the non-exited lanes of the mask), independently of the
helpers. Lanes 0-31 and 32-63 of the wave must each behave as an independent CUDA warp whose lane i is
physical lane half*32 + i. A lane that CUDA leaves undefined (a shuffle that reads a lane outside the
mask or not running) is not compared.

A lane that does not run is, for CUDA, exited: a full mask over a partial block is legal, and CUDA
counts only the non-exited lanes of the mask. Lanes that run under different masks (groups) run the
instruction together, as converged CUDA lanes may."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hipport.engine.warp.logical import helper_parts

MODEL_SOURCE = Path(__file__).with_name("logical_warp_model.cpp")
FULL64 = (1 << 64) - 1
FULL32 = (1 << 32) - 1
UNWRITTEN = 0x5E5E5E5E5E5E5E5E  # logical_warp_model.cpp: a shared slot nobody wrote

TYPE_BYTES = {"i32": 4, "u32": 4, "f32": 4, "f64": 8, "i64": 8, "u16": 2, "c2": 2, "s8": 8}
SHUFFLES = {  # op -> PTX shfl mode
    "shfl_sync": "idx", "shfl_up_sync": "up", "shfl_down_sync": "down", "shfl_xor_sync": "bfly",
    "shfl": "idx", "shfl_up": "up", "shfl_down": "down", "shfl_xor": "bfly",
}
VOTES = ("ballot_sync", "any_sync", "all_sync", "uni_sync", "ballot", "activemask", "any", "all")
MATCHES = ("match_any_sync", "match_all_sync")
REDUCES = {"reduce_add_sync": ("i32", "u32"), "reduce_min_sync": ("i32", "u32"), "reduce_max_sync": ("i32", "u32"),
           "reduce_and_sync": ("u32",), "reduce_or_sync": ("u32",), "reduce_xor_sync": ("u32",)}
LANE_REGISTERS = ("lane_id", "lanemask_lt", "lanemask_le", "lanemask_eq", "lanemask_ge", "lanemask_gt")
UNMASKED = {"shfl", "shfl_up", "shfl_down", "shfl_xor", "ballot", "activemask", "any", "all"}
WIDTHS = (1, 2, 4, 8, 16, 32, 64, 0, None)  # None: the helper called without a width (CUDA: warpSize)


@dataclass(frozen=True)
class Case:
    """One call of one helper by the `active` lanes of a 64-lane wave."""

    op: str
    type: str = "i32"
    width: int | None = None        # shuffles; syncwarp: None calls hipport_syncwarp() without a mask
    active: int = FULL64
    masks: tuple[int, ...] = (FULL32,) * 64
    args: tuple[int, ...] = (0,) * 64    # source lane, delta, lane mask, predicate or partner offset
    values: tuple[int, ...] = (0,) * 64  # value bits (low TYPE_BYTES bytes)

    def line(self) -> str:
        w = -1 if self.width is None else self.width
        return " ".join([self.op, self.type, str(w), f"{self.active:x}", *(f"{m & FULL32:x}" for m in self.masks),
                         *(str(a) for a in self.args), *(f"{v & FULL64:x}" for v in self.values)])


# ------------------------------------------------------------------ CUDA's semantics (the reference)
def ptx_shfl_source(mode: str, lane: int, b: int, width: int | None) -> int:
    """The lane a CUDA `__shfl*_sync(m, v, b, width)` reads (PTX ISA, shfl.sync pseudo-code, with the
    `c` operand CUDA's header builds from the width)."""
    w = 32 if width is None else width
    c = (((32 - w) << 8) | (0 if mode == "up" else 0x1F)) & FULL32
    bval, cval, segmask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & segmask) | (cval & ~segmask & 31)
    min_lane = lane & segmask
    if mode == "up":
        j, ok = lane - bval, lane - bval >= max_lane
    elif mode == "down":
        j, ok = lane + bval, lane + bval <= max_lane
    elif mode == "bfly":
        j, ok = lane ^ bval, (lane ^ bval) <= max_lane
    else:
        j = min_lane | (bval & ~segmask & 31)
        ok = j <= max_lane
    return j if ok else lane


def _signed(bits: int, nbytes: int) -> int:
    top = 1 << (8 * nbytes - 1)
    return (bits & (2 * top - 1)) - ((bits & top) << 1)


Result = int | None | str  # bits; None: CUDA leaves it undefined; "-": the lane does not run


def _reduce(op: str, type_: str, values: list[int]) -> int:
    if op in ("reduce_min_sync", "reduce_max_sync"):
        key = (lambda v: _signed(v, 4)) if type_ == "i32" else None
        return (min if op == "reduce_min_sync" else max)(values, key=key)
    acc = FULL32 if op == "reduce_and_sync" else 0
    for v in values:
        if op == "reduce_add_sync":
            acc = (acc + v) & FULL32
        elif op == "reduce_and_sync":
            acc &= v
        elif op == "reduce_or_sync":
            acc |= v
        else:
            acc ^= v
    return acc


# (predicate bits of the lanes, the lanes taking part, the running lanes) -> one lane's result
VOTE_RESULTS: dict[str, Callable[[int, int, int], int]] = {
    "ballot_sync": lambda yes, members, _running: yes & members,
    "ballot": lambda yes, members, _running: yes & members,
    "activemask": lambda _yes, _members, running: running,
    "any_sync": lambda yes, members, _running: int(yes & members != 0),
    "any": lambda yes, members, _running: int(yes & members != 0),
    "all_sync": lambda yes, members, _running: int(yes & members == members),
    "all": lambda yes, members, _running: int(yes & members == members),
    "uni_sync": lambda yes, members, _running: int(yes & members in (0, members)),
}


def _lane_register(op: str, lane: int) -> int:
    if op == "lane_id":
        return lane
    return {"lt": (1 << lane) - 1, "le": (2 << lane) - 1, "eq": 1 << lane,
            "ge": FULL32 & ~((1 << lane) - 1), "gt": FULL32 & ~((2 << lane) - 1)}[op[-2:]]


def cuda_warp(case: Case, half: int) -> list[Result]:
    """CUDA's result on each lane of one 32-lane warp: lane i is physical lane half*32 + i."""
    base, op = 32 * half, case.op
    running = (case.active >> base) & FULL32
    vmask = (1 << (8 * TYPE_BYTES[case.type])) - 1
    values = [v & vmask for v in case.values[base:base + 32]]
    yes = sum(1 << j for j in range(32) if case.args[base + j] != 0)  # predicates
    unmasked = op in UNMASKED or op in LANE_REGISTERS or (op == "syncwarp" and case.width is None)
    out: list[Result] = []
    for i in range(32):
        mask = FULL32 if unmasked else case.masks[base + i] & FULL32
        members = mask & running  # CUDA counts the non-exited lanes of the mask
        arg = case.args[base + i]
        r: Result
        if not (running >> i) & 1:
            r = "-"
        elif not (mask >> i) & 1:
            r = None  # the caller must be in its own mask
        elif op in SHUFFLES:
            j = ptx_shfl_source(SHUFFLES[op], i, arg, case.width)
            r = values[j] if j == i or (members >> j) & 1 else None  # reading outside the mask: undefined
        elif op in VOTE_RESULTS:
            r = VOTE_RESULTS[op](yes, members, running)
        elif op in MATCHES:
            same = sum(1 << j for j in range(32) if (members >> j) & 1 and values[j] == values[i])
            if op == "match_any_sync":
                r = same
            else:  # the non-exited lanes of the mask and pred = 1 when they all agree, else 0 and pred = 0
                r = (1 << 32) | members if same == members else 0
        elif op in REDUCES:
            r = _reduce(op, case.type, [values[j] for j in range(32) if (members >> j) & 1])
        elif op in LANE_REGISTERS:
            r = _lane_register(op, i)
        elif op == "syncwarp":  # wrote my slot, __syncwarp(m), read logical lane (i + arg) % 32's slot
            j = (i + arg) & 31
            if not (running >> j) & 1:
                r = UNWRITTEN  # nobody wrote it
            elif (mask >> j) & 1:
                r = case.values[base + j] & FULL64
            else:
                r = None  # a race in CUDA: my __syncwarp(m) does not order a lane outside m
        else:
            raise AssertionError(f"no reference for {op}")
        out.append(r)
    return out


def cuda_results(case: Case) -> list[Result]:
    return cuda_warp(case, 0) + cuda_warp(case, 1)


# ------------------------------------------------------------------------------------ the model
def _gxx_cxx20() -> str | None:
    """Why the model cannot be built here, or None."""
    if shutil.which("g++") is None:
        return "g++ is not installed"
    probe = "#include <ucontext.h>\n#include <version>\nstatic_assert(__cplusplus >= 202002L);\nint main() {}\n"
    p = subprocess.run(["g++", "-std=c++20", "-x", "c++", "-", "-o", "/dev/null"], input=probe,
                       capture_output=True, text=True, timeout=120)
    return None if p.returncode == 0 else f"g++ lacks C++20 or <ucontext.h>: {p.stderr[-300:]}"


@pytest.fixture(scope="session")
def cxx20() -> None:
    why = _gxx_cxx20()
    if why:
        pytest.skip(why)


def build_model(directory: Path, device_text: str) -> Path:
    """The model program built around `device_text` (the DEVICE part, or a variant of it)."""
    (directory / "include" / "hip").mkdir(parents=True, exist_ok=True)
    (directory / "include" / "hip" / "hip_runtime.h").write_text("/* the model supplies the builtins */\n")
    (directory / "hipport_logical_warp_device.h").write_text(device_text + "\n")
    exe = directory / "model"
    p = subprocess.run(["g++", "-std=c++20", "-O0", "-fno-omit-frame-pointer", "-g0", "-fwrapv", "-Wall", "-Wextra",
                        "-I", str(directory / "include"), "-I", str(directory), str(MODEL_SOURCE), "-o", str(exe)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return exe


@pytest.fixture(scope="session")
def model(cxx20: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("logical_warp_model"), helper_parts()["DEVICE"])


def run_model(exe: Path, cases: Sequence[Case]) -> list[list[str]]:
    p = subprocess.run([str(exe)], input="".join(c.line() + "\n" for c in cases), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()]
    assert len(rows) == len(cases) and all(len(r) == 64 for r in rows), p.stdout[-2000:]
    return rows


class ModelSession:
    """One model process that answers case after case (hypothesis runs many small examples)."""

    def __init__(self, exe: Path) -> None:
        self.process = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)

    def run(self, cases: Sequence[Case]) -> list[list[str]]:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write("".join(c.line() + "\n" for c in cases))  # a few KiB: no pipe fills up
        stdin.flush()
        rows = [stdout.readline().split() for _ in cases]
        if not all(len(r) == 64 for r in rows):
            self.process.kill()
            _, err = self.process.communicate(timeout=30)
            raise AssertionError(f"the model stopped: {err}")
        return rows

    def close(self) -> None:
        self.process.communicate(input="", timeout=60)


@pytest.fixture(scope="session")
def model_session(model: Path) -> Iterator[ModelSession]:
    session = ModelSession(model)
    yield session
    session.close()


def mismatches(cases: Sequence[Case], rows: Sequence[Sequence[str]],
               reference: Callable[[Case], list[Result]] = cuda_results, limit: int = 8) -> list[str]:
    """Every lane where the helpers differ from CUDA, described so that it can be reproduced."""
    found: list[str] = []
    for case, row in zip(cases, rows, strict=True):
        expected = reference(case)
        for lane, (want, got) in enumerate(zip(expected, row, strict=True)):
            if want is None:
                continue
            want_text = want if isinstance(want, str) else f"{want:x}"
            if got != want_text:
                half, i = divmod(lane, 32)
                args = case.args[32 * half:32 * half + 32]
                found.append(
                    f"{case.op}<{case.type}> width={case.width} lane {lane} (warp {half} lane {i}): "
                    f"expected {want_text}, got {got}; active={case.active:016x} mask={case.masks[lane]:08x} "
                    f"arg={case.args[lane]}" + ("" if len(set(args)) == 1 else f" args of the warp={list(args)}")
                    + f" values of the warp={' '.join(f'{v:x}' for v in case.values[32 * half:32 * half + 32])}")
                if len(found) >= limit:
                    return found
    return found


def check(exe: Path, cases: Sequence[Case]) -> None:
    bad = mismatches(cases, run_model(exe, cases))
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------------------------- case making
ACTIVE_SETS = {
    "full": FULL64,
    "first 45": (1 << 45) - 1,
    "first 7": (1 << 7) - 1,
    "lower half": FULL32,
    "upper half": FULL32 << 32,
    "odd lanes": 0xAAAAAAAAAAAAAAAA,
    "divergent": 0x9F3C_00F1_7FFF_FFFE,
}


def masks_for(active: int, style: str, groups: Sequence[int] = (), exited: int = 0) -> tuple[int, ...]:
    """The mask each lane passes. full: 0xffffffff; exact: the running lanes of its warp; groups: the
    running lanes with its group id, plus some lanes that do not run (exited for CUDA)."""
    out = []
    for lane in range(64):
        base = lane & 32
        running = (active >> base) & FULL32
        if style == "full":
            out.append(FULL32)
        elif style == "exact":
            out.append(running)
        else:
            g = groups[lane]
            mine = sum(1 << j for j in range(32) if (running >> j) & 1 and groups[base + j] == g)
            out.append(mine | (exited & ~running & FULL32))
    return tuple(out)


def _rand_values(rng: random.Random, type_: str, pool: int = 0) -> tuple[int, ...]:
    bits = 8 * TYPE_BYTES[type_]
    if pool:
        choices = [rng.getrandbits(bits) for _ in range(pool)]
        return tuple(rng.choice(choices) for _ in range(64))
    return tuple(rng.getrandbits(bits) for _ in range(64))


ALL_OPS = (*SHUFFLES, *VOTES, *MATCHES, *REDUCES, *LANE_REGISTERS, "syncwarp")


def _arg_range(op: str) -> tuple[int, int]:
    if SHUFFLES.get(op) == "idx":
        return -70, 70  # any source lane: CUDA and HIP take it modulo the width
    if op in SHUFFLES or op == "syncwarp":
        return 0, 31  # deltas and lane masks of 32 and more: test_deltas_of_32_and_more
    return -2, 2  # predicates


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """The structure is drawn (and shrunk) by hypothesis; the 64 lanes' bulk data comes from a seed."""
    op = draw(st.sampled_from(ALL_OPS))
    rng = random.Random(draw(st.integers(0, 2**32)))
    active = draw(st.one_of(st.just(FULL64), st.integers(1, 64).map(lambda k: (1 << k) - 1),
                            st.sampled_from(sorted(ACTIVE_SETS.values())),
                            st.just(None).map(lambda _: rng.getrandbits(64) or 1)))
    style = draw(st.sampled_from(["full", "exact", "groups"]))
    ngroups = draw(st.integers(1, 4))
    masks = masks_for(active, style, [rng.randrange(ngroups) for _ in range(64)], rng.getrandbits(32))
    if op in SHUFFLES or op in MATCHES:
        type_ = draw(st.sampled_from(sorted(TYPE_BYTES)))
    elif op in REDUCES:
        type_ = draw(st.sampled_from(REDUCES[op]))
    else:
        type_ = "i64" if op == "syncwarp" else "i32"
    if op in SHUFFLES:
        width = draw(st.sampled_from(WIDTHS))
    elif op == "syncwarp":
        width = draw(st.sampled_from([None, 32]))  # hipport_syncwarp() or hipport_syncwarp(m)
    else:
        width = None
    lo, hi = _arg_range(op)
    if draw(st.booleans()):  # one argument for the whole warp (the usual call), or one per lane
        args: tuple[int, ...] = (draw(st.integers(lo, hi)),) * 64
    else:
        args = tuple(rng.randint(lo, hi) for _ in range(64))
    pool = draw(st.sampled_from([1, 2, 3, 5, 0])) if op in MATCHES else 0  # few distinct values: groups
    return Case(op, type_, width, active, masks, args, _rand_values(rng, type_, pool))


# ---------------------------------------------------------------------------------------- tests
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(cases(), min_size=1, max_size=3))
def test_every_collective_matches_cuda_on_random_waves(model_session: ModelSession, batch: list[Case]) -> None:
    bad = mismatches(batch, model_session.run(batch))
    assert not bad, "\n".join(bad)


def test_shuffles_sweep_every_width_and_lane_offset(model: Path) -> None:
    """Every shuffle x width 1-32 (and 64, none) x every delta / lane mask 0-31 and source lane
    -33..40, on a full wave and on divergent lanes with three mask groups per warp."""
    rng = random.Random(18)
    batch = []
    for active, style in ((FULL64, "full"), (ACTIVE_SETS["divergent"], "groups")):
        masks = masks_for(active, style, [(lane // 5) % 3 for lane in range(64)])
        for op, mode in SHUFFLES.items():
            widths: Sequence[int | None] = WIDTHS if op not in UNMASKED else (8, 32, None)
            if op in UNMASKED and active != FULL64:
                continue  # the same code as the _sync form
            for width in widths:
                for b in (range(-33, 41) if mode == "idx" else range(32)):
                    batch.append(Case(op, "i32", width, active, masks, (b,) * 64, _rand_values(rng, "i32")))
    assert len(batch) > 3000
    check(model, batch)


def test_shuffles_move_every_value_type(model: Path) -> None:
    """int, unsigned, float, double, long long, a 2-byte integer, a 2-byte struct, an 8-byte struct."""
    rng = random.Random(1)
    batch = []
    for type_ in TYPE_BYTES:
        for op in SHUFFLES:
            for width in (4, 32, None):
                for active in (FULL64, ACTIVE_SETS["divergent"]):
                    lo, hi = _arg_range(op)
                    batch.append(Case(op, type_, width, active, masks_for(active, "full"),
                                      tuple(rng.randint(lo, hi) for _ in range(64)), _rand_values(rng, type_)))
    check(model, batch)


def test_votes_matches_reductions_on_every_partial_block(model: Path) -> None:
    """First k lanes running, k = 1..64 (a partial last block), with a full mask; and for some k the
    exact mask and two mask groups per warp: every collective other than the shuffles."""
    rng = random.Random(7)
    batch = []
    for k in range(1, 65):
        active = (1 << k) - 1
        for style in ("full", "exact", "groups") if k in (1, 17, 31, 32, 33, 50, 63, 64) else ("full",):
            masks = masks_for(active, style, [lane & 1 for lane in range(64)], 0xF0F0F0F0)
            preds = tuple(rng.choice([0, 0, 1, -1, 2]) for _ in range(64))
            batch += [Case(op, "i32", None, active, masks, preds) for op in VOTES]
            batch += [Case(op, "i32", None, active, masks, (1,) * 64) for op in ("all_sync", "all", "uni_sync")]
            for op in MATCHES:
                batch.append(Case(op, "i32", None, active, masks, values=_rand_values(rng, "i32", pool=3)))
                batch.append(Case(op, "f64", None, active, masks, values=(0x4000000000000000,) * 64))
            batch += [Case(op, type_, None, active, masks, values=_rand_values(rng, type_))
                      for op, types in REDUCES.items() for type_ in types]
            batch.append(Case("syncwarp", "i64", None if style == "full" else 32, active, masks,
                              (rng.randrange(32),) * 64, _rand_values(rng, "i64")))
    for active in (FULL64, ACTIVE_SETS["first 45"], ACTIVE_SETS["divergent"]):
        batch += [Case(op, "i32", None, active) for op in LANE_REGISTERS]
    check(model, batch)


def test_the_two_halves_diverge_inside_a_helper(model: Path) -> None:
    """One logical warp takes the full-mask path of a reduction while the other loops over a partial
    mask; match_any runs a different number of rounds in each half. Each half still gets its own."""
    rng = random.Random(3)
    active = FULL32 | (0x0000F00F << 32)
    batch = [Case(op, type_, None, active, masks_for(active, "exact"), values=_rand_values(rng, type_))
             for op, types in REDUCES.items() for type_ in types]
    distinct = tuple(range(100, 164))  # 32 rounds in the lower warp, 8 in the upper one
    batch.append(Case("match_any_sync", "u32", None, active, masks_for(active, "full"), values=distinct))
    batch.append(Case("match_any_sync", "u32", None, FULL64, masks_for(FULL64, "full"),
                      values=tuple(lane % 2 if lane < 32 else lane for lane in range(64))))
    check(model, batch)


# ------------------------------------------------------------------------- offsets past 31
# PTX shfl.sync reads only b[4:0] of the delta / lane mask: CUDA's __shfl_down_sync(m, v, 33) reads lane+1 and
# __shfl_xor_sync(m, v, -1) reads lane^31 (the helpers compared the whole value until this test found it)
OUT_OF_RANGE_OFFSETS = (33, 40, 47, 63, -1, -31)


def test_deltas_of_32_and_more(model: Path) -> None:
    rng = random.Random(32)
    batch = [Case(op, "i32", width, FULL64, args=(b,) * 64, values=_rand_values(rng, "i32"))
             for op in ("shfl_up_sync", "shfl_down_sync", "shfl_xor_sync") for width in (32, 16, None)
             for b in OUT_OF_RANGE_OFFSETS]
    check(model, batch)


def test_deltas_that_are_multiples_of_32_agree(model: Path) -> None:
    """b[4:0] == 0: CUDA and the helpers both return the caller's own value."""
    rng = random.Random(64)
    check(model, [Case(op, "i32", width, FULL64, args=(b,) * 64, values=_rand_values(rng, "i32"))
                  for op in ("shfl_up_sync", "shfl_down_sync", "shfl_xor_sync") for width in (32, 8, None)
                  for b in (32, 64, 96)])


# -------------------------------------------------------------------------- the tests can fail
def _ballot_cases() -> list[Case]:
    rng = random.Random(5)
    return [Case(op, "i32", None, active, masks_for(active, "full"), tuple(rng.choice([0, 1]) for _ in range(64)))
            for op in ("ballot_sync", "ballot", "activemask") for active in (FULL64, ACTIVE_SETS["divergent"])]


def test_a_wrong_reference_is_reported(model: Path) -> None:
    """The comparison catches a reference that gets the logical warps wrong: a ballot not shifted for
    the upper half (the low word of the wave's 64-bit ballot), and a width of 64 taken literally (a
    shuffle reads lane src % 64 of the wave instead of src % 32 of its logical warp)."""
    votes = _ballot_cases()
    rows = run_model(model, votes)
    assert not mismatches(votes, rows)

    def unshifted(case: Case) -> list[Result]:
        right = cuda_results(case)
        low_word = sum(1 << j for j in range(32)
                       if (case.active >> j) & 1 and (case.op == "activemask" or case.args[j] != 0))
        mask = [FULL32 if case.op in UNMASKED else case.masks[32 + i] for i in range(32)]
        return right[:32] + [r if r in ("-", None) else low_word & mask[i] for i, r in enumerate(right[32:])]

    assert mismatches(votes, rows, unshifted)

    rng = random.Random(9)
    shuffles = [Case("shfl_sync", "i32", 64, FULL64, args=(b,) * 64, values=_rand_values(rng, "i32"))
                for b in (5, 31, 40, 63)]
    rows = run_model(model, shuffles)
    assert not mismatches(shuffles, rows)

    def width_as_64(case: Case) -> list[Result]:
        return [case.values[case.args[lane] & 63] for lane in range(64)]

    assert mismatches(shuffles, rows, width_as_64)


# one known defect each, applied together to a copy of the helpers (one build); each is caught by
# its own cases, which touch none of the other two
MUTATIONS = {
    # the ballot of the upper logical warp read as the wave's low 32 bits
    "ballot not shifted": ("(unsigned)(__ballot(p) >> hipport_half_())", "(unsigned)(__ballot(p))"),
    # shuffles read across the whole wave: the upper warp reads the lower warp's lanes
    "shuffle over 64 lanes": ("bits = (long long)__shfl((int)bits, (int)src, 32);",
                              "bits = (long long)__shfl((int)bits, (int)src, 64);"),
    # __syncwarp that fences but does not wait for the other lanes
    "syncwarp without barrier": ("  __builtin_amdgcn_wave_barrier();\n", ""),
}


def test_broken_helpers_are_caught(cxx20: None, tmp_path: Path) -> None:
    """The same checks fail on a copy of the helpers with known defects (the engine's file is untouched)."""
    text = helper_parts()["DEVICE"]
    for name, (old, new) in MUTATIONS.items():
        assert text.count(old) == 1, f"the helpers changed: update the mutation {name!r}"
        text = text.replace(old, new)
    exe = build_model(tmp_path, text)
    rng = random.Random(11)
    caught_by = {
        "ballot not shifted": _ballot_cases(),
        "shuffle over 64 lanes": [Case("shfl_xor_sync", "i32", 32, FULL64, args=(1,) * 64,
                                       values=_rand_values(rng, "i32"))],
        "syncwarp without barrier": [Case("syncwarp", "i64", None, FULL64, args=(1,) * 64,
                                          values=_rand_values(rng, "i64"))],
    }
    for name, batch in caught_by.items():
        assert mismatches(batch, run_model(exe, batch)), f"{name}: not caught"


def test_every_helper_of_the_device_part_is_exercised() -> None:
    """A helper added to the DEVICE part without a case here fails this test (names from the text)."""
    text = helper_parts()["DEVICE"]
    amd = text[text.index("#else"):]
    public = {n for n in re.findall(r"\bhipport_(\w+?)\s*\(", amd) if not n.endswith("_")}
    assert public <= set(ALL_OPS), sorted(public - set(ALL_OPS))
