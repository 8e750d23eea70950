"""`hipport demo [--dir DIR]`: copy the bundled CUDA GEMM sample into a new git repository (a temp
folder unless --dir) with an initial commit, then open the app on it. The sample is hipport's own, so
that app trusts the folder it just made (its Makefile builds on `b` without asking); a later `hipport
open` of it asks, as for any project.

A temp folder is removed when the app closes if nothing was done there (the import commit only,
nothing changed, staged or untracked; ignored build outputs do not count); otherwise it is kept and
its path printed. --dir and --no-open folders are always kept.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from hipport.cli.main import CliError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("demo", help="open the app on a copy of the bundled CUDA GEMM sample")
    p.add_argument("--dir", help="create the demo repository here (must be new or empty)")
    p.add_argument("--theme", help="theme name (hipport-dark, hipport-light, ...)")
    p.add_argument("--no-open", action="store_true", help="only create the repository, print its path")
    p.set_defaults(func=handle)


def sample_folder() -> Path:
    folder = resources.files("hipport.examples") / "gemm"
    path = Path(str(folder))
    if not path.is_dir():
        raise CliError("the bundled GEMM sample is missing from this installation")
    return path


def prepare(dest: Path | None) -> Path:
    """Create the demo repository and return its path."""
    from hipport.engine.vcs import VcsError, init_repo_from

    if dest is None:
        dest = Path(tempfile.mkdtemp(prefix="hipport-demo-"))
    else:
        dest = dest.expanduser()
        if dest.exists() and not dest.is_dir():
            raise CliError(f"{dest}: exists and is not a folder")
        if dest.is_dir() and any(dest.iterdir()):
            raise CliError(f"{dest}: folder is not empty; give a new or empty folder to --dir")
    try:
        init_repo_from(sample_folder(), dest)
    except VcsError as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"{dest}: cannot create the demo repository ({e.strerror or e})") from None
    return dest.resolve()


def untouched(dest: Path) -> bool:
    """The demo repository as prepare() made it: its one import commit, nothing changed, staged or
    untracked (ignored files, such as build outputs, do not count)."""
    def git(*args: str) -> str | None:
        try:
            r = subprocess.run(["git", "-C", str(dest), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return r.stdout if r.returncode == 0 else None

    commits = git("rev-list", "--all", "--count")
    status = git("status", "--porcelain", "--untracked-files=all")
    return commits is not None and commits.strip() == "1" and status == ""


def tidy(dest: Path) -> str:
    """After the app closed on a temp demo folder: remove it when nothing was done there. One line."""
    if untouched(dest):
        shutil.rmtree(dest, ignore_errors=True)
        return f"hipport demo: removed {dest} (nothing was changed there)"
    return f"hipport demo: kept {dest}: it holds your changes"


def handle(args: argparse.Namespace) -> int:
    dest = prepare(Path(args.dir) if args.dir else None)
    if args.no_open:
        print(dest)
        return 0
    from hipport.cli.commands.open import open_app
    from hipport.engine.toolchain.trust import trust_for_session

    print(f"hipport demo: {dest}")
    trust_for_session(dest)  # hipport made this folder from its own sample: its Makefile builds without asking
    try:
        return open_app(dest, theme=args.theme)
    finally:
        if not args.dir:
            print(tidy(dest))
