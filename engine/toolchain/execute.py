"""Carry out a RunPlan: build, launch, collect diagnostics and results, summarise.

API (one runner for the CLI and the app):
    async for event in stream_plan(plan, detection, monitor=True): ...
        StepStarted(step, index) · StepLine(step, line) · StepEnded(step, outcome)
        · UsageSample(usage) · PlanDone(report)          (PlanDone is always last)
    run_events(plan, detection, on_event, monitor=True) -> RunReport    (blocking; the CLI prints events)
    run_plan(plan, detection, on_line=None, on_usage=None) -> RunReport  (blocking; callbacks per line)
    RunReport.status: "passed" | "failed" | "differs from the CUDA baseline" | "build failed"
                      | "built, not launched" | "not ready" | "ran (no self-check in its output)"
    (a program without GEMM result lines passes on its own PASS/SUCCESS words, fails on FAIL words)
    RunReport.succeeded: the run did what it could (passed, built where nothing launches, or ran without a
                         self-check): `hipport run` exits 0 on it and the run pane marks it ✓
    RunReport.comparison: the check against .hipport/baseline/<program>.json (baseline.py), when recorded;
    a CUDA baseline run (plan.baseline) records that file instead (RunReport.baseline_saved).

The run pane renders the same events (tui/widgets/run_pane.py); what a finished run means (status,
diagnostics, GEMM summary) is decided here only, in `_finish`.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from ..fsutil import WriteError
from ..project.lock import LockHeld
from .baseline import VERDICT, Baseline, Comparison, Value, compare, run_values
from .baseline import load as load_baseline
from .buildscript import ignore_proposal, recipe_argv, untracked
from .detect import Detection
from .diagnostics import Diagnostic, explain_error, parse_diagnostics
from .monitor import sample
from .parsers import Usage
from .plan import RunPlan, Step
from .result import GemmResult, RunSummary, parse_result_line, summarize
from .runner import Exited, OutputLine, RunnerError, stream

NO_SELF_CHECK = "ran (no self-check in its output)"
SUCCEEDED = ("passed", "built, not launched", NO_SELF_CHECK)  # RunReport.succeeded
# Lines kept per step for diagnostics and the explanation: the first and the last ones. A build that
# prints 100 MB must neither be held in memory nor searched as a whole after it ends (every line is
# still passed to on_line as it comes).
KEEP_HEAD = 2_000
KEEP_TAIL = 3_000
EXPLAIN_CHARS = 512 * 1024  # text searched for a known error: its start and its end
RECIPE_TIMEOUT = 30.0  # seconds for make's dry run of the run step (the echoed commands)


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
    comparison: Comparison | None = None  # with the recorded CUDA baseline, when there is one
    baseline_saved: str | None = None  # where this run (a CUDA baseline) was recorded
    baseline_notes: list[str] = field(default_factory=list)
    ignore_proposal: list[str] = field(default_factory=list)  # .gitignore lines for what the build left behind

    @property
    def succeeded(self) -> bool:
        """What counts as a successful run, for the CLI's exit status and the run pane's mark alike."""
        return self.status in SUCCEEDED

    def verdict_lines(self) -> list[str]:
        """What the run means, as the CLI prints it and the run pane shows it (diagnostics apart)."""
        out = self.summary.lines() if self.summary is not None else []
        if self.comparison is not None:
            out += self.comparison.lines()
        if self.baseline_saved:
            out.append(f"recorded the CUDA baseline: {self.baseline_saved}")
        out += self.baseline_notes
        if self.ignore_proposal:
            out.append("the build left files git does not ignore; proposed .gitignore lines: "
                       + " ".join(self.ignore_proposal))
        if self.explanation:
            out.append(f"hint: {self.explanation}")
        return out

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
            "baseline": None if self.comparison is None else self.comparison.to_dict(),
            "baseline_recorded": self.baseline_saved,
            "baseline_notes": list(self.baseline_notes),
            "gitignore_proposal": list(self.ignore_proposal),
            "peak_usage": None if self.peak_usage is None else {
                "busy_percent": self.peak_usage.busy_percent, "mem_used_mib": self.peak_usage.mem_used_mib,
            },
        }


class _UsageWatcher:
    """Polls GPU usage in a thread while a run step goes; keeps the readings not yet taken and the peak."""

    def __init__(self, vendor: str, index: int | None) -> None:
        self.vendor, self.index = vendor, index
        self.peak: Usage | None = None
        self._new: deque[Usage] = deque(maxlen=64)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(1.0):
            for u in sample(self.vendor):
                if self.index is not None and u.index != self.index:
                    continue
                self._new.append(u)
                if u.busy_percent is not None and (self.peak is None or (self.peak.busy_percent or 0) < u.busy_percent):
                    self.peak = u

    def take(self) -> list[Usage]:
        out = []
        while self._new:
            out.append(self._new.popleft())
        return out

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


# ---------------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class StepStarted:
    step: Step
    index: int


@dataclass(frozen=True)
class StepLine:
    step: Step
    line: OutputLine


@dataclass(frozen=True)
class StepEnded:
    step: Step
    outcome: StepOutcome


@dataclass(frozen=True)
class UsageSample:
    usage: Usage


@dataclass(frozen=True)
class PlanDone:
    report: RunReport


RunEvent = StepStarted | StepLine | StepEnded | UsageSample | PlanDone

# seconds between usage readings passed on while a step is silent
USAGE_POLL = 1.0


async def _step_events(step: Step, outcome: StepOutcome, watcher: _UsageWatcher | None) -> AsyncIterator[RunEvent]:
    """The step's lines (and usage readings) as they come; sets outcome.exited / outcome.error.
    Closing this generator (the consumer was cancelled) kills the step's process group."""
    queue: asyncio.Queue[OutputLine | Exited | RunnerError] = asyncio.Queue(maxsize=1024)

    async def pump() -> None:
        try:
            async for item in stream(step.argv, step.cwd, step.env, step.timeout):
                await queue.put(item)
        except RunnerError as e:
            await queue.put(e)

    start = time.monotonic()
    task = asyncio.create_task(pump())
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), USAGE_POLL if watcher else None)
            except TimeoutError:
                item = None
            if watcher is not None:
                for u in watcher.take():
                    yield UsageSample(u)
            if item is None:
                continue
            if isinstance(item, RunnerError):
                outcome.error = str(item)
                outcome.exited = Exited(None, time.monotonic() - start)
                return
            if isinstance(item, Exited):
                outcome.exited = item
                return
            outcome.keep(item)
            if step.role == "run" and (r := parse_result_line(item.text)) is not None:
                outcome.results.append(r)
            yield StepLine(step, item)
    finally:
        if not task.done():
            task.cancel()  # its stream() closes, which kills the whole process group
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def stream_plan(plan: RunPlan, detection: Detection, monitor: bool = True) -> AsyncIterator[RunEvent]:
    """Run the plan's steps in order, stopping at the first failure; PlanDone(report) comes last."""
    if not plan.ready:
        yield PlanDone(RunReport(plan, [], [], [], None, "not ready",
                                 explanation=plan.notes[0] if plan.notes else None))
        return
    peak: Usage | None = None
    outcomes: list[StepOutcome] = []
    where = plan.steps[0].cwd
    watch_git = plan.kind != "custom"
    before = await asyncio.to_thread(untracked, where) if watch_git else None
    for index, step in enumerate(plan.steps):
        outcome = StepOutcome(step, None)
        outcomes.append(outcome)
        yield StepStarted(step, index)
        watcher = _UsageWatcher(plan.vendor, 0) if step.role == "run" and monitor else None  # the one visible device
        if watcher is not None:
            watcher.start()
        try:
            async for event in _step_events(step, outcome, watcher):
                yield event
        finally:
            if watcher is not None:
                watcher.stop()
                peak = watcher.peak or peak
            outcome.close()
        yield StepEnded(step, outcome)
        if outcome.exited is None or not outcome.exited.ok:
            break
    echoed = await _echoed_commands(plan, outcomes)
    report = _finish(plan, detection, outcomes, peak, echoed)
    if watch_git:
        report.ignore_proposal = ignore_proposal(before, await asyncio.to_thread(untracked, where))
    yield PlanDone(report)


