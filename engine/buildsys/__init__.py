"""Build scripts (Makefiles, CMake) translated like sources: edits on the original text + reports.

    from hipport.engine.buildsys import translate_build_file, detect_build_system, build_kind

    tr = translate_build_file("Makefile", text, settings)   # engine.model.Translation
    detect_build_system(root)   # BuildProject(kind, main, files) or None
    project_kind(target)        # "make" | "cmake" | "single-file" | "python" | None: how a project builds

`settings` is any object with `archs` (engine.config.Config, TranslateOptions, BuildOptions, ...);
optional `roc` (link roc* libraries instead of hip*) and `output_mode` ("sibling": the script names
the sibling outputs, gemm.cu -> gemm.hip) or `sibling_outputs` (TranslateOptions: the files of one
`convert --suffix`, each word naming one gets its output's name). The rules are data: rules.toml.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath

from ..model import Report, ReportKind, Translation, TranslationMode
from ..source import Language, Source

DEFAULT_ARCHS: tuple[str, ...] = ("gfx942",)
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # make's own search order
MAKE_NAMES = frozenset(MAKEFILES)
CMAKE_NAMES = frozenset({"CMakeLists.txt"})
SOURCE_SUFFIXES = (".hip", ".cu", ".cpp", ".cc", ".cxx")  # one file hipcc builds on its own
# what makes a build file build HIP (already ported, or a dual CUDA/HIP file like the bundled sample's)
_HIP_MAKE = re.compile(r"\bhipcc\b|\bHIP_PLATFORM\b|--offload-arch")
_HIP_CMAKE = re.compile(r"\bLANGUAGES?\b[^)]*\bHIP\b|enable_language\s*\(\s*HIP\b|find_package\s*\(\s*hip\b",
                        re.IGNORECASE)
_COMMENT = re.compile(r"(?<!\\)#.*$", re.MULTILINE)


class BuildKind(StrEnum):
    MAKE = "make"
    CMAKE = "cmake"


@dataclass(frozen=True, slots=True)
class BuildOptions:
    archs: tuple[str, ...] = DEFAULT_ARCHS
    roc: bool = False
    output_mode: str = "folder"  # "sibling" renames .cu -> .hip in the script; others keep names


@dataclass(frozen=True, slots=True)
class BuildProject:
    kind: BuildKind
    main: str                 # root-relative posix path of the top build file
    files: tuple[str, ...]    # every build file under the root, sorted


def build_kind(path: str | os.PathLike[str]) -> BuildKind | None:
    """By file name: Makefile/makefile/GNUmakefile/*.mk -> MAKE; CMakeLists.txt/*.cmake -> CMAKE."""
    name = PurePosixPath(str(path).replace("\\", "/")).name
    if name in MAKE_NAMES or name.endswith(".mk"):
        return BuildKind.MAKE
    if name in CMAKE_NAMES or name.endswith(".cmake"):
        return BuildKind.CMAKE
    return None


def builds_hip(kind: BuildKind | str, text: str) -> bool:
    """The build file builds HIP (hipcc, HIP_PLATFORM, --offload-arch; CMake's HIP language or
    find_package(hip)) in its code, not only in a comment. Such a file is already a port, or a dual
    CUDA/HIP file: translation leaves it as it is and `hipport run` uses it as it is."""
    code = _COMMENT.sub("", text)
    return bool((_HIP_CMAKE if kind == BuildKind.CMAKE else _HIP_MAKE).search(code))


def main_build_file(folder: Path) -> Path | None:
    """The build file that drives `folder`: a Makefile (make's search order) wins over CMakeLists.txt, as
    the sample has both: the Makefile drives hipcc directly, while CMake's HIP language needs the clang
    driver and CMake >= 3.21, which older ROCm and Debian setups lack. None when the folder has neither."""
    return next((folder / n for n in (*MAKEFILES, "CMakeLists.txt") if (folder / n).is_file()), None)


def project_kind(target: Path) -> str | None:
    """How the project at `target` (a folder or one file) builds: "make" or "cmake" (main_build_file),
    "single-file" (a source hipcc builds alone; a folder's .cu/.hip files), "python" (a script; a folder's
    .py files); None when nothing there builds. The one decision: `hipport run`'s plan and its PyTorch
    check, the app's build inputs and detect_build_system all ask it."""
    if target.is_file():
        if target.suffix == ".py":
            return "python"
        return "single-file" if target.suffix in SOURCE_SUFFIXES else None
    main = main_build_file(target)
    if main is not None:
        kind = build_kind(main)
        return None if kind is None else kind.value
    suffixes = {p.suffix for p in target.iterdir()}
    if suffixes & {".cu", ".hip"}:
        return "single-file"
    return "python" if ".py" in suffixes else None


def detect_build_system(root: str | os.PathLike[str]) -> BuildProject | None:
    """The project's build system, by the root's main_build_file (as project_kind decides make or cmake);
    None when the root has neither at its top."""
    from ..discover import discover

    root = Path(root)
    main = main_build_file(root)
    kind = build_kind(main) if main is not None else None
    if main is None or kind is None:
        return None
    files = tuple(rel for rel in discover(root) if build_kind(rel) is not None)
    return BuildProject(kind, main.name, files)


def _archs(settings: object | None) -> tuple[str, ...]:
    archs = getattr(settings, "archs", None)
    if isinstance(archs, str):
        archs = tuple(a for a in archs.replace(";", ",").split(",") if a.strip())
    return tuple(archs) if archs else DEFAULT_ARCHS


def translate_build_file(path: str | os.PathLike[str] | None, text: str, settings: object | None = None,
                         *, kind: BuildKind | None = None) -> Translation:
    """Translate one build script. `kind` defaults to build_kind(path)."""
    kind = kind or (build_kind(path) if path is not None else None)
    if kind is None:
        raise ValueError(f"{path}: not a Makefile or CMake file")
    lang = Language.MAKE if kind == BuildKind.MAKE else Language.CMAKE
    source = Source.from_text(text, Path(path) if path is not None else None, lang)
    return translate_build_source(source, settings)


def translate_build_source(source: Source, settings: object | None = None) -> Translation:
    """Translate a Source whose language is MAKE or CMAKE (engine/translate/driver.py's translate calls this)."""
    from .cmake import translate_cmake
    from .flags import FlagTranslator
    from .makefile import translate_makefile

    reports: list[Report] = []

    def rep(kind: ReportKind, name: str, start: int, end: int, message: str) -> None:
        line, col = source.line_col(start)
        reports.append(Report(kind, name, start, end, line, col, message))

    kind = BuildKind.CMAKE if source.language == Language.CMAKE else BuildKind.MAKE
    if builds_hip(kind, source.text):  # a dual CUDA/HIP file keeps its CUDA branch and its own texts
        name = source.path.name if source.path is not None else kind.value
        reports.append(Report(ReportKind.INFO, "builds-hip", 0, 0, 1, 1,
                              f"{name} already builds HIP (a port or a dual CUDA/HIP build file): left as it is; "
                              "`hipport run` builds with it as it is"))
        return Translation(source=source, edits=(), reports=tuple(reports), mode=TranslationMode.TOKENS,
                           stats={"lines": len(source.line_starts)})
    siblings = frozenset(getattr(settings, "sibling_outputs", ()) or ())
    ft = FlagTranslator(source.text, _archs(settings), rep, roc=bool(getattr(settings, "roc", False)),
                        sibling=bool(siblings) or getattr(settings, "output_mode", "") == "sibling",
                        sibling_files=siblings,
                        base_dir=os.path.dirname(os.path.abspath(source.path)) if source.path is not None else "")
    if source.language == Language.CMAKE:
        translate_cmake(source.text, ft)
        if ft.sibling and source.path is not None and source.path.name == "CMakeLists.txt":
            rep(ReportKind.INFO, "output", 0, 0, "a sibling CMakeLists_hip.txt is not read by CMake: write "
                "build scripts in place or to an output folder to configure them")
    else:
        translate_makefile(source.text, ft)
    edits = tuple(sorted(ft.edits, key=lambda e: (e.start, e.end)))
    stats = dict(ft.stats)
    stats["lines"] = len(source.line_starts)
    return Translation(source=source, edits=edits, reports=tuple(sorted(reports, key=lambda r: (r.start, r.end))),
                       mode=TranslationMode.TOKENS, stats=stats)


__all__ = [
    "DEFAULT_ARCHS",
    "MAKEFILES",
    "SOURCE_SUFFIXES",
    "BuildKind",
    "BuildOptions",
    "BuildProject",
    "build_kind",
    "builds_hip",
    "detect_build_system",
    "main_build_file",
    "project_kind",
    "translate_build_file",
    "translate_build_source",
]
