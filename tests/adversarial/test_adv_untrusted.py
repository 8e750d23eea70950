"""Opening an untrusted repository (issue 22, items 1-5, 8 and 14): what a cloned repository can make
hipport do before the person trusts it. Each case is the attack as a repository would carry it, run
through the real CLI (or the real app under Pilot), with real git, make, CMake and, where installed,
Debian's Perl hipcc. Trust lives in the person's state folder: every test here has its own
($XDG_STATE_HOME, set by tests/conftest.py), so nothing is trusted unless the test trusts it.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
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


def _executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


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
    from hipport.engine.project.lock import ProjectLock, state_write_lock

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
    from hipport.engine.review.state import State, StateError, load_state, save_state

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


# ------------------------------------------------------------------------------------------ make projects

# A ported (dual) Makefile: it builds HIP, so `hipport run` builds with it. Its recipes are the attack.
MAKEFILE = """\
# builds the port with hipcc (in its code, not only this comment: engine/buildsys builds_hip)
HIPCC ?= hipcc
ARGS ?=
all:
\techo $(ARGS) > args.txt
\ttouch built.txt
"""


def _make_project(tmp_path: Path, config: str = "", makefile: str = MAKEFILE) -> Path:
    root = tmp_path / "mk"
    root.mkdir()
    (root / "Makefile").write_text(makefile)
    if config:
        (root / "pyproject.toml").write_text(config)
    return root


def _run(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    r = hipport("run", *args, ".", cwd=root, env=env, timeout=120)
    no_traceback(r)
    return r.rc, r.out + r.err


# ------------------------------------------------------------------------------------------ 4: trust first


def test_a_makefile_runs_only_once_trusted_and_again_after_it_changes(tmp_path: Path) -> None:
    root = _make_project(tmp_path)
    rc, out = _run(root)
    assert rc == 2 and not (root / "built.txt").exists(), out
    assert "Makefile" in out and "--trust" in out
    rc, out = _run(root, "--trust")
    assert rc == 0 and (root / "built.txt").is_file(), out
    (root / "built.txt").unlink()
    rc, out = _run(root)  # remembered for this project and these files
    assert rc == 0 and (root / "built.txt").is_file(), out
    (root / "built.txt").unlink()
    with (root / "Makefile").open("a") as f:
        f.write("\ttouch more.txt\n")
    rc, out = _run(root)  # the Makefile changed: asked again
    assert rc == 2 and not (root / "built.txt").exists(), out
    # trust is the person's, kept in their state folder: never in the workspace
    assert not (root / ".hipport" / "trust.json").exists()
    assert list(Path(os.environ["XDG_STATE_HOME"]).rglob("*.json"))


def test_trust_shipped_inside_the_repository_is_ignored(tmp_path: Path) -> None:
    """A repository (or a CI checkout on a predictable path) that carries its own trust record skips the
    prompt no longer: trust is read only from the person's state folder."""
    root = _make_project(tmp_path, '[tool.hipport.run]\nmake_args = ["V=1"]\n')
    person_a = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state-a")}
    person_b = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state-b")}
    rc, out = _run(root, "--trust", env=person_a)
    assert rc == 0 and (root / "built.txt").is_file(), out
    (root / "built.txt").unlink()
    # whatever the first run left in the workspace travels with it: another person is still asked
    rc, out = _run(root, env=person_b)
    assert rc == 2 and not (root / "built.txt").exists(), out
    shipped = root / ".hipport" / "trust.json"
    shipped.parent.mkdir(exist_ok=True)
    shipped.write_text(json.dumps({"trusted": ["0" * 64], "last": [["make"]]}))
    rc, out = _run(root, env=person_b)
    assert rc == 2 and not (root / "built.txt").exists(), out


def test_configured_arguments_need_trust_and_never_reach_a_shell(tmp_path: Path) -> None:
    root = _make_project(tmp_path, '[tool.hipport.run]\nargs = ["4096; echo PWNED >> log", '
                                   '"$(shell touch by-make)"]\n')
    rc, out = _run(root)
    assert rc == 2 and "4096; echo PWNED" in out and not (root / "built.txt").exists(), out
    assert not (root / "log").exists()
    rc, out = _run(root, "--trust")
    assert rc == 0 and (root / "built.txt").is_file(), out
    # make passed ARGS to its recipe's shell as quoted words, expanding nothing in them: echoed, not run
    assert (root / "args.txt").read_text() == "4096; echo PWNED >> log $(shell touch by-make)\n"
    assert not (root / "log").exists() and not (root / "by-make").exists()


