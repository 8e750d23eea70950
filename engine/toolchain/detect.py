"""What is on this machine: AMD GPUs and ROCm, NVIDIA GPUs and CUDA, and PyTorch's backend.

API:
    detect(env=None, *, root=Path("/"), torch=True, python=None, timeout=5.0) -> Detection

Every source is optional and every tool call has a timeout; a missing tool is simply not used.
Sources, in the order they are trusted (../shared/design/RUN_PANE.md §1):
- AMD: KFD topology (`/sys/class/kfd/kfd/topology/nodes/*/properties`: gfx without ROCm), then
  `rocminfo` (marketing name, full target id), then `amd-smi list/static --json` (or `rocm-smi
  --json`); `hipconfig --full`, `hipcc --version`, `$ROCM_PATH/.info/version`.
- NVIDIA: `nvidia-smi --query-gpu ... --format=csv`, `nvcc --version`.
- PyTorch: imported in a SUBPROCESS with a timeout (never in-process: importing torch takes seconds
  and can crash): `torch.version.hip`, `torch.version.cuda`, device count and names.

GPU indices are HIP's (what a program sees with no visibility variable set): tools run with the
visibility variables removed, and AMD GPUs are ordered by KFD node id (hip_id = node - first GPU
node; ROCm/rocm-systems#4406), not by amd-smi's own order, which can differ.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import parsers
from .gfx import normalize_gfx, wave_size
from .runner import RunnerError, capture

VISIBILITY_VARS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")
KFD_TOPOLOGY = "sys/class/kfd/kfd/topology/nodes"


@dataclass(frozen=True)
class Gpu:
    vendor: str  # "amd" | "nvidia"
    index: int  # HIP index (AMD) or CUDA index (NVIDIA), with no visibility variable set
    name: str  # marketing name when known, else the arch
    arch: str  # gfx942 | sm_90
    compute_units: int | None = None  # CUs (AMD) / SMs (NVIDIA)
    max_clock_mhz: int | None = None
    pci: str | None = None
    uuid: str | None = None
    memory_mib: int | None = None
    target_id: str | None = None  # full AMD target id: gfx942:sramecc+:xnack-
    sources: tuple[str, ...] = ()

    @property
    def wave_size(self) -> int | None:
        return wave_size(self.arch) if self.vendor == "amd" else 32

    def label(self) -> str:
        bits = [f"{self.index}: {self.name}", self.arch]
        if self.pci:
            bits.append(self.pci)
        return " · ".join(bits)


@dataclass(frozen=True)
class RocmInstall:
    root: str | None = None
    version: str | None = None  # ROCm release, from .info/version or rocm_version.h
    hip_version: str | None = None
    hipcc: str | None = None
    hipconfig: dict[str, str] = field(default_factory=dict)
    clang: str | None = None

    @property
    def found(self) -> bool:
        return bool(self.hipcc or self.version or self.hip_version)

    @property
    def hip_version_tuple(self) -> tuple[int, int] | None:
        return parsers.hip_version_tuple(self.hip_version)


@dataclass(frozen=True)
class CudaInstall:
    nvcc: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class TorchInfo:
    found: bool
    version: str | None = None
    hip: str | None = None
    cuda: str | None = None
    available: bool = False
    device_count: int = 0
    devices: tuple[str, ...] = ()
    archs: tuple[str, ...] = ()
    error: str | None = None

    @property
    def backend(self) -> str:
        if not self.found:
            return "not installed"
        if self.hip:
            return f"ROCm (HIP {self.hip})"
        if self.cuda:
            return f"CUDA {self.cuda}"
        return "CPU only"


@dataclass(frozen=True)
class KfdAccess:
    kfd_exists: bool
    kfd_rw: bool
    dri_exists: bool
    render_nodes: tuple[str, ...]
    render_rw: bool


@dataclass(frozen=True)
class Detection:
    amd_gpus: tuple[Gpu, ...] = ()
    nvidia_gpus: tuple[Gpu, ...] = ()
    rocm: RocmInstall = RocmInstall()
    cuda: CudaInstall = CudaInstall()
    torch: TorchInfo | None = None
    kfd: KfdAccess = KfdAccess(False, False, False, (), False)
    visibility: dict[str, str] = field(default_factory=dict)  # the caller's visibility variables
    hsa_override: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def has_amd_gpu(self) -> bool:
        return bool(self.amd_gpus)

    @property
    def has_nvidia_gpu(self) -> bool:
        return bool(self.nvidia_gpus)

    def amd(self, index: int) -> Gpu | None:
        return next((g for g in self.amd_gpus if g.index == index), None)

    def to_dict(self) -> dict[str, object]:
        from dataclasses import asdict

        return asdict(self)


# ---------------------------------------------------------------------------------------------- helpers


def tool_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment detection tools run in: visibility masks removed (physical indices)."""
    return {k: v for k, v in env.items() if k not in VISIBILITY_VARS}


