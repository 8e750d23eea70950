"""Workspace trust: nothing a repository provides runs before the person trusts the project (as VS Code's
workspace trust and git's safe.directory).

What needs trust: every plan step that runs something the repository chose (Step.trust says what):
  - make, which runs the recipes of the project's Makefile (and what it includes);
  - cmake, which runs CMakeLists.txt (execute_process, the CMake files it includes, custom commands);
  - what `[tool.hipport.run]` sets: run/command, args, python, make_args, cmake_args, defines, libs;
  - in the app, `[tool.hipport.keymap]` bindings of the keys that start a build (BUILD_ACTIONS).
What does not: hipport's own compile of a ported single file (its own hipcc/nvcc argv; repository file
names with shell characters are refused, plan.py) and the launch of the program that compile built, or
of the ported Python script with hipport's own interpreter: what `hipport run` and `b` are asked to do.

Trust is the person's, never the workspace's: it is kept in their state folder ($XDG_STATE_HOME/hipport/
trust, else ~/.local/state/hipport/trust), one file per project (named by a hash of its real path), and
holds digests. A digest (`subject`) covers the project's real path, its `[tool.hipport.run]` and
`[tool.hipport.keymap]` tables, and the bytes of every build file in its tree (Makefiles, *.mk,
CMakeLists*.txt, *.cmake, ported ones too; the folders the tree walk skips, build/ among them, left out):
a change to any of them asks again. Scripts those files call are covered by the folder's trust only.
A `.hipport/trust.json` inside a project (older hipports wrote one there; a repository can ship one) is
never read.

API:
    request(plan, settings, keys=False) -> Request | None   what needs trust and is not trusted (None: go)
    describe(request) -> list[str]                           what will run and why, exact argv
    remember(subject) -> Path                                record the person's yes (fsutil.WriteError)
    subject(project, settings) -> Subject ; is_trusted(subject) -> bool
    build_keys(settings) -> dict[str, str]                   the keymap's bindings that start a build
    trust_for_session(project)                               a folder hipport made itself (the demo)
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

from ..config import Config
from ..discover import SKIP_DIRS
from ..fsutil import WriteError, atomic_write
from .plan import RunPlan, Step

BUILD_ACTIONS = ("run.start",)  # key binding ids that start a build (tui/keymap.py)
KEEP = 50  # digests kept per project (switching branches back and forth asks once per version)
_BUILD_FILE = re.compile(r"^(GNUmakefile|[Mm]akefile.*|CMakeLists.*\.txt|.*\.(mk|mak|make|cmake|cmake\.in))$")
_SESSION: set[str] = set()  # real paths of folders hipport made itself, trusted for this process


@dataclass(frozen=True)
class Subject:
    """What the person trusts: one project, as its build files and configuration are now."""

    project: Path  # real path
    digest: str
    files: tuple[str, ...]  # the build files covered, relative posix paths


@dataclass(frozen=True)
class Request:
    """A plan that runs what the repository provides, not trusted yet."""

    subject: Subject
    reasons: tuple[str, ...]  # what of the repository's would run, one line each
    steps: tuple[Step, ...]  # every step of the plan, as it will run


def store_dir() -> Path:
    """$XDG_STATE_HOME/hipport/trust (a relative value is ignored, as the XDG spec says), else
    ~/.local/state/hipport/trust."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "hipport" / "trust"


def build_files(project: Path) -> list[str]:
    """Every build file under `project` (relative posix paths, sorted); linked folders not entered."""
    out = []
    for dirpath, dirnames, filenames in os.walk(project, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        rel_dir = os.path.relpath(dirpath, project).replace(os.sep, "/")
        for name in filenames:
            if _BUILD_FILE.match(name):
                out.append(name if rel_dir == "." else f"{rel_dir}/{name}")
    return sorted(out)


def _file_digest(path: Path) -> str:
    try:
        if path.is_symlink():
            return "link:" + os.readlink(path)
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        return f"unreadable:{e.errno}"


def subject(project: Path, settings: Config) -> Subject:
    real = Path(os.path.realpath(project))
    files = build_files(real)
    blob = json.dumps({
        "project": str(real),
        "run": settings.run,
        "keymap": settings.keymap,
        "files": [[rel, _file_digest(real / rel)] for rel in files],
    }, sort_keys=True, default=str)
    return Subject(real, hashlib.sha256(blob.encode()).hexdigest(), tuple(files))


def _record(project: Path) -> Path:
    return store_dir() / (hashlib.sha256(str(project).encode()).hexdigest()[:32] + ".json")


def _trusted_digests(project: Path) -> list[str]:
    try:
        data = json.loads(_record(project).read_text(encoding="utf-8"))
        if data.get("project") != str(project):
            return []
        return [d for d in data.get("trusted", []) if isinstance(d, str)]
    except (OSError, ValueError, AttributeError):  # absent, a folder, unreadable: nothing trusted
        return []


def is_trusted(s: Subject) -> bool:
    return str(s.project) in _SESSION or s.digest in _trusted_digests(s.project)


def remember(s: Subject) -> Path:
    """Record the person's yes for this subject. Raises fsutil.WriteError (one line) when the state
    folder cannot be written; two processes remembering at once both keep theirs (a lock file)."""
    path = _record(s.project)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as e:
        raise WriteError(f"{path.parent}: cannot record the trust ({e.strerror or e})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        known = [d for d in _trusted_digests(s.project) if d != s.digest] + [s.digest]
        text = json.dumps({"project": str(s.project), "trusted": known[-KEEP:], "files": list(s.files),
                           "when": time.strftime("%Y-%m-%d %H:%M:%S")}, indent=1) + "\n"
        atomic_write(path, text.encode("utf-8"))
    finally:
        os.close(fd)  # drops the lock
    return path


def trust_for_session(project: Path) -> None:
    """Trust a folder hipport made itself from its own files (the demo) for this process, whatever its
    build files become."""
    _SESSION.add(os.path.realpath(project))


def build_keys(settings: Config) -> dict[str, str]:
    return {k: v for k, v in settings.keymap.items() if k in BUILD_ACTIONS}


def request(plan: RunPlan, settings: Config, keys: bool = False) -> Request | None:
    """What of the repository's this plan runs, when the project is not trusted as it is now; None when
    the plan runs nothing of the repository's, or it is trusted. `keys`: the app asks for its keymap's
    build keys too (they are applied once trusted)."""
    reasons = list(dict.fromkeys(why for step in plan.steps for why in step.trust))
    if keys:
        reasons += [f"[tool.hipport.keymap] {k} = {v!r}: keys that start a build"
                    for k, v in build_keys(settings).items()]
    if not reasons or plan.project is None:
        return None
    s = subject(plan.project, settings)
    if is_trusted(s):
        return None
    return Request(s, tuple(reasons), tuple(plan.steps))


def describe(req: Request) -> list[str]:
    """What will run that the repository provides, and every step as exact argv."""
    lines = ["This runs what the project provides:"]
    lines += [f"  - {r}" for r in req.reasons]
    lines.append("Steps (exact argv):")
    lines += [f"  {s.title}: {shlex.join(s.argv)}   (in {s.cwd})" for s in req.steps]
    covered = ", ".join(req.subject.files) or "no build files"
    lines.append(f"Trust covers {req.subject.project} as it is now ({covered}; the [tool.hipport] run and "
                 "keymap tables): a change to any of them asks again.")
    return lines
