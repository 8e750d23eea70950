"""AMD GPU target names: decoding KFD's gfx_target_version, cleaning tool output, wave size.

KFD publishes `gfx_target_version` as major*10000 + minor*100 + step, with minor and step printed
in HEX in the target name: 90010 -> gfx90a, 90402 -> gfx942, 100300 -> gfx1030 (ROCm/rocminfo
rocm_agent_enumerator `readFromKFD`; llvm clang/tools/offload-arch/AMDGPUArchByKFD.cpp). Tools
that concatenate decimals print the bogus `gfx9010` for MI200 (ROCm/rocm_smi_lib#159).
"""

from __future__ import annotations

import re

_TARGET_RE = re.compile(r"gfx([0-9a-f]+)", re.IGNORECASE)


def decode_gfx_target_version(value: int | str) -> str | None:
    """`90010` -> `gfx90a`; 0 (a CPU node) or garbage -> None."""
    try:
        v = int(str(value).strip())
    except ValueError:
        return None
    if v <= 0:
        return None
    major, minor, step = v // 10000, (v // 100) % 100, v % 100
    if minor > 15 or step > 15:
        return None
    return f"gfx{major}{minor:x}{step:x}"


def normalize_gfx(name: str | None) -> str | None:
    """The bare target from any spelling: `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-` -> `gfx942`,
    `gfx942:sramecc+` -> `gfx942`, the decimal-concatenation bug `gfx9010` -> `gfx90a`,
    `9.4.2`/`90402` -> `gfx942`. None when nothing recognisable is there."""
    if not name:
        return None
    s = str(name).strip()
    if s.isdigit():
        return decode_gfx_target_version(s)
    dotted = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", s)
    if dotted:  # HSA_OVERRIDE_GFX_VERSION style: 9.4.2
        major, minor, step = (int(x) for x in dotted.groups())
        return decode_gfx_target_version(major * 10000 + minor * 100 + step)
    s = s.split("--")[-1].split(":")[0]
    m = _TARGET_RE.search(s)
    if not m:
        return None
    digits = m.group(1).lower()
    if digits == "000":
        return None  # rocm_agent_enumerator's CPU agent
    # decimal concatenation of major, minor and a two-digit step (gfx9010 = 9.0.10)
    if len(digits) == 4 and digits.isdigit() and digits[0] == "9" and int(digits[2:]) >= 10:
        return decode_gfx_target_version(int(digits[0]) * 10000 + int(digits[1]) * 100 + int(digits[2:]))
    return f"gfx{digits}"


def gfx_family(gfx: str) -> int | None:
    """The major version: gfx942 -> 9, gfx1100 -> 11."""
    m = re.fullmatch(r"gfx(\d+?)([0-9a-f])([0-9a-f])", gfx)
    return int(m.group(1)) if m else None


def wave_size(gfx: str) -> int | None:
    """Wavefront size under HIP: 64 on gfx8/gfx9 (all CDNA), 32 on gfx10+ (RDNA; gfx1250 too)."""
    fam = gfx_family(gfx)
    if fam is None:
        return None
    return 64 if fam <= 9 else 32


def override_to_gfx(value: str) -> str | None:
    """`HSA_OVERRIDE_GFX_VERSION=9.4.2` -> `gfx942`."""
    return normalize_gfx(value) if re.fullmatch(r"\d+\.\d+\.\d+", value.strip()) else None


# Instinct targets and the products that carry them (docs/conceptual/gpu-arch in ROCm/ROCm).
INSTINCT = {
    "gfx908": "MI100 (CDNA)",
    "gfx90a": "MI200 series (CDNA2)",
    "gfx942": "MI300 series (CDNA3)",
    "gfx950": "MI350 series (CDNA4)",
}