def run_tool(argv: list[str], env: Mapping[str, str], timeout: float) -> str | None:
    """stdout of a tool, or None when it is missing, fails or times out."""
    exe = shutil.which(argv[0], path=env.get("PATH"))
    if exe is None:
        return None
    try:
        code, out = capture([exe, *argv[1:]], env, timeout)
    except RunnerError:
        return None
    return out if code == 0 else None


def read_kfd_nodes(root: Path) -> list[parsers.KfdNode]:
    base = root / KFD_TOPOLOGY
    nodes: list[parsers.KfdNode] = []
    try:
        entries = sorted((p for p in base.iterdir() if p.name.isdigit()), key=lambda p: int(p.name))
    except OSError:
        return []
    for p in entries:
        try:
            text = (p / "properties").read_text()
        except OSError:  # cgroup device limits can make reads fail
            continue
        nodes.append(parsers.kfd_node(int(p.name), text))
    return nodes


def kfd_access(root: Path) -> KfdAccess:
    kfd = root / "dev/kfd"
    dri = root / "dev/dri"
    renders = tuple(sorted(p.name for p in dri.glob("renderD*"))) if dri.is_dir() else ()
    return KfdAccess(
        kfd_exists=kfd.exists(),
        kfd_rw=kfd.exists() and os.access(kfd, os.R_OK | os.W_OK),
        dri_exists=dri.is_dir(),
        render_nodes=renders,
        render_rw=bool(renders) and all(os.access(dri / r, os.R_OK | os.W_OK) for r in renders),
    )


def rocm_root(env: Mapping[str, str]) -> str | None:
    for cand in (env.get("ROCM_PATH"), env.get("ROCM_HOME"), "/opt/rocm"):
        if cand and Path(cand).is_dir():
            return cand
    return None