def run_events(
    plan: RunPlan, detection: Detection, on_event: Callable[[RunEvent], None], monitor: bool = True
) -> RunReport:
    """Run the plan to completion, passing each event to `on_event`; Ctrl-C kills the step's group."""

    async def main() -> RunReport:
        report: RunReport | None = None
        async for event in stream_plan(plan, detection, monitor):
            on_event(event)
            if isinstance(event, PlanDone):
                report = event.report
        assert report is not None
        return report

    return asyncio.run(main())


def run_plan(
    plan: RunPlan,
    detection: Detection,
    on_line: Callable[[Step, OutputLine], None] | None = None,
    on_usage: Callable[[Usage], None] | None = None,
    monitor: bool = True,
) -> RunReport:
    def on_event(event: RunEvent) -> None:
        if isinstance(event, StepLine) and on_line is not None:
            on_line(event.step, event.line)
        elif isinstance(event, UsageSample) and on_usage is not None:
            on_usage(event.usage)

    return run_events(plan, detection, on_event, monitor=monitor)


async def _echoed_commands(plan: RunPlan, outcomes: list[StepOutcome]) -> list[str] | None:
    """The commands the last run step echoed into its output (make prints each recipe line before running
    it), so the differential check does not take them for values: make's dry run of the same invocation.
    [] when the step echoes nothing (not make); None when make could not say."""
    ran = [o for o in outcomes if o.step.role == "run" and o.exited is not None and o.error is None]
    if plan.baseline_file is None or not ran:
        return []
    step = ran[-1].step
    argv = recipe_argv(step.argv)
    if argv is None:
        return []
    lines: list[str] = []
    try:
        async for item in stream(argv, step.cwd, step.env, RECIPE_TIMEOUT):
            if isinstance(item, Exited):
                return lines if item.ok else None
            if item.stream == "stdout":
                lines.append(item.text)
    except RunnerError:
        return None
    return None


