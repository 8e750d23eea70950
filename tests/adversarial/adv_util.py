"""Helpers for the adversarial tests: run the real `hipport` CLI, make git repositories, hash trees."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# a warp reduction with a 32-bit mask (its one fix group); test_adv_faults builds on it
REDUCTION = """\
__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void k(const float* a, float* out) {
    int lane = threadIdx.x % 32;
    float s = warp_sum(a[threadIdx.x]);
    if (lane == 0) out[threadIdx.x / 32] = s;
}

"""

KERNEL = """\
#include <cuda_runtime.h>
#include <cstdio>

""" + REDUCTION + """\
int main() {
    float* d = nullptr;
    cudaMalloc(&d, 1024);
    k<<<1, 256>>>(d, d);
    cudaDeviceSynchronize();
    cudaFree(d);
    printf("ok\\n");
    return 0;
}
"""


@dataclass
class Ran:
    rc: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [ln for ln in self.err.splitlines() if ln.strip()]


def hipport(*args: str, cwd: Path | str, env: dict[str, str] | None = None, timeout: float = 120,
            user: int | None = None) -> Ran:
    """Run `python -m hipport.cli ARGS` as a person would (argv list, real process)."""
    p = subprocess.run([sys.executable, "-m", "hipport.cli", *args], cwd=cwd, capture_output=True,
                       env=env, timeout=timeout, user=user)
    return Ran(p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))


def no_traceback(r: Ran) -> None:
    assert "Traceback" not in r.err and "Traceback" not in r.out, r.err[-3000:]


def one_line_error(r: Ran, *needles: str) -> str:
    """The run failed with exit status 2 and one `hipport: ...` line naming every needle."""
    no_traceback(r)
    assert r.rc == 2, (r.rc, r.err)
    lines = r.err_lines
    assert len(lines) == 1 and lines[0].startswith("hipport: "), lines
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def git(root: Path, *args: str, check: bool = True) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    p = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env=env)
    if check:
        assert p.returncode == 0, p.stderr
    return p.stdout


def init_repo(root: Path, commit: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "T")
    git(root, "config", "user.email", "t@example.invalid")
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial", "--allow-empty")
    return root


def tree_digest(root: Path, skip: tuple[str, ...] = (".git", ".hipport")) -> dict[str, str]:
    """rel path -> sha256 of every file under root (links recorded by target, not followed)."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for f in filenames:
            p = Path(dirpath) / f
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            else:
                try:
                    out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
                except OSError:
                    out[rel] = "unreadable"
    return out