def test_cmake_execute_process_runs_only_once_trusted(tmp_path: Path) -> None:
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    root = tmp_path / "cm"
    root.mkdir()
    marker = tmp_path / "pwned-by-cmake"
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\n"
        f'execute_process(COMMAND "${{CMAKE_COMMAND}}" -E touch "{marker}")\n'
        "project(x LANGUAGES NONE)\n"
        "if(FALSE)\n  enable_language(HIP)\nendif()\n")
    rc, out = _run(root)
    assert rc == 2 and not marker.exists(), out
    assert "CMakeLists.txt" in out


def test_trust_json_as_a_folder_is_no_internal_error(tmp_path: Path) -> None:
    """Issue 22 item 14: `.hipport/trust.json` as a folder gave "internal error … this is a hipport bug"."""
    root = _make_project(tmp_path, '[tool.hipport.run]\nmake_args = ["V=1"]\n')
    (root / ".hipport" / "trust.json").mkdir(parents=True)
    rc, out = _run(root, "--trust")
    assert rc == 0 and "internal error" not in out and (root / "built.txt").is_file(), out


def test_a_linked_trust_file_in_the_workspace_is_never_written(tmp_path: Path) -> None:
    precious = _outside(tmp_path)
    root = _make_project(tmp_path, '[tool.hipport.run]\nmake_args = ["V=1"]\n')
    (root / ".hipport").mkdir()
    (root / ".hipport" / "trust.json").symlink_to(precious)
    rc, out = _run(root, "--trust")
    assert rc == 0 and "internal error" not in out, out
    assert precious.read_bytes() == PRECIOUS


async def test_the_apps_b_asks_before_a_makefile_runs(tmp_path: Path) -> None:
    from hipport.engine.config import load_config
    from hipport.engine.review import ReviewSession
    from hipport.engine.toolchain.detect import Detection
    from hipport.tui.app import PortApp
    from hipport.tui.screens.confirm import ConfirmScreen

    root = _make_project(tmp_path)
    (root / "k.cu").write_text(KERNEL)
    (root / "k.hip").write_text(KERNEL.replace("cuda", "hip"))
    init_repo(root)
    config = load_config(root)
    app = PortApp(ReviewSession.open(root, config), config, analysis=False)
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        screen.run_pane.detection = Detection()  # type: ignore[attr-defined]
        screen.run_pane.build_and_run(root, config)  # type: ignore[attr-defined]
        for _ in range(200):
            await pilot.app.workers.wait_for_complete()
            await pilot.pause(0.05)
            if isinstance(app.screen, ConfirmScreen) or (root / "built.txt").exists():
                break
        assert not (root / "built.txt").exists(), "the Makefile ran without a trust prompt"
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one("#question").render())
        assert "Makefile" in question
        await pilot.press("n")
        await pilot.pause(0.2)
    assert not (root / "built.txt").exists()


async def test_a_repository_keymap_cannot_turn_a_navigation_key_into_a_build(tmp_path: Path) -> None:
    from hipport.engine.config import load_config
    from hipport.engine.review import ReviewSession
    from hipport.engine.toolchain.detect import Detection
    from hipport.tui.app import PortApp
    from hipport.tui.screens.confirm import ConfirmScreen

    root = tmp_path / "p"
    root.mkdir()
    (root / "k.cu").write_text(KERNEL)
    (root / "k.hip").write_text(KERNEL.replace("cuda", "hip"))
    (root / "pyproject.toml").write_text('[tool.hipport.keymap]\n"run.start" = "j,k"\n')
    init_repo(root)
    config = load_config(root)
    app = PortApp(ReviewSession.open(root, config), config, analysis=False)
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pane = app.screen.run_pane  # type: ignore[attr-defined]
        pane.detection = Detection()
        await pilot.press("j")
        for _ in range(20):
            await pilot.app.workers.wait_for_complete()
            await pilot.pause(0.05)
        assert not isinstance(app.screen, ConfirmScreen), "j asked to build"
        assert not pane.has_class("-visible") and not pane.running, "j started a build"
        assert any("run.start" in str(n.message) for n in app._notifications)
    # once the person trusts the project, its binding applies
    from hipport.engine.toolchain.trust import remember, subject

    remember(subject(root, config))
    app = PortApp(ReviewSession.open(root, config), config, analysis=False)
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pane = app.screen.run_pane  # type: ignore[attr-defined]
        pane.detection = Detection()
        await pilot.press("j")
        await pilot.pause(0.2)
        assert pane.has_class("-visible"), "the trusted project's j is its build key"


# ------------------------------------------------------------------------------------------ 2: interpreters


