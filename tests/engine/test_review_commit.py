"""ReviewSession.write + commit into real temporary git repositories, checked with `git log`/`git show`."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hipport.engine.config import Config
from hipport.engine.edits import Edit
from hipport.engine.model import Analysis, Finding, Fix, FixStyle, Severity, Translation
from hipport.engine.review import Decision, FileStatus, ReviewError, ReviewSession
from hipport.engine.source import Source
from hipport.engine.vcs import VcsError

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="git is not installed"
)

KERNEL = """\
#include <cuda_runtime.h>
__global__ void k(int* out) { out[threadIdx.x] = threadIdx.x % 32; }
__global__ void j(int* out) { out[threadIdx.x] = threadIdx.x / 32; }
int main() { int* d; cudaMalloc(&d, 64); cudaFree(d); }
"""


def translate(source: Source, options: Any) -> Translation:
    names = {"cudaMalloc": "hipMalloc", "cudaFree": "hipFree", "cuda_runtime.h": "hip/hip_runtime.h"}
    return Translation(source, tuple(Edit(m.start(), m.end(), names[m.group()], "api")
                                     for m in re.finditer("|".join(names), source.text)))


def analyze(source: Source, tr: Translation, options: Any) -> Analysis:
    out = []
    for m in re.finditer(r"[%/] 32", source.text):
        line, col = source.line_col(m.start())
        rule = "W64-01" if m.group()[0] == "%" else "W64-02"
        out.append(Finding(f"{rule}:{line}:{col}", rule, Severity.WRONG_RESULT, m.start(), m.end(), line, col,
                           "32 lanes", f"g{line}",
                           (Fix(FixStyle.WAVE64, (Edit(m.start(), m.end(), m.group()[0] + " 64", rule),), "64"),)))
    return Analysis(source, tuple(out), ())


def git(repo: Path, *args: str) -> str:
    p = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture(autouse=True)
def identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in {"GIT_AUTHOR_NAME": "Tess", "GIT_AUTHOR_EMAIL": "t@example.com",
                 "GIT_COMMITTER_NAME": "Tess", "GIT_COMMITTER_EMAIL": "t@example.com"}.items():
        monkeypatch.setenv(k, v)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    r.mkdir()
    (r / "kern.cu").write_text(KERNEL)
    (r / "host.cpp").write_text("int x;\n")
    git(r, "init", "-q", "-b", "main")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "cuda")
    return r


def open_session(root: Path, config: Config | None = None) -> ReviewSession:
    return ReviewSession.open(root, config, translate=translate, analyze=analyze)


def decide_all(s: ReviewSession) -> None:
    fr = s.load("kern.cu")
    # the kernel is launched from another file: its fix group is REVIEW-tier, accepted as read
    s.decide("kern.cu", fr.findings[0].id, Decision.ACCEPTED, review_confirmed=True)
    s.decide("kern.cu", fr.findings[1].id, Decision.REJECTED)


def test_write_then_commit_exactly_the_written_file(repo: Path) -> None:
    s = open_session(repo)
    with pytest.raises(ReviewError, match="nothing to commit"):
        s.commit("m")
    decide_all(s)
    s.write("kern.cu")
    (repo / "host.cpp").write_text("int y;\n")
    git(repo, "add", "host.cpp")  # someone's staged work stays staged
    assert s.committable() == {"kern.hip": s._store.state.files["kern.cu"].written.sha256}  # type: ignore[union-attr]
    msg = s.commit_message()
    assert msg.splitlines()[0] == "Port 1 file to HIP with hipport"
    assert "kern.cu -> kern.hip" in msg and "W64-01 (wave64) x1" in msg and "W64-02 x1" in msg
    sha = s.commit(msg)
    assert git(repo, "log", "-1", "--format=%H %s").strip() == f"{sha} Port 1 file to HIP with hipport"
    assert git(repo, "show", "--name-only", "--pretty=format:", sha).split() == ["kern.hip"]
    committed = git(repo, "show", f"{sha}:kern.hip")
    assert "% 64" in committed and "/ 32" in committed and "hipMalloc" in committed
    assert git(repo, "diff", "--cached", "--name-only").split() == ["host.cpp"]
    assert ".hipport" not in git(repo, "status", "--porcelain")  # self-ignoring state folder
    assert s.entry("kern.cu").status == FileStatus.COMMITTED
    assert s.committable() == {}
    # reopening shows it committed; changing a decision makes it unwritten again
    s2 = open_session(repo)
    assert s2.entry("kern.cu").status == FileStatus.COMMITTED
    fid = s2.load("kern.cu").findings[1].id
    s2.decide("kern.cu", fid, Decision.ACCEPTED, review_confirmed=True)
    assert s2.unwritten() == ["kern.cu"]
    s2.write("kern.cu")
    with pytest.raises(VcsError, match=r"other changes \(host.cpp\) would come along"):
        s2.commit(s2.commit_message(), branch="wave64")
    git(repo, "reset", "-q", "host.cpp")
    git(repo, "checkout", "-q", "host.cpp")
    sha2 = s2.commit(s2.commit_message(), branch="wave64")
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "hipport/wave64"
    assert git(repo, "rev-parse", "HEAD~1").strip() == sha
    assert "/ 64" in git(repo, "show", f"{sha2}:kern.hip")


def test_commit_refuses_output_edited_after_write(repo: Path) -> None:
    s = open_session(repo)
    decide_all(s)
    out = s.write("kern.cu")
    out.write_text(out.read_text() + "// hand edit\n")
    with pytest.raises(ReviewError, match="nothing to commit"):
        s.commit("m")  # not hipport's bytes any more: not offered
    assert len(git(repo, "log", "--oneline").splitlines()) == 1


def test_commit_in_place(repo: Path) -> None:
    s = open_session(repo, Config(output_mode="in-place"))
    decide_all(s)
    s.write("kern.cu")
    sha = s.commit(s.commit_message())
    assert "kern.cu (in place)" in git(repo, "log", "-1", "--format=%B")
    assert git(repo, "show", "--name-only", "--pretty=format:", sha).split() == ["kern.cu"]
    assert "hipMalloc" in git(repo, "show", f"{sha}:kern.cu")


def test_commit_refusal_leaves_state_uncommitted(repo: Path) -> None:
    s = open_session(repo)
    decide_all(s)
    s.write("kern.cu")
    git(repo, "checkout", "-q", "--detach")
    with pytest.raises(VcsError, match="detached"):
        s.commit(s.commit_message())
    assert s.entry("kern.cu").status == FileStatus.WRITTEN
    assert list(s.committable()) == ["kern.hip"]
