"""`hipport run [PATH] [--device N] [--arch gfx942] [--format json] [--baseline] [--platform nvidia]`: build
the ported project and launch it on the local GPU, headless (the run pane's engine, without the app).

--baseline runs the CUDA original and records its values under .hipport/baseline/; any other run
is compared with that record when there is one ("matches the CUDA baseline" or the first mismatches).
--platform nvidia builds the HIP port with HIP's NVIDIA platform (nvcc) and runs it on the NVIDIA GPU.

Nothing the project provides runs before the person trusts the project (engine/toolchain/trust.py): its
Makefile or CMakeLists.txt, and the commands, arguments and interpreter of its [tool.hipport.run]. They
are shown, with every step as exact argv, and run once trusted: asked on a terminal, --trust for headless
runs; remembered in the person's state folder (never in the project) until those files change. Before
that, not even the PyTorch check runs the project's `python`.

Exit status: 0 passed (or built, not launched), 1 build/run failure, a failed check or a difference
from the CUDA baseline, 2 usage error, the project not trusted, or a plan that cannot build (convert first,
a CMake project in sibling mode, ...; --dry-run too).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

    from hipport.engine.config import Config
    from hipport.engine.toolchain.detect import Detection
    from hipport.engine.toolchain.execute import RunEvent, RunReport
    from hipport.engine.toolchain.plan import RunPlan
    from hipport.engine.toolchain.trust import Request


def register(subparsers: argparse._SubParsersAction) -> None:
    from hipport.cli.main import add_format_option

    p = subparsers.add_parser(
        "run",
        help="build the ported project and run it on the local GPU",
        description="Build the ported project (gemm.cu -> gemm.hip, as `hipport convert` writes it) for the "
        "detected AMD GPU and run it; without an AMD GPU, build for --arch (default gfx942) and say that "
        "nothing was launched. --baseline builds and runs the ORIGINAL CUDA sources on an NVIDIA GPU.",
    )
    p.add_argument("path", nargs="?", default=".", help="project directory or one file (default: .)")
    p.add_argument("--device", type=int, default=None, help="HIP index of the GPU (sets HIP_VISIBLE_DEVICES only)")
    p.add_argument("--arch", default=None, help="offload arch(s) to build for, comma-separated as in [tool.hipport] archs "
                   "(default: the GPU's, else gfx942)")
    p.add_argument("--baseline", action="store_true", help="CUDA baseline: build and run the original CUDA sources")
    p.add_argument("--platform", choices=("amd", "nvidia"), default="amd",
                   help="nvidia: build the HIP port with HIP's NVIDIA platform (nvcc + HIP headers) and run it on "
                   "the NVIDIA GPU (32-lane warps; proves the port runs and matches, not wave64 correctness)")
    p.add_argument("--trust", action="store_true",
                   help="trust the project: run its Makefile/CMakeLists.txt and the commands, arguments and "
                   "interpreter of its [tool.hipport.run] without asking (remembered in your state folder, "
                   "$XDG_STATE_HOME/hipport, until they change); needed when there is no terminal to ask on")
    add_format_option(p, help="json: print one JSON report on stdout (the build and run output goes to stderr); "
                      "default: text")
    p.add_argument("--list-devices", action="store_true", help="list the GPUs and exit")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    p.add_argument("--args", default=None, help="arguments for the program, as one string (e.g. '4096 --repeats 10')")
    p.set_defaults(func=handle)


def _config(path: Path) -> tuple[dict[str, object], Config]:
    from hipport.cli.main import CliError
    from hipport.engine.config import ConfigError, load_config

    root = path if path.is_dir() else path.parent
    try:
        cfg = load_config(root)
    except ConfigError as e:
        raise CliError(str(e)) from None
    return dict(cfg.run), cfg


def _remember(req: Request, out: TextIO) -> None:
    """Record the person's yes; when the state folder cannot be written, this run still goes ahead (the
    person just said yes) and the next one asks again."""
    from hipport.engine.fsutil import WriteError
    from hipport.engine.toolchain.trust import remember

    try:
        where = remember(req.subject)
    except WriteError as e:
        print(f"trusted for this run only, not remembered: {e}", file=out)
        return
    print(f"trusted; remembered in {where}", file=out)


def _trusted(req: Request | None, args: argparse.Namespace, out: TextIO) -> bool:
    """What the project provides runs only once trusted: asked on a terminal, else --trust."""
    from hipport.engine.toolchain.trust import describe

    if req is None:
        return True
    for line in describe(req):
        print(line, file=out)
    if args.trust:
        _remember(req, out)
        return True
    if args.format != "json" and sys.stdin.isatty():
        try:
            answer = input("Trust this project and run it? [y/N] ").strip().lower()
        except EOFError:
            answer = ""
        if answer in ("y", "yes"):
            _remember(req, out)
            return True
    print("not run: the project is not trusted; confirm on a terminal, or pass --trust to run what it "
          "provides", file=out)
    return False


def handle(args: argparse.Namespace) -> int:
    from hipport.cli.main import CliError
    from hipport.engine.toolchain import detect as detect_mod
    from hipport.engine.toolchain import trust
    from hipport.engine.toolchain.execute import run_events
    from hipport.engine.toolchain.plan import PlanError, plan, planned_kind

    as_json = args.format == "json"
    path = Path(args.path)
    if not path.exists():
        raise CliError(f"no such file or directory: {args.path}")
    cfg, settings = _config(path)
    user_args = None
    if args.args is not None:
        import shlex

        user_args = shlex.split(args.args)  # the person's own: they need no trust
    wants_torch = planned_kind(path, cfg) == "python"
    # the project's own interpreter runs (for the PyTorch check too) only once the project is trusted
    python = str(cfg["python"]) if cfg.get("python") else None
    python_trusted = python is None or trust.is_trusted(trust.subject(path if path.is_dir() else path.parent, settings))
    detection = detect_mod.detect(torch=wants_torch, python=python if python_trusted else None)
    out = sys.stderr if as_json else sys.stdout
    if not python_trusted and wants_torch:
        print(f"PyTorch checked with hipport's own Python: the project's python ({python}) runs only once the "
              "project is trusted", file=out)

    if args.list_devices:
        return _list_devices(detection, as_json)

    def make_plan() -> RunPlan:
        try:
            return plan(path, cfg, arch=args.arch, device=args.device, detection=detection, baseline=args.baseline,
                        platform=args.platform, settings=settings, args=user_args)
        except PlanError as e:
            raise CliError(str(e)) from None

    rp = make_plan()
    _show_plan(rp, args, detection, out)
    if args.dry_run:
        return _dry_run(rp, settings, out)
    if not rp.ready:
        return _not_ready(rp, as_json)

    req = trust.request(rp, settings)
    if not _trusted(req, args, out):
        if as_json and req is not None:
            print(json.dumps({"status": "not trusted", "reasons": list(req.reasons),
                              "commands": [s.argv for s in req.steps]}))
        return 2
    if not python_trusted and wants_torch:  # trusted now: the project's interpreter decides what runs
        detection = detect_mod.detect(torch=True, python=python)
        rp = make_plan()

    report = run_events(rp, detection, _event_printer(out, as_json))
    _show_report(report, as_json)
    return 0 if report.succeeded else 1


def _list_devices(detection: Detection, as_json: bool) -> int:
    from hipport.engine.toolchain.devices import choices

    devs = choices(detection, "amd") + choices(detection, "nvidia")
    if as_json:
        print(json.dumps([{"index": d.index, "label": d.label, "vendor": d.gpu.vendor} for d in devs]))
    else:
        for d in devs:
            print(f"{d.gpu.vendor:6} {d.label}")
        if not devs:
            print("no GPU found")
    return 0


def _show_plan(rp: RunPlan, args: argparse.Namespace, detection: Detection, out: TextIO) -> None:
    for line in rp.describe() if args.dry_run else [rp.label + (f" on {rp.device.label()}" if rp.device else ""), *rp.notes]:
        print(line, file=out)
    if not args.baseline and args.platform == "amd" and not detection.has_amd_gpu and detection.has_nvidia_gpu:
        print("an NVIDIA GPU is present: `hipport run --baseline` records the original CUDA program's results; "
              "`hipport run --platform nvidia` runs the HIP port on it and compares", file=out)


def _dry_run(rp: RunPlan, settings: Config, out: TextIO) -> int:
    from hipport.engine.toolchain import trust

    if trust.request(rp, settings) is not None:
        print("the project is not trusted yet: a run shows what it provides and asks first (or --trust)",
              file=out)
    if rp.ready:
        return 0
    # a plan that cannot run is not a successful dry run: scripts checking `--dry-run` must see it
    print(f"plan blocked: {rp.notes[0] if rp.notes else 'nothing here can build or launch this project'}",
          file=sys.stderr)
    return 2


def _not_ready(rp: RunPlan, as_json: bool) -> int:
    from hipport.cli.main import CliError

    if rp.blocked:
        if as_json:
            print(json.dumps({"status": "not ready", "notes": rp.notes}))
        raise CliError(rp.blocked)
    # an honest fallback, not an error: nothing here can build or launch this kind of project
    if as_json:
        print(json.dumps({"status": "not launched", "label": rp.label, "kind": rp.kind, "notes": rp.notes}))
    else:
        print("status: not launched")
    return 0


def _event_printer(out: TextIO, as_json: bool) -> Callable[[RunEvent], None]:
    from hipport.engine.toolchain.execute import StepLine, StepStarted, UsageSample
    from hipport.engine.toolchain.monitor import format_usage

    def on_event(event: RunEvent) -> None:
        if isinstance(event, StepStarted):
            print(f"── {event.step.role}: {' '.join(event.step.argv)}", file=out, flush=True)
        elif isinstance(event, StepLine):
            print(event.line.text, file=out if event.line.stream == "stdout" else sys.stderr, flush=True)
        elif isinstance(event, UsageSample) and not as_json:
            text = format_usage([event.usage])
            if text:
                print(f"[usage] {text}", file=sys.stderr, flush=True)

    return on_event


def _show_report(report: RunReport, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.to_dict(), indent=2))
        return
    for d in report.diagnostics:
        print(f"{d.location()}: {d.severity}: {d.message}" + (f" [{d.flag}]" if d.flag else ""))
    verdict = report.verdict_lines()
    if verdict:
        print()
        for line in verdict:
            print(line)
    print(f"status: {report.status}")