def test_a_configured_python_does_not_run_before_trust(tmp_path: Path) -> None:
    root = tmp_path / "py"
    root.mkdir()
    marker = tmp_path / "pwned-by-python"
    _executable(root / "evil.sh", f'#!/bin/sh\ntouch "{marker}"\nexit 1\n')
    (root / "matmul_hip.py").write_text("print('ok')\n")
    (root / "pyproject.toml").write_text('[tool.hipport.run]\npython = "./evil.sh"\n')
    for args in (["--dry-run"], ["--list-devices"], [], ["--json"]):
        r = hipport("run", *args, ".", cwd=root, timeout=120)
        no_traceback(r)
        assert not marker.exists(), f"`hipport run {' '.join(args)}` ran the repository's python"
        assert r.rc in (0, 2), (args, r.rc, r.err)


# ------------------------------------------------------------------------------------------ 3: doctor


def test_doctor_does_not_import_a_torch_from_the_current_folder(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    marker = tmp_path / "pwned-by-torch"
    (root / "torch.py").write_text(f"open({str(marker)!r}, 'w').write('imported')\n")
    r = hipport("doctor", ".", cwd=root, timeout=180)
    no_traceback(r)
    assert not marker.exists(), "doctor imported torch.py from the current folder"
    # nor does the PyTorch check of a Python project's run
    (root / "matmul_hip.py").write_text("import torch\n")
    r = hipport("run", "--dry-run", "matmul_hip.py", cwd=root, timeout=180)
    no_traceback(r)
    assert not marker.exists(), "hipport run imported torch.py from the project folder"


# ------------------------------------------------------------------------------------------ 5: file names


SHELL_NAME = "g;touch X$(touch Y)`touch Z`"


def _shell_named_port(tmp_path: Path) -> Path:
    root = tmp_path / "names"
    root.mkdir()
    (root / f"{SHELL_NAME}.cu").write_text(KERNEL)
    (root / f"{SHELL_NAME}.hip").write_text("int main() { return 0; }\n")
    return root


def _touched(root: Path) -> list[str]:
    """What `touch X$(touch Y)`touch Z`` makes when a shell runs it: Y, Z and X<something>."""
    return sorted(p.name for p in root.iterdir() if p.name in ("Y", "Z") or p.name.startswith("X"))


@pytest.mark.parametrize("extra", [[], ["--baseline"], ["--platform", "nvidia"]])
def test_a_file_name_with_shell_characters_is_refused_by_name(tmp_path: Path, extra: list[str]) -> None:
    root = _shell_named_port(tmp_path)
    r = hipport("run", "--dry-run", *extra, f"{SHELL_NAME}.cu", cwd=root, timeout=120)
    no_traceback(r)
    assert r.rc == 2, (r.rc, r.out, r.err)
    assert SHELL_NAME in r.err and "shell" in r.err, r.err
    assert _touched(root) == []


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_debians_perl_hipcc_never_sees_a_shell_file_name(tmp_path: Path) -> None:
    """Debian's hipcc is a Perl script that runs clang through a shell: the name used to run `touch`."""
    root = _shell_named_port(tmp_path)
    r = hipport("run", "--arch", "gfx90a", f"{SHELL_NAME}.cu", cwd=root, timeout=300)
    no_traceback(r)
    assert _touched(root) == [], "a command in the file name ran"
    assert r.rc == 2 and SHELL_NAME in r.err, (r.rc, r.err)


# ------------------------------------------------------------------------------------------ 8: -o and links


@pytest.mark.parametrize(("link", "output"), [("out/kern", "out"), ("out", "out"), ("a", "a/out")])
def test_convert_output_never_writes_through_a_linked_folder(tmp_path: Path, link: str, output: str) -> None:
    """`-o out` used to check only the last component: a repository's `out/kern -> /elsewhere` received
    files, with exit status 0."""
    src = tmp_path / "src"
    (src / "kern").mkdir(parents=True)
    (src / "kern" / "k.cu").write_text(KERNEL)
    (src / "top.cu").write_text(KERNEL)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / link).symlink_to(elsewhere, target_is_directory=True)
    r = hipport("convert", "-q", "-o", output, "src", cwd=tmp_path, timeout=120)
    no_traceback(r)
    assert r.rc == 2 and len(r.err_lines) == 1, r.err
    assert f"{link}: is a symbolic link" in r.err, r.err
    assert list(elsewhere.iterdir()) == [], "written through a linked folder"
    assert not (tmp_path / "out").is_dir() or (tmp_path / "out").is_symlink() or \
        [p.name for p in (tmp_path / "out").iterdir()] == ["kern"]  # nothing written beside it either
