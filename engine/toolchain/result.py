"""GEMM result lines and what they mean.

The sample programs (examples/gemm/gemm.cu, matmul_cuda.py) print one JSON object per kernel:
    {"kernel", "M", "N", "K", "time_ms", "gflops", "max_rel_err", "pass"}  (+ "dtype",
     "checksum_rel_err", "reference", and the timing statistics "time_ms_p20", "time_ms_p80",
     "runs", "warmup" when present; time_ms is the median of the timed runs)

API:
    parse_result_line(line) -> GemmResult | None
    summarize(results, detection, device=None) -> RunSummary
        pass/fail, time, GFLOP/s, % of the detected GPU's peak for the dtype (labelled: WHICH
        peak), and the ratio to the vendor BLAS run of the same shape. Timing statistics: median
        with p20/p80 and the spread (p80 - p20) / median; a spread above SPREAD_LIMIT is "too large
        to compare", and a result faster than the labelled peak is flagged implausible.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from .detect import Detection, Gpu
from .peaks import Peak, peak_for

# kernel names that are the vendor library (the denominator of "x of vendor BLAS")
VENDOR_KERNELS = ("blas", "cublas", "hipblas", "rocblas", "hipblaslt", "torch.matmul")
REQUIRED = ("kernel", "M", "N", "K", "time_ms", "gflops", "max_rel_err", "pass")
SPREAD_LIMIT = 0.10  # (p80 - p20) / median above this: the timings are too noisy to compare


@dataclass(frozen=True)
class GemmResult:
    kernel: str
    M: int
    N: int
    K: int
    time_ms: float
    gflops: float
    max_rel_err: float
    passed: bool
    dtype: str = "fp32"
    checksum_rel_err: float | None = None
    reference: str | None = None
    time_ms_p20: float | None = None
    time_ms_p80: float | None = None
    runs: int | None = None
    warmup: int | None = None

    @property
    def spread(self) -> float | None:
        """(p80 - p20) / median of the timed runs, when the program reported them."""
        if self.time_ms_p20 is None or self.time_ms_p80 is None or not self.time_ms > 0:
            return None
        return (self.time_ms_p80 - self.time_ms_p20) / self.time_ms

    @property
    def gflops_range(self) -> tuple[float, float] | None:
        """GFLOP/s at p80 and p20 time (slow, fast)."""
        if self.time_ms_p20 is None or self.time_ms_p80 is None or not (self.time_ms_p20 > 0 and self.time_ms_p80 > 0):
            return None
        work = self.gflops * self.time_ms
        return work / self.time_ms_p80, work / self.time_ms_p20

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.M, self.N, self.K)

    @property
    def is_vendor(self) -> bool:
        return self.kernel.lower() in VENDOR_KERNELS


def _float(v: object) -> float:
    if isinstance(v, bool):
        raise ValueError
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):  # "NaN"/"nan" from a C printf
        return float(v)
    raise ValueError


def _opt_float(v: object) -> float | None:
    return None if v is None else _float(v)


def _opt_int(v: object) -> int | None:
    if v is None or isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return int(v)


def parse_result_line(line: str) -> GemmResult | None:
    """A GemmResult for a result line; None for any other line (build output, logs, bad JSON)."""
    s = line.strip()
    if not (s.startswith("{") and s.endswith("}")):
        return None
    try:
        d = json.loads(s)
    except (json.JSONDecodeError, ValueError):
        return None
    if not isinstance(d, dict) or any(k not in d for k in REQUIRED):
        return None
    try:
        dims = [int(d[k]) for k in ("M", "N", "K")]
        if any(isinstance(d[k], bool) for k in ("M", "N", "K")) or min(dims) <= 0:
            return None
        checksum = d.get("checksum_rel_err")
        return GemmResult(
            kernel=str(d["kernel"]),
            M=dims[0],
            N=dims[1],
            K=dims[2],
            time_ms=_float(d["time_ms"]),
            gflops=_float(d["gflops"]),
            max_rel_err=_float(d["max_rel_err"]),
            passed=d["pass"] is True,
            dtype=str(d.get("dtype", "fp32")).lower(),
            checksum_rel_err=_float(checksum) if checksum is not None else None,
            reference=str(d["reference"]) if d.get("reference") is not None else None,
            time_ms_p20=_opt_float(d.get("time_ms_p20")),
            time_ms_p80=_opt_float(d.get("time_ms_p80")),
            runs=_opt_int(d.get("runs")),
            warmup=_opt_int(d.get("warmup")),
        )
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class KernelSummary:
    result: GemmResult
    pct_of_peak: float | None  # of `peak`
    pct_of_matrix_peak: float | None
    vs_vendor: float | None  # this kernel's GFLOP/s / the vendor BLAS's, same shape and dtype
    vendor_kernel: str | None

    @property
    def noisy(self) -> bool:
        sp = self.result.spread
        return sp is not None and sp > SPREAD_LIMIT

    @property
    def implausible(self) -> bool:
        """Faster than the labelled peak: a timing or FLOP-count error, not a fast kernel."""
        return self.pct_of_peak is not None and self.pct_of_peak > 100.0

    def line(self, peak: Peak | None) -> str:
        r = self.result
        bits = [
            f"{r.kernel:<13} {'PASS' if r.passed else 'FAIL'}",
            f"{r.time_ms:9.3f} ms",
            f"{r.gflops:9.1f} GFLOP/s",
        ]
        if r.spread is not None:
            runs = f"{r.runs} runs, " if r.runs else ""
            bits.append(f"(median of {runs}p20-p80 {r.time_ms_p20:.3f}-{r.time_ms_p80:.3f} ms, spread {100 * r.spread:.1f}%"
                        + (": too large to compare)" if self.noisy else ")"))
        if self.pct_of_peak is not None and peak is not None:
            bits.append(f"{self.pct_of_peak:5.1f}% of {peak.model} FP32 peak")
        if self.vs_vendor is not None and not r.is_vendor:
            bits.append(f"{self.vs_vendor:.2f}x {self.vendor_kernel}")
        if not math.isnan(r.max_rel_err):
            bits.append(f"err {r.max_rel_err:.1e}")
        else:
            bits.append("err NaN")
        if self.implausible:
            bits.append("IMPLAUSIBLE: faster than the labelled peak")
        return "  ".join(bits)


@dataclass(frozen=True)
class RunSummary:
    passed: bool
    kernels: tuple[KernelSummary, ...]
    device: Gpu | None
    peak: Peak | None  # the one "% of peak" refers to (labelled)
    matrix_peak: Peak | None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def lines(self) -> list[str]:
        out = []
        if self.device is not None:
            out.append(f"device {self.device.label()}")
        if self.peak is not None:
            scaled = f", scaled to {self.peak.scaled_to_cus} CUs" if self.peak.scaled_to_cus else ""
            out.append(f"peak: {self.peak.tflops:.1f} TFLOP/s = {self.peak.label} of {self.peak.model}{scaled}")
        out.extend(k.line(self.peak) for k in self.kernels)
        out.extend(self.notes)
        out.append("PASS" if self.passed else "FAIL")
        return out

    def to_dict(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "device": None if self.device is None else {
                "index": self.device.index, "name": self.device.name, "arch": self.device.arch, "pci": self.device.pci
            },
            "peak": None if self.peak is None else {
                "model": self.peak.model, "tflops": self.peak.tflops, "label": self.peak.label,
                "source": self.peak.source, "scaled_to_cus": self.peak.scaled_to_cus,
            },
            "kernels": [
                {
                    "kernel": k.result.kernel, "M": k.result.M, "N": k.result.N, "K": k.result.K,
                    "dtype": k.result.dtype, "time_ms": k.result.time_ms, "gflops": k.result.gflops,
                    "max_rel_err": None if math.isnan(k.result.max_rel_err) else k.result.max_rel_err,
                    "pass": k.result.passed, "pct_of_peak": k.pct_of_peak,
                    "time_ms_median": k.result.time_ms, "time_ms_p20": k.result.time_ms_p20,
                    "time_ms_p80": k.result.time_ms_p80, "runs": k.result.runs, "warmup": k.result.warmup,
                    "spread": k.result.spread, "too_noisy_to_compare": k.noisy,
                    "gflops_p80_p20": list(k.result.gflops_range) if k.result.gflops_range else None,
                    "implausible": k.implausible,
                    "pct_of_matrix_peak": k.pct_of_matrix_peak, "vs_vendor": k.vs_vendor,
                    "vendor_kernel": k.vendor_kernel,
                }
                for k in self.kernels
            ],
            "notes": list(self.notes),
        }


def _pick_device(detection: Detection, device: Gpu | None, vendor: str | None) -> Gpu | None:
    if device is not None:
        return device
    pool = detection.amd_gpus if vendor != "nvidia" else ()
    if not pool:
        pool = detection.nvidia_gpus if vendor != "amd" else ()
    return pool[0] if pool else None


def summarize(
    results: list[GemmResult],
    detection: Detection,
    device: Gpu | None = None,
    *,
    vendor: str | None = None,
) -> RunSummary:
    """Pass/fail and speed in context: % of the device's peak (labelled) and x of vendor BLAS."""
    gpu = _pick_device(detection, device, vendor)
    notes: list[str] = []
    peak = matrix_peak = None
    if gpu is not None:
        dtype = results[0].dtype if results else "fp32"
        peak = peak_for(gpu.arch, gpu.name, dtype, "vector", gpu.compute_units)
        if dtype == "fp32":
            matrix_peak = peak_for(gpu.arch, gpu.name, "fp32", "matrix", gpu.compute_units)
        if peak is None:
            notes.append(f"no peak figure for {gpu.name} ({gpu.arch}): % of peak not shown")
    else:
        notes.append("no GPU detected: % of peak not shown")

    vendor_by_shape: dict[tuple[tuple[int, int, int], str], GemmResult] = {}
    for r in results:
        if r.is_vendor:
            vendor_by_shape.setdefault((r.shape, r.dtype), r)
    if results and not vendor_by_shape:
        notes.append("no vendor BLAS run (built without it): no ratio to the library")

    kernels = []
    for r in results:
        v = vendor_by_shape.get((r.shape, r.dtype))
        kernels.append(
            KernelSummary(
                result=r,
                pct_of_peak=100.0 * r.gflops / (peak.tflops * 1000.0) if peak else None,
                pct_of_matrix_peak=100.0 * r.gflops / (matrix_peak.tflops * 1000.0) if matrix_peak else None,
                vs_vendor=r.gflops / v.gflops if v is not None and v.gflops > 0 else None,
                vendor_kernel=v.kernel if v is not None else None,
            )
        )
    noisy = [k.result.kernel for k in kernels if k.noisy]
    if noisy:
        notes.append(f"timing spread above {100 * SPREAD_LIMIT:.0f}% (p20-p80 / median) for {', '.join(noisy)}: "
                     "too large to compare speeds; rerun with more repeats on an idle GPU")
    if any(k.implausible for k in kernels):
        notes.append("a result is faster than the labelled peak: implausible (check the timing and the FLOP count)")
    if any(k.result.spread is None for k in kernels) and results:
        notes.append("no p20/p80 reported: the spread of the timings is unknown")
    passed = bool(results) and all(r.passed for r in results)
    if not results:
        notes.append("the program printed no result line")
    return RunSummary(passed, tuple(kernels), gpu, peak, matrix_peak, tuple(notes))
