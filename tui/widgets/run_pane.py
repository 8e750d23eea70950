"""The run pane: builds and runs the ported program, streaming output, cancellable.

The steps and their meaning come from `hipport.engine.toolchain` (plan, runner, result parsing);
this widget only streams lines into a RichLog, shows the status, and lets the person stop the run
(escape / ctrl+k kill the whole process group through the worker's cancellation).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import RichLog, Static

# Output reaches the log in batches (one RichLog.write per FLUSH_SECONDS, not one per line): writing
# line by line, a build printing 100,000 lines took minutes and froze the screen for seconds at a time.
FLUSH_SECONDS = 0.05
FLUSH_LINES = 500
# lines kept for the Finished message (results and diagnostics are read from it): the last ones
KEEP_OUTPUT = 20_000


@dataclass(frozen=True)
class Step:
    """One command of a run: a label, argv, where and with what environment."""

    label: str
    argv: Sequence[str]
    cwd: Path
    env: dict[str, str] | None = None  # the full environment (None: hipport's own)
    timeout: float | None = None


@dataclass(frozen=True)
class RunPlan:
    steps: Sequence[Step]
    notes: Sequence[str] = field(default_factory=tuple)  # honest notes ("no AMD GPU here: built, not run")


class RunPane(Vertical):
    """Status line + RichLog. `start(plan)` runs the steps in order, stopping at the first failure."""

    DEFAULT_CSS = """
    RunPane { height: 12; }
    RunPane > #run-status { height: 1; }
    RunPane > RichLog { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "Stop run", show=False),
    ]

    class Finished(Message):
        def __init__(self, code: int | None, seconds: float, output: str) -> None:
            super().__init__()
            self.code = code          # None: cancelled
            self.seconds = seconds
            self.output = output

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.output: list[str] = []  # the last KEEP_OUTPUT lines (up to a quarter more while running)
        self._pending: list[str] = []
        self._flushed_at = 0.0
        self.running = False
        self.clock = time.monotonic  # replaceable: snapshot tests need fixed durations

    def compose(self) -> ComposeResult:
        yield Static("idle: press b to build and run", id="run-status")
        yield RichLog(max_lines=10_000, wrap=False, highlight=False, markup=False, id="run-log")

    @property
    def log_widget(self) -> RichLog:
        return self.query_one("#run-log", RichLog)

    def set_status(self, text: str) -> None:
        self.query_one("#run-status", Static).update(text)

    def on_mount(self) -> None:
        self.set_interval(FLUSH_SECONDS, self.flush)

    def write_line(self, line: str) -> None:
        self.output.append(line)
        if len(self.output) > KEEP_OUTPUT + KEEP_OUTPUT // 4:
            self._trim()
        self._pending.append(line)
        if len(self._pending) >= FLUSH_LINES or time.monotonic() - self._flushed_at >= FLUSH_SECONDS:
            self.flush()

    def _trim(self) -> None:
        del self.output[: max(0, len(self.output) - KEEP_OUTPUT)]

    def flush(self) -> None:
        """Write the lines received since the last flush to the log, as one renderable."""
        if self._pending:
            batch, self._pending = self._pending, []
            self.log_widget.write(Text.from_ansi("\n".join(batch)))
        self._flushed_at = time.monotonic()

    @work(exclusive=True, group="run", exit_on_error=False)
    async def start(self, plan: RunPlan) -> None:
        self.log_widget.clear()
        self.output = []
        self._pending = []
        self.running = True
        started = self.clock()
        code: int | None = 0
        try:
            for note in plan.notes:
                self.write_line(f"note: {note}")
            for step in plan.steps:
                self.set_status(f"▶ {step.label} …")
                self.write_line(f"$ {' '.join(step.argv)}")
                code = await self._run_step(step)
                if code != 0:
                    break
            elapsed = self.clock() - started
            self.set_status(("✓ done" if code == 0 else f"✗ failed (exit {code})") + f" in {elapsed:.1f} s")
        except asyncio.CancelledError:
            code = None
            self.set_status(f"■ stopped after {self.clock() - started:.1f} s")
            self.write_line("stopped by the user")
            raise
        finally:
            self.flush()
            self._trim()
            self.running = False
            self.post_message(self.Finished(code, self.clock() - started, "\n".join(self.output)))

    async def _run_step(self, step: Step) -> int:
        from hipport.engine.toolchain.runner import Exited, RunnerError, stream

        # a planned step carries the FULL environment (the plan removed ROCR_VISIBLE_DEVICES & co. so the
        # chosen index means one GPU): use it as it is, never merged back over os.environ
        env = dict(step.env) if step.env is not None else dict(os.environ)
        code: int | None = None
        try:
            # cancelling this worker closes the stream, which kills the whole process group
            async for item in stream(list(step.argv), step.cwd, env=env, timeout=step.timeout):
                if isinstance(item, Exited):
                    if item.timed_out:
                        self.write_line(f"timed out after {step.timeout or 0:.0f} s")
                        return 124
                    code = item.code
                else:
                    self.write_line(item.text)
                    if not self._pending:  # just flushed: let the screen breathe during a flood
                        await asyncio.sleep(0)
        except RunnerError as e:
            self.write_line(f"error: {e}")
            return 127
        return code if code is not None else 1

    def action_stop(self) -> None:
        self.stop()

    def stop(self) -> bool:
        if not self.running:
            return False
        self.workers.cancel_group(self, "run")
        return True


