"""The differential check on what REAL H200 runs printed (issue 12's device run, 2026-12-01,
scripts/device_gemm.sh; tests/data/toolchain/g12_h200/, see SOURCES.md): the bundled GEMM and HeCBench
49175104c adam/laplace3d, CUDA baseline, HIP port through HIP's NVIDIA platform, deliberately wrong ports.

On the H200 the GEMM port was reported as differing: make echoes the run recipe
(`./build/gemm 4096 --repeats 30 --warmup 5`; the baseline's `./build/cuda/gemm ...`) and the echo was
compared as program output. Here the recorded output is replayed through a REAL make with the same run
recipes (a small program prints the recorded lines for its argv), so make echoes exactly as it did there,
and the plan runner (execute.run_events) asks make for the recipe as it does in `hipport run`."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.toolchain.baseline import Baseline, Value, extract, load
from hipport.engine.toolchain.detect import Detection
from hipport.engine.toolchain.execute import RunReport, run_events
from hipport.engine.toolchain.plan import RunPlan, Step

DATA = Path(__file__).resolve().parents[1] / "data" / "toolchain" / "g12_h200"
GEMM_ARGS = "ARGS=4096 --repeats 30 --warmup 5"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make (the run step is a make call)")


def recorded(name: str) -> list[str]:
    """The run step's output as the H200 run printed it (stdout and make's own stderr line), less the header."""
    lines = (DATA / f"{name}.run.log").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("── run: ")
    return lines[1:]


REPLAY = '''#!{python}
import sys
lines = open({log!r}, encoding="utf-8").read().splitlines()[1:]
me = " ".join(["./" + {prog!r}] + sys.argv[1:])
start = lines.index(me) + 1
out = []
for line in lines[start:]:
    if line.startswith("./"):
        break
    if not line.startswith("make: ***"):
        out.append(line)
print("\\n".join(out), flush=True)
sys.exit(1 if any(l.startswith("make: ***") for l in lines) else 0)
'''


def project(tmp: Path, log: str, recipe: list[str], progs: list[str]) -> Path:
    """A folder whose Makefile has the run recipe of the real project; each program replays `log`."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "Makefile").write_text("BUILD ?= build\nARGS ?=\nrun:\n" + "".join(f"\t{r}\n" for r in recipe))
    for prog in progs:
        p = tmp / prog
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(REPLAY.format(python=sys.executable, log=str(DATA / f"{log}.run.log"), prog=prog))
        p.chmod(0o755)
    return tmp


def make_run(where: Path, variables: list[str], *, baseline: bool, name: str) -> RunReport:
    step = Step("run", ["make", "--no-print-directory", "run", *variables], where, None, "run", 60)
    plan = RunPlan("make", [step], True, "sm_90", baseline=baseline, config={},
                   baseline_file=where.parent / ".hipport" / "baseline" / f"{name}.json",
                   label="CUDA baseline" if baseline else "HIP port (NVIDIA platform)",
                   platform="nvidia")
    return run_events(plan, Detection(), lambda e: None, monitor=False)


def gemm(tmp: Path, log: str, build: str, *, baseline: bool) -> RunReport:
    where = project(tmp / log, log, ["./$(BUILD)/gemm $(ARGS)"], [f"{build}/gemm"])
    variables = [*(["BUILD=build/cuda"] if build != "build" else []), GEMM_ARGS]
    return make_run(where, variables, baseline=baseline, name="gemm")


def test_h200_gemm_port_matches_its_cuda_baseline_once_makes_echo_is_not_a_value(tmp_path: Path) -> None:
    base = gemm(tmp_path, "base_gemm", "build/cuda", baseline=True)
    assert base.status == "passed" and base.baseline_saved
    saved = load(Path(base.baseline_saved))
    # what the runner knows it ran: make's echo of the run recipe, kept apart from the values
    assert saved.commands == ["./build/cuda/gemm 4096 --repeats 30 --warmup 5"]
    assert not any("gemm" in v.key for v in saved.values)
    port = gemm(tmp_path, "port_gemm", "build", baseline=False)
    c = port.comparison
    assert c is not None and c.matches, c.lines()
    # the 15 result values of the three JSON result lines (M, N, K, c_sum, pass) and the exit status
    assert c.checked == 16 and port.status == "passed"
    assert c.lines()[0].startswith("matches the CUDA baseline: 16 values")
    # `hipport run --json` carries the comparison and the timing statistics side by side
    d = json.loads(json.dumps(port.to_dict()))
    assert d["baseline"]["matches"] is True and d["baseline"]["checked"] == 16
    stats = {k["kernel"]: k for k in d["summary"]["kernels"]}
    assert stats["regblock"]["time_ms_p20"] == 3.8632 and stats["regblock"]["runs"] == 30
    # the H200 ran four programs at once here: spreads of 36-63 %, rightly too noisy to compare speeds
    assert all(k["too_noisy_to_compare"] for k in stats.values())


def test_h200_wrong_gemm_port_still_differs_on_its_results_only(tmp_path: Path) -> None:
    gemm(tmp_path, "base_gemm", "build/cuda", baseline=True)
    wrong = gemm(tmp_path, "wrong_gemm", "build", baseline=False)
    c = wrong.comparison
    assert c is not None and not c.matches and wrong.status == "differs from the CUDA baseline"
    # on the H200 (before the fix): 6 of 16, three of them the echo's 4096, 30, 5
    assert [m.key for m in c.mismatches] == ["json[tiled].c_sum", "json[tiled].pass", "exit status"]
    assert c.total_mismatches == 3
    assert c.mismatches[0].line().startswith("json[tiled].c_sum: CUDA 4293978468.0, port 4159960911.0")


