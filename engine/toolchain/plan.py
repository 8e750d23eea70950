"""Build plans: how to build and launch a ported project on this machine.

API:
    plan(project_root, config=None, *, arch=None, device=None, detection=None, baseline=False,
         args=None) -> RunPlan
    RunPlan(kind, steps, launch, arch, notes)   kind: "single-file" | "cmake" | "make" | "python"
                                                (or "custom": steps given by the caller); .blocked: one
                                                line when it cannot build (convert first, a CMake project
                                                in sibling mode, no nvcc or HIP headers for NVIDIA)
    Step(title, argv, cwd, env, role)           role: "build" | "run"; env is the FULL environment
                                                (None: hipport's own, for caller-made steps); .trust:
                                                what of the repository's it runs (trust.py)

`project_root` is a directory (a Makefile or CMakeLists.txt, else its one CUDA/HIP source) or one
file (.hip/.cu/.cpp or a .py script). The plan builds the PORTED files, named by engine/outputs.py
(`ported_name`: the project's output mode; sibling `gemm.cu` -> `gemm.hip`, `matmul_cuda.py` ->
`matmul_hip.py`, as the app and `hipport convert --suffix` write them), or a source that holds its own
port (in_place.ported_in_place: after `convert --in-place`, with or without backups); when they are
missing the plan has no steps and says "convert first". With baseline=True it builds the ORIGINAL CUDA sources
with nvcc, labelled "CUDA baseline", and launches them when an NVIDIA GPU is present.

The AMD build always names its target: `--offload-arch=<gfx>` from `arch=`, else config `arch`,
else the chosen GPU's gfx, else gfx942 (auto-detection in hipcc/CMake silently depends on tools that
build-only machines lack). No AMD GPU -> the plan builds and says plainly that nothing was launched.

`config` is the raw `[tool.hipport.run]` table:
    arch = "gfx942" | ["gfx90a", "gfx942"]   target(s) when no GPU is detected or to override it
    target = "examples/gemm"                  what to build, relative to the project root
    args = ["4096"]                           arguments for the program
    run = ["build/app", "--n", "1"]           how to launch (CMake projects need it); `command` is
                                              accepted as an alias (a string is split like a shell)
    make_args = [...]; cmake_args = [...]; defines = ["FOO=1"]; libs = ["-lhipblas"]
    python = "python3"                        interpreter for Python projects
    build_timeout = 900; run_timeout = 600    seconds
    no_blas = true                            build without the vendor BLAS (samples that support it)
    outputs, baseline_ignore, dtype, output_dtype, tolerance: the comparison with the CUDA baseline (baseline.py)

A single-file build hands repository-chosen names (the source, the program) and config values (defines,
libs) to a compiler driver; Debian's hipcc (a Perl script) and nvcc pass their arguments through a
shell, so any of them with shell characters is refused by name (`driver_safe`), never passed on.

The project kind is engine/buildsys `project_kind`'s (the one decision, which `hipport run` and the app
ask too); the `[tool.hipport.run]` keys are checked by engine/config.py `check_run` when the settings load
(and here again for a table a caller made). The HIP plan is built per kind (_hip_single_file, _hip_make,
_hip_cmake, _hip_python) over one _HipBuild.

Size (~760 lines, over the ~600 guide): the AMD plan (_plan_hip) and the CUDA baseline plan
(_plan_cuda) share this module's naming, target, arch and step rules; kept together so each
rule has one home and plan() has no import cycle with a split-off half.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..buildsys import project_kind
from ..config import Config, ConfigError, check_run, load_config, parse_archs
from ..in_place import ported_in_place
from ..outputs import output_path, sibling_name
from .baseline import baseline_path
from .buildscript import (
    HIP_ARCH_VARS,
    Script,
    build_file,
    convert_command,
    declares,
    find_script,
    has_target,
    make_vars,
)
from .detect import Detection, Gpu
from .devices import device_env

DEFAULT_ARCH = "gfx942"
PLATFORMS = ("amd", "nvidia")
NVIDIA_NOTE = ("HIP port built for HIP's NVIDIA platform (HIP_PLATFORM=nvidia: nvcc with HIP's headers): this "
               "proves the port builds, runs and gives the same results on 32-lane warps; wave64 correctness "
               "is the warp analysis' and the oracle's job")


class PlanError(Exception):
    """A plan cannot be made (bad path, unknown device): one line for the user."""


@dataclass(frozen=True)
class Step:
    title: str
    argv: list[str]
    cwd: Path
    env: dict[str, str] | None = None
    role: str = "build"  # "build" | "run"
    timeout: float | None = None
    # what of the repository's this step runs (its Makefile, a [tool.hipport.run] value ...), one line
    # each: it runs only once the person trusts the project (trust.py); empty: hipport's own command
    trust: tuple[str, ...] = ()

    @property
    def label(self) -> str:  # the app's name for the title
        return self.title


@dataclass(frozen=True)
class RunPlan:
    kind: str  # "single-file" | "cmake" | "make" | "python" | "custom"
    steps: list[Step]
    launch: bool  # whether a run step launches on a GPU
    arch: str  # gfx target (AMD) or sm arch (CUDA baseline)
    notes: list[str] = field(default_factory=list)
    baseline: bool = False
    device: Gpu | None = None
    label: str = "HIP port"  # or "CUDA baseline", "HIP port (NVIDIA platform)"
    platform: str = "amd"  # where the built program runs: "amd" | "nvidia" (the baseline and --platform nvidia)
    baseline_file: Path | None = None  # .hipport/baseline/<name>.json: recorded (baseline) or compared with
    config: Mapping[str, Any] = field(default_factory=dict)  # [tool.hipport.run]: outputs, tolerances
    project: Path | None = None  # the project root (.hipport/ lives there)
    blocked: str = ""  # one line when the plan cannot build at all (convert first, ...): what to do instead

    @property
    def vendor(self) -> str:
        return "nvidia" if self.baseline else self.platform

    @property
    def ready(self) -> bool:
        return bool(self.steps)

    def describe(self) -> list[str]:
        out = [f"{self.label}: {self.kind} build for {self.arch}"]
        out += [f"  {s.role:5} {s.title}: {' '.join(s.argv)}" for s in self.steps]
        out += self.notes
        return out


def custom_plan(steps: list[Step], notes: list[str] | None = None) -> RunPlan:
    """A plan of the caller's own steps (scripts, tests): run in order, nothing launched on a GPU."""
    return RunPlan("custom", list(steps), False, "", list(notes or []))


