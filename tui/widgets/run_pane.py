"""The run pane: builds and runs the ported program, streaming output, cancellable.

The steps and their meaning come from `hipport.engine.toolchain` (plan, runner, result parsing);
this widget only streams lines into a RichLog, shows the status, and lets the person stop the run
(escape / ctrl+k kill the whole process group through the worker's cancellation).
"""

from __future__ import annotations

import asyncio
import os
import shutil
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


@dataclass(frozen=True)
class Step:
    """One command of a run: a label, argv, where and with what environment."""

    label: str
    argv: Sequence[str]
    cwd: Path
    env: dict[str, str] | None = None
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
        self.output: list[str] = []
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

    def write_line(self, line: str) -> None:
        self.output.append(line)
        self.log_widget.write(Text.from_ansi(line))

    @work(exclusive=True, group="run", exit_on_error=False)
    async def start(self, plan: RunPlan) -> None:
        self.log_widget.clear()
        self.output = []
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
            self.running = False
            self.post_message(self.Finished(code, self.clock() - started, "\n".join(self.output)))

    async def _run_step(self, step: Step) -> int:
        from hipport.engine.toolchain.runner import Exited, RunnerError, stream

        env = dict(os.environ)
        env.update(step.env or {})
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


def plan_for(session: Any, rel: str | None) -> RunPlan:
    """The build/run steps for the project.

    TEMPORARY until hipport.engine.toolchain provides `plan(...)`: compile the written HIP output of
    the current file with hipcc for the configured arch, and run it only where an AMD GPU is present.
    """
    if rel is None:
        raise ValueError("no file is open")
    out = Path(session.output_path(rel))
    if not out.exists():
        raise ValueError(f"{out.name} is not written yet: press w first")
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        raise ValueError("hipcc not found (install ROCm, or Debian's hipcc)")
    arch = session.config.archs[0]
    build = Path(session.root) / "build"
    build.mkdir(exist_ok=True)
    exe = build / out.stem
    env = {"HIP_PLATFORM": "amd"}
    steps = [Step(f"hipcc --offload-arch={arch}", [hipcc, f"--offload-arch={arch}", "-x", "hip", "-O2",
                  "-o", str(exe), str(out)], Path(session.root), env, 300)]
    notes: list[str] = []
    if Path("/dev/kfd").exists():
        steps.append(Step(f"run {exe.name}", [str(exe)], Path(session.root), None, 300))
    else:
        notes.append(f"no AMD GPU here (/dev/kfd missing): built for {arch}, not launched")
    return RunPlan(steps, notes)


def doctor_lines() -> list[str]:
    """What the toolchain looks like here (temporary, until the toolchain module's doctor lands)."""
    lines = []
    for tool in ("hipcc", "hipconfig", "rocminfo", "amd-smi", "nvcc"):
        where = shutil.which(tool)
        lines.append(f"{tool:<10} {where or 'not found'}")
    lines.append(f"{'/dev/kfd':<10} {'present' if Path('/dev/kfd').exists() else 'absent (no AMD GPU driver)'}")
    return lines