def _finish(plan: RunPlan, detection: Detection, outcomes: list[StepOutcome], peak: Usage | None,
            echoed: list[str] | None = None) -> RunReport:
    """What a finished (or stopped-at-a-failure) run means."""
    vendor = plan.vendor
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
    summary = summarize(results, detection, plan.device, vendor=vendor) if results else None
    if failed is not None and failed.step.role == "build":
        status = "build failed"
    elif not plan.launch:
        status = "built, not launched"
    elif failed is not None:
        status = "failed"
    else:
        status = "passed" if summary is not None and summary.passed else "failed"
        if summary is None:  # no GEMM result line: the program's own verdict words, else its exit status
            status = _verdict([ln.text for o in outcomes if o.step.role == "run" for ln in o.lines])
    if explanation is None and status == "failed":
        explanation = explain_error(_searchable(all_lines))
    report = RunReport(plan, outcomes, diagnostics, results, summary, status, explanation, peak)
    _check_baseline(report, echoed)
    return report


def _check_baseline(report: RunReport, echoed: list[str] | None = None) -> None:
    """Record the run (a CUDA baseline) or compare it with the recorded one; a launched run only.
    `echoed`: the commands the run step echoed (not values); None when make could not list them."""
    plan = report.plan
    ran = [o for o in report.steps if o.step.role == "run" and o.exited is not None and o.error is None]
    if plan.baseline_file is None or not ran:
        return
    run = ran[-1]
    if echoed is None:
        report.baseline_notes.append("make could not list the run step's commands (--just-print): lines it "
                                     "echoed may be compared as values")
    commands = echoed or []
    lines = [ln.text for ln in run.lines if ln.stream == "stdout"]
    values, notes = run_values(lines, plan.config, run.step.cwd, commands)
    assert run.exited is not None
    values.append(Value("exit status", str(run.exited.code), None))
    report.baseline_notes += notes
    if run.dropped:
        report.baseline_notes.append(f"{run.dropped} output lines in the middle were not kept: compared the rest")
    if plan.baseline:
        machine = plan.device.label() if plan.device is not None else ""
        try:
            Baseline(" ".join(run.step.argv), values, machine, run.exited.code,
                     commands=commands).save(plan.baseline_file)
        except (LockHeld, WriteError) as e:  # an app has the project open elsewhere; a link in .hipport/
            report.baseline_notes.append(f"baseline NOT recorded: {e}")
            return
        report.baseline_saved = str(plan.baseline_file)
        return
    if not plan.baseline_file.is_file():
        report.baseline_notes.append("no CUDA baseline recorded for this program (`hipport run --baseline` on an "
                                     f"NVIDIA machine writes {plan.baseline_file.name} under .hipport/baseline/)")
        return
    try:
        base = load_baseline(plan.baseline_file)
    except ValueError as e:
        report.baseline_notes.append(str(e))
        return
    report.comparison = compare(base, values, plan.config, str(plan.baseline_file), commands)
    if not report.comparison.matches and report.status in ("passed", "failed", NO_SELF_CHECK):
        report.status = "differs from the CUDA baseline"


def _verdict(lines: list[str]) -> str:
    """Status of a launched program that exited 0 and printed no GEMM result line."""
    words = {w.upper() for line in lines for w in VERDICT.findall(line)}
    if words & {"FAIL", "FAILED", "FAILURE"}:
        return "failed"
    if words & {"PASS", "PASSED", "SUCCESS", "SUCCESSFUL"}:
        return "passed"
    return NO_SELF_CHECK


def _searchable(lines: list[OutputLine]) -> str:
    """The text searched for a known error, bounded: its start and (mostly) its end."""
    text = "\n".join(ln.text for ln in lines)
    if len(text) > EXPLAIN_CHARS:
        text = text[: EXPLAIN_CHARS // 4] + "\n" + text[-(EXPLAIN_CHARS * 3 // 4):]
    return text
