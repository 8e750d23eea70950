"""End to end: the INSTALLED `hipport demo --dir` in a real terminal (tmux), driven by keys, read back
with capture-pane, and the resulting commit checked with git."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

HIPPORT = Path(sys.executable).with_name("hipport")

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not HIPPORT.exists(), reason=f"hipport is not installed next to {sys.executable}"),
]


class Tmux:
    def __init__(self, socket: str) -> None:
        self.socket = socket

    def __call__(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        if check and proc.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "e2e")

    def wait_for(self, text: str, timeout: float = 60.0, regex: bool = False) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if (re.search(text, screen) if regex else text in screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear on screen:\n{screen}")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self("send-keys", "-t", "e2e", key)
            time.sleep(0.15)


def clean_env() -> dict[str, str]:
    """The environment for the app in the tmux pane: no TMUX* (the pane is its own server) and no
    COLUMNS/LINES, which pytest-xdist workers set to 80x24: Textual (shutil.get_terminal_size) would
    take them over the pane's real size and draw 80x24, truncating the file list's counts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX") and k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    return env


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def write_commit_quit(tmux: Tmux) -> None:
    """`w` writes gemm.hip, `c` and ctrl+s commit it, `q` quits: the app must exit 0."""
    tmux.keys("w")
    tmux.wait_for("Wrote gemm.hip")
    tmux.keys("c")
    tmux.wait_for("ctrl+s commits")
    tmux.keys("C-s")
    tmux.wait_for("Committed")
    tmux.keys("q")
    screen = tmux.wait_for("EXIT=", timeout=20)
    assert "EXIT=0" in screen


def test_demo_review_write_commit_in_a_real_terminal(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    tmux = Tmux(f"hipport-e2e-{uuid.uuid4().hex[:8]}")
    env = clean_env()
    command = f"{HIPPORT} demo --dir {demo} --theme hipport-dark; echo EXIT=$?; sleep 30"
    subprocess.run(
        ["tmux", "-L", tmux.socket, "new-session", "-d", "-s", "e2e", "-x", "140", "-y", "40", command],
        check=True, env=env, timeout=30,
    )
    try:
        screen = tmux.wait_for("CUDA gemm.cu", timeout=90)
        assert "HIP gemm.hip" in screen
        assert "Finding 1/" in tmux.wait_for("Finding 1/")
        tmux.keys("y")  # the first finding (its whole fix group): the file's decided count moves off 0
        tmux.wait_for(r"gemm\.cu [1-9]\d*/\d+", regex=True)
        write_commit_quit(tmux)
    finally:
        tmux("kill-server", check=False)

    assert git(demo, "log", "--format=%s").splitlines() == [
        "Port 1 file to HIP with hipport",
        "Import the CUDA sample (hipport demo)",
    ]
    assert git(demo, "show", "--name-only", "--format=", "HEAD").split() == ["gemm.hip"]
    body = git(demo, "show", "HEAD:gemm.hip")
    assert "#include <hip/hip_runtime.h>" in body and "cudaMalloc(" not in body
    message = git(demo, "log", "-1", "--format=%B")
    assert "gemm.cu -> gemm.hip" in message and "Warp-width fixes" in message
    assert git(demo, "status", "--porcelain").strip() == ""  # nothing else left behind in the tree


def test_demo_in_a_temp_folder_is_removed_unless_it_holds_work(tmp_path: Path) -> None:
    """`hipport demo` without --dir, in a real terminal, TMPDIR=tmp_path: opened and quit, its
    hipport-demo-* folder is gone; after `w` wrote gemm.hip, it is kept and its path printed."""
    env = {**clean_env(), "TMPDIR": str(tmp_path)}

    def session(keys_before_quit: tuple[str, ...], wait: str) -> str:
        tmux = Tmux(f"hipport-e2e-{uuid.uuid4().hex[:8]}")
        command = f"{HIPPORT} demo --theme hipport-dark; echo EXIT=$?; sleep 30"
        subprocess.run(["tmux", "-L", tmux.socket, "new-session", "-d", "-s", "e2e", "-x", "140", "-y", "40",
                        command], check=True, env=env, timeout=30)
        try:
            tmux.wait_for("CUDA gemm.cu", timeout=90)
            tmux.keys(*keys_before_quit)
            if wait:
                tmux.wait_for(wait)
            tmux.keys("q")
            return tmux.wait_for("EXIT=", timeout=20)
        finally:
            tmux("kill-server", check=False)

    screen = session((), "")
    assert "EXIT=0" in screen and "hipport demo: removed" in screen
    assert list(tmp_path.glob("hipport-demo-*")) == []
    screen = session(("w",), "Wrote gemm.hip")
    kept = list(tmp_path.glob("hipport-demo-*"))
    assert len(kept) == 1 and (kept[0] / "gemm.hip").is_file()
    assert "hipport demo: kept" in screen and "it holds your changes" in screen
