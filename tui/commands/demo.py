"""`hipport demo [--dir DIR]`: copy the bundled CUDA GEMM sample into a new git repository (a temp
folder unless --dir) with an initial commit, then open the app on it."""

from __future__ import annotations

import argparse
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from hipport.tui.cli import CliError


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


def handle(args: argparse.Namespace) -> int:
    dest = prepare(Path(args.dir) if args.dir else None)
    if args.no_open:
        print(dest)
        return 0
    from hipport.tui.commands.open import open_app

    print(f"hipport demo: {dest}")
    try:
        return open_app(dest, theme=args.theme)
    finally:
        if not args.dir:  # a temp folder of ours: gone unless the person left work in it
            tidy_up(dest)


def tidy_up(dest: Path) -> None:
    """Remove the temp demo repository when nothing in it is the person's: no commit after the import,
    a clean work tree, no saved review decisions. Otherwise keep it and say where it is."""
    import json
    import shutil
    import subprocess

    from hipport.engine.review_state import state_path
    from hipport.engine.vcs import VcsError, repo_state

    why = None
    try:
        state = repo_state(dest)
        commits = len(_log(dest))
        if commits != 1:
            why = "it has your commits"
        elif state.staged or state.dirty or state.untracked:
            why = "it has changed files"
    except (VcsError, OSError, ValueError, subprocess.CalledProcessError) as e:
        why = f"it could not be checked ({e})"
    try:
        saved = json.loads(state_path(dest).read_text(encoding="utf-8"))
        if any(f.get("decisions") for f in saved.get("files", {}).values()):
            why = why or "it has your review decisions"
    except (OSError, ValueError, AttributeError):
        pass
    if why is not None:
        print(f"hipport demo: kept {dest} ({why}); `hipport {dest}` opens it again")
        return
    shutil.rmtree(dest, ignore_errors=True)
    print(f"hipport demo: removed {dest} (nothing in it was yours; `hipport demo --dir DIR` keeps a demo)")


def _log(dest: Path) -> list[str]:
    import subprocess

    out = subprocess.run(["git", "rev-list", "HEAD"], cwd=dest, capture_output=True, text=True, check=True)
    return out.stdout.split()
