"""Which build script a run uses, and with which variables: the PORTED one for the HIP port, the
original for the CUDA baseline. Never the CUDA original for the port: when the build script is not
ported yet, the plan says so and has no steps.

Where the ported script is (engine/outputs.py's naming, the one rule `hipport convert` and the app
write with; the translation itself is engine/buildsys/):
    in-place  the build file itself, once it builds HIP (hipcc / the HIP language)
    sibling   Makefile -> Makefile_hip: `make -f Makefile_hip`; CMake reads only CMakeLists.txt, so a CMake
              project that does not build HIP yet is refused up front (Script.blocked), naming the
              folder-mode convert and run that work
    folder    <output_folder>/<dir>/Makefile or CMakeLists.txt: built there (`make -C`, `cmake -S`)
A build file that already builds HIP (a dual CUDA/HIP Makefile like the bundled sample's) is used as
it is, in any mode.

Variables passed to make (only those the Makefile declares, so nothing is guessed):
    HIP=1 / HIP=0, the arch variable (the one `--offload-arch=$(X)` / `-arch=$(X)` reads, else OFFLOAD_ARCH,
    HIP_ARCH, GPU_TARGETS, AMDGPU_TARGETS; CUDA_ARCH, ARCH, SM for the baseline), NO_BLAS=1, BUILD=build/cuda (the baseline's own folder), EXTRA_FLAGS
    and ARGS (word lists shell-quoted, `$` doubled: `make_value`; a recipe's shell reads each word back as
    one argument, so `args = ["4096; echo x"]` is text, never a command). Extra hipcc flags for a Makefile without EXTRA_FLAGS go through hipcc's
    HIPCC_COMPILE_FLAGS_APPEND. make runs with -B (always rebuild): the CUDA baseline and the port
    may build the same object and program names in the same folder.

API:
    find_script(kind, workdir, home, settings) -> Script      (.path None: not ported, .why says so)
    declares(text, var) -> bool ; has_target(text, name) -> bool ; make_value(words) -> str
    recipe_argv(argv) -> list[str] | None   (make's dry run of a make step: the lines make echoes for it)
    convert_command(names, output_mode, output_folder) -> str   (the `hipport convert` call that writes ports
                                                                 where a run looks for them)
    untracked(root) -> set[str] | None ; ignore_proposal(before, after) -> list[str]
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..buildsys import MAKEFILES, build_kind, builds_hip, main_build_file
from ..outputs import sibling_name

HIP_ARCH_VARS = ("OFFLOAD_ARCH", "HIP_ARCH", "GPU_TARGETS", "AMDGPU_TARGETS", "GPU_TARGET")
CUDA_ARCH_VARS = ("CUDA_ARCH", "ARCH", "SM", "GPU_ARCH", "CUDA_ARCHITECTURES")


@dataclass(frozen=True)
class Script:
    kind: str  # "make" | "cmake"
    original: Path  # the project's build file
    path: Path | None  # the build file to run; None: no ported one
    cwd: Path  # where to run make / the CMake source folder
    how: str  # "in-place" | "sibling" | "folder" | "dual" | "original" (the baseline)
    why: str = ""  # one line: what was found (or what is missing)
    blocked: bool = False  # no write makes this build work (why names the command that does)

    @property
    def make_file_args(self) -> list[str]:
        """`-f NAME` when the script is not one of make's default names."""
        if self.path is None or self.path.name in MAKEFILES:
            return []
        return ["-f", self.path.name]


def build_file(kind: str, workdir: Path) -> Path:
    """The `kind` build file of `workdir` (buildsys.main_build_file, the one that decided the kind)."""
    main = main_build_file(workdir)
    if main is not None and build_kind(main) == kind:
        return main
    return workdir / ("CMakeLists.txt" if kind == "cmake" else "Makefile")


def find_script(kind: str, workdir: Path, home: Path, output_mode: str, output_folder: str,
                baseline: bool = False) -> Script:
    original = build_file(kind, workdir)
    if baseline:
        return Script(kind, original, original, workdir, "original", f"the CUDA original's {original.name}")
    text = _read(original)
    if builds_hip(kind, text):
        how = "in-place" if output_mode == "in-place" else "dual"
        return Script(kind, original, original, workdir, how, f"{original.name} builds HIP ({how})")
    if output_mode == "folder":
        rel = workdir.resolve().relative_to(home.resolve()) if workdir.resolve().is_relative_to(home.resolve()) else Path()
        ported = home / output_folder / rel / original.name
        if ported.is_file() and builds_hip(kind, _read(ported)):
            return Script(kind, original, ported, ported.parent, "folder",
                          f"the ported {ported.relative_to(home).as_posix()}")
    if output_mode == "sibling":
        ported = workdir / sibling_name(original.name)
        if kind == "cmake":  # whether written or not: refused before anything is written for it
            return Script(kind, original, None, workdir, "sibling", sibling_cmake_refusal(output_folder), blocked=True)
        if ported.is_file() and builds_hip(kind, _read(ported)):
            return Script(kind, original, ported, workdir, "sibling", f"the ported {ported.name}")
    where = {"sibling": f"{sibling_name(original.name)} beside it", "folder": f"{output_folder}/…/{original.name}",
             "in-place": f"{original.name} itself"}.get(output_mode, original.name)
    # with its CUDA sources in the same call: the ported script then names the ported sources
    sources = sorted(p.name for p in workdir.iterdir() if p.suffix in (".cu", ".cuh") and p.is_file())
    command = convert_command([original.name, *sources], output_mode, output_folder)
    return Script(kind, original, None, workdir, output_mode,
                  f"{original.name} still builds CUDA and no ported build script was found ({where}): port it "
                  f"first (review {original.name} in the app and write it, or `{command}`); "
                  "hipport does not build the CUDA original as the port")


