"""The differential check (engine/toolchain/baseline.py): record what the CUDA original printed, compare a
run of the port with it value by value, through the one plan runner (execute.run_events), as
`hipport run --baseline` / `hipport run` do. The programs here are real processes (Python printing the
output shape of HeCBench 49175104c's self-checking programs and of the bundled GEMM)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from hipport.engine.toolchain.baseline import DEFAULT_RTOL, extract, load
from hipport.engine.toolchain.detect import Detection
from hipport.engine.toolchain.execute import run_events
from hipport.engine.toolchain.plan import RunPlan, Step

# the shape of HeCBench adam-cuda's output (main.cu prints these three lines)
ADAM = ["Average kernel execution time {t} (ms)", "PASS", "Checksum: {a} {b}"]


def program(lines: list[str]) -> list[str]:
    return [sys.executable, "-c", "import sys\n" + "".join(f"print({line!r})\n" for line in lines)]


def run(root: Path, lines: list[str], *, baseline: bool, config: dict[str, object] | None = None,
        exit_code: int = 0) -> object:
    argv = program(lines)
    if exit_code:
        argv[-1] += f"sys.exit({exit_code})\n"
    plan = RunPlan("custom", [Step("run", argv, root, None, "run", 60)], True, "sm_90", baseline=baseline,
                   baseline_file=root / ".hipport" / "baseline" / "adam.json", config=config or {},
                   label="CUDA baseline" if baseline else "HIP port")
    return run_events(plan, Detection(), lambda e: None, monitor=False)


def adam(t: str, a: str, b: str) -> list[str]:
    return [ADAM[0].format(t=t), ADAM[1], ADAM[2].format(a=a, b=b)]


def test_values_skip_timing_and_platform_lines_and_keep_results() -> None:
    values = extract([*adam("0.125", "0.000123", "-4.5e-05"), "device: NVIDIA H200 (132 SMs)",
                      "Max error: 3.1e-07 in 0 places"])
    keys = {v.key: v.text for v in values}
    assert not any("execution time" in k for k in keys)  # speed is not a result
    assert not any("H200" in k for k in keys)  # the machine differs by design
    assert keys["'<verdict>' verdict0"] == "PASS"
    assert keys["'Checksum: # #'[0]"] == "0.000123" and keys["'Checksum: # #'[1]"] == "-4.5e-05"
    # on an error line only counts are compared: 0 places yes, the float error measurement no
    assert [v.text for v in values if v.key.startswith("'Max error")] == ["0"]


def test_json_result_lines_compare_results_not_speed() -> None:
    line = json.dumps({"kernel": "regblock", "M": 128, "time_ms": 0.5, "gflops": 9000.0, "max_rel_err": 1e-7,
                       "c_sum": 1234.5, "pass": True, "dtype": "fp32"})
    keys = {v.key: v for v in extract([line])}
    assert set(keys) == {"json[regblock].M", "json[regblock].c_sum", "json[regblock].pass"}
    assert keys["json[regblock].M"].integer and keys["json[regblock].c_sum"].dtype == "fp32"


def test_record_on_one_machine_compare_on_another(tmp_path: Path) -> None:
    nvidia, amd = tmp_path / "nvidia", tmp_path / "amd"
    nvidia.mkdir()
    rec = run(nvidia, adam("0.201", "0.123456", "0.654321"), baseline=True)
    assert rec.baseline_saved and rec.status == "passed"
    saved = nvidia / ".hipport" / "baseline" / "adam.json"
    assert load(saved).values  # a plain JSON file: copy it to the other machine
    (amd / ".hipport" / "baseline").mkdir(parents=True)
    shutil.copy(saved, amd / ".hipport" / "baseline" / "adam.json")
    # faster, and the checksum within fp32's 1e-4 relative tolerance: matches
    same = run(amd, adam("0.050", "0.1234567", "0.654321"), baseline=False)
    assert same.comparison is not None and same.comparison.matches, same.comparison.lines()
    assert same.status == "passed"
    assert same.comparison.lines()[0].startswith("matches the CUDA baseline")
    assert same.to_dict()["baseline"]["matches"] is True


def test_a_wrong_port_is_reported_with_its_first_mismatches(tmp_path: Path) -> None:
    run(tmp_path, adam("0.2", "0.123456", "0.654321"), baseline=True)
    wrong = run(tmp_path, ["Average kernel execution time 0.1 (ms)", "FAIL", "Checksum: 0.1239 0.654321"],
                baseline=False, exit_code=1)
    c = wrong.comparison
    assert c is not None and not c.matches
    assert wrong.status == "differs from the CUDA baseline"
    text = "\n".join(c.lines())
    assert "DIFFERS from the CUDA baseline" in text
    assert "CUDA PASS, port FAIL" in text and "CUDA 0.123456, port 0.1239" in text
    assert "exit status: CUDA 0, port 1" in text
    assert c.total_mismatches == 3


def test_tolerances_by_dtype_are_configurable(tmp_path: Path) -> None:
    run(tmp_path, ["result: 1.0"], baseline=True)
    assert DEFAULT_RTOL["fp32"] == 1e-4 and DEFAULT_RTOL["fp16"] == DEFAULT_RTOL["bf16"] == 1e-2
    assert not run(tmp_path, ["result: 1.001"], baseline=False).comparison.matches  # 1e-3 > fp32's 1e-4
    assert run(tmp_path, ["result: 1.001"], baseline=False, config={"dtype": "fp16"}).comparison.matches
    assert run(tmp_path, ["result: 1.001"], baseline=False, config={"tolerance": {"fp32": 1e-2}}).comparison.matches


def test_output_files_named_in_the_config_are_compared(tmp_path: Path) -> None:
    import struct

    code = ("import struct,sys\nopen('out.bin','wb').write(struct.pack('<3f', 1.0, 2.0, float(sys.argv[1])))\n"
            "print('PASS')\n")

    def go(value: str, baseline: bool) -> object:
        plan = RunPlan("custom", [Step("run", [sys.executable, "-c", code, value], tmp_path, None, "run", 60)],
                       True, "", baseline=baseline, baseline_file=tmp_path / "b.json",
                       config={"outputs": ["out.bin"]})
        return run_events(plan, Detection(), lambda e: None, monitor=False)

    go("3.0", True)
    assert struct.calcsize("<3f") == 12
    assert go("3.00001", False).comparison.matches
    bad = go("3.5", False).comparison
    assert not bad.matches and bad.mismatches[0].key == "out.bin[2]"


def test_no_baseline_says_how_to_record_one(tmp_path: Path) -> None:
    rep = run(tmp_path, ["PASS"], baseline=False)
    assert rep.comparison is None and rep.status == "passed"
    assert any("hipport run --baseline" in n for n in rep.baseline_notes)


def test_bad_baseline_settings_are_one_line_errors(tmp_path: Path) -> None:
    import pytest

    from hipport.engine.config import ConfigError, check_run

    for bad, word in (({"tolerance": 1e-4}, "tolerance"), ({"tolerance": {"fp32": "tight"}}, "tolerance"),
                      ({"outputs": [1.5, {"x": 1}]}, "outputs"), ({"baseline_ignore": ["("]}, "regular expression"),
                      ({"dtype": 32}, "dtype")):
        with pytest.raises(ConfigError, match=word):
            check_run(bad)
    check_run({"tolerance": {"fp32": 1e-5}, "outputs": ["out.bin"], "dtype": "fp16", "baseline_ignore": ["^x"]})
