"""Atomic writes: the old file or the new one, never a truncated mix."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hipport.engine import fsutil
from hipport.engine.fsutil import WriteError, atomic_write, is_inside
from hipport.engine.outputs import write_port


def test_write_replaces_and_keeps_mode_and_backup(tmp_path: Path) -> None:
    p = tmp_path / "a.cu"
    p.write_bytes(b"old")
    os.chmod(p, 0o640)
    backup = write_port(p, b"new", in_place=True)  # outputs.py's write policy keeps the old bytes first
    assert p.read_bytes() == b"new"
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert backup is not None and backup.read_bytes() == b"old"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o640
    assert [x.name for x in tmp_path.iterdir() if "hipport-tmp" in x.name] == []


def test_failed_write_leaves_original_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "a.cu"
    p.write_bytes(b"original")

    def boom(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fsutil.os, "replace", boom)
    with pytest.raises(WriteError, match="No space left"):
        atomic_write(p, b"x" * 1000)
    assert p.read_bytes() == b"original"
    assert [x.name for x in tmp_path.iterdir()] == ["a.cu"]


def test_symlink_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.cu"
    outside.write_bytes(b"keep")
    link = tmp_path / "proj" / "link.cu"
    link.parent.mkdir()
    link.symlink_to(outside)
    with pytest.raises(WriteError, match="symbolic link"):
        atomic_write(link, b"x")
    assert outside.read_bytes() == b"keep"
    assert not is_inside(link, tmp_path / "proj")


def test_read_only_file_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "ro.cu"
    p.write_bytes(b"x")
    os.chmod(p, 0o444)
    with pytest.raises(WriteError, match="read-only"):
        atomic_write(p, b"y")
