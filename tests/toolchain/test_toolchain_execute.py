"""execute.run_plan end to end on a SYNTHETIC MI300X host: a stand-in `hipcc` (a real program on
PATH) writes a stand-in binary that prints result lines, so build -> launch -> summary runs here."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hipport.engine.toolchain.detect import Detection, Gpu, RocmInstall
from hipport.engine.toolchain.devices import choices, default_device, device_env
from hipport.engine.toolchain.execute import run_plan
from hipport.engine.toolchain.plan import plan

MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100, "0000:26:00.0")
DET = Detection(amd_gpus=(MI300X,), rocm=RocmInstall(root="/opt/rocm", hip_version="7.0.51831", hipcc="hipcc"))

GOOD = [
    {"kernel": "regblock", "M": 256, "N": 256, "K": 256, "time_ms": 0.01, "gflops": 40000.0, "max_rel_err": 0.0,
     "pass": True},
    {"kernel": "blas", "M": 256, "N": 256, "K": 256, "time_ms": 0.005, "gflops": 80000.0, "max_rel_err": 0.0,
     "pass": True},
]


def project(tmp_path: Path, program: str) -> tuple[Path, dict[str, str]]:
    """A one-file HIP project and a PATH whose `hipcc` writes `program` (sh) as the output binary."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "k.hip").write_text("int main() { return 0; }\n")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    hipcc = bindir / "hipcc"
    hipcc.write_text(
        "#!/bin/sh\n"
        'echo "k.hip:1:5: warning: something to look at [-Wfoo]" >&2\n'
        'while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then out=$2; fi; shift; done\n'
        '/bin/mkdir -p "$(/usr/bin/dirname "$out")"\n'
        f"/bin/cat > \"$out\" <<'PROG'\n#!/bin/sh\n{program}\nPROG\n"
        '/bin/chmod +x "$out"\n'
    )
    hipcc.chmod(0o755)
    return root, {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(tmp_path)}


def echo_lines(lines: list[dict[str, object]]) -> str:
    return "\n".join(f"echo '{json.dumps(d)}'" for d in lines)


def test_build_launch_and_summary(tmp_path: Path) -> None:
    root, env = project(tmp_path, "echo \"HIP_VISIBLE_DEVICES=$HIP_VISIBLE_DEVICES\"\n" + echo_lines(GOOD))
    rp = plan(root / "k.hip", detection=DET, env=env)
    seen: list[str] = []
    report = run_plan(rp, DET, on_line=lambda step, line: seen.append(line.text), monitor=False)
    assert report.status == "passed"
    assert "HIP_VISIBLE_DEVICES=0" in seen
    assert [(d.path, d.line, d.flag) for d in report.diagnostics] == [("k.hip", 1, "-Wfoo")]
    assert report.summary is not None and report.summary.peak is not None
    reg = report.summary.kernels[0]
    assert reg.vs_vendor == 0.5 and reg.pct_of_peak is not None
    d = report.to_dict()
    assert d["launched"] and d["device"]["arch"] == "gfx942" and json.dumps(d)


def test_failed_self_check_fails_the_run(tmp_path: Path) -> None:
    bad = [dict(GOOD[0], **{"pass": False})]
    root, env = project(tmp_path, echo_lines(bad))
    report = run_plan(plan(root / "k.hip", detection=DET, env=env), DET, monitor=False)
    assert report.status == "failed" and report.summary is not None and not report.summary.passed


def test_known_runtime_error_is_explained(tmp_path: Path) -> None:
    root, env = project(tmp_path, "echo 'GPU error hipErrorNoBinaryForGpu: Unable to find code object for all "
                                  "current devices! at k.hip:9' >&2\nexit 1")
    report = run_plan(plan(root / "k.hip", detection=DET, env=env), DET, monitor=False)
    assert report.status == "failed" and "--offload-arch" in (report.explanation or "")


def test_run_time_limit(tmp_path: Path) -> None:
    root, env = project(tmp_path, "/bin/sleep 30")
    rp = plan(root / "k.hip", {"run_timeout": 0.5}, detection=DET, env=env)
    report = run_plan(rp, DET, monitor=False)
    assert report.status == "failed" and "time limit" in (report.explanation or "")
    assert report.steps[-1].exited is not None and report.steps[-1].exited.timed_out


