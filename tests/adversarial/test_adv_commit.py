"""A commit whose hook never ends (issue 22, item 11), and the commit messages of item 15.

A hanging pre-commit hook froze the commit: no timeout, no cancel, and after `q` a blank screen stayed
until Ctrl-C. git now runs in a process group of its own (engine/vcs.py): a timeout or the app's cancel
(c again, or q) stops git, its hook and what the hook started; nothing is committed and hipport's
`git add` is taken back. Real git, real hooks, the real engine and app.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import psutil
import pytest
from adv_util import KERNEL, git, init_repo

from hipport.engine.config import Config
from hipport.engine.review import ReviewSession
from hipport.engine.vcs import VcsError, commit_paths
from hipport.tui.app import PortApp
from hipport.tui.screens.commit import CommitScreen
from hipport.tui.screens.review import ReviewScreen

SIZE = (120, 32)


def hanging_hook(root: Path) -> Path:
    """A pre-commit hook that starts a child and waits for it (600 s); both pids go to files."""
    pids = root.parent / "pids"
    pids.mkdir(exist_ok=True)
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nsleep 600 &\necho $! > {pids}/child\necho $$ > {pids}/hook\nwait\n")
    hook.chmod(0o755)
    return pids


def hook_pids(pids: Path, timeout: float = 20) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return [int((pids / n).read_text()) for n in ("hook", "child")]
        except (OSError, ValueError):
            time.sleep(0.05)
    raise AssertionError("the hook did not start")


def running(pid: int) -> psutil.Process | None:
    """The process, unless it ended (a zombie has ended: here pid 1 may be slow to reap orphans)."""
    try:
        p = psutil.Process(pid)
        return None if p.status() == psutil.STATUS_ZOMBIE else p
    except psutil.NoSuchProcess:
        return None


def gone(pid_list: list[int], timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        alive = [p for p in map(running, pid_list) if p is not None]
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    for p in alive:  # never leave them behind, whatever the test says
        p.kill()
    return not alive


def repo_with_output(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "gemm.cu").write_text(KERNEL)
    init_repo(root)
    (root / "gemm.hip").write_text("// the port\n")
    return root


def assert_nothing_committed(root: Path) -> None:
    assert git(root, "log", "--format=%s").splitlines() == ["initial"]
    assert git(root, "diff", "--cached", "--name-only").strip() == ""  # our `git add` taken back
    assert not (root / ".git" / "index.lock").exists()


# ------------------------------------------------------------------------------ the engine


def test_a_hanging_hook_is_stopped_after_the_timeout(tmp_path: Path) -> None:
    root = repo_with_output(tmp_path)
    pids = hanging_hook(root)
    t0 = time.monotonic()
    with pytest.raises(VcsError, match=r"did not finish within 2 s .*nothing was committed"):
        commit_paths(root, ["gemm.hip"], "port", timeout=2)
    assert time.monotonic() - t0 < 30
    assert gone(hook_pids(pids)), "the hook or its child outlived the stopped commit"
    assert_nothing_committed(root)
    (root / ".git" / "hooks" / "pre-commit").unlink()
    assert len(commit_paths(root, ["gemm.hip"], "port")) == 40  # the repository is usable afterwards


def test_cancel_stops_a_running_commit(tmp_path: Path) -> None:
    root = repo_with_output(tmp_path)
    pids = hanging_hook(root)
    cancel = threading.Event()
    errors: list[str] = []

    def run() -> None:
        try:
            commit_paths(root, ["gemm.hip"], "port", cancel=cancel)
        except VcsError as e:
            errors.append(str(e))

    th = threading.Thread(target=run)
    th.start()
    running = hook_pids(pids)
    cancel.set()
    th.join(30)
    assert not th.is_alive() and errors and "commit cancelled" in errors[0], errors
    assert gone(running)
    assert_nothing_committed(root)


def test_a_stale_index_lock_is_named(tmp_path: Path) -> None:
    root = repo_with_output(tmp_path)
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    with pytest.raises(VcsError) as refused:
        commit_paths(root, ["gemm.hip"], "port")
    assert str(lock) in str(refused.value) and "remove" in str(refused.value), refused.value
    assert lock.exists()  # not ours: left for the person to remove


# ------------------------------------------------------------------------------ the app


async def start_commit(pilot, app: PortApp) -> ReviewScreen:  # type: ignore[no-untyped-def]
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    await pilot.press("w", "c")
    await pilot.pause()
    assert isinstance(app.screen, CommitScreen)
    await pilot.press("ctrl+s")
    await pilot.pause()
    return screen


def app_on(tmp_path: Path) -> tuple[Path, PortApp]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "gemm.cu").write_text(KERNEL)
    init_repo(root)
    config = Config(ast="off")
    return root, PortApp(ReviewSession.open(root, config), config)


async def test_c_cancels_a_commit_whose_hook_hangs(tmp_path: Path) -> None:
    root, app = app_on(tmp_path)
    pids = hanging_hook(root)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_commit(pilot, app)
        running = await asyncio.to_thread(hook_pids, pids)
        assert "c cancels" in screen.last_message
        await pilot.press("c")
        try:
            await asyncio.wait_for(app.workers.wait_for_complete(), 30)
        finally:
            stopped = gone(running, timeout=1)
        await pilot.pause()
        assert "Not committed" in screen.last_message and "cancelled" in screen.last_message
        assert stopped
    assert_nothing_committed(root)


async def test_q_during_a_hanging_commit_quits(tmp_path: Path) -> None:
    root, app = app_on(tmp_path)
    pids = hanging_hook(root)
    async with app.run_test(size=SIZE) as pilot:
        await start_commit(pilot, app)
        running = await asyncio.to_thread(hook_pids, pids)
        await pilot.press("q")

        async def exited() -> None:
            while app.return_code is None:
                await asyncio.sleep(0.05)

        try:
            await asyncio.wait_for(exited(), 30)  # the app quits once the commit is stopped and undone
        finally:
            stopped = gone(running, timeout=1)
        assert stopped
    assert app.return_code == 0
    assert_nothing_committed(root)


async def test_nothing_to_commit_names_the_output_edited_outside(tmp_path: Path) -> None:
    """Item 15: "Nothing to commit: write a file first" was said of a file that was written, then edited."""
    root, app = app_on(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("w")
        await pilot.pause()
        with (root / "gemm.hip").open("a") as f:
            f.write("// edited by hand\n")
        await pilot.press("c")
        await pilot.pause()
        msg = screen.last_message
        assert "Nothing to commit" in msg and "gemm.hip" in msg and "changed outside hipport" in msg, msg
        assert "write a file first" not in msg
    assert os.path.exists(root / "gemm.hip")
