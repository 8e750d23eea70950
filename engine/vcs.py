"""git for the review app (GitPython): repository state, committing exactly the files hipport wrote,
and making the demo repository.

Safety rules `commit_paths` keeps, each refusal a VcsError with one line:
- not a git work tree; detached HEAD; a merge, rebase, cherry-pick or revert in progress;
- a target file whose bytes differ from what hipport wrote (`expected` sha256), or whose staged
  version differs from the file (someone staged other content for it);
- `branch`: an invalid name, an existing branch other than the current one, or other changes
  (staged, or unstaged edits to tracked files) that would come along to the new branch.
Other staged work is never committed and stays staged: only the given paths go into the commit
(`git commit --only -- paths`). A repository without commits gets its first commit this way.
GitPython is imported lazily (it is slow to import and the CLI must start fast).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import git


HOOK_TIMEOUT_S = 300.0  # a commit whose hooks run longer is stopped (the app can also cancel it)
POLL_S = 0.1


class VcsError(Exception):
    """A git operation hipport refused or that failed; one line, nothing half-done left behind."""


@dataclass(frozen=True)
class RepoState:
    is_repo: bool
    has_commits: bool = False
    branch: str | None = None  # None when detached (or not a repo)
    detached: bool = False
    merging: bool = False
    rebasing: bool = False
    staged: tuple[str, ...] = ()  # repo-relative paths with staged changes
    dirty: tuple[str, ...] = ()   # repo-relative paths of tracked files with unstaged changes
    cherry_picking: bool = False  # also set during a revert
    workdir: Path | None = None
    untracked: tuple[str, ...] = ()

    @property
    def busy(self) -> str | None:
        """What operation is in progress ("merge", "rebase", "cherry-pick/revert"), or None."""
        if self.merging:
            return "merge"
        if self.rebasing:
            return "rebase"
        if self.cherry_picking:
            return "cherry-pick/revert"
        return None


def _open(root: Path) -> git.Repo | None:
    import git

    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    if repo.bare or repo.working_tree_dir is None:
        return None
    return repo


def _porcelain(repo: git.Repo) -> tuple[list[str], list[str], list[str]]:
    """(staged, unstaged, untracked) repo-relative paths, from `git status --porcelain -z`."""
    out = repo.git.status("--porcelain=v1", "-z", "--untracked-files=all")
    staged: list[str] = []
    dirty: list[str] = []
    untracked: list[str] = []
    items = out.split("\0")
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if len(item) < 4:
            continue
        x, y, path = item[0], item[1], item[3:]
        if x in "RC":
            i += 1  # the next item is the source path of the rename/copy
        if x == "?":
            untracked.append(path)
            continue
        if x not in " !":
            staged.append(path)
        if y not in " !":
            dirty.append(path)
    return staged, dirty, untracked


def _git_state(repo: git.Repo) -> tuple[bool, bool, bool]:
    gd = Path(repo.git_dir)
    merging = (gd / "MERGE_HEAD").exists()
    rebasing = (gd / "rebase-merge").exists() or (gd / "rebase-apply").exists()
    picking = (gd / "CHERRY_PICK_HEAD").exists() or (gd / "REVERT_HEAD").exists()
    return merging, rebasing, picking


def repo_state(root: Path, *, files: bool = True) -> RepoState:
    """The state of the git repository holding `root` (RepoState(is_repo=False) when there is none).
    `files=False`: branch and merge state only, no `git status` walk of the tree (staged, dirty and
    untracked left empty): the app's header on a 5,000-file project."""
    repo = _open(Path(root))
    if repo is None:
        return RepoState(False)
    with repo:
        head = repo.head
        detached = head.is_detached
        branch = None if detached else head.ref.name
        merging, rebasing, picking = _git_state(repo)
        staged, dirty, untracked = _porcelain(repo) if files else ([], [], [])
        return RepoState(
            True, head.is_valid(), branch, detached, merging, rebasing, tuple(staged), tuple(dirty),
            picking, Path(str(repo.working_tree_dir)), tuple(untracked),
        )


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _last_line(text: str) -> str:
    lines = [ln.strip().removeprefix("stderr:").strip().strip("'\"").strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("hint:")]
    return lines[-1] if lines else text.strip()