def test_a_gemm_baseline_recorded_on_the_h200_before_the_fix_still_matches(tmp_path: Path) -> None:
    """The baseline file the H200 wrote (no `commands` yet: its echo line was skipped only because
    `./build/cuda/gemm` says "cuda") against the port's replayed run."""
    where = project(tmp_path / "gemm", "port_gemm", ["./$(BUILD)/gemm $(ARGS)"], ["build/gemm"])
    (tmp_path / ".hipport" / "baseline").mkdir(parents=True)
    shutil.copy(DATA / "gemm_baseline_recorded.json", tmp_path / ".hipport" / "baseline" / "gemm.json")
    assert load(tmp_path / ".hipport" / "baseline" / "gemm.json").commands == []
    port = make_run(where, [GEMM_ARGS], baseline=False, name="gemm")
    assert port.comparison is not None and port.comparison.matches, port.comparison.lines()


def test_h200_hecbench_adam_and_laplace3d(tmp_path: Path) -> None:
    """HeCBench 49175104c adam (`run: ./main 10000 200 100`) and laplace3d (two recipe lines, two
    launches); their echoes matched on both sides by luck (same `./main ...`), now they are not values."""
    adam = ["./main 10000 200 100"]
    base = make_run(project(tmp_path / "adam_base", "base_adam", adam, ["main"]), [], baseline=True, name="adam")
    assert load(Path(str(base.baseline_saved))).commands == adam
    port = make_run(project(tmp_path / "adam_port", "port_adam", adam, ["main"]), [], baseline=False, name="adam")
    assert port.comparison is not None and port.comparison.matches
    assert port.comparison.checked == 4  # PASS, the two checksums, the exit status (7 with the echo)
    wrong = make_run(project(tmp_path / "adam_wrong", "wrong_adam", adam, ["main"]), [], baseline=False, name="adam")
    assert wrong.comparison is not None and wrong.comparison.total_mismatches == 3
    assert wrong.comparison.mismatches[0].line() == "'<verdict>' verdict0: CUDA PASS, port FAIL"

    lap = ["./main 128 128 128 100 1", "./main 512 512 512 100 0"]
    base = make_run(project(tmp_path / "lap_base", "base_laplace3d", lap, ["main"]), [], baseline=True, name="lap")
    port = make_run(project(tmp_path / "lap_port", "port_laplace3d", lap, ["main"]), [], baseline=False, name="lap")
    assert load(Path(str(base.baseline_saved))).commands == lap
    assert port.comparison is not None and port.comparison.matches
    assert port.comparison.checked == 20  # 30 on the H200: 10 were the two echoes' numbers


def test_an_old_baseline_holding_echo_values_is_compared_without_them(tmp_path: Path) -> None:
    """A baseline recorded before echoes were known (HeCBench adam's: `./main 10000 200 100` taken as three
    values) compared with a port run that knows its echo."""
    old = Baseline("make --no-print-directory run",
                   [*extract(recorded("base_adam")), Value("exit status", "0", None)], "H200")
    assert any(v.key.startswith("'./main # # #'") for v in old.values)
    path = tmp_path / ".hipport" / "baseline" / "adam.json"
    old.save(path)
    port = make_run(project(tmp_path / "adam", "port_adam", ["./main 10000 200 100"], ["main"]), [],
                    baseline=False, name="adam")
    assert port.comparison is not None and port.comparison.matches and port.comparison.checked == 4


# ---------------------------------------------------------------------------------------- no result dropped

COMMANDS = ["./main 10000 200 100", "./build/gemm 4096 --repeats 30 --warmup 5", "./main 128 128 128 100 1"]
OUTPUT = recorded("base_laplace3d")[1:8] + recorded("port_gemm")[1:3] + recorded("port_adam")[1:] + [
    "Sum of output dirty prices on GPU: 12.5", *COMMANDS]  # a result line may even equal a command


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(COMMANDS), st.lists(st.sampled_from(OUTPUT), max_size=6)), max_size=4))
def test_echoes_change_no_value(segments: list[tuple[str, list[str]]]) -> None:
    """make echoes each recipe line, then its program prints. With the echoes in the output and named as
    `commands`, the values are those of the programs' output alone: no result line is dropped, even one
    equal to a command (only as many equal lines as were echoed are skipped). (Not modelled: a program
    printing, before it is echoed, a command that make runs later.)"""
    mixed: list[str] = []
    alone: list[str] = []
    commands = [c for c, _ in segments]
    for i, (command, out) in enumerate(segments):
        out = [line for line in out if line not in commands[i + 1:]]
        mixed += [command, *out]
        alone += out
    assert extract(mixed, commands=commands) == extract(alone)


def test_a_result_line_equal_to_an_echoed_command_is_kept() -> None:
    keys = [v.key for v in extract(["./main 7", "./main 7", "PASS"], commands=["./main 7"])]
    assert keys == ["'./main #'[0]", "'<verdict>' verdict0"]


def test_lines_that_mention_the_gpu_are_results_lines_that_describe_the_machine_are_not() -> None:
    keys = {v.key: v.text for v in extract([
        "device: NVIDIA H200 (132 multiprocessors, warp size 32)",  # the GEMM sample, both platforms
        "Summation of output prices on GPU: 1234.5",  # HeCBench 49175104c printf formats
        "Number of spikes on host and device: 17 17",
        "GPU memory usage: used = 812.0, free = 140000.0 MB, total = 143771.0 MB",
    ])}
    assert keys == {"'Summation of output prices on GPU: #'[0]": "1234.5",
                    "'Number of spikes on host and device: # #'[0]": "17",
                    "'Number of spikes on host and device: # #'[1]": "17"}
