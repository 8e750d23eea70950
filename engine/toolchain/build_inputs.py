"""Before a build writes anything: which files' ports the build of a project reads, and whether any write
can make it work at all. The app asks this before it offers to "write and build", so it offers only the
files the build uses (a dual CUDA/HIP Makefile is used as it is; a make build reads no CMake port nor a
Python script) and refuses up front, with the command that works, a build no write can rescue (a CMake
project in sibling mode: CMake reads only CMakeLists.txt).

API:
    build_inputs(root, settings, rels) -> BuildInputs(reads, blocked)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..buildsys import build_kind, project_kind
from ..config import Config
from .buildscript import find_script
from .plan import PlanError, build_target


@dataclass(frozen=True)
class BuildInputs:
    reads: list[str]  # the given rels whose ports the build reads, in the given order
    blocked: str = ""  # one line: no write makes this build work, and what does


def build_inputs(root: Path, settings: Config, rels: Sequence[str]) -> BuildInputs:
    """`rels`: project-relative originals (the files whose ports are not on disk). A project hipport cannot
    classify reads them all: the plan itself then says what is wrong."""
    root = Path(root)
    target_rel = str(settings.run.get("target") or "")
    try:
        target = build_target(root, settings.run)
        kind = project_kind(target)
    except (PlanError, OSError):
        return BuildInputs(list(rels))
    if kind is None:
        return BuildInputs(list(rels))
    script = None
    if kind in ("make", "cmake"):
        script = find_script(kind, target, root, settings.output_mode, settings.output_folder)
        if script.blocked:
            return BuildInputs([], script.why)
    base = PurePosixPath(target_rel) if target_rel and target.is_dir() else None
    reads: list[str] = []
    for rel in rels:
        path = PurePosixPath(rel)
        if base is not None and base not in path.parents:
            continue  # outside the folder the build builds
        if build_kind(rel) is not None:
            # only the build script the plan runs, and only when a port of it runs (not a dual original)
            if script is not None and script.path != script.original and (root / rel) == script.original:
                reads.append(rel)
            continue
        if path.suffix == ".py" and kind != "python":
            continue  # make, CMake and hipcc builds read no Python script
        reads.append(rel)
    return BuildInputs(reads)