def sibling_cmake_refusal(output_folder: str) -> str:
    return (f"CMake reads only CMakeLists.txt, so a sibling port (CMakeLists_hip.txt) cannot be built: write the "
            f"port into a folder instead, `hipport convert -o {output_folder} .` in the project root, then "
            f"`hipport run {output_folder}` (or set output_mode = \"folder\")")


def convert_command(names: list[str], output_mode: str, output_folder: str) -> str:
    """The `hipport convert` call that writes the ports of `names` (files of one folder) where a run looks for
    them, by the project's output mode (engine/outputs.py): sibling `--suffix` (gemm.cu -> gemm.hip, Makefile ->
    Makefile_hip; files converted in one call follow each other's new names), in-place `--in-place`, folder
    `-o <output_folder> .` in the project root (the whole tree, mirrored). Plain `hipport convert FILE`
    only prints the port."""
    if output_mode == "folder":
        return f"hipport convert -o {output_folder} . (in the project root)"
    flag = "--in-place" if output_mode == "in-place" else "--suffix"
    return f"hipport convert {flag} {' '.join(names)}"


def declares(text: str, var: str) -> bool:
    """The Makefile assigns `var` (=, :=, ?=, +=) at the start of a line."""
    return re.search(rf"^\s*(?:override\s+|export\s+)?{re.escape(var)}\s*[:?+]?=", text, re.MULTILINE) is not None


def has_target(text: str, name: str) -> bool:
    return re.search(rf"^{re.escape(name)}\s*:(?!=)", text, re.MULTILINE) is not None


def recipe_argv(argv: list[str]) -> list[str] | None:
    """For a step that runs make: the same invocation with `--just-print`, which prints the recipe lines
    make echoes (variables expanded, one per recipe line, `@` lines too) without running them; run after
    the step, with its prerequisites up to date, that is the run target's recipe. None for other argv."""
    if not argv or Path(argv[0]).name not in ("make", "gmake"):
        return None
    return [*argv, "--just-print"]


def make_value(words: list[str]) -> str:
    """`words` as the value of a make variable given on the command line: make expands nothing in it
    (`$` doubled) and a recipe's shell splits it back into exactly these words (each shell-quoted)."""
    return shlex.join(words).replace("$", "$$")


def make_vars(text: str, *, hip: bool, arch: str | None, no_blas: bool, extra: list[str], args: list[str]) -> list[str]:
    """The variables a run passes to make, limited to those the Makefile declares."""
    out: list[str] = []
    if declares(text, "HIP"):
        out.append("HIP=1" if hip else "HIP=0")
    used = re.search(r"(?:--offload-arch=|-arch[= ])\$[({](\w+)[)}]", text)  # the variable the flag reads
    candidates = ([used.group(1)] if used else []) + list(HIP_ARCH_VARS if hip else CUDA_ARCH_VARS)
    for var in candidates:
        if arch is not None and declares(text, var):  # "" empties it (the NVIDIA platform: no gfx target)
            out.append(f"{var}={arch}")
            break
    if not hip and declares(text, "BUILD"):
        out.append("BUILD=build/cuda")
    if extra and declares(text, "EXTRA_FLAGS"):
        out.append("EXTRA_FLAGS=" + make_value(extra))
    if no_blas and declares(text, "NO_BLAS"):
        out.append("NO_BLAS=1")
    if args and declares(text, "ARGS"):
        out.append(f"ARGS={make_value(args)}")
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


# ---------------------------------------------------------------------------------------------- .gitignore


def untracked(root: Path) -> set[str] | None:
    """Untracked, not ignored files under root (git status); None when root is not in a git work tree."""
    try:
        r = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all", "-z", "."],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0:
        return None
    out = set()
    for entry in r.stdout.split("\0"):
        if entry.startswith("?? "):
            out.add(entry[3:])
    return out


def ignore_proposal(before: set[str] | None, after: set[str] | None) -> list[str]:
    """.gitignore lines for what a build left behind (new untracked files), folders collapsed:
    build/gemm and build/x.o become `build/`."""
    if before is None or after is None:
        return []
    new = sorted(after - before)
    lines: list[str] = []
    for p in new:
        top = p.split("/", 1)[0]
        line = f"/{top}/" if "/" in p else f"/{p}"
        if line not in lines:
            lines.append(line)
    return lines
