"""The run pane: plans, builds and runs the ported project, streaming output, cancellable.

It renders the events of the engine's one plan runner (`toolchain.execute.stream_plan`, the same the
CLI prints) and shows what the engine decided a finished run means (status, GEMM summary, compiler
diagnostics). It also owns the run-side state of the review screen: the machine's detection (cached),
the chosen platform and GPU, the doctor's checks and the last run's diagnostics. The screen only binds
keys: `build_and_run`, `stop`, `pick_platform`, `pick_device`, `doctor`; it hears back through `Notice`
and `Finished`. The platform is `hipport run --platform`'s: "amd" (the default) or "nvidia" (the HIP
port built with HIP's NVIDIA platform and run on the NVIDIA GPU, compared with the CUDA baseline).
Escape / ctrl+k stop a run: cancelling the worker kills the whole process group.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import RichLog, Static

from hipport.engine.config import Config

if TYPE_CHECKING:  # the toolchain is imported when a build starts, not on the app's first screen
    from hipport.engine.toolchain.detect import Detection
    from hipport.engine.toolchain.diagnostics import Diagnostic
    from hipport.engine.toolchain.execute import RunReport, StepEnded
    from hipport.engine.toolchain.plan import RunPlan
    from hipport.engine.toolchain.trust import Request as TrustRequest

# Output reaches the log in batches (one RichLog.write per FLUSH_SECONDS, not one per line): writing
# line by line, a build printing 100,000 lines took minutes and froze the screen for seconds at a time.
FLUSH_SECONDS = 0.05
FLUSH_LINES = 500
# lines kept for the Finished message: the last ones
KEEP_OUTPUT = 20_000
# diagnostics listed in the log after a build (all of them stay in `diagnostics` for jumping)
SHOWN_DIAGNOSTICS = 50
SYMBOL = {"pass": "✓", "warn": "!", "fail": "✗", "info": "·"}


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
        def __init__(self, code: int | None, seconds: float, output: str, report: RunReport | None) -> None:
            super().__init__()
            self.code = code          # None: cancelled; else the failing step's exit status, or 0
            self.seconds = seconds
            self.output = output
            self.report = report      # the engine's verdict (None: cancelled)

    class Trusted(Message):
        """The person trusted the project: what it provides may run (the app applies its build keys)."""

    class Notice(Message):
        """One line for the screen's message bar."""

        def __init__(self, text: str, severity: str = "information") -> None:
            super().__init__()
            self.text = text
            self.severity = severity

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.output: list[str] = []  # the last KEEP_OUTPUT lines (up to a quarter more while running)
        self._pending: list[str] = []
        self._flushed_at = 0.0
        self.running = False
        self.clock = time.monotonic  # replaceable: snapshot tests need fixed durations
        self.detection: Detection | None = None  # what this machine has, once asked for
        self.platform = "amd"  # where runs go: "amd" | "nvidia" (HIP's NVIDIA platform), as `hipport run --platform`
        self.device: int | None = None  # GPU index for runs (HIP_VISIBLE_DEVICES); None: the default
        self.diagnostics: list[Diagnostic] = []  # errors and warnings of the last build
        self.report: RunReport | None = None  # the last finished run
        self.monitor = True  # poll GPU usage during run steps

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

    def show(self, status: str, lines: list[str] | None = None) -> None:
        """Make the pane visible with a status (and replace the log with `lines` when given)."""
        self.add_class("-visible")
        self.set_status(status)
        if lines is not None:
            self.log_widget.clear()
            self.output = []
            for line in lines:
                self.write_line(line)

    def _detect(self) -> Detection:
        """What GPUs and tools this machine has (cached; slow tools run with time limits). Call off
        the event loop: detection runs programs."""
        if self.detection is None:
            from hipport.engine.toolchain.detect import detect

            self.detection = detect(torch=False)
        return self.detection

    # ---- plan, build, run -------------------------------------------------------------------
    def build_and_run(self, root: Path, settings: Config) -> None:
        """Plan (in a thread: detection runs tools), then build and run the ported project."""
        self.show("▶ planning the build …")
        self._plan_and_start(Path(root), settings)

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False)
    def _plan_and_start(self, root: Path, settings: Config) -> None:
        from hipport.engine.toolchain.plan import PlanError, plan

        try:
            p = plan(root, dict(settings.run), device=self.device, detection=self._detect(), settings=settings,
                     platform=self.platform)
        except PlanError as e:
            self.app.call_from_thread(self._cannot_run, str(e))
            return
        if not p.ready:
            self.app.call_from_thread(
                self._cannot_run, "; ".join(p.notes) or "nothing to build yet: write the ported files first (w)")
            return
        from hipport.engine.toolchain.trust import request

        req = request(p, settings, keys=True)  # walks the tree's build files: here, off the event loop
        if req is not None:
            self.app.call_from_thread(self._ask_trust, p, req)
            return
        self.app.call_from_thread(self.start, p)

    def _ask_trust(self, plan: RunPlan, req: TrustRequest) -> None:
        """What the project provides (its Makefile, CMakeLists.txt, the commands of its config, its build
        keys) runs only after the person saw it, with every step as exact argv, and said yes."""
        from hipport.engine.fsutil import WriteError
        from hipport.engine.toolchain.trust import describe, remember

        from ..screens.confirm import ConfirmScreen

        question = "\n".join(describe(req)) + "\nTrust this project and run it (remembered in your state folder)?"

        def answer(yes: bool | None) -> None:
            if yes:
                try:
                    remember(req.subject)
                except WriteError as e:
                    self.post_message(self.Notice(f"Trusted for this run only, not remembered: {e}", "warning"))
                self.post_message(self.Trusted())
                self.start(plan)
            else:
                self.set_status("✗ not run: the project is not trusted")
                self.post_message(self.Notice("Not run: the project is not trusted.", "warning"))

        self.set_status("? waiting for you to trust the project")
        self.app.push_screen(ConfirmScreen(question, "Trust and run", "Don't run"), answer)

    def _cannot_run(self, why: str) -> None:
        self.set_status(f"✗ {why}")
        self.post_message(self.Notice(f"Cannot build yet: {why}", "warning"))

    @work(exclusive=True, group="run", exit_on_error=False)
    async def start(self, plan: RunPlan) -> None:
        self.log_widget.clear()
        self.output = []
        self._pending = []
        self.diagnostics = []
        self.report = None
        self.running = True
        started = self.clock()
        code: int | None = 0
        report: RunReport | None = None
        from hipport.engine.toolchain.detect import Detection
        from hipport.engine.toolchain.execute import (
            PlanDone,
            StepEnded,
            StepLine,
            StepStarted,
            UsageSample,
            stream_plan,
        )
        from hipport.engine.toolchain.monitor import format_usage

        try:
            if plan.kind != "custom":  # a plan of the engine's: say what it builds, and for which target
                self.write_line(f"note: {plan.label}: {plan.kind} build for {plan.arch}")
            for note in plan.notes:
                self.write_line(f"note: {note}")
            detection = self.detection if self.detection is not None else Detection()
            async for event in stream_plan(plan, detection, monitor=self.monitor):
                if isinstance(event, StepStarted):
                    self.set_status(f"▶ {event.step.title} …")
                    self.write_line(f"$ {' '.join(event.step.argv)}")
                elif isinstance(event, StepLine):
                    self.write_line(event.line.text)
                    if not self._pending:  # just flushed: let the screen breathe during a flood
                        await asyncio.sleep(0)
                elif isinstance(event, UsageSample):
                    usage = format_usage([event.usage])
                    if usage:
                        self.set_status(f"▶ running … {usage}")
                elif isinstance(event, StepEnded):
                    code = self._step_ended(event)
                elif isinstance(event, PlanDone):
                    report = event.report
            assert report is not None
            self._show_report(report)
            elapsed = self.clock() - started
            mark = "✓" if report.succeeded else "✗"
            exit_part = f" (exit {code})" if code else ""
            self.set_status(f"{mark} {report.status}{exit_part} in {elapsed:.1f} s")
        except asyncio.CancelledError:
            code = None
            self.set_status(f"■ stopped after {self.clock() - started:.1f} s")
            self.write_line("stopped by the user")
            raise
        finally:
            self.flush()
            self._trim()
            self.running = False
            self.report = report
            self.post_message(self.Finished(code, self.clock() - started, "\n".join(self.output), report))

    def _step_ended(self, event: StepEnded) -> int:
        exited, error = event.outcome.exited, event.outcome.error
        if error:
            self.write_line(f"error: {error}")
            return 127
        if exited is None:
            return 1
        if exited.timed_out:
            self.write_line(f"timed out after {event.step.timeout or 0:.0f} s")
            return 124
        return exited.code if exited.code is not None else 1

    def _show_report(self, report: RunReport) -> None:
        """The engine's verdict under the output: GEMM summary, diagnostics, a known error's fix."""
        self.diagnostics = [d for d in report.diagnostics if d.severity in ("error", "warning")]
        for d in self.diagnostics[:SHOWN_DIAGNOSTICS]:
            self.write_line(f"{d.severity}: {d.location()}: {d.message}")
        for line in report.verdict_lines():
            self.write_line(line)

    def action_stop(self) -> None:
        self.stop()

    def stop(self) -> bool:
        if not self.running:
            return False
        self.workers.cancel_group(self, "run")
        return True

    # ---- device and doctor ------------------------------------------------------------------
    def pick_platform(self) -> None:
        """Switch the next runs between AMD and HIP's NVIDIA platform (`hipport run --platform nvidia`)."""
        from hipport.engine.toolchain.plan import PLATFORMS

        self.platform = PLATFORMS[(PLATFORMS.index(self.platform) + 1) % len(PLATFORMS)]
        self.device = None  # GPU indices are per vendor
        if self.platform == "nvidia":
            self.post_message(self.Notice(
                "Runs: the HIP port on the NVIDIA GPU through HIP's NVIDIA platform (--platform nvidia): proves "
                "it builds, runs and matches the CUDA baseline on 32-lane warps, not wave64 correctness"))
        else:
            self.post_message(self.Notice("Runs: the HIP port on the AMD GPU (--platform amd)"))

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False)
    def pick_device(self) -> None:
        """Cycle through the GPUs of the chosen platform for the next runs."""
        from hipport.engine.toolchain.devices import choices

        options = choices(self._detect(), self.platform)
        if not options:
            self.post_message(self.Notice(f"No {'NVIDIA' if self.platform == 'nvidia' else 'AMD'} GPU here: "
                                          "builds target the configured arch only."))
            return
        indices = [c.index for c in options]
        nxt = indices[(indices.index(self.device) + 1) % len(indices)] if self.device in indices else indices[0]
        self.device = nxt
        label = next(c.label for c in options if c.index == nxt)
        var = "CUDA_VISIBLE_DEVICES" if self.platform == "nvidia" else "HIP_VISIBLE_DEVICES"
        self.post_message(self.Notice(f"Run on device {label} ({var}={nxt})"))

    def doctor(self, root: Path | None) -> None:
        self.show("doctor: checking this machine …")
        self._run_doctor(root)

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False)
    def _run_doctor(self, root: Path | None) -> None:
        from hipport.engine.toolchain.doctor import run_checks

        lines: list[str] = []
        try:
            for c in run_checks(self._detect(), root):
                lines.append(f"{SYMBOL.get(c.status, '?')} {c.status:<4} {c.name}: {c.message}")
                lines += [f"         {place}" for place in c.places[:5]]  # file:line (hard-coded device indices)
                if c.fix:
                    lines.append(f"         fix: {c.fix}")
        except Exception as e:  # a probe bug must not take the app down
            lines = [f"doctor failed: {e}"]
        self.app.call_from_thread(self.show, "doctor: what hipport found on this machine", lines)
