"""Carry out a RunPlan: build, launch, collect diagnostics and results, summarise.

API:
    run_plan(plan, detection, on_line=None, on_usage=None) -> RunReport      (blocking; for the CLI)
    RunReport.status: "passed" | "failed" | "build failed" | "built, not launched" | "not ready"

The app drives the same steps itself with runner.stream (it needs the lines as they come); this
module is the headless equivalent and the one place that decides what a finished run means.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .detect import Detection
from .diagnostics import Diagnostic, explain_error, parse_diagnostics
from .monitor import sample
from .parsers import Usage
from .plan import RunPlan, Step
from .result import GemmResult, RunSummary, parse_result_line, summarize
from .runner import Exited, OutputLine, RunnerError, run_sync

# Lines kept per step for diagnostics and the explanation: the first and the last ones. A build that
# prints 100 MB must neither be held in memory nor searched as a whole after it ends (every line is
# still passed to on_line as it comes).
KEEP_HEAD = 2_000
KEEP_TAIL = 3_000
EXPLAIN_CHARS = 512 * 1024  # text searched for a known error: its start and its end


@dataclass
class StepOutcome:
    step: Step
    exited: Exited | None
    error: str | None = None  # could not start, or the explanation of a known failure
    lines: list[OutputLine] = field(default_factory=list)  # the first KEEP_HEAD and last KEEP_TAIL lines
    dropped: int = 0  # lines between those, passed on but not kept
    results: list[GemmResult] = field(default_factory=list)  # parsed as the lines came (run steps)
    _tail: deque[OutputLine] = field(default_factory=lambda: deque(maxlen=KEEP_TAIL), repr=False)

    def keep(self, line: OutputLine) -> None:
        if len(self.lines) < KEEP_HEAD:
            self.lines.append(line)
            return
        if len(self._tail) == KEEP_TAIL:
            self.dropped += 1
        self._tail.append(line)

    def close(self) -> None:
        """Move the kept tail after the head (once the step ended)."""
        self.lines.extend(self._tail)
        self._tail.clear()


@dataclass
class RunReport:
    plan: RunPlan
    steps: list[StepOutcome]
    diagnostics: list[Diagnostic]
    results: list[GemmResult]
    summary: RunSummary | None
    status: str
    explanation: str | None = None  # one line for a known error, with its fix
    peak_usage: Usage | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "label": self.plan.label,
            "kind": self.plan.kind,
            "arch": self.plan.arch,
            "launched": any(o.step.role == "run" and o.exited is not None for o in self.steps),
            "device": None if self.plan.device is None else {
                "index": self.plan.device.index, "name": self.plan.device.name,
                "arch": self.plan.device.arch, "pci": self.plan.device.pci,
            },
            "notes": list(self.plan.notes),
            "steps": [
                {
                    "title": o.step.title, "role": o.step.role, "argv": o.step.argv,
                    "exit_code": o.exited.code if o.exited else None,
                    "seconds": round(o.exited.seconds, 3) if o.exited else None,
                    "timed_out": bool(o.exited and o.exited.timed_out), "error": o.error,
                }
                for o in self.steps
            ],
            "diagnostics": [
                {"path": d.path, "line": d.line, "col": d.col, "severity": d.severity, "message": d.message,
                 "flag": d.flag}
                for d in self.diagnostics
            ],
            "summary": self.summary.to_dict() if self.summary else None,
            "explanation": self.explanation,
            "peak_usage": None if self.peak_usage is None else {
                "busy_percent": self.peak_usage.busy_percent, "mem_used_mib": self.peak_usage.mem_used_mib,
            },
        }


class _UsageWatcher:
    """Polls GPU usage in a thread while a run step goes; reports each reading and keeps the peak."""

    def __init__(self, vendor: str, index: int | None, on_usage: Callable[[Usage], None] | None) -> None:
        self.vendor, self.index, self.on_usage = vendor, index, on_usage
        self.peak: Usage | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(1.0):
            for u in sample(self.vendor):
                if self.index is not None and u.index != self.index:
                    continue
                if self.on_usage:
                    self.on_usage(u)
                if u.busy_percent is not None and (self.peak is None or (self.peak.busy_percent or 0) < u.busy_percent):
                    self.peak = u

    def __enter__(self) -> _UsageWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def run_plan(
    plan: RunPlan,
    detection: Detection,
    on_line: Callable[[Step, OutputLine], None] | None = None,
    on_usage: Callable[[Usage], None] | None = None,
    monitor: bool = True,
) -> RunReport:
    outcomes: list[StepOutcome] = []
    if not plan.ready:
        return RunReport(plan, [], [], [], None, "not ready", explanation=plan.notes[0] if plan.notes else None)
    vendor = "nvidia" if plan.baseline else "amd"
    peak: Usage | None = None
    for step in plan.steps:
        outcome = StepOutcome(step, None)
        outcomes.append(outcome)

        def collect(line: OutputLine, step: Step = step, outcome: StepOutcome = outcome) -> None:
            outcome.keep(line)
            if step.role == "run" and (r := parse_result_line(line.text)) is not None:
                outcome.results.append(r)
            if on_line:
                on_line(step, line)

        start = time.monotonic()
        try:
            if step.role == "run" and monitor:
                with _UsageWatcher(vendor, 0, on_usage) as w:  # the one visible device is index 0
                    outcome.exited = run_sync(step.argv, step.cwd, step.env, step.timeout, collect)
                peak = w.peak or peak
            else:
                outcome.exited = run_sync(step.argv, step.cwd, step.env, step.timeout, collect)
        except RunnerError as e:
            outcome.error = str(e)
            outcome.exited = Exited(None, time.monotonic() - start)
        finally:
            outcome.close()
        if not outcome.exited.ok:
            break

    all_lines = [ln for o in outcomes for ln in o.lines]
    build_lines = [ln.text for o in outcomes if o.step.role == "build" for ln in o.lines]
    diagnostics = parse_diagnostics(build_lines)
    results = [r for o in outcomes for r in o.results]
    failed = next((o for o in outcomes if o.exited is None or not o.exited.ok), None)
    explanation = None
    if failed is not None:
        explanation = failed.error or explain_error(_searchable(failed.lines))
        if failed.exited and failed.exited.timed_out:
            explanation = f"{failed.step.title} ran past its time limit ({failed.step.timeout:.0f} s) and was stopped"
    summary = summarize(results, detection, plan.device, vendor=vendor) if results or plan.launch else None
    if failed is not None and failed.step.role == "build":
        status = "build failed"
    elif not plan.launch:
        status = "built, not launched"
    elif failed is not None:
        status = "failed"
    else:
        status = "passed" if summary is not None and summary.passed else "failed"
    if explanation is None and status == "failed":
        explanation = explain_error(_searchable(all_lines))
    return RunReport(plan, outcomes, diagnostics, results, summary, status, explanation, peak)


def _searchable(lines: list[OutputLine]) -> str:
    """The text searched for a known error, bounded: its start and (mostly) its end."""
    text = "\n".join(ln.text for ln in lines)
    if len(text) > EXPLAIN_CHARS:
        text = text[: EXPLAIN_CHARS // 4] + "\n" + text[-(EXPLAIN_CHARS * 3 // 4):]
    return text
