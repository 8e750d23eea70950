"""Compiler diagnostics as `file:line` entries, and one-line meanings for known runtime errors.

API:
    parse_diagnostics(lines) -> list[Diagnostic]    # clang/hipcc and nvcc, deduplicated
    explain_error(text) -> str | None                # one line: what it means + the fix

clang compiles each HIP file once for the host and once per offload arch, so the same warning
comes back N+1 times ("N warnings generated when compiling for gfx90a."); entries are deduplicated
by (path, line, col, severity, message). nvcc prints `file(line): error: msg` (EDG front end) and
ptxas/gcc style `file:line:col: error: msg`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    col: int | None
    severity: str  # "error" | "warning" | "note" | "remark"
    message: str
    flag: str | None = None  # e.g. -Wunused-variable, or nvcc's #177-D

    def location(self) -> str:
        return f"{self.path}:{self.line}" + (f":{self.col}" if self.col else "")


# clang / gcc: path:line:col: severity: message [-Wflag]
_CLANG = re.compile(
    r"^(?P<path>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
    r"(?P<sev>fatal error|error|warning|note|remark):\s*(?P<msg>.*?)\s*(?:\[(?P<flag>-W[^\]]+|-R[^\]]+)\])?$"
)
# nvcc (EDG): path(line): severity #177-D: message
_NVCC = re.compile(
    r"^(?P<path>[^\s(][^(]*?)\((?P<line>\d+)\):\s*(?P<sev>error|warning|remark|note)"
    r"(?:\s*(?P<flag>#\d+(?:-D)?))?:\s*(?P<msg>.*)$"
)


# Headers that are not the person's code: hipport's own compatibility headers (force-included by the
# build plan) and the system's. An error inside one is reported at the person's line that led to it.
_SHIMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shims") + os.sep
_SYSTEM = ("/usr/include/", "/usr/lib/", "/usr/local/include/", "/opt/rocm")


def _foreign(path: str) -> bool:
    p = os.path.abspath(path)
    return p.startswith(_SHIMS) or p.startswith(_SYSTEM)


def parse_diagnostics(lines: Iterable[str]) -> list[Diagnostic]:
    parsed: list[Diagnostic] = []
    for raw in lines:
        text = raw.rstrip("\n").rstrip()
        m = _CLANG.match(text) or _NVCC.match(text)
        if not m:
            continue
        sev = m.group("sev")
        sev = "error" if sev == "fatal error" else sev
        col = m.groupdict().get("col")
        parsed.append(Diagnostic(
            path=m.group("path").strip(),
            line=int(m.group("line")),
            col=int(col) if col else None,
            severity=sev,
            message=m.group("msg").strip(),
            flag=m.group("flag"),
        ))
    seen: set[tuple[str, int, int | None, str, str]] = set()
    out: list[Diagnostic] = []
    moved_to: set[int] = set()  # notes an error was moved to: the error says it, the note is not repeated
    for i, d in enumerate(parsed):
        if i in moved_to:
            continue
        if d.severity != "note" and _foreign(d.path):
            j = _own_line(parsed, i)
            if j is not None:
                own = parsed[j]
                where = f"{os.path.basename(d.path)}:{d.line}"
                d = Diagnostic(own.path, own.line, own.col, d.severity, f"{d.message} (in {where})", d.flag)
                moved_to.add(j)
        key = (d.path, d.line, d.col, d.severity, d.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    return out


def _own_line(parsed: list[Diagnostic], i: int) -> int | None:
    """An error inside a header that is not the person's (a static_assert in hipport's compatibility
    header, a template in a system header) belongs at the person's line its notes lead to ("in
    instantiation of ... requested here", else the last note in the person's code): that note's index,
    or None when no note leads out of such headers."""
    own: int | None = None
    for j in range(i + 1, len(parsed)):
        note = parsed[j]
        if note.severity != "note":
            break
        if not _foreign(note.path):
            own = j
            if "requested here" in note.message:
                break
    return own


# (pattern, explanation) in priority order: the first match wins. Texts: ROCm/clr hip_error.cpp
# strings, ../shared/design/RUN_PANE.md §2.4 and WAVE64.md §1.3.
_KNOWN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), msg)
    for p, msg in (
        (
            r"The mask must be a 64-bit integer",
            "HIP's *_sync warp builtins take a 64-bit lane mask (wave64): the port still passes CUDA's "
            "32-bit 0xffffffff. Accept hipport's mask fix (e.g. ~0ull or __activemask()).",
        ),
        (
            r"hipErrorNoBinaryForGpu|no kernel image is available|Unable to find code object for all current devices",
            "The binary has no code for this GPU's architecture: rebuild with --offload-arch=<the GPU's gfx> "
            "(hipport detects it; override with --arch), or hide the other GPUs with HIP_VISIBLE_DEVICES.",
        ),
        (
            r"hipErrorSharedObjectInitFailed|shared object initialization failed",
            "The code objects could not be loaded for some visible device (usually a missing --offload-arch "
            "for one of them): rebuild for every visible GPU's gfx or set HIP_VISIBLE_DEVICES to one device.",
        ),
        (
            r"hipErrorInvalidDeviceFunction|invalid device function",
            "No kernel code for this GPU's gfx in the binary (wrong or missing --offload-arch; AMD_LOG_LEVEL=3 "
            "shows 'No compatible code objects found'): rebuild for the detected architecture.",
        ),
        (
            r"hipErrorInvalidDevice\b|invalid device ordinal",
            "The program asked for a device index that is not visible (hipSetDevice(n) with n >= the visible "
            "count, often after HIP_VISIBLE_DEVICES masking): pick an index below the visible count.",
        ),
        (
            r"hipErrorNoDevice|no ROCm-capable device is detected|No HIP GPUs are available",
            "No GPU is visible to HIP: check /dev/kfd and /dev/dri access (user in the 'render' and 'video' "
            "groups; containers need --device /dev/kfd --device /dev/dri) and unset conflicting "
            "ROCR_VISIBLE_DEVICES/HIP_VISIBLE_DEVICES.",
        ),
        (
            r"/dev/kfd.*(Permission denied|Operation not permitted|No such file)|"
            r"(Permission denied|Operation not permitted|No such file).*?/dev/kfd",
            "No access to /dev/kfd: add the user to the 'render' (and 'video') group and log in again, or "
            "run the container with --device /dev/kfd --device /dev/dri --group-add render.",
        ),
        (
            r"libamdhip64\.so[.\d]*: cannot open shared object file|error while loading shared libraries: libamdhip64",
            "The HIP runtime library libamdhip64 is not on the loader path: set "
            "LD_LIBRARY_PATH=$ROCM_PATH/lib (or add /etc/ld.so.conf.d/rocm.conf and run ldconfig).",
        ),
        (
            r"libhsa-runtime64\.so[.\d]*: cannot open shared object file",
            "The ROCr runtime libhsa-runtime64 is not on the loader path: set LD_LIBRARY_PATH=$ROCM_PATH/lib.",
        ),
        (
            r"cannot determine amdgcn architecture",
            "The compiler could not detect a GPU (none visible at build time): pass --offload-arch explicitly "
            "(hipport does, default gfx942; change it with --arch or [tool.hipport.run] arch).",
        ),
        (
            r"use of undeclared identifier '__syncwarp'",
            "__syncwarp exists only from HIP 7.0: accept hipport's warp fix, or on older ROCm use "
            "__builtin_amdgcn_wave_barrier() with __threadfence_block().",
        ),
        (
            r"use of undeclared identifier '__(shfl\w*|ballot|any|all)_sync'",
            "This HIP predates the *_sync warp builtins (added in ROCm 6.2, default in 7.0): hipport's build "
            "adds a compatibility header for HIP < 6.2; otherwise use ROCm >= 7.0.",
        ),
        (
            r"an illegal memory access was encountered|hipErrorIllegalAddress|unspecified launch failure",
            "A kernel read or wrote out of bounds: check index arithmetic that assumes 32-lane warps (lane/warp "
            "ids, shared-memory sizes) and the grid for sizes that do not divide the tile.",
        ),
        (
            r"CUDA driver version is insufficient|cudaErrorInsufficientDriver",
            "No usable NVIDIA driver for this CUDA runtime (or no NVIDIA GPU): nothing can be launched here.",
        ),
        (
            r"constexpr.*warpSize|non-constexpr function 'operator int'|warpSize.*not a constant expression",
            "warpSize is not a compile-time constant from ROCm 7.0: use a per-arch constant (64 under __GFX9__) "
            "for array sizes and template arguments, warpSize only at run time.",
        ),
    )
)


def explain_error(text: str) -> str | None:
    """One line (meaning + fix) for a known error in `text`, or None."""
    for pattern, message in _KNOWN:
        if pattern.search(text):
            return message
    return None
