"""Parsers for what ROCm/CUDA tools print. Pure functions on text, tested against recorded outputs
(tests/data/toolchain/, each file names its public source).

Formats (see ../shared/design/RUN_PANE.md §1.1):
- KFD topology `properties`: one `key value` line per property.
- rocminfo: `*******` / `Agent N` blocks of `  Key:   value` lines; values may carry `(0x..)`.
- amd-smi `list`/`static --asic --bus`: JSON (a list, or {"gpu_data": [...]} from amd-smi 26), or
  the indented text form (`GPU: 0` / `    BDF: ...`).
- amd-smi `metric --usage --mem-usage --json`; rocm-smi `--json` (`{"card0": {...}}`).
- hipconfig --full, hipcc --version, nvcc --version, nvidia-smi --query-gpu CSV.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .gfx import decode_gfx_target_version, normalize_gfx

# ---------------------------------------------------------------------------------------------- KFD


@dataclass(frozen=True)
class KfdNode:
    node: int
    gfx: str | None  # None for CPU nodes
    properties: dict[str, int]

    @property
    def compute_units(self) -> int | None:
        simd, per_cu = self.properties.get("simd_count"), self.properties.get("simd_per_cu")
        return simd // per_cu if simd and per_cu else None

    @property
    def pci_bdf(self) -> str | None:
        """location_id packs bus<<8 | device<<3 | function; domain is separate."""
        loc = self.properties.get("location_id")
        if loc is None:
            return None
        dom = self.properties.get("domain", 0)
        return f"{dom:04x}:{(loc >> 8) & 0xFF:02x}:{(loc >> 3) & 0x1F:02x}.{loc & 0x7}"


def parse_kfd_properties(text: str) -> dict[str, int]:
    props: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                props[parts[0]] = int(parts[1])
            except ValueError:
                continue
    return props


def kfd_node(node: int, text: str) -> KfdNode:
    props = parse_kfd_properties(text)
    return KfdNode(node, decode_gfx_target_version(props.get("gfx_target_version", 0)), props)


# ---------------------------------------------------------------------------------------------- rocminfo

_HEX_SUFFIX = re.compile(r"\s*\(0x[0-9a-fA-F]+\)\s*$")


def _clean(value: str) -> str:
    return _HEX_SUFFIX.sub("", value).strip()


def _int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, int):
        return value
    m = re.match(r"\s*(-?\d+)", str(value))
    return int(m.group(1)) if m else None


@dataclass(frozen=True)
class RocmAgent:
    """A GPU agent of rocminfo, in rocminfo's order (the order ROCr, and so HIP, enumerates)."""

    name: str  # gfx942
    marketing_name: str
    uuid: str
    node: int | None
    compute_units: int | None
    max_clock_mhz: int | None
    wavefront_size: int | None
    isa: str  # full target id, e.g. amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-
    bdfid: int | None
    chip_id: int | None

    @property
    def gfx(self) -> str | None:
        return normalize_gfx(self.isa) or normalize_gfx(self.name)

    @property
    def pci_bdf(self) -> str | None:
        """rocminfo's BDFID is bus<<8 | device<<3 | function (domain not included)."""
        if self.bdfid is None:
            return None
        b = self.bdfid
        return f"{(b >> 8) & 0xFF:02x}:{(b >> 3) & 0x1F:02x}.{b & 0x7}"


def _key_lines(text: str) -> Iterator[tuple[int, str, str]]:
    """(indent, key, value) of each `KEY: value` line of rocminfo's or amd-smi's text form (blank
    lines and lines without a colon are skipped); the key is stripped, the value left as written."""
    for line in text.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, sep, value = line.strip().partition(":")
        if sep:
            yield indent, key.strip(), value


def parse_rocminfo(text: str) -> list[RocmAgent]:
    """GPU agents only (keyed on `Device Type: GPU`, not agent numbers: CPU agents come first)."""
    agents: list[RocmAgent] = []
    blocks = re.split(r"^\*{4,}\s*\n\s*Agent \d+\s*\n\*{4,}\s*$", text, flags=re.MULTILINE)
    for block in blocks[1:]:
        top: dict[str, str] = {}
        isa_names: list[str] = []
        in_isa = False
        for indent, key, value in _key_lines(block):
            if indent <= 2:
                in_isa = key == "ISA Info"
                top.setdefault(key, _clean(value))
            elif in_isa and key == "Name":
                isa_names.append(value.strip())
        if top.get("Device Type") != "GPU":
            continue
        # newer ROCm lists a generic ISA (gfx9-4-generic) after the real one: take the first specific
        isa = next((n for n in isa_names if "generic" not in n), isa_names[0] if isa_names else "")
        agents.append(
            RocmAgent(
                name=top.get("Name", ""),
                marketing_name=top.get("Marketing Name", ""),
                uuid=top.get("Uuid", ""),
                node=_int(top.get("Node")),
                compute_units=_int(top.get("Compute Unit")),
                max_clock_mhz=_int(top.get("Max Clock Freq. (MHz)")),
                wavefront_size=_int(top.get("Wavefront Size")),
                isa=isa,
                bdfid=_int(top.get("BDFID")),
                chip_id=_int(top.get("Chip ID")),
            )
        )
    return agents


