"""`hipport doctor`: what breaks first runs on ROCm machines, each with pass/warn/fail and the fix.

API:
    run_checks(detection, project_root=None, env=None, groups=None, skipped="") -> list[Check]
    Check(name, status, message, fix, places)   places: "file:line: device N" for each hard-coded index

Checks (facts: ../shared/design/RUN_PANE.md §1, §2.4, §4; WAVE64.md §1.7): ROCm and its version;
/dev/kfd and /dev/dri access and the render/video groups; the PyTorch build (ROCm or CUDA, its HIP
version against the installed ROCm); visibility variables set in conflicting ways;
HSA_OVERRIDE_GFX_VERSION on a natively supported GPU; hipcc's platform guess; hard-coded device
ordinals in the project beyond the visible device count.
"""

from __future__ import annotations

import grp
import os
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .detect import Detection
from .gfx import INSTINCT, normalize_gfx
from .parsers import hip_version_tuple

PASS, WARN, FAIL, INFO = "pass", "warn", "fail", "info"


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # pass | warn | fail | info
    message: str
    fix: str = ""
    places: tuple[str, ...] = ()  # "file:line: what" for each place the check found (device ordinals)


def _group_member(name: str, groups: Iterable[int] | None) -> bool | None:
    try:
        gid = grp.getgrnam(name).gr_gid
    except KeyError:
        return None  # no such group on this system
    mine = set(groups) if groups is not None else set(os.getgroups()) | {os.getgid()}
    return gid in mine


def check_rocm(det: Detection) -> Check:
    r = det.rocm
    if not r.found:
        fix = "install ROCm (https://rocm.docs.amd.com) or Debian's hipcc for build-only checks"
        return Check("ROCm", WARN if not det.has_amd_gpu else FAIL, "no ROCm/HIP toolchain found (hipcc missing)", fix)
    bits = []
    if r.version:
        bits.append(f"ROCm {r.version}")
    if r.hip_version:
        bits.append(f"HIP {r.hip_version}")
    if r.root:
        bits.append(f"at {r.root}")
    msg = ", ".join(bits) or "hipcc found"
    hv = r.hip_version_tuple
    if hv is not None and hv < (6, 2):
        return Check("ROCm", WARN, msg + ": older than 6.2, no *_sync warp builtins",
                     "hipport's build adds a compatibility header; ROCm >= 7.0 is the target")
    return Check("ROCm", PASS, msg)


def check_gpus(det: Detection) -> Check:
    if det.amd_gpus:
        lst = "; ".join(g.label() for g in det.amd_gpus)
        return Check("AMD GPUs", PASS, f"{len(det.amd_gpus)} found: {lst}")
    if det.nvidia_gpus:
        return Check("AMD GPUs", INFO, f"none; {len(det.nvidia_gpus)} NVIDIA GPU(s) found",
                     "`hipport run` builds for gfx942 without launching; `--baseline` runs the CUDA original")
    return Check("AMD GPUs", WARN, "no AMD GPU found: ports can be built but not launched here")


def check_kfd(det: Detection) -> Check:
    k = det.kfd
    if not k.kfd_exists:
        if det.amd_gpus:
            return Check("/dev/kfd", FAIL, "KFD sees a GPU but /dev/kfd is missing (a container without the device?)",
                         "run the container with --device /dev/kfd --device /dev/dri --group-add render")
        return Check("/dev/kfd", INFO, "/dev/kfd not present (no AMD GPU driver loaded)")
    if not k.kfd_rw:
        return Check("/dev/kfd", FAIL, "/dev/kfd exists but this user cannot open it (hipErrorNoDevice follows)",
                     "sudo usermod -aG render,video $USER, then log in again")
    return Check("/dev/kfd", PASS, "/dev/kfd is readable and writable")


def check_dri(det: Detection) -> Check:
    k = det.kfd
    if not k.kfd_exists:
        return Check("/dev/dri", INFO, "not checked (no /dev/kfd)")
    if not k.render_nodes:
        return Check("/dev/dri", FAIL, "no /dev/dri/renderD* nodes", "pass --device /dev/dri to the container")
    if not k.render_rw:
        return Check("/dev/dri", FAIL, f"no read/write access to {', '.join(k.render_nodes)}",
                     "sudo usermod -aG render,video $USER, then log in again")
    return Check("/dev/dri", PASS, f"{len(k.render_nodes)} render node(s) accessible")


