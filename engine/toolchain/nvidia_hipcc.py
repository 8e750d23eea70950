"""`hipcc` for HIP's NVIDIA platform, for machines that have nvcc but no HIP install.

`hipport run --platform nvidia` puts shims/nvidia/bin first on PATH; its `hipcc` runs this module.
It does what hipcc does with HIP_PLATFORM=nvidia (hipcc.pl's nvidia path, HIP 5.2): call nvcc with
the HIP headers (`hip/nvidia_detail/` maps HIP onto CUDA), compile .hip/.cpp/.cc/.cxx/.cu sources as
CUDA (`-x cu`), pass host-compiler options through `-Xcompiler`, and drop AMD-only options
(`--offload-arch=gfx…` becomes `-arch=$HIPPORT_CUDA_ARCH`, default sm_90). hipBLAS has no NVIDIA
build here: shims/nvidia/include/hipblas.h maps the hipBLAS calls the samples use onto cuBLAS, and
`-lhipblas` links cuBLAS.

Environment:
    HIPPORT_HIP_INCLUDE   folder holding hip/hip_runtime.h with hip/nvidia_detail/ (else /opt/rocm/include,
                          /usr/include: a system folder is not named with -isystem, see SYSTEM_INCLUDES);
                          scripts/hip_nvidia_headers.py makes one that a new nvcc accepts
    HIPPORT_CUDA_ARCH     nvcc -arch value (sm_90)
    HIPPORT_NVCC          the nvcc to call (nvcc)

Every nvcc command line is printed on stderr before it runs ("hipcc (HIP_PLATFORM=nvidia) runs: nvcc ..."),
so a build log shows the NVIDIA command, not only the hipcc line make echoed.

API: translate(args, env) -> list of nvcc argv lists (pure; tested), main() runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SOURCES = (".hip", ".cu", ".cpp", ".cc", ".cxx", ".C")
SHIMS = Path(__file__).resolve().parent / "shims" / "nvidia" / "include"
# hipcc options that mean nothing to nvcc on NVIDIA (dropped); those taking a value take the next arg
AMD_ONLY = ("-fno-gpu-rdc", "-munsafe-fp-atomics", "-mno-unsafe-fp-atomics", "-fhip-new-launch-api")
AMD_ONLY_WITH_VALUE = ("-mllvm",)
AMD_PREFIXES = ("--offload-arch=", "--amdgpu-target=", "--rocm-path=", "--hip-path=", "--hip-device-lib",
                "-mcumode", "-mwavefrontsize64", "-mno-wavefrontsize64", "--gpu-max-threads-per-block=")
LIBS = {"-lhipblas": ["-lcublas"], "-lrocblas": ["-lcublas"], "-lhiprand": ["-lcurand"], "-lrocrand": ["-lcurand"],
        "-lhipfft": ["-lcufft"], "-lhipsparse": ["-lcusparse"], "-lamdhip64": [], "-lhip_hcc": []}
# options nvcc takes itself (anything else starting with -f/-W/-m goes to the host compiler)
NVCC_OWN = ("-O", "-I", "-D", "-U", "-L", "-l", "-o", "-c", "-g", "-G", "-E", "-M", "-x", "-std=", "-arch", "-code",
            "-gencode", "-rdc", "-Xcompiler", "-Xlinker", "-Xptxas", "-shared", "-lineinfo", "--", "-isystem",
            "-include", "-w", "-Wno-deprecated-gpu-targets", "-Werror", "-S")


PREFIX = "hipcc (HIP_PLATFORM=nvidia) runs: "


class HipccError(Exception):
    pass


# on the compiler's own search path already: named again with -isystem, it moves ahead of the C++ library's
# folders and `#include_next <math.h>` in <cmath> then finds nothing ("math.h: No such file or directory")
SYSTEM_INCLUDES = ("/usr/include", "/usr/local/include")
DEFAULT_HIP_INCLUDES = ("/opt/rocm/include", "/usr/include")


def hip_include(env: Mapping[str, str]) -> Path:
    """The folder holding HIP's headers for the NVIDIA platform: HIPPORT_HIP_INCLUDE when set (never
    silently another one), else the first default that has them."""
    given = env.get("HIPPORT_HIP_INCLUDE")
    for cand in [given] if given else DEFAULT_HIP_INCLUDES:
        if (Path(cand) / "hip" / "nvidia_detail").is_dir():
            return Path(cand)
    where = f"HIPPORT_HIP_INCLUDE={given}" if given else " or ".join(DEFAULT_HIP_INCLUDES)
    raise HipccError(f"HIP's NVIDIA headers (hip/nvidia_detail/) were not found in {where}: set "
                     "HIPPORT_HIP_INCLUDE to the folder that holds hip/hip_runtime.h with hip/nvidia_detail/ "
                     "(python3 scripts/hip_nvidia_headers.py DIR makes a copy of Debian's that a new nvcc accepts)")


def include_flags(folder: Path) -> list[str]:
    """The nvcc options that put HIP's headers in `folder` on the search path (none for a system folder)."""
    if str(folder).rstrip("/") in SYSTEM_INCLUDES:
        return []
    return ["-isystem", str(folder)]


