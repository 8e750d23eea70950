"""Committing what hipport wrote: exactly those files, with a message that says what was fixed."""

from __future__ import annotations

import threading
from pathlib import Path

from .persist import StateStore
from .state import Decision, sha256_file
from .types import ReviewError


class Committer:
    """The written outputs (StateStore `written`) not yet committed, and committing them with git."""

    def __init__(self, root: Path, store: StateStore, lock: threading.RLock) -> None:
        self._root = root
        self._store = store
        self._lock = lock
        self._commit_lock = threading.Lock()  # one commit at a time; the session lock is free meanwhile

    def committable(self) -> dict[str, str]:
        """root-relative output path -> sha256 hipport wrote, for outputs written and not yet committed
        whose bytes on disk are still exactly what hipport wrote."""
        with self._lock:
            res: dict[str, str] = {}
            for fs in self._store.state.files.values():
                w = fs.written
                if w is None or fs.committed:
                    continue
                if sha256_file(self._root / w.path) == w.sha256:
                    res[w.path] = w.sha256
            return dict(sorted(res.items()))

    def nothing_to_commit(self) -> str:
        """Why committable() is empty: one line that names a written output edited or deleted since."""
        with self._lock:
            written = sorted(fs.written.path for fs in self._store.state.files.values()
                             if fs.written is not None and not fs.committed)
            changed = [(p, sha256_file(self._root / p)) for p in written]
            sha = {fs.written.path: fs.written.sha256 for fs in self._store.state.files.values() if fs.written}
        edited = [p for p, now in changed if now is not None and now != sha[p]]
        gone = [p for p, now in changed if now is None]
        if edited:
            more = f" (and {len(edited) - 1} more)" if len(edited) > 1 else ""
            return (f"nothing to commit: {edited[0]}{more} changed outside hipport since hipport wrote it; "
                    "write it again (w) to commit hipport's version, or commit your edit with git")
        if gone:
            more = f" (and {len(gone) - 1} more)" if len(gone) > 1 else ""
            return f"nothing to commit: {gone[0]}{more} was removed since hipport wrote it; write it again (w)"
        return "nothing to commit: write a file first (w)"

    def commit_message(self) -> str:
        """A message for committing `committable()`: files, rules fixed (by style), fixes rejected."""
        with self._lock:
            paths = self.committable()
            sources = [rel for rel, fs in sorted(self._store.state.files.items())
                       if fs.written and fs.written.path in paths]
            fixed: dict[tuple[str, str], int] = {}
            rejected: dict[str, int] = {}
            for rel in sources:
                for fid, r in self._store.state.files[rel].decisions.items():
                    rule = r.rule or fid.split(":", 1)[0]
                    if r.decision == Decision.ACCEPTED:
                        fixed[(rule, r.style.value)] = fixed.get((rule, r.style.value), 0) + 1
                    elif r.decision == Decision.REJECTED:
                        rejected[rule] = rejected.get(rule, 0) + 1
        n = len(sources)
        lines = [f"Port {n} file{'s' if n != 1 else ''} to HIP with hipport" if n else "Port to HIP with hipport", ""]
        if sources:
            lines.append("Files:")
            for rel in sources:
                w = self._store.state.files[rel].written
                assert w is not None
                lines.append(f"  {rel} -> {w.path}" if w.path != rel else f"  {rel} (in place)")
        if fixed:
            lines += ["", "Warp-width fixes applied:"]
            lines += [f"  {rule} ({style}) x{k}" for (rule, style), k in sorted(fixed.items())]
        if rejected:
            lines += ["", "64-wide rewrites rejected (kept as logical 32-lane warps):"]
            lines += [f"  {rule} x{k}" for rule, k in sorted(rejected.items())]
        return "\n".join(lines).rstrip() + "\n"

    def commit(self, message: str, branch: str | None = None, cancel: threading.Event | None = None) -> str:
        """Commit exactly the files hipport wrote (and nothing else staged); returns the commit sha.
        `branch` commits on `hipport/<branch>` (created from HEAD); setting `cancel` stops git and its
        hooks (vcs.commit_paths, which also stops them after its timeout). Raises vcs.VcsError / ReviewError."""
        from ..vcs import commit_paths

        if not message.strip():
            raise ReviewError("the commit message is empty")
        with self._commit_lock:
            paths = self.committable()
            if not paths:
                raise ReviewError(self.nothing_to_commit())
            # git runs without the session lock: the UI keeps deciding while a commit is made
            sha = commit_paths(self._root, list(paths), message, branch, expected=paths, cancel=cancel)
            with self._lock:
                for src, fs in self._store.state.files.items():
                    w = fs.written
                    if w is not None and w.path in paths and w.sha256 == paths[w.path] and not fs.committed:
                        fs.committed = sha
                        self._store.touch(src)
                self._store.autosave_note()
            return sha