def from_toolchain(plan: Any) -> RunPlan:
    """The pane's plan from `hipport.engine.toolchain.plan.RunPlan` (steps carry the full environment)."""
    steps = [Step(st.title, list(st.argv), Path(st.cwd), dict(st.env), st.timeout) for st in plan.steps]
    header = [f"{plan.label}: {plan.kind} build for {plan.arch}"]
    return RunPlan(steps, [*header, *plan.notes])


def plan_for(session: Any, device: int | None, detection: Any) -> RunPlan:
    """Build (and, where an AMD GPU is present, run) the project's ported files, as the engine plans it.
    Raises ValueError (one line) when there is nothing to run yet."""
    from hipport.engine.toolchain.plan import PlanError, plan

    try:
        p = plan(Path(session.root), dict(session.config.run), device=device, detection=detection)
    except PlanError as e:
        raise ValueError(str(e)) from None
    if not p.ready:
        raise ValueError("; ".join(p.notes) or "nothing to build yet: write the ported files first (w)")
    return from_toolchain(p)


def doctor_lines(detection: Any, root: Path | None) -> list[str]:
    """`hipport doctor` as lines for the pane: each check with pass/warn/fail and its fix."""
    from hipport.engine.toolchain.doctor import run_checks

    symbol = {"pass": "✓", "warn": "!", "fail": "✗", "info": "·"}
    lines = []
    for c in run_checks(detection, root):
        lines.append(f"{symbol.get(c.status, '?')} {c.status:<4} {c.name}: {c.message}")
        if c.fix:
            lines.append(f"         fix: {c.fix}")
    return lines


def result_lines(output: str, detection: Any, device: int | None) -> tuple[list[str], list[Any]]:
    """What a finished run means: the GEMM summary (pass/fail, GFLOP/s, % of peak) and the
    compiler diagnostics (file:line) found in its output."""
    from hipport.engine.toolchain.diagnostics import parse_diagnostics
    from hipport.engine.toolchain.result import parse_result_line, summarize

    # the pane's own lines ("$ argv", "note: ...") are not the program's output
    lines = [line for line in output.splitlines() if not line.startswith(("$ ", "note: "))]
    results = [r for r in (parse_result_line(line) for line in lines) if r is not None]
    out: list[str] = []
    if results and detection is not None:
        gpu = detection.amd(device) if device is not None else None
        out += summarize(results, detection, gpu).lines()
    diagnostics = [d for d in parse_diagnostics(lines) if d.severity in ("error", "warning")]
    for d in diagnostics[:50]:
        out.append(f"{d.severity}: {d.location()}: {d.message}")
    return out, diagnostics