def test_build_failure_stops_before_launch(tmp_path: Path) -> None:
    root, env = project(tmp_path, "echo never")
    (Path(env["PATH"].split(":")[0]) / "hipcc").write_text(
        "#!/bin/sh\necho \"k.hip:3:1: error: use of undeclared identifier '__syncwarp'\" >&2\nexit 1\n")
    report = run_plan(plan(root / "k.hip", detection=DET, env=env), DET, monitor=False)
    # mkdir, then the failing hipcc; the run step never starts
    assert report.status == "build failed" and [o.step.role for o in report.steps] == ["build", "build"]
    assert report.diagnostics[0].severity == "error" and "7.0" in (report.explanation or "")


def test_device_choices_and_env() -> None:
    two = Detection(amd_gpus=(MI300X, Gpu("amd", 1, "AMD Instinct MI300X", "gfx942", 304, 2100, "0000:46:00.0")))
    labels = [c.label for c in choices(two)]
    assert labels[1] == "1: AMD Instinct MI300X · gfx942 · 0000:46:00.0 · 304 CUs"
    assert default_device(two) == 0 and default_device(Detection()) is None
    env, notes = device_env({"HIP_VISIBLE_DEVICES": "3", "GPU_DEVICE_ORDINAL": "1", "X": "y"}, 1)
    assert env == {"HIP_VISIBLE_DEVICES": "1", "X": "y"} and len(notes) == 2
    nv, _ = device_env(dict(os.environ, HIP_VISIBLE_DEVICES="0"), 0, "nvidia")
    assert nv["CUDA_VISIBLE_DEVICES"] == "0" and "HIP_VISIBLE_DEVICES" not in nv


def test_one_event_stream_for_the_cli_and_the_pane(tmp_path: Path) -> None:
    """stream_plan is the one runner: each step opens with StepStarted and closes with StepEnded, lines
    come between in order, a failing step ends the plan, and PlanDone (the verdict) comes last, once."""
    from hipport.engine.toolchain.execute import PlanDone, StepEnded, StepLine, StepStarted, run_events

    root, env = project(tmp_path, "echo first\necho second >&2\nexit 7")
    rp = plan(root / "k.hip", detection=DET, env=env)
    events: list[object] = []
    report = run_events(rp, DET, events.append, monitor=False)
    kinds = [type(e).__name__ for e in events]
    assert kinds[-1] == "PlanDone" and kinds.count("PlanDone") == 1
    assert isinstance(events[-1], PlanDone) and events[-1].report is report
    starts = [e.step.title for e in events if isinstance(e, StepStarted)]
    ends = [e.step.title for e in events if isinstance(e, StepEnded)]
    assert starts == ends == [s.title for s in rp.steps]  # mkdir, hipcc, run: all started, all ended
    run_lines = [e.line for e in events if isinstance(e, StepLine) and e.step.role == "run"]
    assert [(ln.text, ln.stream) for ln in run_lines] in (
        [("first", "stdout"), ("second", "stderr")], [("second", "stderr"), ("first", "stdout")])
    last_end = next(e for e in reversed(events) if isinstance(e, StepEnded))
    assert last_end.outcome.exited is not None and last_end.outcome.exited.code == 7
    assert report.status == "failed"


def test_a_failing_build_stops_the_plan_before_the_launch(tmp_path: Path) -> None:
    from hipport.engine.toolchain.execute import StepStarted, run_events

    root, env = project(tmp_path, "echo never")
    (tmp_path / "bin" / "hipcc").write_text("#!/bin/sh\necho 'k.hip:1:1: error: nope' >&2\nexit 1\n")
    rp = plan(root / "k.hip", detection=DET, env=env)
    events: list[object] = []
    report = run_events(rp, DET, events.append, monitor=False)
    assert [e.step.role for e in events if isinstance(e, StepStarted)] == ["build", "build"]
    assert report.status == "build failed" and report.diagnostics[0].message == "nope"
