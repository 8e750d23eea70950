"""Trust before running repository commands, as editors do for workspace trust.

A build or run command that comes from the project's own `[tool.hipport.run]` (run/command, make_args,
cmake_args, libs, defines, python: the steps a plan marks `from_config`) runs only after the person
has seen it as exact argv and confirmed, once per project. The confirmation is remembered in
`.hipport/trust.json` together with a digest of those commands: when the config changes them, they
are shown and confirmed again. Headless runs (`hipport run` without a terminal, `--json`) need the
explicit `--trust` flag.

API:
    untrusted(plan) -> list[Step]        the config-derived steps not yet trusted (empty: go ahead)
    describe(steps) -> list[str]         the exact argv, one line each (shell-quoted for reading only)
    remember(plan) -> Path               record the confirmation
"""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

from ..fsutil import atomic_write
from ..project_lock import state_write_lock
from .plan import RunPlan, Step

TRUST_FILE = Path(".hipport") / "trust.json"


def _commands(plan: RunPlan) -> list[Step]:
    return [s for s in plan.steps if s.from_config]


def _digest(steps: list[Step]) -> str:
    blob = json.dumps([[s.title, s.argv, str(s.cwd)] for s in steps], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _file(plan: RunPlan) -> Path | None:
    return None if plan.project is None else plan.project / TRUST_FILE


def untrusted(plan: RunPlan) -> list[Step]:
    steps = _commands(plan)
    path = _file(plan)
    if not steps or path is None:
        return []
    try:
        known = json.loads(path.read_text(encoding="utf-8")).get("trusted", [])
    except (OSError, ValueError, AttributeError):
        known = []
    return [] if _digest(steps) in known else steps


def describe(steps: list[Step]) -> list[str]:
    return [f"  {s.title}: {shlex.join(s.argv)}   (in {s.cwd})" for s in steps]


def remember(plan: RunPlan) -> Path | None:
    """Record the confirmation. Read and written under the project's lock (the app's
    `.hipport/app.lock`), atomically; raises project_lock.LockHeld while another process's app has
    the project open."""
    path = _file(plan)
    steps = _commands(plan)
    if path is None or not steps:
        return None
    assert plan.project is not None
    with state_write_lock(plan.project):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            known = [d for d in data.get("trusted", []) if isinstance(d, str)]
        except (OSError, ValueError, AttributeError):
            known = []
        if _digest(steps) not in known:
            known.append(_digest(steps))
        text = json.dumps({"trusted": known[-50:], "last": [s.argv for s in steps]}, indent=1) + "\n"
        atomic_write(path, text.encode("utf-8"))
    return path