# hipcc options nvcc takes as they are, each with its value (the next argument)
WITH_VALUE = ("-I", "-D", "-L", "-include", "-isystem", "-Xcompiler", "-Xlinker", "-Xptxas")


@dataclass
class _HipccCall:
    """One hipcc command line, sorted for nvcc."""

    flags: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)  # objects, archives: not to be compiled as CUDA
    out: str | None = None
    compile_only: bool = False
    has_arch: bool = False


def translate(args: Sequence[str], env: Mapping[str, str]) -> list[list[str]]:
    """The nvcc command lines for one hipcc call."""
    nvcc = env.get("HIPPORT_NVCC", "nvcc")
    arch = env.get("HIPPORT_CUDA_ARCH", "sm_90")
    call = _parse(args)
    base = [nvcc, "-Wno-deprecated-gpu-targets", "-D__HIP_PLATFORM_NVIDIA__", *include_flags(hip_include(env)),
            "-I", str(SHIMS), *([] if call.has_arch else [f"-arch={arch}"]), *call.flags]
    outs = ["-o", call.out] if call.out else []
    if not call.sources:
        return [[*base, *call.others, *outs]]
    if not call.others:
        return [[*base, "-x", "cu", *call.sources, *outs]]
    # nvcc's -x applies to every input: compile the sources alone, then link with the other inputs
    tmp = tempfile.mkdtemp(prefix="hipport-hipcc-")
    objs = [str(Path(tmp) / f"{i}_{Path(s).stem}.o") for i, s in enumerate(call.sources)]
    cmds = [[*base, "-c", "-x", "cu", s, "-o", o] for s, o in zip(call.sources, objs, strict=True)]
    if not call.compile_only:
        cmds.append([*base, *call.others, *objs, *outs])
    return cmds


def _parse(args: Sequence[str]) -> _HipccCall:
    call = _HipccCall()
    it = iter(args)
    for a in it:
        if _amd_only(a, it):
            continue
        if a == "-o":
            call.out = next(it, None)
            continue
        mapped = _nvcc_spelling(a, it)
        if mapped is not None:
            call.flags += mapped
            continue
        call.compile_only = call.compile_only or a == "-c"
        call.has_arch = call.has_arch or a.startswith(("-arch", "-gencode", "--gpu-architecture"))
        _keep(a, it, call)
    return call


def _amd_only(a: str, it: Iterator[str]) -> bool:
    """`a` means nothing to nvcc: dropped (with its value, for those that take one)."""
    if a in AMD_ONLY:
        return True
    if a in AMD_ONLY_WITH_VALUE:
        next(it, None)
        return True
    return a.startswith(AMD_PREFIXES)


def _nvcc_spelling(a: str, it: Iterator[str]) -> list[str] | None:
    """nvcc's words for a hipcc option that nvcc spells differently (-x hip, -fgpu-rdc, a HIP library);
    None for the others."""
    if a == "-x":
        lang = next(it, "")
        return [] if lang in ("hip", "cu", "cuda", "c++") else ["-x", lang]
    if a == "-fgpu-rdc":
        return ["-rdc=true"]
    if a == "-ffast-math":
        return ["--use_fast_math"]
    return LIBS.get(a)


def _keep(a: str, it: Iterator[str], call: _HipccCall) -> None:
    """An argument nvcc reads as hipcc does: a host-compiler option (through -Xcompiler), an option (with its
    value), a source to compile as CUDA, or another input."""
    if a.startswith("-") and not a.startswith(NVCC_OWN) and a.startswith(("-f", "-W", "-m", "-pthread", "-pedantic")):
        call.flags += ["-Xcompiler", a]
    elif a in WITH_VALUE:
        call.flags += [a, next(it, "")]
    elif a.startswith("-"):
        call.flags.append(a)
    elif Path(a).suffix in SOURCES:
        call.sources.append(a)
    else:
        call.others.append(a)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["--version"], ["-v"]):
        print("hipcc (hipport, HIP_PLATFORM=nvidia): nvcc with HIP's NVIDIA headers")
        return subprocess.call([os.environ.get("HIPPORT_NVCC", "nvcc"), "--version"])
    try:
        cmds = translate(args, os.environ)
    except HipccError as e:
        print(f"hipcc: {e}", file=sys.stderr)
        return 1
    for cmd in cmds:
        # always: the build log then shows the NVIDIA command that runs, not only the hipcc line make echoed
        print(f"{PREFIX}{' '.join(cmd)}", file=sys.stderr, flush=True)
        rc = subprocess.call(cmd)
        if rc != 0:
            return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