_LOCK = re.compile(r"Unable to create '([^']*\.lock)': File exists")


def _explain(e: Exception | str) -> str:
    """One line for a git failure: its own last line, or what to do for the failures people meet."""
    text = e if isinstance(e, str) else str(getattr(e, "stderr", "") or e)
    if "Please tell me who you are" in text or "empty ident" in text or "Author identity unknown" in text:
        return ("git does not know who you are: set it with `git config --global user.name NAME` and "
                "`git config --global user.email EMAIL`")
    lock = _LOCK.search(text)
    if lock:  # git's own last line ("remove the file manually to continue") does not name the file
        return (f"git's lock file {lock.group(1)} exists: another git command is running there, or one "
                f"crashed; when none is running, remove {lock.group(1)}")
    return _last_line(text)


def branch_name(name: str) -> str:
    """`x` -> `hipport/x` (a name already under hipport/ is kept)."""
    name = name.strip()
    return name if name.startswith("hipport/") else f"hipport/{name}"


def _refusal(repo: git.Repo | None, root: Path) -> str | None:
    """Why the repository (not the files) takes no commit now: the one wording of each reason."""
    if repo is None:
        return f"{root} is not in a git work tree; run `git init` there first (or copy the files by hand)"
    merging, rebasing, picking = _git_state(repo)  # first: a stopped rebase also detaches HEAD
    if merging or rebasing or picking:
        what = "a merge" if merging else "a rebase" if rebasing else "a cherry-pick or revert"
        return f"{what} is in progress; finish or abort it before committing"
    if repo.head.is_detached:
        return "HEAD is detached; check out a branch before committing"
    return None


def commit_refusal(root: Path) -> str | None:
    """Why a commit in the repository holding `root` would be refused whatever the files (no repository,
    a merge/rebase/cherry-pick in progress, a detached HEAD), or None. The app asks before it opens the
    commit dialog; commit_paths refuses with the same words."""
    repo = _open(Path(root))
    if repo is None:
        return _refusal(None, Path(root))
    with repo:
        return _refusal(repo, Path(root))


def commit_paths(
    root: Path,
    paths: Sequence[str],
    message: str,
    branch: str | None = None,
    *,
    expected: Mapping[str, str] | None = None,
    timeout: float = HOOK_TIMEOUT_S,
    cancel: threading.Event | None = None,
) -> str:
    """Commit exactly `paths` (relative to `root`) with `message`; return the new commit's sha.

    `expected`: path -> sha256 of the bytes hipport wrote; a file that differs is refused.
    `branch`: commit on `hipport/<branch>`, created from the current HEAD (see module docstring).
    `timeout`/`cancel`: git commit (its hooks) is stopped after that many seconds, or once `cancel` is
    set; then nothing is committed and our `git add` is taken back (VcsError).
    """
    import git

    root = Path(root)
    if not paths:
        raise VcsError("no files to commit")
    if not message.strip():
        raise VcsError("the commit message is empty")
    repo = _open(root)
    if repo is None:
        raise VcsError(str(_refusal(None, root)))
    # paths are file names, never globs: `a[1].hip` must not also match `a1.hip`
    with repo, repo.git.custom_environment(GIT_LITERAL_PATHSPECS="1"):
        workdir = Path(str(repo.working_tree_dir)).resolve()
        why = _refusal(repo, root)
        if why is not None:
            raise VcsError(why)
        rels = [_committable(root, p, workdir, expected) for p in paths]
        _refuse_ignored(repo, rels)
        staged, dirty, _untracked = _porcelain(repo)
        targets = set(rels)
        mixed = sorted(targets & set(staged) & set(dirty))
        if mixed:
            raise VcsError(f"{mixed[0]} has staged changes that differ from the file hipport wrote; "
                           "unstage them first (git restore --staged)")
        if branch is not None:
            _switch_branch(repo, branch_name(branch), targets, staged, dirty)
        had_staged = targets & set(staged)
        has_commits = repo.head.is_valid()
        try:
            repo.git.add("--", *rels)
            failed = _commit(repo, workdir, ["--only", "-q", "-m", message, "--", *rels], timeout, cancel)
        except git.GitCommandError as e:
            failed = f"git commit failed: {_explain(e)}"
        if failed is not None:
            _unstage(repo, [r for r in rels if r not in had_staged], has_commits)
            raise VcsError(failed)
        return str(repo.head.commit.hexsha)


