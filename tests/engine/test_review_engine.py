"""ReviewSession over the engine's real translator and warp analysis, on the bundled GEMM sample and a
small kernel; the written HIP is compiled with hipcc where it is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hipport.engine.config import Config
from hipport.engine.diffrows import split_lines
from hipport.engine.edits import apply_edits
from hipport.engine.model import FixStyle
from hipport.engine.review import Decision, FileStatus, ReviewSession
from hipport.engine.vcs import init_repo_from

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "gemm"
# the ROCm >= 6.2 *_sync builtins (64-bit masks, static_assert) for Debian's HIP 5.2, as in tests/warp
SYNC_HEADER = ROOT / "tests" / "include" / "hip_warp_sync_rocm62.h"

# A lane id modulo 32 indexing a ballot: on a 64-lane wave lanes 32-63 alias 0-31, the ballot kept in
# `unsigned` and `__popc` drop lanes 32-63, and `1u << lane` is too narrow. (Lane/warp ids that are
# only written to memory are a consistent 32-lane sub-group and rightly give no finding.)
LANES = """\
#include <cuda_runtime.h>

__global__ void lanes(int* out) {
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  unsigned votes = __ballot_sync(0xffffffff, out[threadIdx.x] > 0);
  int before = __popc(votes & ((1u << lane) - 1));
  out[blockIdx.x * blockDim.x + threadIdx.x] = warp * 100 + before;
}

int main() {
  int* out;
  cudaMalloc(&out, 256 * sizeof(int));
  lanes<<<1, 256>>>(out);
  cudaDeviceSynchronize();
  cudaFree(out);
  return 0;
}
"""


@pytest.fixture
def gemm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not (EXAMPLES / "gemm.cu").is_file():
        pytest.skip("the bundled GEMM sample is missing")
    for k, v in {"GIT_AUTHOR_NAME": "Tess", "GIT_AUTHOR_EMAIL": "t@example.com",
                 "GIT_COMMITTER_NAME": "Tess", "GIT_COMMITTER_EMAIL": "t@example.com"}.items():
        monkeypatch.setenv(k, v)
    return init_repo_from(EXAMPLES, tmp_path / "demo")


def test_bundled_sample_end_to_end(gemm: Path) -> None:
    s = ReviewSession.open(gemm)
    rels = [e.rel for e in s.files()]
    assert "gemm.cu" in rels and "matmul_cuda.py" in rels
    fr = s.load("gemm.cu")
    assert fr.translation.edits and fr.findings
    assert s.entry("gemm.cu").status == FileStatus.HAS_FINDINGS
    # a decision covers the finding's whole fix group
    big = max(fr.groups.values(), key=len)
    if len(big) > 1:
        ch = s.decide("gemm.cu", big[-1], Decision.ACCEPTED)
        assert set(ch.finding_ids) == set(big)
        s.undo()
    plain = apply_edits(fr.source.text, fr.translation.edits)
    results = {}
    for style in (FixStyle.WAVE64, FixStyle.PORTABLE):
        s.set_style("gemm.cu", style)
        s.decide_rest("gemm.cu", Decision.ACCEPTED)
        text = s.result_text("gemm.cu")
        assert text != plain and "cudaMalloc(" not in text
        # the right column of the diff is exactly the result (the helper block hipport inserts is one fold
        # row until expanded)
        rows = s.rows("gemm.cu", context=10**6)
        rows = s.rows("gemm.cu", context=10**6, expanded=frozenset(r.old_no for r in rows if r.kind == "fold"
                                                                   and r.old_no is not None))
        assert [r.new_text for r in rows if r.new_no is not None] == split_lines(text)
        assert [r.old_text for r in rows if r.old_no is not None] == split_lines(fr.source.text)
        results[style] = text
        while s.undo():
            pass
    assert results[FixStyle.WAVE64] != results[FixStyle.PORTABLE]
    s.set_style("gemm.cu", FixStyle.WAVE64)
    s.decide_rest("gemm.cu", Decision.ACCEPTED)
    assert s.write("gemm.cu") == gemm / "gemm.hip"
    assert (gemm / "gemm.hip").read_text() == results[FixStyle.WAVE64]
    s.load("matmul_cuda.py")
    s.decide_rest("matmul_cuda.py", Decision.REJECTED)
    assert s.write("matmul_cuda.py") == gemm / "matmul_hip.py"
    sha = s.commit(s.commit_message())
    shown = subprocess.run(["git", "show", "--name-only", "--pretty=format:%s", sha], cwd=gemm,
                           capture_output=True, text=True, check=True).stdout.split("\n")
    assert shown[0] == "Port 2 files to HIP with hipport"
    assert sorted(x for x in shown[1:] if x) == ["gemm.hip", "matmul_hip.py"]
    assert {e.rel: e.status for e in s.files()}["gemm.cu"] == FileStatus.COMMITTED
    # reopen: everything restored from .hipport/state.json
    s2 = ReviewSession.open(gemm)
    assert s2.entry("gemm.cu").status == FileStatus.COMMITTED
    assert s2.result_text("gemm.cu") == results[FixStyle.WAVE64]
    assert s2.progress("gemm.cu") == (len(fr.findings), len(fr.findings))


def test_translation_options_follow_config(tmp_path: Path) -> None:
    (tmp_path / "lanes.cu").write_text(LANES)
    chevron = ReviewSession.open(tmp_path, Config(), autosave=False).result_text("lanes.cu")
    ggl = ReviewSession.open(tmp_path, Config(launch_syntax="ggl"), autosave=False).result_text("lanes.cu")
    assert "lanes<<<1, 256>>>(out)" in chevron
    assert "hipLaunchKernelGGL(lanes" in ggl


@pytest.mark.hipcc
@pytest.mark.parametrize("style", [FixStyle.WAVE64, FixStyle.PORTABLE])
def test_written_result_compiles_with_hipcc(tmp_path: Path, style: FixStyle) -> None:
    if shutil.which("hipcc") is None:
        pytest.skip("hipcc is not installed")
    (tmp_path / "lanes.cu").write_text(LANES)
    s = ReviewSession.open(tmp_path, Config(archs=("gfx90a",), fix_style=style))
    assert len(s.load("lanes.cu").findings) >= 2
    s.decide_rest("lanes.cu", Decision.ACCEPTED)
    out = s.write("lanes.cu")
    assert "% 32" not in out.read_text()
    env = dict(os.environ, HIP_PLATFORM="amd")
    # the default target is ROCm 7.0: compile against its *_sync declarations (no shims are inserted)
    p = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-include", str(SYNC_HEADER), "-c", str(out),
                        "-o", str(tmp_path / "lanes.o")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
