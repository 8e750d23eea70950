"""End to end in a real terminal (tmux) with the INSTALLED `hipport`, on the bundled multi-file
sample (gemm.cu, matmul_cuda.py, Makefile, CMakeLists.txt) in a real git repository:
- open, search, accept a fix group, edit the CUDA file in a fake $EDITOR, re-review, write, commit;
- two app processes on one project: the second is refused with a lock message, and the first one's
  decision is on disk for the next app (never lost)."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from test_tmux import HIPPORT, Tmux, clean_env, git, write_commit_quit

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not HIPPORT.exists(), reason=f"hipport is not installed next to {sys.executable}"),
]


def start(tmux: Tmux, command: str, env: dict[str, str]) -> None:
    subprocess.run(["tmux", "-L", tmux.socket, "new-session", "-d", "-s", "e2e", "-x", "150", "-y", "42",
                    command], check=True, env=env, timeout=30)


def test_open_search_accept_edit_write_commit(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    subprocess.run([str(HIPPORT), "demo", "--dir", str(demo), "--no-open"], check=True, capture_output=True,
                   timeout=120)
    editor = tmp_path / "editor.sh"
    # a fake editor: records how it was called and adds a comment at the end of the file
    editor.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/editor.args\necho "// reviewed by hand" >> "$2"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    env = clean_env()
    env["VISUAL"] = str(editor)
    tmux = Tmux(f"hipport-e2e-{uuid.uuid4().hex[:8]}")
    start(tmux, f"{HIPPORT} {demo} --theme hipport-dark; echo EXIT=$?; sleep 30", env)
    try:
        tmux.wait_for("CUDA gemm.cu", timeout=90)
        tmux.wait_for(r"all \d+/\d+ decided", timeout=90, regex=True)  # the background analysis finished
        tmux.keys("/", "cudaMemcpy", "Enter")
        tmux.wait_for(r"/cudaMemcpy: match 1/\d+ in gemm.cu", regex=True)
        tmux.keys("Escape")
        tmux.wait_for("Search ended")
        tmux.keys("y")  # the first finding's whole fix group
        tmux.wait_for(r"gemm\.cu [1-9]\d*/\d+", regex=True)
        tmux.keys("e")  # the fake editor edits gemm.cu: decisions kept, the file turns stale
        tmux.wait_for("press ! to re-review")
        assert (tmp_path / "editor.args").read_text().split()[1] == str(demo / "gemm.cu")
        tmux.keys("!")
        tmux.wait_for(r"gemm\.cu [1-9]\d*/\d+", regex=True)
        write_commit_quit(tmux)
    finally:
        tmux("kill-server", check=False)
    assert "gemm.hip" in git(demo, "show", "--name-only", "--format=", "HEAD").split()
    body = git(demo, "show", "HEAD:gemm.hip")
    assert body.rstrip().endswith("// reviewed by hand")  # the edited CUDA file, translated again
    assert "#include <hip/hip_runtime.h>" in body


def test_a_second_app_on_the_same_project_is_refused_and_no_decision_is_lost(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    subprocess.run([str(HIPPORT), "demo", "--dir", str(demo), "--no-open"], check=True, capture_output=True,
                   timeout=120)
    tmux = Tmux(f"hipport-e2e-{uuid.uuid4().hex[:8]}")
    start(tmux, f"{HIPPORT} {demo}; echo EXIT=$?; sleep 30", clean_env())
    try:
        tmux.wait_for("CUDA gemm.cu", timeout=90)
        second = subprocess.run([str(HIPPORT), str(demo)], capture_output=True, text=True, timeout=60,
                                stdin=subprocess.DEVNULL)
        assert second.returncode == 2
        assert "another hipport has this project open (pid" in second.stderr, second.stderr
        tmux.keys("y")
        tmux.wait_for(r"gemm\.cu [1-9]\d*/\d+", regex=True)
        tmux.keys("q")
        tmux.wait_for("Quit anyway?")
        tmux.keys("y")
        assert "EXIT=0" in tmux.wait_for("EXIT=", timeout=20)
    finally:
        tmux("kill-server", check=False)
    # the first app's decision was saved as it went; the lock is gone with its process
    from hipport.engine.project.lock import ProjectLock
    from hipport.engine.review import Decision, ReviewSession

    with ProjectLock(demo):
        session = ReviewSession.open(demo, autosave=False)
        fr = session.load("gemm.cu")
        assert any(session.decision("gemm.cu", f.id) == Decision.ACCEPTED for f in fr.findings)
