"""Writing a reviewed file to its output path and committing what hipport wrote. Part of ReviewSession."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from .config import ConfigError
from .fsutil import WriteError, is_inside
from .outputs import keep_beside, output_path, output_rel, write_port
from .review_persist import SessionCore
from .review_state import (
    Decision,
    FileState,
    WrittenRecord,
    original_copy_path,
    sha256_bytes,
    sha256_file,
)
from .review_types import OutputExists, OutputShared, ReviewError, StaleError


class Writing(SessionCore):
    def _out_rel(self, rel: str) -> str:
        """output_rel under the current config, cached (the file list asks for every file)."""
        out = self._outs.get(rel)
        if out is None:
            out = self._outs[rel] = output_rel(self.config, rel)
        return out

    def output_path(self, rel: str) -> Path:
        return output_path(self.config, self.root, rel)

    def _fingerprint(self, rel: str) -> str:
        """Of everything that decides the written bytes: decisions, styles, options, output place."""
        fs = self._state.files.get(rel)
        accepted = sorted(
            (fid, r.style.value) for fid, r in (fs.decisions.items() if fs else ())
            if r.decision == Decision.ACCEPTED
        )
        try:
            out = self._out_rel(rel)
        except ConfigError:
            out = ""
        key = [accepted, list(self.config.rocm), list(self.config.archs), self.config.launch_syntax,
               fs.sha256 if fs else None, out]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]

    def write(self, rel: str, *, overwrite: bool = False) -> Path:
        """Write the result of `rel` atomically to its output path; returns that path.

        Refuses (StaleError) a file changed on disk since review; refuses (OutputExists) to replace an
        output file hipport did not write, or one edited since, unless `overwrite`; refuses
        (OutputShared) when another source has the same output path.
        Nothing is lost (outputs.py's write policy): in place, the original is kept as <file>.prehip
        first; an output replaced after `overwrite` is kept beside it too.
        """
        fr = self._editable(rel)
        src_path = self._path(rel)
        with self._lock:
            fs = self._state.files.setdefault(rel, FileState())
            if fs.sha256 is None:
                fs.sha256 = fr.sha256
            out = self.output_path(rel)
            out_rel = self._out_rel(rel)
            data = fr.source.encode(self.result_text(rel))
            disk = sha256_file(src_path)
            in_place = out_rel == rel
            twins = sorted(r for r in self._rels if r != rel and self._out_rel(r) == out_rel)
            twins += sorted(r for r, other in self._state.files.items()
                            if r != rel and r not in twins and other.written and other.written.path == out_rel)
            if twins:
                raise OutputShared(f"{rel} and {twins[0]} would both be written to {out_rel}; "
                                  "use output_mode = \"folder\" or rename one")
            ours = fs.written is not None and fs.written.path == out_rel
            if disk != fr.sha256 and not (in_place and ours and fs.written and disk == fs.written.sha256):
                fr.stale = True
                self._results.pop(rel, None)
                raise StaleError(f"{rel} changed on disk since it was loaded; not written (reopen it)")
            if not in_place and out.exists():
                current = sha256_file(out)
                mine = ours and fs.written is not None and current == fs.written.sha256
                if not (mine or current == sha256_bytes(data) or overwrite):
                    raise OutputExists(f"{out_rel} already exists and was not written by hipport (or was edited "
                                       "since); not overwritten", out_rel)
            if in_place and disk != sha256_bytes(data):  # the original is kept first, even over a write of ours
                copy = original_copy_path(self.root, rel)
                if not is_inside(copy.parent, self.root):
                    raise WriteError(f"{copy}: leads out of the project; the original could not be kept, "
                                     "so it was not overwritten")
                keep_beside(out, fr.source.raw or fr.source.encode(fr.source.text))
            # outputs.py's one write policy: what the output holds is kept unless it is ours
            write_port(out, data, in_place=in_place, ours=fs.written.sha256 if ours and fs.written else None)
            self._touched.add(rel)
            fs.written = WrittenRecord(out_rel, sha256_bytes(data), self._fingerprint(rel))
            fs.committed = None
            fs.findings = len(fr.findings)
            self._autosave()
            return out

    def unwritten(self) -> list[str]:
        """Files with decisions whose current result is not on disk (excludes STALE files)."""
        with self._lock:
            out = []
            listed = set(self._rels)
            for rel in sorted(self._state.files):
                fs = self._state.files[rel]
                fr = self._loaded.get(rel)
                if fr is not None and fr.stale:
                    continue
                if not fs.decisions or rel not in listed:
                    continue
                if fs.written is None or fs.written.fingerprint != self._fingerprint(rel):
                    out.append(rel)
            return out

    # ----------------------------------------------------------------------------------- git

    def committable(self) -> dict[str, str]:
        """root-relative output path -> sha256 hipport wrote, for outputs written and not yet committed
        whose bytes on disk are still exactly what hipport wrote."""
        with self._lock:
            res: dict[str, str] = {}
            for fs in self._state.files.values():
                w = fs.written
                if w is None or fs.committed:
                    continue
                if sha256_file(self.root / w.path) == w.sha256:
                    res[w.path] = w.sha256
            return dict(sorted(res.items()))

    def nothing_to_commit(self) -> str:
        """Why committable() is empty: one line that names a written output edited or deleted since."""
        with self._lock:
            written = sorted(fs.written.path for fs in self._state.files.values()
                             if fs.written is not None and not fs.committed)
            changed = [(p, sha256_file(self.root / p)) for p in written]
            sha = {fs.written.path: fs.written.sha256 for fs in self._state.files.values() if fs.written}
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
            sources = [rel for rel, fs in sorted(self._state.files.items())
                       if fs.written and fs.written.path in paths]
            fixed: dict[tuple[str, str], int] = {}
            rejected: dict[str, int] = {}
            for rel in sources:
                for fid, r in self._state.files[rel].decisions.items():
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
                w = self._state.files[rel].written
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
        from .vcs import commit_paths

        if not message.strip():
            raise ReviewError("the commit message is empty")
        with self._commit_lock:
            paths = self.committable()
            if not paths:
                raise ReviewError(self.nothing_to_commit())
            # git runs without the session lock: the UI keeps deciding while a commit is made
            sha = commit_paths(self.root, list(paths), message, branch, expected=paths, cancel=cancel)
            with self._lock:
                for src, fs in self._state.files.items():
                    w = fs.written
                    if w is not None and w.path in paths and w.sha256 == paths[w.path] and not fs.committed:
                        fs.committed = sha
                        self._touched.add(src)
                self._autosave()
            return sha
