"""vcs: real git repositories in tmp dirs; results checked with the git command line."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from hipport.engine.vcs import VcsError, commit_paths, head_files, init_repo_from, repo_state

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="git is not installed"
)


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A known identity, and no user/system git config leaking in."""
    home = tmp_path / "_home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for k, v in {"GIT_AUTHOR_NAME": "Tess Ter", "GIT_AUTHOR_EMAIL": "tess@example.com",
                 "GIT_COMMITTER_NAME": "Tess Ter", "GIT_COMMITTER_EMAIL": "tess@example.com"}.items():
        monkeypatch.setenv(k, v)


def git(repo: Path, *args: str, check: bool = True) -> str:
    p = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {p.stderr}")
    return p.stdout


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "gemm.cu").write_text("cuda\n")
    (r / "other.c").write_text("int x;\n")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "initial")
    return r


def test_repo_state_plain_and_not_a_repo(repo: Path, tmp_path: Path) -> None:
    st = repo_state(repo)
    assert st.is_repo and st.has_commits and st.branch == "main" and not st.detached
    assert (st.staged, st.dirty, st.busy) == ((), (), None)
    (repo / "other.c").write_text("int y;\n")
    (repo / "new.cu").write_text("n\n")
    git(repo, "add", "new.cu")
    st = repo_state(repo)
    assert st.staged == ("new.cu",) and st.dirty == ("other.c",)
    # the app's header asks for the branch only: no `git status` walk, the file lists left empty
    quick = repo_state(repo, files=False)
    assert (quick.is_repo, quick.branch, quick.detached, quick.has_commits) == (True, "main", False, True)
    assert (quick.staged, quick.dirty, quick.untracked) == ((), (), ())
    plain = tmp_path / "plain"
    plain.mkdir()
    assert repo_state(plain).is_repo is False
    assert repo_state(plain, files=False).is_repo is False


def test_commit_only_the_given_paths_and_keep_other_staged_work(repo: Path) -> None:
    (repo / "gemm.hip").write_text("hip\n")
    (repo / "other.c").write_text("int staged;\n")
    git(repo, "add", "other.c")                 # someone's staged work
    (repo / "notes.txt").write_text("untracked\n")
    c = commit_paths(repo, ["gemm.hip"], "Port gemm", expected={"gemm.hip": sha(repo / "gemm.hip")})
    assert git(repo, "rev-parse", "HEAD").strip() == c
    assert git(repo, "show", "--name-only", "--pretty=format:%s", c).split() == ["Port", "gemm", "gemm.hip"]
    assert head_files(repo) == ["gemm.hip"]
    # other.c is still staged, still uncommitted
    assert git(repo, "diff", "--cached", "--name-only").split() == ["other.c"]
    assert git(repo, "show", "HEAD:other.c") == "int x;\n"
    assert "notes.txt" in git(repo, "status", "--porcelain")
    assert len(git(repo, "log", "--oneline").splitlines()) == 2


def test_commit_modified_tracked_file(repo: Path) -> None:
    (repo / "gemm.cu").write_text("hip now\n")
    c = commit_paths(repo, ["gemm.cu"], "in place")
    assert git(repo, "show", f"{c}:gemm.cu") == "hip now\n"
    assert git(repo, "status", "--porcelain") == ""


def test_refuses_file_changed_since_hipport_wrote_it(repo: Path) -> None:
    (repo / "gemm.hip").write_text("hip\n")
    written = sha(repo / "gemm.hip")
    (repo / "gemm.hip").write_text("hip + a person's edit\n")
    with pytest.raises(VcsError, match="changes not made by hipport"):
        commit_paths(repo, ["gemm.hip"], "m", expected={"gemm.hip": written})
    assert len(git(repo, "log", "--oneline").splitlines()) == 1
    assert git(repo, "diff", "--cached", "--name-only") == ""


def test_refuses_detached_head(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    (repo / "gemm.hip").write_text("hip\n")
    with pytest.raises(VcsError, match="detached"):
        commit_paths(repo, ["gemm.hip"], "m")
    assert repo_state(repo).detached


def test_refuses_during_merge(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "other.c").write_text("int side;\n")
    git(repo, "commit", "-qam", "side")
    git(repo, "checkout", "-q", "main")
    (repo / "other.c").write_text("int main_;\n")
    git(repo, "commit", "-qam", "main change")
    git(repo, "merge", "side", check=False)  # conflicts: MERGE_HEAD stays
    assert repo_state(repo).merging
    (repo / "gemm.hip").write_text("hip\n")
    with pytest.raises(VcsError, match="merge is in progress"):
        commit_paths(repo, ["gemm.hip"], "m")


def test_refuses_during_rebase(repo: Path) -> None:
    (repo / ".git" / "rebase-merge").mkdir()
    (repo / "gemm.hip").write_text("hip\n")
    assert repo_state(repo).rebasing
    with pytest.raises(VcsError, match="rebase is in progress"):
        commit_paths(repo, ["gemm.hip"], "m")


def test_refuses_outside_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "a.hip").write_text("x\n")
    with pytest.raises(VcsError, match="not in a git work tree"):
        commit_paths(tmp_path / "plain", ["a.hip"], "m")


def test_refuses_other_staged_content_for_the_same_file(repo: Path) -> None:
    (repo / "gemm.cu").write_text("staged version\n")
    git(repo, "add", "gemm.cu")
    (repo / "gemm.cu").write_text("hipport's version\n")
    with pytest.raises(VcsError, match="staged changes that differ"):
        commit_paths(repo, ["gemm.cu"], "m")
    assert git(repo, "show", ":gemm.cu") == "staged version\n"


