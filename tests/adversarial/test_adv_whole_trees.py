"""The CLI refuses `/` and the home folder as the app does (issue 22, item 10).

`convert --in-place "$HOME"` rewrote every project under it and `scan /` walked the whole file system.
Every command that walks a folder now refuses those two with one line (engine/project/root.py, the
app's rule), unless `--any-folder`, which is accepted anywhere in the command line (before the
command, it used to be a parser error).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from adv_util import KERNEL, hipport, no_traceback, one_line_error


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    (h / "proj").mkdir(parents=True)
    (h / "proj" / "k.cu").write_text(KERNEL)
    return h


def env_home(home: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(home)}


def test_convert_in_place_of_the_home_folder_is_refused(home: Path) -> None:
    r = hipport("convert", "--in-place", str(home), cwd=home, env=env_home(home))
    one_line_error(r, str(home), "home folder", "--any-folder")
    assert (home / "proj" / "k.cu").read_text() == KERNEL and not (home / "proj" / "k.cu.prehip").exists()


def test_the_current_folder_as_home_is_refused_too(home: Path) -> None:
    r = hipport("scan", ".", cwd=home, env=env_home(home))
    one_line_error(r, "home folder")


@pytest.mark.parametrize("command", [["scan"], ["convert", "--diff"], ["run", "--dry-run"], ["doctor"]])
def test_the_file_system_root_is_refused_by_every_walking_command(command: list[str], tmp_path: Path) -> None:
    r = hipport(*command, "/", cwd=tmp_path, timeout=60)
    one_line_error(r, "/ is the file-system root", "--any-folder")


@pytest.mark.parametrize("where", ["first", "after-command", "last"])
def test_any_folder_is_accepted_anywhere(home: Path, where: str) -> None:
    words = ["convert", "--in-place", str(home)]
    at = {"first": 0, "after-command": 1, "last": len(words)}[where]
    r = hipport(*words[:at], "--any-folder", *words[at:], cwd=home, env=env_home(home))
    no_traceback(r)
    assert r.rc == 0, r.err
    assert (home / "proj" / "k.cu.prehip").read_text() == KERNEL and "hip" in (home / "proj" / "k.cu").read_text()


def test_any_folder_before_a_path_reaches_the_app(tmp_path: Path) -> None:
    """`hipport --any-folder PATH` opens PATH (here: a missing one, so no app starts): no parser error."""
    r = hipport("--any-folder", str(tmp_path / "missing"), cwd=tmp_path)
    one_line_error(r, "missing: no such folder")


def test_a_file_or_a_project_below_home_is_not_refused(home: Path) -> None:
    r = hipport("scan", str(home / "proj"), cwd=home, env=env_home(home))
    assert r.rc == 0, r.err
    r = hipport("convert", "--diff", str(home / "proj" / "k.cu"), cwd=home, env=env_home(home))
    assert r.rc == 0, r.err
