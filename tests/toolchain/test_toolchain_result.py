"""Result lines and their summary (peaks labelled, ratio to vendor BLAS)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from hipport.engine.toolchain.detect import Detection, Gpu
from hipport.engine.toolchain.peaks import peak_for, table
from hipport.engine.toolchain.result import parse_result_line, summarize

DATA = Path(__file__).resolve().parent.parent / "data" / "toolchain"
MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100)


def line(**kw: object) -> str:
    base = {"kernel": "regblock", "M": 4096, "N": 4096, "K": 4096, "time_ms": 3.24, "gflops": 42428.2,
            "max_rel_err": 0.0, "pass": True}
    base.update(kw)
    return json.dumps(base)


def test_recorded_h200_lines_parse() -> None:
    lines = (DATA / "gemm_h200_4096.log").read_text().splitlines()
    results = [r for ln in lines if (r := parse_result_line(ln))]
    assert [r.kernel for r in results] == ["tiled", "regblock", "blas"]
    assert all(r.passed and r.shape == (4096, 4096, 4096) and r.dtype == "fp32" for r in results)
    assert results[2].is_vendor and results[2].reference == "cublas"
    assert parse_result_line(lines[0]) is None  # "device: NVIDIA H200 ..."


@pytest.mark.parametrize(
    "text",
    [
        "",
        "make: Nothing to be done",
        "{not json}",
        '{"kernel": "x"}',
        line(M=0),
        line(M=True),
        line(gflops="fast"),
        "[1, 2]",
    ],
)
def test_other_lines_are_not_results(text: str) -> None:
    assert parse_result_line(text) is None


def test_nan_error_and_non_boolean_pass() -> None:
    r = parse_result_line(line(max_rel_err="NaN"))
    assert r is not None and math.isnan(r.max_rel_err)
    bare = line().replace('"max_rel_err": 0.0', '"max_rel_err": NaN')
    assert parse_result_line(bare) is not None
    r2 = parse_result_line(line(**{"pass": "true"}))
    assert r2 is not None and r2.passed is False  # only JSON true passes


def test_summary_h200_against_cublas() -> None:
    lines = (DATA / "gemm_h200_4096.log").read_text().splitlines()
    results = [r for ln in lines if (r := parse_result_line(ln))]
    h200 = Gpu("nvidia", 0, "NVIDIA H200", "sm_90")
    s = summarize(results, Detection(nvidia_gpus=(h200,)), vendor="nvidia")
    assert s.passed and s.peak is not None and s.peak.model == "H200 SXM" and s.peak.tflops == 67.0
    reg = next(k for k in s.kernels if k.result.kernel == "regblock")
    assert reg.vendor_kernel == "blas"
    assert reg.vs_vendor == pytest.approx(42428.2 / 50964.3)
    assert reg.pct_of_peak == pytest.approx(100 * 42428.2 / 67000)
    text = "\n".join(s.lines())
    assert "FP32 vector peak" in text and "x blas" in text and text.endswith("PASS")
    assert json.loads(json.dumps(s.to_dict()))["kernels"][1]["kernel"] == "regblock"


def test_recorded_torch_lines_compare_with_torch_matmul() -> None:
    results = [r for ln in (DATA / "torch_h200_4096.log").read_text().splitlines() if (r := parse_result_line(ln))]
    assert [r.kernel for r in results] == ["tiled", "regblock", "torch.matmul"]
    h200 = Gpu("nvidia", 0, "NVIDIA H200", "sm_90")
    s = summarize(results, Detection(nvidia_gpus=(h200,)), vendor="nvidia")
    reg = next(k for k in s.kernels if k.result.kernel == "regblock")
    assert reg.vendor_kernel == "torch.matmul" and 0.5 < (reg.vs_vendor or 0) < 1.0


def test_summary_mi300x_labels_the_packed_peak_and_scales_partitions() -> None:
    r = parse_result_line(line())
    assert r is not None
    s = summarize([r], Detection(amd_gpus=(MI300X,)))
    assert s.peak is not None and s.peak.tflops == pytest.approx(163.4) and "packed" in s.peak.label
    assert s.matrix_peak is not None and "MFMA" in s.matrix_peak.label
    assert any("no vendor BLAS run" in n for n in s.notes)
    cpx = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 38)  # CPX partition: 1/8 of the CUs
    s2 = summarize([r], Detection(amd_gpus=(cpx,)))
    assert s2.peak is not None and s2.peak.scaled_to_cus == 38 and s2.peak.tflops == pytest.approx(163.4 / 8)


def test_failures_and_unknown_devices() -> None:
    bad = parse_result_line(line(**{"pass": False}))
    assert bad is not None
    assert not summarize([bad], Detection(amd_gpus=(MI300X,))).passed
    assert not summarize([], Detection()).passed
    odd = Gpu("amd", 0, "Radeon", "gfx1100")
    s = summarize([bad], Detection(amd_gpus=(odd,)))
    assert s.peak is None and any("no peak figure" in n for n in s.notes)


def test_peak_table_rows_have_sources_and_match_order() -> None:
    for row in table():
        assert row["source"] and row["cus"] > 0 and row["fp32_vector"] > 0
    assert peak_for("gfx942", "AMD Instinct MI300A") is not None
    assert peak_for("gfx942", "AMD Instinct MI300A").model == "MI300A"  # type: ignore[union-attr]
    assert peak_for("gfx942", "AMD Instinct MI300X VF").model == "MI300X"  # type: ignore[union-attr]
    assert peak_for("gfx90a", "AMD Instinct MI250X").model == "MI250X (one GCD)"  # type: ignore[union-attr]
    assert peak_for("sm_90", "NVIDIA H100 PCIe").tflops == 51.0  # type: ignore[union-attr]


def test_timing_statistics_spread_and_implausible_results() -> None:
    """gemm.cu prints the median with p20/p80 of N timed runs after warm-ups; the summary keeps them, says
    when the spread is too large to compare, and flags a result faster than the labelled peak."""
    steady = parse_result_line(line(time_ms=3.24, time_ms_p20=3.22, time_ms_p80=3.27, runs=20, warmup=3))
    noisy = parse_result_line(line(kernel="tiled", time_ms=10.0, time_ms_p20=9.0, time_ms_p80=11.5, runs=20))
    assert steady is not None and noisy is not None
    assert steady.spread == pytest.approx(0.05 / 3.24) and noisy.spread == pytest.approx(0.25)
    slow, fast = steady.gflops_range or (0.0, 0.0)
    assert slow < steady.gflops < fast
    s = summarize([steady, noisy], Detection(amd_gpus=(MI300X,)))
    by = {k.result.kernel: k for k in s.kernels}
    assert not by["regblock"].noisy and by["tiled"].noisy
    assert "spread 25.0%: too large to compare" in by["tiled"].line(s.peak)
    assert any("too large to compare speeds" in n and "tiled" in n for n in s.notes)
    d = s.to_dict()["kernels"][0]
    assert d["time_ms_p20"] == 3.22 and d["runs"] == 20 and d["too_noisy_to_compare"] is False
    # faster than the labelled peak (163.4 TF on MI300X): a timing or FLOP-count error
    absurd = parse_result_line(line(gflops=200_000.0, time_ms_p20=0.6, time_ms_p80=0.61))
    s2 = summarize([absurd], Detection(amd_gpus=(MI300X,)))
    assert s2.kernels[0].implausible and "IMPLAUSIBLE" in s2.kernels[0].line(s2.peak)
    assert any("implausible" in n for n in s2.notes)
