"""Review decisions on disk: `<root>/.hipport/state.json`, readable JSON, versioned, written atomically.

    {"version": 1,
     "files": {"src/gemm.cu": {
         "sha256": "<sha256 of the original bytes the decisions were made on>",
         "findings": 7,                                  # count at the last analysis (for the file list)
         "decisions": {"W64-06:12:5": {"decision": "accepted", "style": "wave64", "rule": "W64-06",
                                       "anchor": "<short hash of the finding's source line>",
                                       "context": "<short hash of the lines around it>"}},
         "written": {"path": "src/gemm.hip", "sha256": "<of the bytes hipport wrote>",
                     "fingerprint": "<of the decisions + options that produced them>"},
         "committed": "<commit sha>" | null}}}

A corrupt file, or one from a newer hipport, raises StateError (one line) and is never overwritten
silently: `quarantine()` moves it aside as state.json.bad-<time> so a fresh review can start.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from .. import state_files
from ..model import FixStyle
from ..state_files import STATE_DIR, UnsafeStatePath

STATE_VERSION = 1
STATE_FILE = "state.json"


class StateError(Exception):
    """The saved review state cannot be used; one line. The person's code is untouched."""


class Decision(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


@dataclass(frozen=True)
class DecisionRecord:
    decision: Decision
    style: FixStyle
    rule: str = ""
    anchor: str = ""  # short hash of the finding's source line, to re-match decisions on a changed file
    context: str = ""  # short hash of the non-blank lines around it (review/types.py context)


@dataclass(frozen=True)
class WrittenRecord:
    path: str         # root-relative posix path of the output
    sha256: str       # of the bytes written
    fingerprint: str  # of the decisions and options that produced them


@dataclass
class FileState:
    sha256: str | None = None
    findings: int | None = None
    decisions: dict[str, DecisionRecord] = field(default_factory=dict)
    written: WrittenRecord | None = None
    committed: str | None = None

    def is_empty(self) -> bool:
        return not self.decisions and self.written is None and self.committed is None


@dataclass
class State:
    files: dict[str, FileState] = field(default_factory=dict)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str | None:
    """sha256 of a file's bytes, or None if it cannot be read."""
    try:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    except OSError:
        return None


def state_path(root: Path) -> Path:
    return Path(root) / STATE_DIR / STATE_FILE


def _bad(path: Path, why: str) -> StateError:
    return StateError(f"{path}: {why}; hipport can start a fresh review and keep this file aside")


def _str_or_none(v: Any) -> bool:
    return v is None or isinstance(v, str)


def parse_state(data: Any, path: Path) -> State:
    if not isinstance(data, dict):
        raise _bad(path, "not a hipport state object")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _bad(path, "no version number")
    if version > STATE_VERSION:
        raise _bad(path, f"written by a newer hipport (state version {version}, this one reads {STATE_VERSION})")
    if version < 1:
        raise _bad(path, f"unknown state version {version}")
    files = data.get("files", {})
    if not isinstance(files, dict):
        raise _bad(path, "'files' is not an object")
    state = State()
    for rel, entry in files.items():
        if not isinstance(entry, dict):
            raise _bad(path, f"entry for {rel!r} is not an object")
        try:
            state.files[str(rel)] = _parse_file_state(entry)
        except ValueError as e:
            raise _bad(path, f"entry for {rel!r} is invalid ({e})") from None
    return state


def _parse_file_state(entry: dict[str, Any]) -> FileState:
    """One file's entry; ValueError (the reason) when it is malformed."""
    fs = FileState(
        sha256=entry.get("sha256"),
        findings=entry.get("findings"),
        committed=entry.get("committed"),
    )
    if not _str_or_none(fs.sha256) or not _str_or_none(fs.committed):
        raise ValueError("sha256/committed must be strings")
    if fs.findings is not None and (not isinstance(fs.findings, int) or isinstance(fs.findings, bool)):
        raise ValueError("findings must be a number")
    decisions = entry.get("decisions", {})
    if not isinstance(decisions, dict):
        raise ValueError("decisions must be an object")
    for fid, rec in decisions.items():
        if not isinstance(rec, dict):
            raise ValueError(f"decision {fid!r} is not an object")
        fs.decisions[fid] = DecisionRecord(
            Decision(str(rec.get("decision"))),
            FixStyle(str(rec.get("style", FixStyle.WAVE64.value))),
            str(rec.get("rule", "")),
            str(rec.get("anchor", "")),
            str(rec.get("context", "")),
        )
    w = entry.get("written")
    if w is not None:
        if not isinstance(w, dict) or not all(isinstance(w.get(k), str) for k in ("path", "sha256")):
            raise ValueError("written must have path and sha256")
        fs.written = WrittenRecord(w["path"], w["sha256"], str(w.get("fingerprint", "")))
    return fs


def load_state(root: Path) -> State:
    """The saved state of the review at `root`, or an empty one (also when `.hipport/` is a link or no
    folder: nothing is read through it, and each save says why it cannot save). Raises StateError (one
    line), also for a state.json that is a link (`hipport open --fresh` moves it aside)."""
    path = state_path(root)
    try:
        state_files.check_dir(root)
    except (UnsafeStatePath, OSError):
        return State()  # nothing is read through a linked .hipport/; saving says why it cannot save
    try:
        raw = state_files.read(Path(root), STATE_FILE)  # never through a link (state_files)
    except UnsafeStatePath as e:
        raise StateError(str(e)) from None
    except OSError as e:
        raise StateError(f"{path}: cannot read ({e.strerror or e})") from None
    if raw is None:
        return State()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _bad(path, f"not valid JSON ({e})") from None
    return parse_state(data, path)


def dump_state(state: State) -> dict[str, Any]:
    files: dict[str, Any] = {}
    for rel in sorted(state.files):
        fs = state.files[rel]
        if fs.is_empty():
            continue
        entry: dict[str, Any] = {"sha256": fs.sha256}
        if fs.findings is not None:
            entry["findings"] = fs.findings
        entry["decisions"] = {
            fid: {"decision": r.decision.value, "style": r.style.value, "rule": r.rule, "anchor": r.anchor,
                  **({"context": r.context} if r.context else {})}
            for fid, r in sorted(fs.decisions.items())
        }
        entry["written"] = (
            {"path": fs.written.path, "sha256": fs.written.sha256, "fingerprint": fs.written.fingerprint}
            if fs.written else None
        )
        entry["committed"] = fs.committed
        files[rel] = entry
    return {"version": STATE_VERSION, "files": files}


def save_state(root: Path, state: State) -> Path:
    """Write state.json atomically (temp file, fsync, rename), never through a link (state_files).
    Raises fsutil.WriteError (one line)."""
    text = json.dumps(dump_state(state), indent=2, sort_keys=False) + "\n"
    return state_files.write(Path(root), STATE_FILE, text.encode("utf-8"))


def quarantine(root: Path) -> Path | None:
    """Move an unusable state.json aside as state.json.bad-<time>; return the new path (None if absent)."""
    path = state_path(root)
    state_files.check_dir(root)  # the rename below stays inside a real .hipport/ (a link there is moved, not followed)
    if not os.path.lexists(path):
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{STATE_FILE}.bad-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{STATE_FILE}.bad-{stamp}-{n}")
    os.replace(path, target)
    return target

