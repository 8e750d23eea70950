"""`hipport [PATH]`: open the porting app on a project (a git work tree or a plain folder)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hipport.cli.main import CliError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("open", help="open the porting app on a project (the default command)")
    p.add_argument("path", nargs="?", default=".", help="project folder (default: the current folder)")
    p.add_argument("--theme", help="theme name (hipport-dark, hipport-light, ansi-dark, ...)")
    p.add_argument("--fresh", action="store_true",
                   help="start a fresh review when .hipport/state.json is unusable (it is kept aside)")
    p.add_argument("--any-folder", action="store_true",
                   help="open the folder even if it is / or your home folder, or a large folder outside git, "
                        "without asking")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    root = Path(args.path).expanduser()
    if not root.exists():
        raise CliError(f"{root}: no such folder")
    if not root.is_dir():
        raise CliError(f"{root}: not a folder (open the project folder that holds it)")
    from hipport.engine.project.root import check_root

    check = check_root(root, force=args.any_folder)
    if check.verdict == "refuse":
        raise CliError(check.reason)
    if check.verdict == "ask" and not confirm(check.reason):
        raise CliError(f"{check.root}: not opened (pass --any-folder to open it without asking)")
    note = check.note if check.verdict == "open" else f"{check.note}, opened after asking"
    return open_app(check.root, theme=args.theme, fresh=args.fresh, root_note=note)


def confirm(question: str) -> bool:
    """Ask on the terminal (y/N); without a terminal the answer is no."""
    import sys

    if not sys.stdin.isatty():
        print(f"hipport: {question} (no terminal to ask on: not opened)", file=sys.stderr)
        return False
    try:
        answer = input(f"hipport: {question} [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def open_app(root: Path, *, theme: str | None = None, fresh: bool = False, root_note: str = "") -> int:
    """Take the project's app lock, build the engine session for `root` and run the app until it quits."""
    from hipport.engine.project.lock import LockHeld, ProjectLock
    from hipport.engine.state_files import UnsafeStatePath

    lock = ProjectLock(root)  # first: a second app must not even read (or --fresh set aside) the state
    try:
        lock.acquire()
    except (LockHeld, UnsafeStatePath) as e:  # UnsafeStatePath: a .hipport/app.lock shipped as a link
        raise CliError(str(e)) from None
    try:
        return _run(root, theme, fresh, "; ".join(n for n in (root_note, lock.note) if n))
    finally:
        lock.release()


def _run(root: Path, theme: str | None, fresh: bool, root_note: str) -> int:
    from hipport.engine.config import ConfigError, load_config
    from hipport.engine.review import ReviewError, ReviewSession, StateError
    from hipport.tui.app import PortApp, check_settings

    try:
        config = load_config(root)
        check_settings(config)  # the app's own names (binding ids, theme): before anything opens
        session = ReviewSession.open(root, config, fresh=fresh)
    except StateError as e:
        import shlex

        raise CliError(f"{e} (`hipport open --fresh {shlex.quote(str(root))}` starts over)") from None
    except (ConfigError, ReviewError) as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"{root}: {e.strerror or e}") from None
    if not session.files():
        raise CliError(f"{root}: no CUDA, C++ or Python files to review")

    app = PortApp(session, config, theme=theme, root_note=root_note)
    return int(app.run() or 0)