# ---------------------------------------------------------------------------------------------- amd-smi


def _lower_keys(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k).lower(): _lower_keys(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_lower_keys(v) for v in obj]
    return obj


def _parse_indented(text: str) -> list[dict[str, Any]]:
    """amd-smi's text form: `GPU: 0` then indented `KEY: value` lines and `SECTION:` headers."""
    gpus: list[dict[str, Any]] = []
    stack: list[tuple[int, dict[str, Any]]] = []
    for indent, key, value in _key_lines(text):
        key, value = key.lower(), value.strip()
        if indent == 0:
            if key == "gpu":
                cur: dict[str, Any] = {"gpu": _int(value)}
                gpus.append(cur)
                stack = [(0, cur)]
            else:
                stack = []
            continue
        if not stack:
            continue
        while len(stack) > 1 and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        if value == "":
            child: dict[str, Any] = {}
            parent[key] = child
            stack.append((indent, child))
        else:
            parent[key] = value
    return gpus


def parse_amdsmi(text: str) -> list[dict[str, Any]]:
    """One dict per GPU, keys lower-cased, from `amd-smi list|static|metric` (JSON or text)."""
    text = text.strip()
    if not text:
        return []
    if text[0] in "[{":
        try:
            data = _lower_keys(json.loads(text))
        except json.JSONDecodeError:
            return []
        if isinstance(data, dict):
            data = data.get("gpu_data", [data])
        return [d for d in data if isinstance(d, dict)]
    return _parse_indented(text)


def _section(rec: dict[str, Any], key: str) -> dict[str, Any]:
    v = rec.get(key)
    return v if isinstance(v, dict) else {}


def _na(v: Any) -> Any:
    return None if v in (None, "N/A", "n/a", "") else v


@dataclass(frozen=True)
class SmiGpu:
    index: int | None  # amd-smi's own index: NOT necessarily the HIP index
    bdf: str | None
    uuid: str | None
    market_name: str | None
    gfx: str | None
    compute_units: int | None
    hip_id: int | None = None  # newer amd-smi reports the HIP index itself
    kfd_node: int | None = None


def amdsmi_gpus(list_text: str = "", static_text: str = "") -> list[SmiGpu]:
    """Merge `amd-smi list` (bdf/uuid/ids) with `amd-smi static --asic --bus` by GPU index."""
    by_index: dict[int | None, dict[str, Any]] = {}
    for rec in parse_amdsmi(list_text):
        by_index.setdefault(_int(rec.get("gpu")), {}).update(rec)
    for rec in parse_amdsmi(static_text):
        by_index.setdefault(_int(rec.get("gpu")), {}).update(rec)
    out: list[SmiGpu] = []
    for idx, rec in sorted(by_index.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        asic = _section(rec, "asic")
        bus = _section(rec, "bus")
        gfx_raw = _na(asic.get("target_graphics_version"))
        out.append(
            SmiGpu(
                index=idx,
                bdf=_na(rec.get("bdf")) or _na(bus.get("bdf")),
                uuid=_na(rec.get("uuid")),
                market_name=_na(asic.get("market_name")),
                gfx=normalize_gfx(str(gfx_raw)) if gfx_raw is not None else None,
                compute_units=_int(_na(asic.get("num_compute_units"))),
                hip_id=_int(_na(rec.get("hip_id"))),
                kfd_node=_int(_na(rec.get("node_id"))),
            )
        )
    return out


@dataclass(frozen=True)
class Usage:
    """A live reading for the run pane: utilisation % and memory used/total (MiB)."""

    index: int
    busy_percent: float | None
    mem_used_mib: float | None
    mem_total_mib: float | None


def _value(v: Any) -> float | None:
    if isinstance(v, dict):
        v = v.get("value")
    v = _na(v)
    if v is None:
        return None
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)", str(v))
    return float(m.group(1)) if m else None


def _mib(v: Any) -> float | None:
    """amd-smi gives {"value": n, "unit": "MB"|"GB"|...}; normalise to MiB (amd-smi's MB is MiB)."""
    val = _value(v)
    if val is None:
        return None
    unit = str(v.get("unit", "MB")).upper() if isinstance(v, dict) else "MB"
    return val * 1024 if unit.startswith("G") else val