# ---------------------------------------------------------------------------------------------- names


def ported_name(path: Path, settings: Config | None = None, home: Path | None = None) -> Path:
    """Where hipport writes the port of `path`: engine/outputs.py's one naming rule. With the project's
    `settings` and `home`, its output mode (sibling, folder, in-place) as the app and `convert --suffix`
    write it; without, the sibling name (kernel_cuda.cu -> kernel_hip.hip, matmul_cuda.py -> matmul_hip.py)."""
    if settings is not None and home is not None:
        try:
            return output_path(settings, home, path.resolve().relative_to(home.resolve()).as_posix())
        except (ValueError, ConfigError):
            pass  # outside the project: beside it
    return path.with_name(sibling_name(path.name))


def shim_header() -> Path:
    """hipport's *_sync compatibility header for HIP < 6.2 (see shims/hip_sync_compat.h)."""
    return Path(str(resources.files(__package__).joinpath("shims/hip_sync_compat.h")))


_SHELL_SAFE = frozenset("_@%+=:,./-")


def driver_safe(value: str, what: str, option: bool = False) -> str:
    """`value` unchanged when a shell reads it as one plain word; PlanError naming it otherwise. Debian's
    hipcc and nvcc hand their arguments to a shell: a name like `x;touch y$(id).cu` would run commands.
    A file name must not start with '-' either (the driver would read an option); an `option` may."""
    bad = "".join(sorted({c for c in value if not (c.isalnum() or c in _SHELL_SAFE)}))
    if bad or (value.startswith("-") and not option) or not value:
        why = f"has shell characters ({bad!r})" if bad else "starts with '-'" if value else "is empty"
        raise PlanError(f"{what} {value!r} {why}: the compiler driver (hipcc, nvcc) passes its arguments "
                        "through a shell, so hipport does not pass it on; rename it")
    return value


def _from_config(cfg: Mapping[str, Any], *keys: str) -> tuple[str, ...]:
    """Step.trust lines for the [tool.hipport.run] values a step's argv takes."""
    return tuple(f"[tool.hipport.run] {k} = {cfg[k]!r}" for k in keys if cfg.get(k))


