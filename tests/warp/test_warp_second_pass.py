"""The warp analysis follows values through a device function twice when a name is read before a later
assignment gives it (a loop); it skips the second pass when no assignment reads a name assigned by itself
or after it, since that pass could then learn nothing (checks/device.reads_later_assignment). Both halves are
checked: a loop that needs the second pass still gets its finding, and skipping changes no value set and no
hit on real code (the corpus, and HeCBench 49175104c's dev benchmarks when present)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hipport.engine.source import Source
from hipport.engine.warp import analyze
from hipport.engine.warp.analyzer import Run, run_checks
from hipport.engine.warp.checks import device
from hipport.engine.warp.checks.context import CopyBudget, DeviceFunction
from hipport.engine.warp.facts import build_facts
from hipport.engine.warp.hits import HitLog

ROOT = Path(__file__).resolve().parents[2]
HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))

LOOP = """\
__global__ void k(const float* a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = 0, w = 0;
    for (int r = 0; r < 2; ++r) {
        w = lane;
        lane = threadIdx.x % 32;
    }
    float v = i < n ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    unsigned b = __ballot_sync(0xffffffff, v > 0.0f);
    if (w == 31) out[0] = v;
}
"""


def test_a_name_read_before_its_assignment_in_a_loop_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    def found() -> set[tuple[str, int]]:
        return {(f.rule, f.line) for f in analyze(Source.from_text(LOOP, "k.cu")).findings}

    assert ("W64-01", 6) in found() and ("W64-17", 12) in found()  # w is a lane id: known from pass two
    monkeypatch.setattr(device, "reads_later_assignment", lambda fn, assigned: False)
    assert ("W64-17", 12) not in found()  # the case needs the second pass: this test would catch its loss


def _reads_later_assignment(text: str) -> bool:
    facts = build_facts(text, (7, 0), False)
    (f,) = facts.tokens.functions
    fn = DeviceFunction(facts, HitLog(), facts.function_values(), f, CopyBudget())
    a, b = fn.body
    assigned = [(k, e, facts.tokens.names(k + 2, e)) for _s, k, e in facts.tokens.assignments(a, b)]
    return device.reads_later_assignment(fn, assigned)


def test_the_second_pass_runs_only_when_a_later_assignment_is_read() -> None:
    assert not _reads_later_assignment(LOOP.replace("w = lane;\n        lane", "lane"))
    assert _reads_later_assignment(LOOP)


def _state(text: str, always: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    with monkeypatch.context() as m:
        if always:
            m.setattr(device, "reads_later_assignment", lambda fn, assigned: True)
        run: Run = run_checks(build_facts(text, (7, 0), False))
    return ({k: tuple(sorted(s) for s in (v.thread_ids, v.global_ids, v.lane_ids, v.lane32_ids, v.warp_ids,
                                          v.ballots)) for k, v in run.function_values.items()},
            [(h.rule, h.anchor, h.key, h.message) for h in run.log.hits])


def _sources() -> list[Path]:
    out = sorted(p for p in (ROOT / "tests").rglob("*") if p.suffix in (".cu", ".cuh") and p.is_file())
    if (HECBENCH / "src").is_dir():
        out += sorted(p for p in (HECBENCH / "src").glob("*-cuda/**/*") if p.suffix in (".cu", ".cuh")
                      and p.is_file())[::3]
    return out


def test_skipping_the_second_pass_changes_nothing_on_real_code(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _sources()
    assert len(files) > 30
    differ = [str(p) for p in files
              if _state(p.read_text(errors="replace"), True, monkeypatch)
              != _state(p.read_text(errors="replace"), False, monkeypatch)]
    assert differ == []
