"""warp.count_findings (what the background analysis of a whole project counts) is the number of findings
analyze() reports, file by file, on real code: the warp corpus, the bundled sample, the generated bench tree's
kinds of file, Python with inline CUDA, and HeCBench 49175104c's dev benchmarks (every 2nd, when present).
The two share one walk over the root causes (build.root_causes), so they can only differ if that is bypassed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from hipport.engine.source import Source, language_for, read_source
from hipport.engine.translate.driver import translate
from hipport.engine.warp import WarpOptions, analyze, count_findings

ROOT = Path(__file__).resolve().parents[2]
HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))
SOURCES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".py")


def _same(path: Path, options: WarpOptions) -> tuple[int, int]:
    lang = language_for(path.name)
    assert lang is not None
    src = read_source(path, lang)
    return count_findings(src, options), len(analyze(src, translate(src), options).findings)


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in SOURCES and p.is_file())


@pytest.mark.parametrize("options", [WarpOptions(), WarpOptions(rocm=(6, 4), archs=("gfx90a", "gfx1100"))],
                         ids=["rocm7-gfx942", "rocm6.4-wave32-in-fatbin"])
def test_counts_match_findings_on_the_corpus_and_the_sample(options: WarpOptions) -> None:
    files = _files(ROOT / "tests" / "corpus") + _files(ROOT / "examples")
    assert len(files) > 40
    counted = [(p.name, *_same(p, options)) for p in files]
    assert [c for c in counted if c[1] != c[2]] == []
    assert sum(c[2] for c in counted) > 30  # the corpus has findings: the comparison is not of zeros


def test_counts_match_findings_on_a_generated_tree(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from gen_tree import generate

    generate(tmp_path, 60, 12_000)
    counted = [(p.name, *_same(p, WarpOptions())) for p in _files(tmp_path)]
    assert [c for c in counted if c[1] != c[2]] == []
    assert sum(c[2] for c in counted) > 100


@pytest.mark.skipif(not (HECBENCH / "src").is_dir(),
                    reason=f"HeCBench 49175104c not found at {HECBENCH} (set HIPPORT_HECBENCH)")
def test_counts_match_findings_on_hecbench() -> None:
    benches = sorted(d for d in (HECBENCH / "src").iterdir() if d.name.endswith("-cuda"))[::2]
    counted = [(str(p.relative_to(HECBENCH)), *_same(p, WarpOptions())) for d in benches for p in _files(d)]
    assert [c for c in counted if c[1] != c[2]] == []
    # 38 at b8fd893, 33 of them W64-03/04/10/12 (71 before `<<<1, 1>>>` stopped being a W64-12 block size)
    assert sum(c[2] for c in counted) > 30


def test_build_scripts_count_nothing() -> None:
    assert count_findings(Source.from_text("all:\n\tnvcc -o a a.cu\n", "Makefile")) == 0
