"""Opening an untrusted repository (issue 22, items 1-5, 8 and 14): what a cloned repository can make
hipport do before the person trusts it. Each case is the attack as a repository would carry it, run
through the real CLI (or the real app under Pilot), with real git, make, CMake and, where installed,
Debian's Perl hipcc. Trust lives in the person's state folder: every test here has its own
($XDG_STATE_HOME, set by tests/conftest.py), so nothing is trusted unless the test trusts it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from adv_util import KERNEL, git, hipport, init_repo, no_traceback, tree_digest

pytestmark = pytest.mark.security

PRECIOUS = b"the person's own file\n"


def _outside(tmp_path: Path) -> Path:
    """A file of the person's, outside every project."""
    f = tmp_path / "home" / "precious.txt"
    f.parent.mkdir(parents=True)
    f.write_bytes(PRECIOUS)
    return f


# ------------------------------------------------------------------------------------------ 1: .hipport/ links


def test_a_cloned_app_lock_link_is_refused_and_the_target_never_touched(tmp_path: Path) -> None:
    """The repository commits `.hipport/app.lock` as a link to a file of the person's; `hipport .` on the
    clone used to write `pid … on …` into that file, and empty it on quit."""
    precious = _outside(tmp_path)
    origin = tmp_path / "origin"
    origin.mkdir()
    (origin / "k.cu").write_text(KERNEL)
    (origin / ".hipport").mkdir()
    (origin / ".hipport" / "app.lock").symlink_to(precious)
    init_repo(origin)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    assert (clone / ".hipport" / "app.lock").is_symlink()
    try:
        r = hipport(".", cwd=clone, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("hipport opened the app on a project whose app.lock is a link")
    finally:
        assert precious.read_bytes() == PRECIOUS, "the file outside the project was written"
    no_traceback(r)
    assert r.rc == 2 and "app.lock" in r.err and "link" in r.err, r.err


def test_the_project_lock_and_short_writers_never_follow_a_linked_lock(tmp_path: Path) -> None:
    from hipport.engine.fsutil import WriteError
    from hipport.engine.project_lock import ProjectLock, state_write_lock

    precious = _outside(tmp_path)
    root = tmp_path / "p"
    (root / ".hipport").mkdir(parents=True)
    (root / ".hipport" / "app.lock").symlink_to(precious)
    lock = ProjectLock(root)
    with pytest.raises(WriteError, match=r"app\.lock") as e:
        lock.acquire()
    lock.release()
    assert "\n" not in str(e.value)
    with pytest.raises(WriteError, match=r"app\.lock"), state_write_lock(root):
        pass
    # a dangling link is not created through either
    (root / ".hipport" / "app.lock").unlink()
    target = tmp_path / "home" / "new.txt"
    (root / ".hipport" / "app.lock").symlink_to(target)
    with pytest.raises(WriteError, match=r"app\.lock"):
        ProjectLock(root).acquire()
    assert precious.read_bytes() == PRECIOUS and not target.exists()


def test_a_linked_baseline_folder_is_not_written_through(tmp_path: Path) -> None:
    from hipport.engine.fsutil import WriteError
    from hipport.engine.toolchain.baseline import Baseline, Value, baseline_path

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "p"
    (root / ".hipport").mkdir(parents=True)
    (root / ".hipport" / "baseline").symlink_to(elsewhere)
    with pytest.raises(WriteError, match="baseline") as e:
        Baseline("./k", [Value("x", "1", 1.0)], "", 0).save(baseline_path(root, "k"))
    assert "\n" not in str(e.value)
    assert list(elsewhere.iterdir()) == []


def test_a_linked_state_file_is_neither_read_nor_written(tmp_path: Path) -> None:
    from hipport.engine.fsutil import WriteError
    from hipport.engine.review_state import State, StateError, load_state, save_state

    precious = _outside(tmp_path)
    precious.write_text('{"version": 1, "files": {}}\n')  # readable as a state: it must still not be read
    before = precious.read_bytes()
    root = tmp_path / "p"
    (root / ".hipport").mkdir(parents=True)
    (root / ".hipport" / "state.json").symlink_to(precious)
    with pytest.raises(StateError, match=r"state\.json"):
        load_state(root)
    with pytest.raises(WriteError, match=r"state\.json"):
        save_state(root, State())
    assert precious.read_bytes() == before


@pytest.mark.parametrize("link", ["cache", "cache/analysis.json"])
def test_a_linked_analysis_cache_is_neither_read_nor_written(tmp_path: Path, link: str) -> None:
    from hipport.engine import analysis_cache

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "analysis.json").write_text(json.dumps({"version": analysis_cache.VERSION,
                                                         "entries": {"k": [1, 2, 3]}}))
    before = tree_digest(elsewhere)
    root = tmp_path / "p"
    (root / ".hipport" / "cache").mkdir(parents=True)
    if link == "cache":
        (root / ".hipport" / "cache").rmdir()
        (root / ".hipport" / "cache").symlink_to(elsewhere)
    else:
        (root / ".hipport" / "cache" / "analysis.json").symlink_to(elsewhere / "analysis.json")
    assert analysis_cache.load(root) == {}
    assert analysis_cache.save(root, {"x": (0, 0, 0)}) is not None  # the reason it was not written
    assert tree_digest(elsewhere) == before
