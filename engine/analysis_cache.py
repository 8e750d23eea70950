"""Per-file analysis summaries kept across runs: `.hipport/cache/analysis.json`.

A reopened project's counts are final at once when nothing changed. Each file's summary (findings,
translation edits, reports of each kind a person acts on: project.analysis.FileSummary) is stored under
a key that covers everything the analysis of that file reads:

- the engine itself: a digest of every file of the engine package (code, rule and mapping tables), so
  another hipport (or an edited checkout) never reads an older engine's counts;
- the translate and warp options, including the set of project files that sibling outputs and
  project names depend on;
- the file's path in the project and its bytes;
- the quoted includes the warp analysis follows (`warp/project.py`): each name in the file, present or
  absent, and every header it read, by size and mtime; and, for a file that may define a warp-size
  constant, the other source files of its folder (the files that may include it: `includer_scope`).

A file libclang had to parse (it declares a CUDA API name itself: engine/translate/semantic.py; the parse reads
its whole include tree, which the key does not cover) is never stored. A key that
matches gives the stored summary; anything else is analysed again. The file is written atomically under
the project's lock (`project.lock.state_write_lock`) when an analysis completes, holding the entries of
that run only, so it never grows beyond the project. A cold run (no cache, or another engine) analyses
every file: that is what the 5,000-file figure measures.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import state_files
from .fsutil import WriteError

VERSION = 2  # 2: the reports counted per kind (project.analysis.PERSON_KINDS)
CACHE_REL = "cache/analysis.json"  # under .hipport/, read and written only through state_files (no links)


@lru_cache(maxsize=1)
def engine_digest() -> str:
    """sha256 of every file of the engine package (names and bytes), compiled caches left out."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            p = Path(dirpath) / name
            h.update(p.relative_to(root).as_posix().encode() + b"\0")
            try:
                h.update(p.read_bytes())
            except OSError:
                h.update(b"<unreadable>")
    return h.hexdigest()


def _canonical(x: Any) -> Any:
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _canonical(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, enum.Enum):
        return _canonical(x.value)
    if isinstance(x, (set, frozenset)):
        return sorted((_canonical(v) for v in x), key=repr)
    if isinstance(x, (list, tuple)):
        return [_canonical(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _canonical(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)


def salt(topt: Any, wopt: Any) -> str:
    """What every key of one run shares: the engine and the options (sets sorted: the same options give
    the same salt in every process)."""
    blob = json.dumps([VERSION, engine_digest(), _canonical(topt), _canonical(wopt)], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _stat(path: Path) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "absent"
    return f"{st.st_size}:{st.st_mtime_ns}"


def file_key(run_salt: str, path: Path, rel: str, data: bytes, project_headers: bool) -> str:
    """The key of one file's summary (see the module's docstring)."""
    from .local_includes import quoted_includes
    from .warp.project import includer_scope, project_facts

    h = hashlib.sha256()
    h.update(run_salt.encode() + b"\0" + rel.encode() + b"\0")
    h.update(hashlib.sha256(data).digest())
    if project_headers:
        text = data.decode("utf-8", errors="replace")
        for inc in quoted_includes(text):
            h.update(f"\0{inc}={_stat(path.parent / inc)}".encode())
        for header in project_facts(path, text).headers:
            h.update(f"\0{header}={_stat(Path(header))}".encode())
        for other in includer_scope(path, text)[0]:  # a warp-size constant defined here: its includers' uses
            h.update(f"\0<{os.path.relpath(other, path.parent)}={_stat(other)}".encode())
    return h.hexdigest()


def load(root: Path) -> dict[str, tuple[int, ...]]:
    """The stored summaries by key (empty when there is none, or it is unreadable or of another version)."""
    try:
        raw = state_files.read(Path(root), CACHE_REL)  # counts only from the project's own folder
        if raw is None:
            return {}
        data = json.loads(raw.decode("utf-8"))
        if data.get("version") != VERSION:
            return {}
        from .model import PERSON_KINDS

        width = 2 + len(PERSON_KINDS)  # findings, edits, then the reports of each kind
        return {str(k): tuple(int(x) for x in v) for k, v in data["entries"].items() if len(v) == width}
    except (WriteError, OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return {}


def save(root: Path, entries: dict[str, tuple[int, ...]]) -> str | None:
    """Write the summaries of this run (atomically, under the project's lock); the reason when not."""
    from .project.lock import LockHeld, state_write_lock

    text = json.dumps({"version": VERSION, "entries": {k: list(v) for k, v in entries.items()}},
                      separators=(",", ":"))
    try:
        with state_write_lock(Path(root)):
            state_files.write(Path(root), CACHE_REL, text.encode("utf-8"))
    except (LockHeld, WriteError, OSError) as e:
        return str(e)
    return None
