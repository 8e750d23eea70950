"""The per-file analysis cache across runs (.hipport/cache/analysis.json): a reopened, unchanged project
gets every summary from it, identical to a cold analysis; a changed file, a changed quoted header or
other options analyse again. Real engine, real process pool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hipport.engine import analysis_cache
from hipport.engine.config import Config
from hipport.engine.project.analysis import FileSummary, ProjectAnalysis
from hipport.engine.review import ReviewSession

HEADER = "#pragma once\n#define WARP 32\n"
KERNEL = """\
#include <cuda_runtime.h>
#include "warp.cuh"
__global__ void k{i}(float* o) {{
  int lane = threadIdx.x % WARP;
  float v = o[threadIdx.x];
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
  if (lane == 0) o[threadIdx.x / 32] = v;
}}
void run{i}(float* d) {{ cudaMemset(d, 0, 4); k{i}<<<1, 256>>>(d); cudaDeviceSynchronize(); }}
"""
HOST = "#include <cuda_runtime.h>\nvoid h(float** p) { cudaMalloc(p, 64); }\n"


def make(root: Path) -> Path:
    root.mkdir()
    (root / "warp.cuh").write_text(HEADER)
    for i in range(4):
        (root / f"k{i}.cu").write_text(KERNEL.format(i=i))
    (root / "host.cpp").write_text(HOST)
    return root


def analyse(root: Path, config: Config | None = None) -> ProjectAnalysis:
    a = ProjectAnalysis(ReviewSession.open(root, config or Config(), autosave=False), workers=1, pool=True)
    a.start()
    assert a.wait(300) and a.error is None and a.finished
    assert a.cache_note is None
    return a


def truth(root: Path, config: Config | None = None) -> dict[str, FileSummary]:
    from hipport.engine.project.analysis import report_counts

    s = ReviewSession.open(root, config or Config(), autosave=False)
    s.learn_project_names()  # as the background analysis does first
    out = {}
    for e in s.files():
        fr = s.load(e.rel)
        out[e.rel] = FileSummary(e.rel, len(fr.findings), len(fr.translation.edits), report_counts(fr.translation))
    return out


def test_reopened_unchanged_project_is_read_from_the_cache(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    cold = analyse(root)
    assert cold.cache_hits == 0
    data = json.loads((root / ".hipport" / "cache" / "analysis.json").read_text())
    assert data["version"] == analysis_cache.VERSION and len(data["entries"]) == 6
    warm = analyse(root)
    assert warm.cache_hits == 6
    assert warm.summaries() == cold.summaries() == truth(root)
    assert sum(s.findings for s in warm.summaries().values()) > 0


def test_a_changed_file_or_header_is_analysed_again(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    analyse(root)
    # one kernel changes: it is analysed again, with its new counts, and so is warp.cuh, whose `WARP 32`
    # fix depends on its uses in the files that include it (warp/project.py includer_uses)
    (root / "k1.cu").write_text(KERNEL.format(i=1).replace("threadIdx.x / 32", "threadIdx.x / 64"))
    a = analyse(root)
    assert a.cache_hits == 4
    assert a.summaries() == truth(root)
    # the header every kernel includes changes (the warp analysis reads it): they and it are analysed again
    (root / "warp.cuh").write_text(HEADER.replace("32", "64") + "// wave64\n")
    b = analyse(root)
    assert b.cache_hits == 1  # host.cpp only
    assert b.summaries() == truth(root)


def test_other_options_or_a_broken_cache_file_analyse_everything(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    analyse(root)
    rdna = Config(archs=("gfx1100",))  # a wave32 target: other warp options
    a = analyse(root, rdna)
    assert a.cache_hits == 0 and a.summaries() == truth(root, rdna)
    (root / ".hipport" / "cache" / "analysis.json").write_text("{not json")
    b = analyse(root)
    assert b.cache_hits == 0 and b.summaries() == truth(root)
    assert json.loads((root / ".hipport" / "cache" / "analysis.json").read_text())["version"] == analysis_cache.VERSION


def test_the_salt_is_the_same_in_every_process(tmp_path: Path) -> None:
    """Options hold sets (sibling outputs, project names): the salt sorts them, so string hashing,
    random per process, cannot change it between two runs."""
    root = make(tmp_path / "p")
    code = ("import sys; from pathlib import Path; from hipport.engine.review import ReviewSession; "
            "from hipport.engine import analysis_cache as c; "
            "s = ReviewSession.open(Path(sys.argv[1]), autosave=False); print(c.salt(*s._options()))")
    salts = {subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip() for seed in ("1", "2", "3")}
    assert len(salts) == 1
    s = ReviewSession.open(root, autosave=False)
    topt, _ = s._options()
    assert len(topt.sibling_outputs) == 6 and salts == {analysis_cache.salt(*s._options())}


def test_never_written_through_a_link(tmp_path: Path) -> None:
    root = make(tmp_path / "p")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".hipport").mkdir()
    (root / ".hipport" / "cache").symlink_to(outside)
    a = ProjectAnalysis(ReviewSession.open(root, autosave=False), workers=1, pool=True)
    a.start()
    assert a.wait(300) and a.finished
    assert a.cache_note is not None and "link" in a.cache_note
    assert not list(outside.iterdir())
