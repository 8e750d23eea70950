"""Which folder may be opened as a project, by rule (before any file is read).

- Inside a git work tree: the folder is opened (the header names the work tree).
- `/` and the home folder are refused outright: they are not projects, and walking them takes
  minutes (the app once opened the whole file system after 15 s). A flag overrides.
- Another folder outside git with more than ASK_ABOVE source files: the person is asked first.
- Otherwise the folder is opened as a plain folder.

    check = check_root(Path("."))
    check.verdict   # "open" | "ask" | "refuse"
    check.note      # one line for the header: why this folder is the project
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..discover import SKIP_DIRS
from ..source import language_for

ASK_ABOVE = 300  # source files; a few hundred is a large project outside version control

Verdict = Literal["open", "ask", "refuse"]


@dataclass(frozen=True)
class RootCheck:
    root: Path
    verdict: Verdict
    note: str                    # the header's line: why this folder is the project
    reason: str = ""             # for ask/refuse: the question or the refusal, one line
    git_top: Path | None = None  # the work tree holding root, if any
    files: int = 0               # source files counted (capped at ASK_ABOVE + 1)


def git_top(folder: Path) -> Path | None:
    """The top of the git work tree holding `folder` (a `.git` folder or file), or None. No git call."""
    for p in (folder, *folder.parents):
        if (p / ".git").exists():
            return p
    return None


def count_sources(root: Path, cap: int) -> int:
    """Source files under root (the same folders discover skips), stopping once `cap` is passed."""
    n = 0
    for _dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        n += sum(1 for f in filenames if language_for(f) is not None)
        if n > cap:
            return n
    return n


def not_a_project(folder: Path, *, home: Path | None = None) -> str | None:
    """What `folder` is when it is the file-system root or the home folder (no project, and every
    project under it), else None. The app and every CLI command refuse those (`refusal`)."""
    root = Path(folder).expanduser().resolve()
    if root == Path(root.anchor):
        return "the file-system root"
    try:
        home_dir = (home if home is not None else Path.home()).expanduser().resolve()
    except (RuntimeError, KeyError, OSError):  # no home folder known
        return None
    return "your home folder" if root == home_dir else None


def refusal(folder: Path, what: str, verb: str) -> str:
    """The one-line refusal for a folder that is `what` (not_a_project), for the command's `verb`."""
    root = Path(folder).expanduser().resolve()
    return f"{root} is {what}, not a project: {verb} the project's folder (or pass --any-folder to {verb} it anyway)"


def check_root(path: Path, *, home: Path | None = None, force: bool = False) -> RootCheck:
    root = Path(path).expanduser().resolve()
    top = git_top(root)
    where = f"git work tree {top}" if top is not None else "plain folder (not in git)"
    what = not_a_project(root, home=home)
    if what is not None:
        if force:
            return RootCheck(root, "open", f"{where}; {what} opened on request (--any-folder)", git_top=top)
        return RootCheck(root, "refuse", where, refusal(root, what, "open"), top)
    if top is not None:
        return RootCheck(root, "open", where, git_top=top)
    n = count_sources(root, ASK_ABOVE)
    if n > ASK_ABOVE and not force:
        return RootCheck(root, "ask", f"{where}, more than {ASK_ABOVE} source files",
                         f"{root} is not in a git work tree and holds more than {ASK_ABOVE} CUDA/C++/Python "
                         f"files. Open it as one project?", None, n)
    note = where if n <= ASK_ABOVE else f"{where}, more than {ASK_ABOVE} source files (confirmed)"
    return RootCheck(root, "open", note, files=n)