def _as_list(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return shlex.split(v)
    return [str(x) for x in v]


# ---------------------------------------------------------------------------------------------- choice


def build_target(root: Path, cfg: Mapping[str, Any]) -> Path:
    """What a run of the project at `root` (a folder or one file) builds: `root`, or the folder's
    [tool.hipport.run] target; PlanError when that is missing or leads outside the project (the build
    writes build/ and objects where the target is)."""
    target = root / str(cfg["target"]) if cfg.get("target") and root.is_dir() else root
    if not target.exists():
        raise PlanError(f"[tool.hipport.run] target does not exist: {target}")
    if target != root and not target.resolve().is_relative_to(root.resolve()):
        raise PlanError(f"[tool.hipport.run] target {cfg['target']!r} leads outside the project {root}")
    return target


def planned_kind(root: Path, cfg: Mapping[str, Any]) -> str | None:
    """project_kind of what a run of `root` builds (build_target); None when that is not known (the plan
    says why). `hipport run` asks it before planning: a Python project needs the PyTorch check."""
    try:
        return project_kind(build_target(Path(root), cfg))
    except (PlanError, OSError):
        return None


def _kind(target: Path) -> str:
    """buildsys.project_kind, the one decision of how a project builds; PlanError when nothing builds."""
    kind = project_kind(target)
    if kind is not None:
        return kind
    if target.is_file():
        raise PlanError(f"don't know how to build {target.name} (expected .hip/.cu/.cpp or .py)")
    raise PlanError(f"nothing to build in {target}: no Makefile, CMakeLists.txt, .cu/.hip or .py file")


def _single_source(target: Path, baseline: bool, name: Callable[[Path], Path] = ported_name) -> Path:
    if target.is_file():
        return target
    cus = sorted(p for p in target.iterdir() if p.suffix == ".cu")
    hips = sorted(p for p in target.iterdir() if p.suffix == ".hip")
    pool = cus if baseline else (hips or [_port_of(p, name) or name(p) for p in cus])
    if len(pool) != 1:
        raise PlanError(f"{target} has {len(pool)} candidate sources; name one file or set [tool.hipport.run] target")
    return pool[0]


# gfx942 (MI300) is a target from ROCm 5.7's compiler on; older hipcc (Debian 12 ships HIP 5.2)
# rejects it, so an unchosen default falls back to gfx90a (MI200), the newest wave64 target it knows.
GFX942_SINCE = (5, 7)
OLD_HIP_FALLBACK_ARCH = "gfx90a"


def _choose_arch(
    arch: str | None, config: Mapping[str, Any], gpu: Gpu | None, hip_version: tuple[int, ...] | None = None
) -> tuple[str, list[str]]:
    notes: list[str] = []
    if arch:
        chosen = [arch]
    elif config.get("arch"):
        chosen = _as_list(config["arch"])
    elif gpu is not None:
        chosen = [gpu.arch]
    elif hip_version is not None and tuple(hip_version[:2]) < GFX942_SINCE:
        chosen = [OLD_HIP_FALLBACK_ARCH]
        notes.append(f"this hipcc (HIP {'.'.join(map(str, hip_version))}) cannot target {DEFAULT_ARCH} "
                     f"(needs ROCm >= 5.7): building for {OLD_HIP_FALLBACK_ARCH} (MI200, also wave64); "
                     "set [tool.hipport.run] arch or --arch to choose")
    else:
        chosen = [DEFAULT_ARCH]
    try:
        clean = list(parse_archs(chosen))  # the one arch-list rule, as `[tool.hipport] archs` and convert --arch
    except ValueError as e:
        raise PlanError(f"not an AMD GPU target: {e}") from None
    if gpu is not None and gpu.arch not in (a.split(":")[0] for a in clean):  # gfx90a:xnack- builds for gfx90a
        notes.append(f"warning: building for {', '.join(clean)} but GPU {gpu.index} is {gpu.arch}: "
                     "the launch will fail with 'invalid device function'")
    return " ".join(clean), notes


def _hip_header_exists(detection: Detection, rel: str) -> bool:
    roots = [detection.rocm.root, "/opt/rocm", "/usr"]
    return any(r and (Path(r) / "include" / rel).exists() for r in roots)


# ---------------------------------------------------------------------------------------------- plan


def plan(
    project_root: Path,
    config: Mapping[str, Any] | None = None,
    *,
    arch: str | None = None,
    device: int | None = None,
    detection: Detection | None = None,
    baseline: bool = False,
    env: Mapping[str, str] | None = None,
    platform: str = "amd",
    settings: Config | None = None,
    args: list[str] | None = None,
) -> RunPlan:
    """`settings` (the project's Config: output mode and folder) is read from the project when not given.
    `args`: the program's arguments as the person gave them (`hipport run --args`): they replace the
    config's `args` and, being the person's own, need no trust."""
    try:
        cfg: Mapping[str, Any] = check_run(config or {})  # the settings' own check, for tables made by callers
    except ConfigError as e:
        raise PlanError(str(e)) from None
    root = Path(project_root).resolve()
    if not root.exists():
        raise PlanError(f"no such file or directory: {project_root}")
    target = build_target(root, cfg)
    if detection is None:
        from .detect import detect

        detection = detect(torch=False)
    base_env = dict(os.environ if env is None else env)
    kind = _kind(target)
    home = root if root.is_dir() else root.parent
    if settings is None:
        try:
            settings = load_config(home)
        except ConfigError as e:
            raise PlanError(str(e)) from None
    if "arch" not in cfg and settings.origin is not None:  # [tool.hipport] archs, when the project sets them
        cfg = {**cfg, "arch": list(settings.archs)}
    if kind in ("make", "cmake"):
        script = find_script(kind, target, home, settings.output_mode, settings.output_folder, baseline)
    else:
        script = None
    if platform not in PLATFORMS:
        raise PlanError(f"unknown platform {platform!r} (expected one of {', '.join(PLATFORMS)})")
    args_trust = _from_config(cfg, "args") if args is None else ()
    if args is not None:
        cfg = {**cfg, "args": list(args)}
    if baseline:
        made = _plan_cuda(kind, target, cfg, device, detection, base_env, args_trust)
    else:
        made = _plan_hip(kind, target, cfg, arch, device, detection, base_env, platform, script, args_trust,
                         functools.partial(ported_name, settings=settings, home=home),
                         functools.partial(convert_command, output_mode=settings.output_mode,
                                           output_folder=settings.output_folder))
    return dataclasses.replace(made, baseline_file=baseline_path(home, program_name(home, target)), config=dict(cfg),
                               project=home)


def cmake_switches(text: str, lang: str, no_blas: bool) -> list[str]:
    """-D switches for a dual CUDA/HIP CMakeLists.txt: a cache variable whose value is "CUDA" or "HIP"
    (`set(X "CUDA" CACHE STRING ...)`) is set to `lang`; an option(..._NO_BLAS ...) to ON when no_blas."""
    out = [f"-D{m.group(1)}={lang}" for m in re.finditer(r'set\(\s*(\w+)\s+"?(?:CUDA|HIP)"?\s+CACHE\s+STRING', text)]
    if no_blas:
        out += [f"-D{m.group(1)}=ON" for m in re.finditer(r"option\(\s*(\w*NO_BLAS\w*)", text)]
    return out


def program_name(home: Path, target: Path) -> str:
    """The name a program's CUDA baseline is kept under: its path in the project, without the suffix
    and the cuda/hip part that porting changes (gemm.cu and gemm.hip are both "gemm")."""
    rel = target.resolve().relative_to(home.resolve()) if target.resolve().is_relative_to(home.resolve()) else Path(target.name)
    if target.is_file():
        rel = rel.with_name(re.sub(r"[_-]?(cuda|hip)$", "", rel.stem, flags=re.IGNORECASE) or rel.stem)
    name = rel.as_posix()
    return home.resolve().name if name in ("", ".") else name


def _pick_gpu(gpus: tuple[Gpu, ...], device: int | None, what: str) -> Gpu | None:
    if not gpus:
        return None
    if device is None:
        return gpus[0]
    found = next((g for g in gpus if g.index == device), None)
    if found is None:
        raise PlanError(f"no {what} GPU with index {device} (found: {', '.join(str(g.index) for g in gpus)})")
    return found


def _missing_ports(kind: str, target: Path, name: Callable[[Path], Path] = ported_name) -> list[tuple[Path, Path]]:
    """(original, expected port) for every CUDA source whose port is not there yet."""
    if target.is_file():
        if target.suffix in (".cu", ".py") and not re.search(r"hip", target.stem, re.IGNORECASE):
            return [] if _port_of(target, name) is not None else [(target, name(target))]
        return []
    files = [p for p in target.iterdir() if p.suffix == ".cu"]
    if kind == "python":
        files = [p for p in target.iterdir() if p.suffix == ".py" and "cuda" in p.stem.lower()]
    return [(p, name(p)) for p in sorted(files) if _port_of(p, name) is None]


def _port_of(original: Path, name: Callable[[Path], Path] = ported_name) -> Path | None:
    """The file a build uses as the port of `original`: its port by the output mode when on disk, else the
    original itself when it holds its own port (in_place.ported_in_place: written over by hipport, or HIP
    already, e.g. after `convert --in-place --no-backup` whatever the output mode says), else None."""
    port = name(original)
    if port.resolve() != original.resolve() and port.exists():
        return port
    return original if ported_in_place(original) else None


def _plan_hip(
    kind: str,
    target: Path,
    cfg: Mapping[str, Any],
    arch: str | None,
    device: int | None,
    det: Detection,
    base_env: dict[str, str],
    platform: str = "amd",
    script: Script | None = None,
    args_trust: tuple[str, ...] = (),  # Step.trust for the program's arguments (none: the person's own)
    name: Callable[[Path], Path] = ported_name,
    convert: Callable[[list[str]], str] | None = None,  # the convert call for missing ports (by output mode)
) -> RunPlan:
    nvidia = platform == "nvidia"
    vendor_name = "NVIDIA" if nvidia else "AMD"
    label = "HIP port (NVIDIA platform)" if nvidia else "HIP port"
    gpu = _pick_gpu(det.nvidia_gpus if nvidia else det.amd_gpus, device, vendor_name)
    if device is not None and gpu is None:
        raise PlanError(f"no {vendor_name} GPU found, so there is no device {device} to run on")
    target_arch, notes, archs = _hip_arch(arch, cfg, gpu, det, nvidia)
    why = _not_ported(kind, target, script, name, convert)
    if why:
        return RunPlan(kind, [], False, target_arch, [why], device=gpu, blocked=why)
    if script is not None:
        notes.append(f"build script: {script.why}")

    env = {**base_env, "HIP_PLATFORM": platform}
    missing_tool = _nvidia_hipcc_env(env, det, target_arch) if nvidia else ""
    if missing_tool:  # nothing can compile: say what is missing before anything runs
        return RunPlan(kind, [], False, target_arch, [missing_tool, *notes], device=gpu,
                       label=label, platform=platform, blocked=missing_tool)
    run_env, env_notes = device_env(env, gpu.index if gpu else None, platform)
    notes += env_notes
    if det.hsa_override and not nvidia:
        notes.append(f"warning: HSA_OVERRIDE_GFX_VERSION={det.hsa_override} is set; Instinct GPUs never need it")
    build = _HipBuild(target, cfg, det, nvidia, archs, target_arch, gpu, env, run_env,
                      _hip_flags(kind, cfg, det, nvidia, notes), args_trust, name, script, notes)
    launch = _HIP_KINDS[kind](build)
    if gpu is None:
        notes.insert(0, f"No {vendor_name} GPU found: built for {target_arch}, nothing was launched." if build.steps else
                     f"No {vendor_name} GPU found: nothing was launched (PyTorch compiles the extension when the "
                     "py runs, so nothing was built either).")
    return RunPlan(kind, build.steps, launch and any(s.role == "run" for s in build.steps), target_arch, notes,
                   device=gpu, label=label, platform=platform)


def _hip_arch(arch: str | None, cfg: Mapping[str, Any], gpu: Gpu | None, det: Detection,
              nvidia: bool) -> tuple[str, list[str], list[str]]:
    """The plan's arch (a gfx list, or the NVIDIA GPU's sm), its first notes, and the gfx targets to build."""
    if nvidia:
        return (gpu.arch if gpu is not None and gpu.arch else "sm_90"), [NVIDIA_NOTE], []
    target_arch, notes = _choose_arch(arch, cfg, gpu, det.rocm.hip_version_tuple)
    return target_arch, notes, target_arch.split()


def _not_ported(kind: str, target: Path, script: Script | None, name: Callable[[Path], Path],
                convert: Callable[[list[str]], str] | None) -> str:
    """Why the port cannot be built yet (a build script or sources not ported, one line naming the convert
    call that writes them); "" when it can."""
    if script is not None and script.path is None:
        return script.why if script.blocked else f"convert first: {script.why}"
    missing = _missing_ports(kind, script.cwd if script is not None else target, name)
    if not missing:
        return ""
    names = [orig.name for orig, _ in missing]
    command = convert(names) if convert is not None else convert_command(names, "sibling", "hip")
    return f"convert first: {', '.join(port.name for _, port in missing)} not found (run `{command}`)"


def _hip_flags(kind: str, cfg: Mapping[str, Any], det: Detection, nvidia: bool, notes: list[str]) -> list[str]:
    """Compiler flags hipport adds: the *_sync compatibility header for old HIP (said in `notes`), the defines."""
    extra: list[str] = []
    hv = det.rocm.hip_version_tuple
    if hv is not None and hv < (6, 2) and kind != "python" and not nvidia:
        extra += ["-include", str(shim_header())]
        notes.append(f"HIP {det.rocm.hip_version} predates the *_sync warp builtins (ROCm 6.2): added hipport's "
                     "compatibility header, which insists on 64-bit masks as ROCm 7 does")
    return extra + [f"-D{d}" for d in _as_list(cfg.get("defines"))]


@dataclass
class _HipBuild:
    """What every kind of HIP build reads, decided once by _plan_hip. Each kind's function (_HIP_KINDS)
    appends its steps and notes and says whether the plan launches."""

    target: Path
    cfg: Mapping[str, Any]
    det: Detection
    nvidia: bool
    archs: list[str]  # gfx targets (none on NVIDIA: hipcc picks the sm)
    target_arch: str
    gpu: Gpu | None
    env: dict[str, str]  # the build steps'
    run_env: dict[str, str]
    extra: list[str]  # _hip_flags
    args_trust: tuple[str, ...]
    name: Callable[[Path], Path]
    script: Script | None
    notes: list[str]
    steps: list[Step] = field(default_factory=list)

    @property
    def workdir(self) -> Path:
        return self.target if self.target.is_dir() else self.target.parent

    @property
    def launch(self) -> bool:
        return self.gpu is not None

    @property
    def no_blas(self) -> bool:
        # on NVIDIA, hipport's hipblas.h shim maps the calls onto cuBLAS
        return bool(self.cfg.get("no_blas")) or (not self.nvidia and not _hip_header_exists(self.det, "hipblas/hipblas.h"))

    @property
    def args(self) -> list[str]:
        return _as_list(self.cfg.get("args"))

    @property
    def configured_run(self) -> list[str]:
        return _as_list(self.cfg.get("run") or self.cfg.get("command"))

    @property
    def build_timeout(self) -> float:
        return float(self.cfg.get("build_timeout", 900))

    @property
    def run_timeout(self) -> float:
        return float(self.cfg.get("run_timeout", 600))


def _hip_single_file(b: _HipBuild) -> bool:
    src = _single_source(b.target, baseline=False, name=b.name)
    if src == b.target and src.suffix == ".cu":  # a folder's source is already its port's name
        src = _port_of(src, b.name) or b.name(src)
    blas_flags, blas_libs = _hip_blas(src.read_text(encoding="utf-8", errors="replace"), b)
    workdir = b.workdir
    out = workdir / "build" / src.stem
    source_arg = driver_safe(os.path.relpath(src, workdir), "file name")
    program = driver_safe(str(out.relative_to(workdir)), "program name")
    for value in (*_as_list(b.cfg.get("defines")), *_as_list(b.cfg.get("libs"))):
        driver_safe(value, "[tool.hipport.run] defines/libs value", option=True)
    argv = ["hipcc", *(f"--offload-arch={a}" for a in b.archs), "-O3", *b.extra, *blas_flags, source_arg, "-o",
            program, *_as_list(b.cfg.get("libs")), *blas_libs]
    # hipcc does not create the output folder
    b.steps.append(Step("mkdir build", ["mkdir", "-p", str(out.parent.relative_to(workdir))], workdir, b.env, "build", 30))
    b.steps.append(Step(f"hipcc {src.name}", argv, workdir, b.env, "build", b.build_timeout,
                        trust=_from_config(b.cfg, "defines", "libs")))
    configured = b.configured_run
    if b.launch:
        b.steps.append(Step(f"run {out.name}", configured or [f"./{program}", *b.args], workdir, b.run_env, "run",
                            b.run_timeout, trust=_from_config(b.cfg, "run", "command") if configured else b.args_trust))
    return b.launch


def _hip_blas(text: str, b: _HipBuild) -> tuple[list[str], list[str]]:
    """Flags and libraries for a source that includes hipBLAS (or its reference-kernel fallback)."""
    if not re.search(r"#\s*include\s*[<\"](hipblas|hipblas/hipblas)\.h[>\"]", text):
        return [], []
    if b.no_blas and "GEMM_NO_BLAS" in text:
        b.notes.append("hipBLAS not found: built without the vendor BLAS (the self-check uses a reference kernel)")
        return ["-DGEMM_NO_BLAS"], []
    if b.nvidia:
        return [], ["-lhipblas"]
    return [], [f"-I{b.det.rocm.root or '/opt/rocm'}/include/hipblas", "-lhipblas"]


def _hip_make(b: _HipBuild) -> bool:
    script = b.script
    assert script is not None and script.path is not None
    text = script.path.read_text(encoding="utf-8", errors="replace")
    # on NVIDIA the AMD arch variable is emptied: no --offload-arch=gfx… in what make echoes (hipcc picks sm_NN)
    mvars = make_vars(text, hip=True, arch="" if b.nvidia else b.target_arch, no_blas=b.no_blas, extra=b.extra,
                      args=b.args)
    if b.extra and not declares(text, "EXTRA_FLAGS"):
        # hipcc puts this variable into the command line it hands to a shell: quoted, word by word
        b.env["HIPCC_COMPILE_FLAGS_APPEND"] = " ".join([b.env.get("HIPCC_COMPILE_FLAGS_APPEND", ""),
                                                        shlex.join(b.extra)]).strip()
    if not b.nvidia and not _sets_arch(mvars):
        b.notes.append(f"the Makefile declares no arch variable ({', '.join(HIP_ARCH_VARS)}): it builds for the "
                       "offload arch it names itself")
    if not b.nvidia and b.det.rocm.root and declares(text, "ROCM_PATH"):
        mvars.append(f"ROCM_PATH={b.det.rocm.root}")  # $(ROCM_PATH)/bin/hipcc: Debian's is /usr, not /opt/rocm
    mvars += _as_list(b.cfg.get("make_args"))
    mk = ["make", *script.make_file_args]
    make_trust = (f"make runs the recipes of {os.path.relpath(script.path, b.workdir)} (and what it includes)",
                  *_from_config(b.cfg, "make_args", "defines"), *(b.args_trust if declares(text, "ARGS") else ()))
    b.steps.append(Step("make", [*mk, "-B", *mvars], script.cwd, b.env, "build", b.build_timeout, trust=make_trust))
    if not b.launch:
        return False
    if b.configured_run:
        b.steps.append(Step("run", b.configured_run, script.cwd, b.run_env, "run", b.run_timeout,
                            trust=_from_config(b.cfg, "run", "command")))
    elif has_target(text, "run"):
        b.steps.append(Step("run", [*mk, "--no-print-directory", "run", *mvars], script.cwd, b.run_env, "run",
                            b.run_timeout, trust=make_trust))
    else:
        b.notes.append("the Makefile has no `run` target: set [tool.hipport.run] run = [...] to launch it")
        return False
    return True


def _sets_arch(mvars: list[str]) -> bool:
    """The make variables set an arch variable (or give one a gfx value)."""
    return any(v.split("=")[0] in (*HIP_ARCH_VARS, "ARCH") or v.startswith(f"{v.split('=')[0]}=gfx") for v in mvars)


def _hip_cmake(b: _HipBuild) -> bool:
    script = b.script
    assert script is not None and script.path is not None
    text = script.path.read_text(encoding="utf-8", errors="replace")
    bdir = "build/hipport-hip"
    if b.nvidia:
        b.notes.append("CMake's HIP language on NVIDIA needs CMake >= 3.28 with a HIP install "
                       "(CMAKE_HIP_PLATFORM=nvidia); hipport's NVIDIA-platform hipcc does not cover CMake")
    configure = ["cmake", "-S", ".", "-B", bdir, "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_HIP_ARCHITECTURES={';'.join(b.archs)}", *cmake_switches(text, "HIP", b.no_blas)]
    if b.extra:
        configure.append(f"-DCMAKE_HIP_FLAGS={' '.join(b.extra)}")
    configure += _as_list(b.cfg.get("cmake_args"))
    cmake_trust = (f"cmake runs {os.path.relpath(script.path, b.workdir)} (execute_process, the CMake files it "
                   "includes, custom commands)", *_from_config(b.cfg, "cmake_args", "defines"))
    b.steps.append(Step("cmake configure", configure, script.cwd, b.env, "build", b.build_timeout, trust=cmake_trust))
    b.steps.append(Step("cmake build", ["cmake", "--build", bdir, "-j"], script.cwd, b.env, "build", b.build_timeout,
                        trust=cmake_trust))
    if not b.configured_run:
        b.notes.append("set [tool.hipport.run] run = [...] to say how to launch a CMake project")
        return False
    if b.launch:
        b.steps.append(Step("run", b.configured_run, script.cwd, b.run_env, "run", b.run_timeout,
                            trust=_from_config(b.cfg, "run", "command")))
    return b.launch


def _hip_python(b: _HipBuild) -> bool:
    py = b.target if b.target.is_file() else _single_python(b.target, baseline=False, name=b.name)
    if not re.search(r"hip", py.stem, re.IGNORECASE) and b.name(py).exists():
        py = b.name(py)
    python = str(b.cfg.get("python") or sys.executable)
    launch = b.launch
    torch = b.det.torch
    if torch is not None and torch.found and not torch.hip:
        b.notes.append(f"PyTorch here is a {torch.backend} build: the ROCm run needs a ROCm build of PyTorch")
        launch = False
    run_env = {**b.run_env, "PYTORCH_ROCM_ARCH": ";".join(b.archs)}
    if launch:
        b.steps.append(Step(f"python {py.name}", [python, py.name, *b.args], py.parent, run_env, "run",
                            b.build_timeout + b.run_timeout, trust=(*_from_config(b.cfg, "python"), *b.args_trust)))
    elif b.gpu is not None:
        b.notes.append("nothing was built: a PyTorch extension is compiled by PyTorch itself when the py runs")
    return launch


_HIP_KINDS: dict[str, Callable[[_HipBuild], bool]] = {
    "single-file": _hip_single_file, "make": _hip_make, "cmake": _hip_cmake, "python": _hip_python,
}


def nvidia_bin() -> Path:
    """Folder of hipport's `hipcc` for HIP's NVIDIA platform (nvidia_hipcc.py)."""
    return Path(str(resources.files(__package__).joinpath("shims/nvidia/bin")))


def _nvidia_hipcc_env(env: dict[str, str], det: Detection, sm: str) -> str:
    """Put hipport's NVIDIA-platform hipcc first on PATH (in `env`); "" or what is missing (one line)."""
    from .nvidia_hipcc import HipccError, hip_include

    env["PATH"] = f"{nvidia_bin()}{os.pathsep}{env.get('PATH', '')}"
    env["HIPPORT_PYTHON"] = sys.executable
    env["HIPPORT_CUDA_ARCH"] = sm
    if det.cuda.nvcc is None and shutil.which("nvcc", path=env["PATH"]) is None:
        return "nvcc not found: the NVIDIA platform build needs the CUDA toolkit"
    try:
        hip_include(env)
    except HipccError as e:
        return str(e)
    return ""


def _single_python(target: Path, baseline: bool, name: Callable[[Path], Path] = ported_name) -> Path:
    scripts = sorted(p for p in target.iterdir() if p.suffix == ".py" and not p.name.startswith("_"))
    if baseline:
        pool = [p for p in scripts if "hip" not in p.stem.lower()]
    else:
        pool = [p for p in scripts if "hip" in p.stem.lower()] or [name(p) for p in scripts if "cuda" in p.stem.lower()]
    if len(pool) != 1:
        raise PlanError(f"{target} has {len(pool)} candidate scripts; name one or set [tool.hipport.run] target")
    return pool[0]


def _plan_cuda(
    kind: str,
    target: Path,
    cfg: Mapping[str, Any],
    device: int | None,
    det: Detection,
    base_env: dict[str, str],
    args_trust: tuple[str, ...] = (),  # Step.trust for the program's arguments (none: the person's own)
) -> RunPlan:
    gpu = _pick_gpu(det.nvidia_gpus, device, "NVIDIA")
    sm = gpu.arch if gpu is not None and gpu.arch else "sm_90"
    notes: list[str] = ["CUDA baseline: the ORIGINAL CUDA sources, built with nvcc (not the HIP port)."]
    run_env, env_notes = device_env(base_env, gpu.index if gpu else None, "nvidia")
    notes += env_notes
    launch = gpu is not None
    nvcc = det.cuda.nvcc or shutil.which("nvcc") or "nvcc"
    if det.cuda.nvcc is None and shutil.which("nvcc") is None:
        notes.append("nvcc not found: the CUDA baseline cannot be built here")
    workdir = target if target.is_dir() else target.parent
    build_timeout = float(cfg.get("build_timeout", 900))
    run_timeout = float(cfg.get("run_timeout", 600))
    args = _as_list(cfg.get("args"))
    steps: list[Step] = []
    if kind == "single-file":
        src = _single_source(target, baseline=True)
        text = src.read_text(encoding="utf-8", errors="replace")
        libs = ["-lcublas"] if re.search(r"#\s*include\s*[<\"]cublas", text) else []
        out = workdir / "build" / (src.stem + "_cuda")
        program = driver_safe(str(out.relative_to(workdir)), "program name")
        argv = [nvcc, "-O3", f"-arch={sm}", driver_safe(src.name, "file name"), "-o", program, *libs]
        steps.append(Step(f"nvcc {src.name}", argv, workdir, base_env, "build", build_timeout))
        if launch:
            steps.append(Step(f"run {out.name}", [f"./{program}", *args], workdir, run_env, "run", run_timeout,
                              trust=args_trust))
    elif kind == "make":
        mfile = build_file("make", workdir)
        text = mfile.read_text(encoding="utf-8", errors="replace")
        mvars = [*make_vars(text, hip=False, arch=sm, no_blas=bool(cfg.get("no_blas")), extra=[], args=args),
                 *_as_list(cfg.get("make_args"))]
        make_trust = (f"make runs the recipes of {mfile.name} (and what it includes)", *_from_config(cfg, "make_args"),
                      *(args_trust if declares(text, "ARGS") else ()))
        steps.append(Step("make (CUDA)", ["make", "-B", *mvars], workdir, base_env, "build", build_timeout,
                          trust=make_trust))
        configured = _as_list(cfg.get("run") or cfg.get("command"))
        if launch and configured:
            steps.append(Step("run", configured, workdir, run_env, "run", run_timeout,
                              trust=_from_config(cfg, "run", "command")))
        elif launch and has_target(text, "run"):
            steps.append(Step("run", ["make", "--no-print-directory", "run", *mvars], workdir, run_env, "run",
                              run_timeout, trust=make_trust))
        elif launch:
            launch = False
            notes.append("the Makefile has no `run` target: set [tool.hipport.run] run = [...] to launch it")
    elif kind == "cmake":
        bdir = "build/hipport-cuda"
        text = (workdir / "CMakeLists.txt").read_text(encoding="utf-8", errors="replace")
        cmake_trust = ("cmake runs CMakeLists.txt (execute_process, the CMake files it includes, custom commands)",
                       *_from_config(cfg, "cmake_args"))
        steps.append(Step("cmake configure", ["cmake", "-S", ".", "-B", bdir, "-DCMAKE_BUILD_TYPE=Release",
                                              f"-DCMAKE_CUDA_ARCHITECTURES={sm.removeprefix('sm_')}",
                                              *cmake_switches(text, "CUDA", False),
                                              *_as_list(cfg.get("cmake_args"))], workdir, base_env, "build", build_timeout,
                          trust=cmake_trust))
        steps.append(Step("cmake build", ["cmake", "--build", bdir, "-j"], workdir, base_env, "build", build_timeout,
                          trust=cmake_trust))
        run_argv = _as_list(cfg.get("run") or cfg.get("command"))
        if not run_argv:
            launch = False
            notes.append("set [tool.hipport.run] run = [...] to say how to launch a CMake project")
        elif launch:
            steps.append(Step("run", run_argv, workdir, run_env, "run", run_timeout,
                              trust=_from_config(cfg, "run", "command")))
    else:
        script = target if target.is_file() else _single_python(target, baseline=True)
        python = str(cfg.get("python") or sys.executable)
        if launch:
            steps.append(Step(f"python {script.name}", [python, script.name, *args], script.parent, run_env, "run",
                              build_timeout + run_timeout, trust=(*_from_config(cfg, "python"), *args_trust)))
    if gpu is None:
        notes.insert(0, f"No NVIDIA GPU found: CUDA baseline built for {sm}, nothing was launched." if steps else
                     "No NVIDIA GPU found: the CUDA baseline was not launched (PyTorch compiles the extension "
                     "when the script runs, so nothing was built either).")
    return RunPlan(kind, steps, launch and any(s.role == "run" for s in steps), sm, notes,
                   baseline=True, device=gpu, label="CUDA baseline")
