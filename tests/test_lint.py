"""The code stays as the project's style says (issue 21): ruff, with McCabe complexity at most 15
everywhere (pyproject [tool.ruff.lint.mccabe]), and mypy over engine/, tui/ and cli/
(pyproject [tool.mypy] files). Both are dev dependencies, installed by `make test`."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = Path(sys.executable).parent


def tool(name: str) -> str:
    path = TOOLS / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
        return found
    return str(path)


def test_ruff_with_complexity_15_is_clean() -> None:
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "C90" in lint["select"] and lint["mccabe"]["max-complexity"] == 15
    p = subprocess.run([tool("ruff"), "check", "engine", "cli", "tui", "tests", "bench", "scripts"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.slow
def test_mypy_covers_engine_tui_and_cli_and_is_clean() -> None:
    files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    assert set(files) >= {"engine", "tui", "cli"}
    p = subprocess.run([tool("mypy")], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
