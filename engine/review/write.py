"""Writing a reviewed file to its output path, by outputs.py's one write policy (`write_port`, the
same as `hipport convert`): nothing is lost, the first kept copy `<file>.prehip` holds the original and
is never replaced, no write goes through a link."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..config import Config, ConfigError
from ..outputs import output_path, output_rel, write_port
from .persist import StateStore
from .state import Decision, WrittenRecord, sha256_bytes, sha256_file
from .types import FileReview, OutputExists, OutputShared, StaleError


class Writer:
    """Where each file's result goes under the current config, and writing it there (recorded in the
    StateStore as `written`, with the fingerprint of what produced it)."""

    def __init__(self, root: Path, store: StateStore, lock: threading.RLock, config: Callable[[], Config]) -> None:
        self._root = root
        self._store = store
        self._lock = lock
        self._config = config
        self._outs: dict[str, str] = {}  # rel -> output_rel under `_outs_for` (the file list asks for every file)
        self._outs_for: Config | None = None

    def out_rel(self, rel: str) -> str:
        """output_rel under the current config, cached. Raises ConfigError."""
        config = self._config()
        if config is not self._outs_for:
            self._outs, self._outs_for = {}, config
        out = self._outs.get(rel)
        if out is None:
            out = self._outs[rel] = output_rel(config, rel)
        return out

    def output_path(self, rel: str) -> Path:
        return output_path(self._config(), self._root, rel)

    def fingerprint(self, rel: str) -> str:
        """Of everything that decides the written bytes: decisions, styles, options, output place."""
        config = self._config()
        fs = self._store.file(rel)
        accepted = sorted(
            (fid, r.style.value) for fid, r in (fs.decisions.items() if fs else ())
            if r.decision == Decision.ACCEPTED
        )
        try:
            out = self.out_rel(rel)
        except ConfigError:
            out = ""
        key = [accepted, list(config.rocm), list(config.archs), config.launch_syntax,
               fs.sha256 if fs else None, out]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]

    def write(self, fr: FileReview, src_path: Path, data: bytes, listed: Sequence[str], *,
              overwrite: bool = False) -> Path:
        """Write `data` (the result of `fr`, read from `src_path`) atomically to its output path; returns
        that path. `listed`: the files under review (two of them must not share an output).

        Refuses (StaleError) a file changed on disk since it was loaded; refuses (OutputExists) to
        replace an output file hipport did not write, or one edited since, unless `overwrite`; refuses
        (OutputShared) when another source has the same output path. Then outputs.write_port keeps what
        the output holds unless it is hipport's own earlier output: in place, the original as
        `<file>.prehip`; an output replaced after `overwrite` beside it too."""
        rel = fr.rel
        with self._lock:
            fs = self._store.entry(rel)
            if fs.sha256 is None:
                fs.sha256 = fr.sha256
            out = self.output_path(rel)
            out_rel = self.out_rel(rel)
            disk = sha256_file(src_path)
            in_place = out_rel == rel
            self._refuse_shared(rel, out_rel, listed)
            ours = fs.written.sha256 if fs.written is not None and fs.written.path == out_rel else None
            if disk != fr.sha256 and not (in_place and ours is not None and disk == ours):
                fr.stale = True
                raise StaleError(f"{rel} changed on disk since it was loaded; not written (reopen it)")
            if not in_place and out.exists():
                current = sha256_file(out)
                mine = ours is not None and current == ours
                if not (mine or current == sha256_bytes(data) or overwrite):
                    raise OutputExists(f"{out_rel} already exists and was not written by hipport (or was edited "
                                       "since); not overwritten", out_rel)
            write_port(out, data, in_place=in_place, ours=ours)
            self._store.touch(rel)
            fs.written = WrittenRecord(out_rel, sha256_bytes(data), self.fingerprint(rel))
            fs.committed = None
            fs.findings = len(fr.findings)
            self._store.autosave_note()
            return out

    def _refuse_shared(self, rel: str, out_rel: str, listed: Sequence[str]) -> None:
        """OutputShared when another listed file, or one written before, has the output `out_rel`."""
        twins = sorted(r for r in listed if r != rel and self.out_rel(r) == out_rel)
        twins += sorted(r for r, other in self._store.state.files.items()
                        if r != rel and r not in twins and other.written and other.written.path == out_rel)
        if twins:
            raise OutputShared(f"{rel} and {twins[0]} would both be written to {out_rel}; "
                               "use output_mode = \"folder\" or rename one")

    def unwritten(self, listed: Sequence[str], loaded: Mapping[str, FileReview]) -> list[str]:
        """Files with decisions whose current result is not on disk (excludes STALE files)."""
        with self._lock:
            out = []
            shown = set(listed)
            for rel in sorted(self._store.state.files):
                fs = self._store.state.files[rel]
                fr = loaded.get(rel)
                if fr is not None and fr.stale:
                    continue
                if not fs.decisions or rel not in shown:
                    continue
                if fs.written is None or fs.written.fingerprint != self.fingerprint(rel):
                    out.append(rel)
            return out
