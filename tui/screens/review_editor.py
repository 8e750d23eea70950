"""`e` / `E`: open the CUDA file (or the written HIP file) in $VISUAL/$EDITOR at a line; and `DiskWatch`,
which notices that the shown file changed outside hipport while the app runs (a cheap stat every 2 s),
not only at `w`. What follows an edit (the file analysed again, or stale) is the screen's."""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from hipport.engine.review.state import sha256_file


def editor_argv(path: Path, line: int) -> list[str]:
    """$VISUAL, else $EDITOR, else vi; `+LINE` is understood by vi, vim, nvim, nano, emacs, micro, kak."""
    cmd = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return [*shlex.split(cmd), f"+{max(1, line)}", str(path)]


@dataclass(frozen=True)
class EditorOutcome:
    changed: bool      # the file's bytes differ from before
    message: str       # what to say when it did not change ("" when it did)
    severity: str = "information"


def run_editor(app: App[Any], path: Path, line: int, shown: Path) -> EditorOutcome:
    """Hand the terminal to the editor on `path` at `line`; `shown`: the path as messages name it."""
    before = sha256_file(path)
    argv = editor_argv(path, line)
    try:
        with app.suspend():
            proc = subprocess.run(argv, check=False)
    except SuspendNotSupported:
        return EditorOutcome(False, "This terminal cannot be handed to an editor.", "error")
    except OSError as e:
        return EditorOutcome(False, f"Cannot start the editor {argv[0]!r} ({e.strerror or e}); set $VISUAL or "
                                    "$EDITOR.", "error")
    app.refresh()
    if sha256_file(path) != before:
        return EditorOutcome(True, "")
    note = f" (the editor exited with {proc.returncode})" if proc.returncode else ""
    return EditorOutcome(False, f"{shown}: not changed in the editor{note}.")


class DiskWatch:
    """The (rel, mtime_ns, size) of the shown CUDA file when last looked at."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen: tuple[str, int, int] | None = None

    def _stat(self, rel: str) -> tuple[str, int, int] | None:
        try:
            st = (self.root / rel).stat()
        except OSError:
            return None
        return rel, st.st_mtime_ns, st.st_size

    def remember(self, rel: str) -> None:
        self._seen = self._stat(rel)

    def moved(self, rel: str) -> bool:
        """Whether the file's stat changed since the last look (which this one replaces)."""
        now = self._stat(rel)
        seen, self._seen = self._seen, now
        return not (seen is None or now is None or seen[0] != rel or seen == now)