def _committable(root: Path, path: str, workdir: Path, expected: Mapping[str, str] | None) -> str:
    """`path` (relative to `root`) as the repository names it; VcsError when it is outside the repository,
    missing, or changed since hipport wrote it (`expected`: path -> sha256 of what hipport wrote)."""
    full = (root / path).resolve()
    try:
        rel = full.relative_to(workdir).as_posix()
    except ValueError:
        raise VcsError(f"{path} is outside the repository at {workdir}") from None
    if not full.is_file():
        raise VcsError(f"{path} does not exist; write it first")
    if expected is not None and path in expected and _sha256(full) != expected[path]:
        raise VcsError(f"{path} has changes not made by hipport since it was written; "
                       "write it again or commit it by hand")
    return rel


def _refuse_ignored(repo: git.Repo, rels: Sequence[str]) -> None:
    """VcsError naming the first of `rels` that git ignores: hipport never commits it with `add -f`."""
    import git

    with repo.git.custom_environment(GIT_LITERAL_PATHSPECS="0"):  # check-ignore takes no pathspec magic
        try:
            ignored = repo.git.check_ignore("--", *rels).split("\n")
        except git.GitCommandError as e:
            if e.status != 1:  # 1: none of them is ignored
                raise VcsError(f"git check-ignore failed: {_explain(e)}") from None
            ignored = []
    ignored = [x.strip() for x in ignored if x.strip()]
    if ignored:
        raise VcsError(f"{ignored[0]} is ignored by git (.gitignore); change output_mode, or add it "
                       "yourself with `git add -f`")