def check_groups(det: Detection, groups: Iterable[int] | None) -> Check:
    if not det.kfd.kfd_exists:
        return Check("groups", INFO, "not checked (no /dev/kfd)")
    missing = [g for g in ("render", "video") if _group_member(g, groups) is False]
    if missing and not det.kfd.kfd_rw:
        return Check("groups", FAIL, f"not in group(s): {', '.join(missing)}",
                     f"sudo usermod -aG {','.join(missing)} $USER, then log in again")
    if missing:
        return Check("groups", WARN, f"not in group(s) {', '.join(missing)}, but the devices are accessible anyway")
    return Check("groups", PASS, "in the render and video groups (or they do not exist here)")


def check_torch(det: Detection) -> Check:
    t = det.torch
    if t is None:
        return Check("PyTorch", INFO, "not checked")
    if not t.found:
        return Check("PyTorch", INFO, f"not importable ({t.error or 'not installed'})")
    if t.hip:
        rocm = hip_version_tuple(det.rocm.version) or det.rocm.hip_version_tuple
        torch_hip = hip_version_tuple(t.hip)
        msg = f"torch {t.version}, ROCm build (HIP {t.hip}); torch.cuda.is_available() = {t.available}"
        if rocm and torch_hip and rocm[0] != torch_hip[0]:
            return Check("PyTorch", WARN, msg + f"; installed ROCm is {rocm[0]}.{rocm[1]}",
                         "install the wheel whose ROCm matches the host (index rocmX.Y) or the matching ROCm")
        if det.has_amd_gpu and not t.available:
            return Check("PyTorch", FAIL, msg, "no GPU visible to PyTorch: see /dev/kfd, groups and visibility variables")
        return Check("PyTorch", PASS, msg + " (the device string stays 'cuda')")
    if t.cuda:
        if det.has_amd_gpu:
            return Check("PyTorch", FAIL, f"torch {t.version} is a CUDA {t.cuda} build on an AMD machine",
                         "install a ROCm build: pip install torch --index-url https://download.pytorch.org/whl/rocmX.Y")
        return Check("PyTorch", INFO, f"torch {t.version}, CUDA {t.cuda} build (fine for a CUDA baseline)")
    return Check("PyTorch", WARN if det.has_amd_gpu else INFO, f"torch {t.version} is a CPU-only build",
                 "install a ROCm build of PyTorch to run GPU code")


def _count(value: str) -> int:
    return len([x for x in value.split(",") if x.strip()])


def check_visibility(det: Detection) -> Check:
    v = det.visibility
    if not v:
        return Check("visibility", PASS, "no visibility variable set: every GPU is visible")
    shown = ", ".join(f"{k}={val}" for k, val in v.items())
    n = len(det.amd_gpus) or len(det.nvidia_gpus)
    if "ROCR_VISIBLE_DEVICES" in v and "HIP_VISIBLE_DEVICES" in v:
        return Check("visibility", WARN, f"{shown}: ROCR_ filters first and HIP_ indexes the survivors",
                     "set only HIP_VISIBLE_DEVICES (hipport's device picker does)")
    if "CUDA_VISIBLE_DEVICES" in v and "HIP_VISIBLE_DEVICES" in v and det.has_amd_gpu:
        return Check("visibility", WARN, f"{shown}: HIP honours both on AMD", "set only HIP_VISIBLE_DEVICES")
    for k, val in v.items():
        for tok in val.split(","):
            tok = tok.strip()
            if tok.isdigit() and n and int(tok) >= n:
                return Check("visibility", FAIL, f"{k}={val} names device {tok}, but {n} GPU(s) exist",
                             f"use indices 0..{n - 1}")
        if val.strip() in ("", "-1") and n:
            return Check("visibility", FAIL, f"{k}={val!r} hides every GPU", f"unset {k}")
    return Check("visibility", PASS, shown)


def check_override(det: Detection) -> Check:
    ov = det.hsa_override
    if not ov:
        return Check("HSA_OVERRIDE_GFX_VERSION", PASS, "not set")
    target = normalize_gfx(ov)
    native = [g for g in det.amd_gpus if g.arch in INSTINCT]
    if native:
        real = native[0].arch
        status = FAIL if target and target != real else WARN
        return Check("HSA_OVERRIDE_GFX_VERSION", status,
                     f"set to {ov} on {native[0].name} ({real}), which ROCm supports natively; it changes the gfx "
                     "that ROCr reports for every GPU in the process" + (f" (claims {target})" if target != real else ""),
                     "unset HSA_OVERRIDE_GFX_VERSION (it is a consumer-card workaround; wrong values give "
                     "'invalid device function')")
    return Check("HSA_OVERRIDE_GFX_VERSION", INFO, f"set to {ov} (no Instinct GPU detected)")


