"""Peak rates per GPU (data: peaks.toml, each row with its source) and which one to quote.

`peak_for(gpu, dtype)` returns a Peak with the number AND its label, because "% of peak" means
nothing without saying which peak: on CDNA3 the spec "FP32 vector" is the packed rate, twice what
scalar-FMA code can reach; vendor BLAS SGEMM on MI-series runs on the matrix cores.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class Peak:
    model: str
    tflops: float
    label: str  # e.g. "FP32 vector peak (spec, packed-FP32 rate)"
    source: str
    scaled_to_cus: int | None = None  # set when scaled for a partition / different CU count


@lru_cache(maxsize=1)
def table() -> tuple[dict[str, Any], ...]:
    text = resources.files(__package__).joinpath("peaks.toml").read_text(encoding="utf-8")
    return tuple(tomllib.loads(text)["gpu"])


def find_row(arch: str, name: str) -> dict[str, Any] | None:
    """First row whose arch matches and whose name fragment is in the device name ('' = default)."""
    for row in table():
        m = row["match"]
        if m["arch"] == arch and (m["name"] == "" or m["name"].lower() in name.lower()):
            return row
    return None


_LABELS = {
    "fp32_vector": "FP32 vector peak (spec sheet; on CDNA3/4 the packed-FP32 rate)",
    "fp32_vector_nonpacked": "FP32 vector peak, non-packed (scalar FMA)",
    "fp32_matrix": "FP32 matrix peak (MFMA; TF32 tensor cores on NVIDIA)",
    "fp16_matrix": "FP16 matrix peak",
    "bf16_matrix": "BF16 matrix peak",
}


def peak_for(arch: str, name: str, dtype: str = "fp32", kind: str = "vector", compute_units: int | None = None) -> Peak | None:
    """The peak for `dtype` ("fp32"|"fp16"|"bf16") on this device; kind "vector"|"matrix" for FP32.

    Scaled by compute_units / the row's CU count when the device exposes fewer CUs (partitions)."""
    row = find_row(arch, name)
    if row is None:
        return None
    key = f"{dtype}_matrix" if dtype in ("fp16", "bf16") or kind == "matrix" else "fp32_vector"
    if key not in row:
        return None
    value = float(row[key])
    scaled = None
    if compute_units and compute_units != row["cus"]:
        value = value * compute_units / row["cus"]
        scaled = compute_units
    return Peak(row["model"], value, _LABELS[key], row["source"], scaled)