def _commit(repo: git.Repo, workdir: Path, args: Sequence[str], timeout: float,
            cancel: threading.Event | None) -> str | None:
    """`git commit ARGS`, its hooks included, stopped after `timeout` seconds or once `cancel` is set;
    None when it committed, else why not (one line). git runs in a process group of its own, so a hook
    and whatever the hook started stop with it; the lock files a stopped git leaves are removed."""
    exe = getattr(repo.git, "GIT_PYTHON_GIT_EXECUTABLE", None) or "git"
    env = {**os.environ, "GIT_LITERAL_PATHSPECS": "1", "GIT_TERMINAL_PROMPT": "0"}
    started = time.time()
    with tempfile.TemporaryFile() as out:  # a file, not a pipe: a hook that prints much cannot block it
        proc = subprocess.Popen([exe, "commit", *args], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        stopped = None
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                stopped = "commit cancelled"
            elif time.monotonic() > deadline:
                stopped = (f"git commit did not finish within {timeout:g} s (a hook still running?)")
            if stopped:
                _stop_group(proc)
                _remove_locks_since(Path(repo.git_dir), started)
                return f"{stopped}: git and its hooks were stopped, nothing was committed"
            try:
                proc.wait(timeout=POLL_S)
            except subprocess.TimeoutExpired:
                pass
        if proc.returncode == 0:
            return None
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return f"git commit failed: {_explain(text) or f'exit status {proc.returncode}'}"


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to git's process group (git then removes its lock files itself), SIGKILL to what is left."""
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            os.killpg(proc.pid, 0)  # the hook's own children may outlive git itself
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return
        time.sleep(0.2)


def _remove_locks_since(git_dir: Path, started: float) -> None:
    """The index locks a killed git left behind (made since `started`: not another git's)."""
    for lock in [git_dir / "index.lock", *git_dir.glob("next-index-*.lock")]:
        try:
            if lock.stat().st_mtime >= started - 1:
                lock.unlink()
        except OSError:
            pass


def _unstage(repo: git.Repo, rels: Iterable[str], has_commits: bool) -> None:
    """Best effort: take back our `git add` after a failed commit."""
    import git

    rels = list(rels)
    if not rels:
        return
    try:
        if has_commits:
            repo.git.reset("-q", "--", *rels)
        else:
            repo.git.rm("--cached", "-q", "--ignore-unmatch", "--", *rels)
    except git.GitCommandError:
        pass


def _switch_branch(repo: git.Repo, name: str, targets: set[str], staged: list[str], dirty: list[str]) -> None:
    import git

    try:
        repo.git.check_ref_format("--branch", name)
    except git.GitCommandError:
        raise VcsError(f"{name!r} is not a valid branch name") from None
    current = None if repo.head.is_detached else repo.head.ref.name
    if current == name:
        return
    if name in [h.name for h in repo.heads]:
        raise VcsError(f"branch {name} already exists; choose another name or check it out first")
    others = sorted((set(staged) | set(dirty)) - targets)
    if others:
        more = f" and {len(others) - 1} more" if len(others) > 1 else ""
        raise VcsError(f"other changes ({others[0]}{more}) would come along to {name}; "
                       "commit or stash them first, or commit on the current branch")
    try:
        repo.git.checkout("-q", "-b", name)
    except git.GitCommandError as e:
        raise VcsError(f"cannot create branch {name}: {_explain(e)}") from None


DEMO_IGNORE = shutil.ignore_patterns(".git", ".hipport", "__pycache__", "*.pyc", "build", "*.o", "*.so")


def _has_identity(repo: git.Repo) -> bool:
    import git

    try:
        repo.git.var("GIT_COMMITTER_IDENT")
        repo.git.var("GIT_AUTHOR_IDENT")
        return True
    except git.GitCommandError:
        return False


def init_repo_from(src_folder: Path, dest: Path, message: str = "Import the CUDA sample (hipport demo)") -> Path:
    """Copy `src_folder` into `dest` (new or empty) and make it a git repository on branch `main`
    with one commit holding every copied file. When git has no user identity configured, the new
    repository gets a local one ("hipport demo"), so the demo can commit. Returns dest (resolved)."""
    import git

    src = Path(src_folder)
    dest = Path(dest)
    if not src.is_dir():
        raise VcsError(f"{src}: not a folder")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise VcsError(f"{dest} already exists and is not empty; choose a new folder")
    try:
        shutil.copytree(src, dest, ignore=DEMO_IGNORE, dirs_exist_ok=True, symlinks=True)
    except (OSError, shutil.Error) as e:
        raise VcsError(f"cannot copy {src} to {dest}: {e}") from None
    try:
        repo = git.Repo.init(dest)
        with repo:
            repo.git.symbolic_ref("HEAD", "refs/heads/main")
            if not _has_identity(repo):
                with repo.config_writer() as cw:
                    cw.set_value("user", "name", "hipport demo")
                    cw.set_value("user", "email", "demo@hipport.invalid")
            repo.git.add("-A", "--", ".")
            repo.git.commit("-q", "--allow-empty", "-m", message)
    except git.GitCommandError as e:
        raise VcsError(f"cannot create the repository in {dest}: {_explain(e)}") from None
    return dest.resolve()


def head_files(root: Path, rev: str = "HEAD") -> list[str]:
    """Repo-relative paths changed by commit `rev` (for messages and tests)."""
    repo = _open(Path(root))
    if repo is None:
        raise VcsError(f"{root} is not in a git work tree")
    with repo:
        out: Any = repo.git.show("--name-only", "--pretty=format:", rev)
        return [ln for ln in str(out).splitlines() if ln.strip()]