def check_platform(env: Mapping[str, str]) -> Check:
    if env.get("HIP_PLATFORM"):
        return Check("HIP_PLATFORM", PASS, f"HIP_PLATFORM={env['HIP_PLATFORM']}")
    if shutil.which("nvcc", path=env.get("PATH")) and shutil.which("hipcc", path=env.get("PATH")):
        return Check("HIP_PLATFORM", WARN, "unset while nvcc is installed: hipcc may pick the NVIDIA platform",
                     "hipport sets HIP_PLATFORM=amd for its builds; set it in your shell too")
    return Check("HIP_PLATFORM", PASS, "unset (hipcc detects the platform)")


_ORDINAL_PATTERNS = (
    re.compile(r"\b(?:cuda|hip)SetDevice\s*\(\s*(\d+)\s*\)"),
    re.compile(r"torch\.cuda\.set_device\s*\(\s*(\d+)\s*\)"),
    re.compile(r"""["'](?:cuda|hip):(\d+)["']"""),
    re.compile(r"\.cuda\s*\(\s*(\d+)\s*\)"),
    re.compile(r"torch\.device\s*\(\s*[\"']cuda[\"']\s*,\s*(\d+)\s*\)"),
)
LIMIT_FILES = 5000  # sources read for device ordinals; a bigger tree is named, not walked to its end


@dataclass(frozen=True)
class Ordinal:
    path: Path
    line: int
    index: int


def hardcoded_ordinals(root: Path, limit_files: int = LIMIT_FILES) -> tuple[list[Ordinal], int]:
    """Each hard-coded device index in the sources under `root` (a folder or one file), and how many
    files were read. The files are the ones the review covers (engine/discover.py: no build outputs,
    hidden or tool folders, linked folders), at most `limit_files`."""
    from ..discover import discover

    if root.is_file():
        paths = [root]
    else:
        paths = []
        for rel in discover(root):
            paths.append(root / rel)
            if len(paths) >= limit_files:
                break
    found: list[Ordinal] = []
    for p in paths:
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            for pat in _ORDINAL_PATTERNS:
                for m in pat.finditer(line):
                    found.append(Ordinal(p, lineno, int(m.group(1))))
    return found, len(paths)


def check_ordinals(det: Detection, root: Path | None, skipped: str = "") -> Check:
    """`skipped`: why no folder is scanned (the doctor's default folder is not a project)."""
    if root is None:
        return Check("device ordinals", INFO, skipped or "no project given")
    visible = len(det.amd_gpus) or len(det.nvidia_gpus)
    for var in ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        if var in det.visibility:
            visible = min(visible, _count(det.visibility[var])) if visible else _count(det.visibility[var])
    hits, files = hardcoded_ordinals(root)
    where = f"{files} source file(s) under {root}" + (" (the first ones only)" if files >= LIMIT_FILES else "")
    if not hits:
        return Check("device ordinals", PASS, f"no hard-coded device index in {where}")

    def at(o: Ordinal) -> str:
        rel = o.path.relative_to(root).as_posix() if root.is_dir() else o.path.name
        return f"{rel}:{o.line}"

    def place(o: Ordinal) -> str:
        return f"{at(o)}: device {o.index}"

    too_big = [o for o in hits if visible and o.index >= visible]
    if too_big:
        first = too_big[0]
        return Check("device ordinals", FAIL,
                     f"{at(first)} uses device {first.index}, but only {visible} device(s) are "
                     f"visible ({len(too_big)} such place(s) in {where}): hipErrorInvalidDevice",
                     "take the index from an argument or use device 0 with HIP_VISIBLE_DEVICES",
                     tuple(place(o) for o in too_big))
    return Check("device ordinals", INFO if visible else WARN,
                 f"{len(hits)} hard-coded device index(es) in {where}, all below the visible count"
                 if visible else f"{len(hits)} hard-coded device index(es) in {where}; no GPU here to compare with",
                 places=tuple(place(o) for o in hits))


def run_checks(
    det: Detection,
    project_root: Path | None = None,
    env: Mapping[str, str] | None = None,
    groups: Iterable[int] | None = None,
    skipped: str = "",
) -> list[Check]:
    """`skipped`: why `project_root` is None, said by the device-ordinals check."""
    e = dict(os.environ if env is None else env)
    return [
        check_rocm(det),
        check_gpus(det),
        check_kfd(det),
        check_dri(det),
        check_groups(det, groups),
        check_torch(det),
        check_visibility(det),
        check_override(det),
        check_platform(e),
        check_ordinals(det, project_root, skipped),
    ]
