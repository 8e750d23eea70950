"""Whether a file holds its own port (in place), known without the settings that wrote it.

Its own module: it asks the translation (engine/translate/), which engine/outputs.py, imported by the
translation's build-script half, must not (tests/test_import_boundary.py: no import cycle).
"""

from __future__ import annotations

from pathlib import Path

from .outputs import original_copy
from .source import SourceError, read_source
from .translate.driver import translate
from .translate.options import TranslateError, TranslateOptions


def ported_in_place(path: Path) -> bool:
    """Whether `path` holds its own port: hipport wrote over it (its original kept as `<file>.prehip`), or
    its text is HIP already, so translating it again changes nothing. The second is what recognises a
    tree converted with `convert --in-place --no-backup` (no copy kept) or ported by hand."""
    if original_copy(path).exists():
        return True
    try:
        return not translate(read_source(path), TranslateOptions(ast="off")).edits
    except (SourceError, TranslateError, OSError, ValueError):
        return False
