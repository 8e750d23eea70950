"""Fixtures for the app tests (helpers live in apptest.py, importable from the test modules)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from apptest import make_project
from textual.widgets import Input, TextArea


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


@pytest.fixture(autouse=True)
def no_blink(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Blinking cursors make screenshots differ from run to run."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None, raising=False)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None, raising=False)
    yield