def amdsmi_usage(metric_text: str) -> list[Usage]:
    """From `amd-smi metric --usage --mem-usage --json`."""
    out = []
    for i, rec in enumerate(parse_amdsmi(metric_text)):
        usage = _section(rec, "usage")
        mem = _section(rec, "mem_usage")
        idx = _int(rec.get("gpu"))
        out.append(
            Usage(
                index=idx if idx is not None else i,
                busy_percent=_value(usage.get("gfx_activity")),
                mem_used_mib=_mib(mem.get("used_vram")),
                mem_total_mib=_mib(mem.get("total_vram")),
            )
        )
    return out


def rocmsmi_cards(text: str) -> dict[int, dict[str, str]]:
    """`rocm-smi ... --json` -> {card index: fields}; the `system` entry is dropped."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    out: dict[int, dict[str, str]] = {}
    if isinstance(data, dict):
        for key, fields in data.items():
            m = re.fullmatch(r"card(\d+)", str(key))
            if m and isinstance(fields, dict):
                out[int(m.group(1))] = {str(k): str(v) for k, v in fields.items()}
    return out


def rocmsmi_usage(text: str) -> list[Usage]:
    """`rocm-smi --showuse --showmemuse --json`: "GPU use (%)", "GPU Memory Allocated (VRAM%)"."""
    out = []
    for idx, f in sorted(rocmsmi_cards(text).items()):
        busy = _value(f.get("GPU use (%)"))
        out.append(Usage(idx, busy, None, None))
    return out


# ---------------------------------------------------------------------------------------------- hip tools


def parse_hipconfig_full(text: str) -> dict[str, str]:
    """`hipconfig --full`: `HIP version: X` then `KEY   :value` lines (spacing varies by version)."""
    info: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"^\s*HIP version\s*:\s*(\S+)", line)
        if m and "HIP version" not in info:
            info["HIP version"] = m.group(1)
            continue
        m = re.match(r"^([A-Z][A-Z_]+)\s*:\s*(.*)$", line)
        if m and m.group(1) not in info:
            info[m.group(1)] = m.group(2).strip()
        m = re.match(r"^((?:AMD )?clang version .*)$", line.strip())
        if m and "clang" not in info:
            info["clang"] = m.group(1)
    return info


def parse_hipcc_version(text: str) -> dict[str, str]:
    """`hipcc --version`: prefixed lines (`HIP version: 6.2.41133-dd7f95766`, `... clang version ...`).
    On a CUDA-platform hipcc the nvcc banner follows instead."""
    info: dict[str, str] = {}
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("HIP version:"):
            info.setdefault("hip_version", s.split(":", 1)[1].strip())
        elif "clang version" in s:
            info.setdefault("clang", s)
        elif s.startswith("InstalledDir:"):
            info.setdefault("installed_dir", s.split(":", 1)[1].strip())
        elif s.startswith("Cuda compilation tools"):
            info.setdefault("nvcc", s)
    return info


def hip_version_tuple(version: str | None) -> tuple[int, int] | None:
    """`6.2.41133-dd7f95766` -> (6, 2)."""
    if not version:
        return None
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else None


# ---------------------------------------------------------------------------------------------- CUDA


def parse_nvcc_version(text: str) -> str | None:
    """`Cuda compilation tools, release 13.0, V13.0.88` -> `13.0.88`."""
    m = re.search(r"release [\d.]+, V([\d.]+)", text)
    return m.group(1) if m else None


@dataclass(frozen=True)
class NvidiaGpu:
    index: int
    name: str
    pci_bus_id: str
    uuid: str
    memory_total_mib: int | None
    compute_cap: str | None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def sm(self) -> str | None:
        return f"sm_{self.compute_cap.replace('.', '')}" if self.compute_cap else None


NVIDIA_QUERY = "index,name,pci.bus_id,uuid,memory.total,compute_cap"


def parse_nvidia_smi_csv(text: str) -> list[NvidiaGpu]:
    """`nvidia-smi --query-gpu=index,name,pci.bus_id,uuid,memory.total,compute_cap --format=csv,noheader,nounits`"""
    gpus = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 6 or not parts[0].isdigit():
            continue
        gpus.append(
            NvidiaGpu(
                index=int(parts[0]),
                name=parts[1],
                pci_bus_id=parts[2],
                uuid=parts[3],
                memory_total_mib=_int(parts[4]),
                compute_cap=parts[5] if re.fullmatch(r"\d+\.\d+", parts[5]) else None,
            )
        )
    return gpus


def parse_nvidia_smi_usage(text: str) -> list[Usage]:
    """`nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits`"""
    out = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 4 and parts[0].isdigit():
            out.append(Usage(int(parts[0]), _value(parts[1]), _value(parts[2]), _value(parts[3])))
    return out
