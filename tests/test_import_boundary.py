"""The engine never imports Textual or Rich (harlequin's pattern): checked in a fresh interpreter,
importing every hipport.engine module found on disk."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import hipport.engine

FORBIDDEN = ("textual", "rich")


def engine_modules() -> list[str]:
    names = ["hipport.engine"]
    for info in pkgutil.walk_packages(hipport.engine.__path__, prefix="hipport.engine."):
        names.append(info.name)
    return sorted(names)


def test_engine_has_modules_to_check() -> None:
    mods = engine_modules()
    assert "hipport.engine.edits" in mods and "hipport.engine.model" in mods


def test_engine_imports_no_textual_or_rich() -> None:
    mods = engine_modules()
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        f"print(','.join(m for m in {FORBIDDEN!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "", f"engine imported: {proc.stdout.strip()}"


def test_the_check_would_catch_textual() -> None:
    # the same probe reports textual once a module imports it (guards against a vacuous test)
    code = f"import textual.app, sys\nprint(','.join(m for m in {FORBIDDEN!r} if m in sys.modules))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "textual" in proc.stdout