def rocm_version(root: str | None) -> str | None:
    if not root:
        return None
    info = Path(root) / ".info/version"
    try:
        return info.read_text().strip().split("-")[0] or None
    except OSError:
        pass
    header = Path(root) / "include/rocm-core/rocm_version.h"
    try:
        text = header.read_text()
    except OSError:
        return None
    parts = [re.search(rf"#define\s+ROCM_VERSION_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts if m) or None


# ---------------------------------------------------------------------------------------------- AMD


def merge_amd(
    kfd_nodes: list[parsers.KfdNode],
    agents: list[parsers.RocmAgent],
    smi: list[parsers.SmiGpu],
) -> list[Gpu]:
    """One Gpu per device, HIP-indexed, from whichever sources are present."""
    gpus: list[Gpu] = []
    kfd_gpus = [n for n in kfd_nodes if n.gfx]
    by_node = {a.node: a for a in agents if a.node is not None}
    smi_by_bdf = {s.bdf.lower().removeprefix("0000:"): s for s in smi if s.bdf}

    def smi_for(bdf: str | None) -> parsers.SmiGpu | None:
        return smi_by_bdf.get(bdf.lower().removeprefix("0000:")) if bdf else None

    if kfd_gpus:
        for i, n in enumerate(kfd_gpus):
            agent = by_node.get(n.node)
            s = smi_for(n.pci_bdf)
            mem = n.properties.get("local_mem_size")
            sources = ["kfd"] + (["rocminfo"] if agent else []) + (["amd-smi"] if s else [])
            name = (agent.marketing_name if agent else "") or (s.market_name if s else "") or n.gfx or "AMD GPU"
            gpus.append(
                Gpu(
                    vendor="amd",
                    index=i,
                    name=name,
                    arch=n.gfx or "",
                    compute_units=n.compute_units or (agent.compute_units if agent else None),
                    max_clock_mhz=n.properties.get("max_engine_clk_fcompute") or (agent.max_clock_mhz if agent else None),
                    pci=n.pci_bdf,
                    uuid=(agent.uuid if agent else None) or (s.uuid if s else None),
                    memory_mib=mem // (1024 * 1024) if mem else None,
                    target_id=agent.isa.split("--")[-1] if agent and agent.isa else None,
                    sources=tuple(sources),
                )
            )
        return gpus
    if agents:
        for i, a in enumerate(agents):
            s = smi_for(a.pci_bdf)
            gpus.append(
                Gpu(
                    vendor="amd",
                    index=i,
                    name=a.marketing_name or (s.market_name if s else "") or (a.gfx or "AMD GPU"),
                    arch=a.gfx or "",
                    compute_units=a.compute_units,
                    max_clock_mhz=a.max_clock_mhz,
                    pci=a.pci_bdf,
                    uuid=a.uuid or None,
                    target_id=a.isa.split("--")[-1] if a.isa else None,
                    sources=("rocminfo",) + (("amd-smi",) if s else ()),
                )
            )
        return gpus
    # amd-smi alone: prefer its hip_id when it has one, else its order
    ordered = sorted(smi, key=lambda s: (s.hip_id if s.hip_id is not None else (s.index or 0)))
    for i, s in enumerate(ordered):
        if not s.gfx:
            continue
        gpus.append(
            Gpu(
                vendor="amd",
                index=s.hip_id if s.hip_id is not None else i,
                name=s.market_name or s.gfx,
                arch=s.gfx,
                compute_units=s.compute_units,
                pci=s.bdf,
                uuid=s.uuid,
                sources=("amd-smi",),
            )
        )
    return gpus


def detect_amd(root: Path, env: Mapping[str, str], timeout: float) -> tuple[list[Gpu], RocmInstall, list[str]]:
    notes: list[str] = []
    nodes = read_kfd_nodes(root)
    agents: list[parsers.RocmAgent] = []
    smi: list[parsers.SmiGpu] = []
    if nodes or (root / "dev/kfd").exists():
        text = run_tool(["rocminfo"], env, timeout)
        if text:
            agents = parsers.parse_rocminfo(text)
        lst = run_tool(["amd-smi", "list", "--json"], env, timeout)
        static = run_tool(["amd-smi", "static", "--asic", "--bus", "--json"], env, timeout)
        if lst or static:
            smi = parsers.amdsmi_gpus(lst or "", static or "")
        elif not agents:
            rs = run_tool(["rocm-smi", "--showproductname", "--showbus", "--json"], env, timeout)
            for idx, f in sorted(parsers.rocmsmi_cards(rs or "").items()):
                gfx = normalize_gfx(f.get("GFX Version"))
                smi.append(
                    parsers.SmiGpu(idx, f.get("PCI Bus"), None, f.get("Card Series"), gfx, None)
                )
    gpus = merge_amd(nodes, agents, smi)
    for g in gpus:
        if g.target_id and normalize_gfx(g.target_id) != g.arch:
            notes.append(f"GPU {g.index}: rocminfo reports {g.target_id} but KFD says {g.arch}")

    root_dir = rocm_root(env)
    hipconfig_text = run_tool(["hipconfig", "--full"], {**env, "HIP_PLATFORM": "amd"}, timeout)
    hc = parsers.parse_hipconfig_full(hipconfig_text or "")
    hipcc_text = run_tool(["hipcc", "--version"], {**env, "HIP_PLATFORM": "amd"}, timeout)
    hv = parsers.parse_hipcc_version(hipcc_text or "")
    hipcc = shutil.which("hipcc", path=env.get("PATH"))
    if root_dir is None and hc.get("ROCM_PATH"):
        root_dir = hc["ROCM_PATH"]
    rocm = RocmInstall(
        root=root_dir,
        version=rocm_version(root_dir),
        hip_version=hv.get("hip_version") or hc.get("HIP version"),
        hipcc=hipcc,
        hipconfig=hc,
        clang=hv.get("clang") or hc.get("clang"),
    )
    return gpus, rocm, notes


# ---------------------------------------------------------------------------------------------- NVIDIA


def detect_nvidia(env: Mapping[str, str], timeout: float) -> tuple[list[Gpu], CudaInstall]:
    text = run_tool(
        ["nvidia-smi", f"--query-gpu={parsers.NVIDIA_QUERY}", "--format=csv,noheader,nounits"], env, timeout
    )
    gpus = [
        Gpu(
            vendor="nvidia",
            index=g.index,
            name=g.name,
            arch=g.sm or "",
            pci=g.pci_bus_id,
            uuid=g.uuid,
            memory_mib=g.memory_total_mib,
            sources=("nvidia-smi",),
        )
        for g in parsers.parse_nvidia_smi_csv(text or "")
    ]
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    if nvcc is None and Path("/usr/local/cuda/bin/nvcc").exists():
        nvcc = "/usr/local/cuda/bin/nvcc"
    version = None
    if nvcc:
        version = parsers.parse_nvcc_version(run_tool([nvcc, "--version"], env, timeout) or "")
    return gpus, CudaInstall(nvcc, version)


# ---------------------------------------------------------------------------------------------- PyTorch

# Run as `python -I -c` in an empty folder: neither the current folder nor a project's own `torch.py`
# is on sys.path (`hipport doctor` in a cloned repository must not import it). -I also drops PYTHONPATH
# and the user's site-packages; both are the person's own and a real run uses them, so the probe puts
# them back (absolute PYTHONPATH entries; the user site as Python would: not in a virtual environment).
_TORCH_PROBE = r"""
import json, os, site, sys
for entry in reversed([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)]):
    sys.path.insert(0, entry)
if sys.prefix == sys.base_prefix and not os.environ.get("PYTHONNOUSERSITE"):
    site.addsitedir(site.getusersitepackages())
try:
    import torch
except Exception as e:
    print(json.dumps({"found": False, "error": type(e).__name__ + ": " + str(e)[:200]}))
    raise SystemExit(0)
out = {"found": True, "version": torch.__version__, "hip": getattr(torch.version, "hip", None),
       "cuda": torch.version.cuda, "available": False, "count": 0, "devices": [], "archs": []}
try:
    out["available"] = bool(torch.cuda.is_available())
    if out["available"]:
        out["count"] = torch.cuda.device_count()
        for i in range(out["count"]):
            p = torch.cuda.get_device_properties(i)
            out["devices"].append(p.name)
            arch = getattr(p, "gcnArchName", None)
            out["archs"].append(arch.split(":")[0] if arch else "sm_%d%d" % (p.major, p.minor))
except Exception as e:
    out["error"] = type(e).__name__ + ": " + str(e)[:200]
print(json.dumps(out))
"""


def parse_torch_probe(text: str) -> TorchInfo:
    line = next((ln for ln in reversed(text.splitlines()) if ln.startswith("{")), "")
    try:
        d = json.loads(line)
    except json.JSONDecodeError:
        return TorchInfo(found=False, error="the PyTorch probe printed no result")
    return TorchInfo(
        found=bool(d.get("found")),
        version=d.get("version"),
        hip=d.get("hip"),
        cuda=d.get("cuda"),
        available=bool(d.get("available")),
        device_count=int(d.get("count") or 0),
        devices=tuple(d.get("devices") or ()),
        archs=tuple(d.get("archs") or ()),
        error=d.get("error"),
    )


def detect_torch(env: Mapping[str, str], python: str | None, timeout: float) -> TorchInfo:
    """`python`: the project's configured interpreter, run only once the project is trusted (callers:
    cli/commands/run.py); None: hipport's own."""
    exe = python or sys.executable
    if os.sep in exe and not os.path.isabs(exe):  # a relative path means the same in the neutral folder
        exe = os.path.abspath(exe)
    try:
        with tempfile.TemporaryDirectory(prefix="hipport-torch-probe-") as neutral:
            code, out = capture([exe, "-I", "-c", _TORCH_PROBE], env, timeout, cwd=neutral)
    except RunnerError as e:
        return TorchInfo(found=False, error=str(e))
    if code is None:
        return TorchInfo(found=False, error=f"importing torch took longer than {timeout:.0f} s")
    return parse_torch_probe(out)


# ---------------------------------------------------------------------------------------------- all


def detect(
    env: Mapping[str, str] | None = None,
    *,
    root: Path = Path("/"),
    torch: bool = True,
    python: str | None = None,
    timeout: float = 5.0,
    torch_timeout: float = 30.0,
) -> Detection:
    """Everything the run pane and `hipport doctor` need; never raises for a missing tool."""
    base = dict(os.environ if env is None else env)
    tenv = tool_env(base)
    amd, rocm, notes = detect_amd(root, tenv, timeout)
    nvidia, cuda = detect_nvidia(tenv, timeout)
    torch_info = detect_torch(base, python, torch_timeout) if torch else None
    return Detection(
        amd_gpus=tuple(amd),
        nvidia_gpus=tuple(nvidia),
        rocm=rocm,
        cuda=cuda,
        torch=torch_info,
        kfd=kfd_access(root),
        visibility={k: base[k] for k in VISIBILITY_VARS if k in base},
        hsa_override=base.get("HSA_OVERRIDE_GFX_VERSION"),
        notes=tuple(notes),
    )