def test_new_branch(repo: Path) -> None:
    (repo / "gemm.hip").write_text("hip\n")
    c = commit_paths(repo, ["gemm.hip"], "on a branch", branch="port")
    assert repo_state(repo).branch == "hipport/port"
    assert git(repo, "rev-parse", "hipport/port").strip() == c
    assert git(repo, "rev-parse", "main").strip() != c
    # committing again on the branch we are on is fine
    (repo / "gemm.hip").write_text("hip 2\n")
    c2 = commit_paths(repo, ["gemm.hip"], "again", branch="hipport/port")
    assert git(repo, "rev-parse", "HEAD~1").strip() == c
    assert git(repo, "rev-parse", "hipport/port").strip() == c2


def test_new_branch_refusals(repo: Path) -> None:
    (repo / "gemm.hip").write_text("hip\n")
    with pytest.raises(VcsError, match="not a valid branch name"):
        commit_paths(repo, ["gemm.hip"], "m", branch="bad..name")
    git(repo, "branch", "hipport/taken")
    with pytest.raises(VcsError, match="already exists"):
        commit_paths(repo, ["gemm.hip"], "m", branch="taken")
    (repo / "other.c").write_text("int unrelated;\n")
    with pytest.raises(VcsError, match=r"other changes \(other.c\) would come along"):
        commit_paths(repo, ["gemm.hip"], "m", branch="new")
    assert repo_state(repo).branch == "main"
    assert len(git(repo, "log", "--oneline").splitlines()) == 1


def test_first_commit_in_an_empty_repository(tmp_path: Path) -> None:
    r = tmp_path / "empty"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "a.hip").write_text("a\n")
    (r / "b.c").write_text("b\n")
    git(r, "add", "b.c")
    assert repo_state(r).has_commits is False
    c = commit_paths(r, ["a.hip"], "first")
    assert git(r, "log", "--format=%H").split() == [c]
    assert git(r, "show", "--name-only", "--pretty=format:", c).split() == ["a.hip"]
    assert git(r, "diff", "--cached", "--name-only").split() == ["b.c"]


def test_missing_identity_is_one_clear_line(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(k)
    monkeypatch.setenv("EMAIL", "")
    if subprocess.run(["git", "var", "GIT_AUTHOR_IDENT"], cwd=repo, capture_output=True).returncode == 0:
        pytest.skip("git derives an identity from the system (hostname/passwd) here")
    (repo / "gemm.hip").write_text("hip\n")
    with pytest.raises(VcsError, match="git does not know who you are") as ei:
        commit_paths(repo, ["gemm.hip"], "m")
    assert "\n" not in str(ei.value)
    assert git(repo, "diff", "--cached", "--name-only") == ""  # our `git add` was taken back


def test_failing_hook_is_reported_and_undone(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint says no' >&2\nexit 1\n")
    hook.chmod(0o755)
    (repo / "gemm.hip").write_text("hip\n")
    with pytest.raises(VcsError, match=r"^git commit failed: lint says no$"):
        commit_paths(repo, ["gemm.hip"], "m")
    assert git(repo, "diff", "--cached", "--name-only") == ""
    assert len(git(repo, "log", "--oneline").splitlines()) == 1


def test_refuses_ignored_output(repo: Path) -> None:
    (repo / ".gitignore").write_text("*.hip\n")
    (repo / "gemm.hip").write_text("hip\n")
    with pytest.raises(VcsError, match=r"gemm.hip is ignored by git \(.gitignore\)"):
        commit_paths(repo, ["gemm.hip"], "m")
    assert git(repo, "diff", "--cached", "--name-only") == ""


def test_paths_are_literal_not_globs(repo: Path) -> None:
    (repo / "k1.hip").write_text("one\n")
    git(repo, "add", "k1.hip")
    git(repo, "commit", "-q", "-m", "k1")
    (repo / "k1.hip").write_text("someone's edit\n")
    (repo / "k[1].hip").write_text("hipport\n")
    c = commit_paths(repo, ["k[1].hip"], "literal")
    assert git(repo, "show", "--name-only", "--pretty=format:", c).split() == ["k[1].hip"]
    assert git(repo, "status", "--porcelain").split() == ["M", "k1.hip"]


def test_subfolder_root(repo: Path) -> None:
    (repo / "sub").mkdir()
    (repo / "sub" / "k.hip").write_text("k\n")
    c = commit_paths(repo / "sub", ["k.hip"], "sub")
    assert git(repo, "show", "--name-only", "--pretty=format:", c).split() == ["sub/k.hip"]
    with pytest.raises(VcsError, match="outside the repository"):
        commit_paths(repo / "sub", ["../../x.hip"], "m")


def test_init_repo_from(tmp_path: Path) -> None:
    src = tmp_path / "sample"
    (src / "gemm").mkdir(parents=True)
    (src / "gemm" / "gemm.cu").write_text("k\n")
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "x.pyc").write_bytes(b"\0")
    dest = init_repo_from(src, tmp_path / "demo")
    assert git(dest, "ls-files").split() == ["gemm/gemm.cu"]
    assert git(dest, "status", "--porcelain") == ""
    assert repo_state(dest).branch == "main"
    assert len(git(dest, "log", "--oneline").splitlines()) == 1
    with pytest.raises(VcsError, match="not empty"):
        init_repo_from(src, dest)
    (tmp_path / "empty").mkdir()
    assert init_repo_from(src, tmp_path / "empty").is_dir()


def test_init_repo_without_identity_sets_a_local_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(k)
    monkeypatch.setenv("EMAIL", "")
    src = tmp_path / "s"
    src.mkdir()
    (src / "a.cu").write_text("a\n")
    dest = init_repo_from(src, tmp_path / "d")
    assert len(git(dest, "log", "--oneline").splitlines()) == 1
    assert os.path.isdir(dest / ".git")
