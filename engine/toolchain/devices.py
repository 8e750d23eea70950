"""Device picker: which GPU a run uses, and the environment that selects it.

API:
    choices(detection) -> list[DeviceChoice]         # HIP index, name, gfx, PCI address, CUs
    default_device(detection) -> int | None
    device_env(base_env, index, vendor="amd") -> tuple[dict[str, str], list[str]]

One knob only: HIP_VISIBLE_DEVICES=<HIP index> (CUDA_VISIBLE_DEVICES for a CUDA baseline).
ROCR_VISIBLE_DEVICES filters first and HIP indexes the survivors, so an inherited ROCR_/CUDA_/
GPU_DEVICE_ORDINAL would make our index mean another GPU (or none): they are removed, and the
caller is told (../shared/design/RUN_PANE.md §4; stas00/ml-engineering amd/debug.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .detect import VISIBILITY_VARS, Detection, Gpu


@dataclass(frozen=True)
class DeviceChoice:
    index: int
    label: str  # "0: AMD Instinct MI300X · gfx942 · 0000:26:00.0 · 304 CUs"
    gpu: Gpu


def choices(detection: Detection, vendor: str = "amd") -> list[DeviceChoice]:
    gpus = detection.amd_gpus if vendor == "amd" else detection.nvidia_gpus
    out = []
    for g in gpus:
        label = g.label() + (f" · {g.compute_units} CUs" if g.compute_units and vendor == "amd" else "")
        out.append(DeviceChoice(g.index, label, g))
    return out


def default_device(detection: Detection, vendor: str = "amd") -> int | None:
    gpus = detection.amd_gpus if vendor == "amd" else detection.nvidia_gpus
    return gpus[0].index if gpus else None


def device_env(base_env: Mapping[str, str], index: int | None, vendor: str = "amd") -> tuple[dict[str, str], list[str]]:
    """A copy of base_env that selects GPU `index` through one variable; notes say what was removed."""
    env = dict(base_env)
    notes: list[str] = []
    if index is None:
        return env, notes
    keep = "HIP_VISIBLE_DEVICES" if vendor == "amd" else "CUDA_VISIBLE_DEVICES"
    for var in VISIBILITY_VARS:
        if var in env and var != keep:
            notes.append(f"removed inherited {var}={env[var]} so that device {index} means HIP index {index}"
                         if vendor == "amd" else f"removed inherited {var}={env[var]}")
            del env[var]
    if keep in env and env[keep] != str(index):
        notes.append(f"replaced inherited {keep}={env[keep]} with {index}")
    env[keep] = str(index)
    return env, notes
