"""Background project analysis and the project-root rule, with the real engine (translator + warp
analysis) on the bundled GEMM sample and on small generated trees."""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from hipport.engine.project.analysis import ProjectAnalysis, ProjectState, project_view, unsupported_count
from hipport.engine.project.root import ASK_ABOVE, check_root
from hipport.engine.review import ReviewSession


def demo_copy(dest: Path) -> Path:
    shutil.copytree(str(resources.files("hipport.examples") / "gemm"), dest)
    (dest / "extra.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float* o) {\n"
        "  int lane = threadIdx.x % 32;\n"
        "  o[lane] = __shfl_down_sync(0xffffffff, o[lane], 16);\n"
        "}\n"
        "void g() { cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner); }\n")
    (dest / "plain.cpp").write_text("int add(int a, int b) { return a + b; }\n")
    return dest


@pytest.mark.parametrize("pool", [False, True], ids=["thread", "process-pool"])
def test_counts_are_exact_for_every_file_before_any_is_opened(tmp_path: Path, pool: bool) -> None:
    root = demo_copy(tmp_path / "demo")
    session = ReviewSession.open(root, autosave=False)
    before = project_view(session, None)
    assert before.done == 0 and not before.final
    assert {r.state for r in before.rows} == {ProjectState.NOT_ANALYSED}

    analysis = ProjectAnalysis(session, workers=1, pool=pool)
    assert analysis.use_pool is pool
    analysis.start()
    assert analysis.wait(300) and analysis.error is None
    view = project_view(session, analysis)
    assert view.final and view.done == view.total == len(session.files())

    # the truth: every file loaded by a separate session
    truth = ReviewSession.open(root, autosave=False)
    truth.learn_project_names()  # as the background analysis does first
    expected = {e.rel: truth.load(e.rel) for e in truth.files()}
    assert view.findings == sum(len(fr.findings) for fr in expected.values()) > 0
    by_rel = {r.rel: r for r in view.rows}
    for rel, fr in expected.items():
        assert by_rel[rel].findings == len(fr.findings), rel
        assert by_rel[rel].unsupported == unsupported_count(fr.translation), rel
    assert by_rel["extra.cu"].state is ProjectState.FINDINGS
    assert by_rel["plain.cpp"].state is ProjectState.NOTHING
    # matmul_cuda.py is analysed, not "untranslated"
    assert by_rel["matmul_cuda.py"].state is not ProjectState.NOT_ANALYSED


def test_unsupported_api_is_counted_from_the_translation_reports(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "graph.cu").write_text("void g() { cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner); }\n")
    session = ReviewSession.open(root, autosave=False)
    analysis = ProjectAnalysis(session, pool=False)
    analysis.start()
    assert analysis.wait(120)
    [row] = project_view(session, analysis).rows
    reports = session.load("graph.cu").translation.reports
    assert row.unsupported == unsupported_count(session.load("graph.cu").translation) >= 1, reports
    assert row.state is ProjectState.UNSUPPORTED


def test_refuses_the_file_system_root_and_home_without_walking_them(tmp_path: Path) -> None:
    check = check_root(Path("/"))
    assert check.verdict == "refuse" and "--any-folder" in check.reason and check.files == 0
    home = tmp_path / "home"
    home.mkdir()
    assert check_root(home, home=home).verdict == "refuse"
    forced = check_root(home, home=home, force=True)
    assert forced.verdict == "open" and "--any-folder" in forced.note


def test_asks_before_a_large_folder_outside_git_but_not_inside_a_work_tree(tmp_path: Path) -> None:
    big = tmp_path / "big"
    (big / "src").mkdir(parents=True)
    for i in range(ASK_ABOVE + 1):
        (big / "src" / f"k{i}.cu").write_text("\n")
    check = check_root(big)
    assert check.verdict == "ask" and "not in a git work tree" in check.reason
    small = tmp_path / "small"
    small.mkdir()
    (small / "a.cu").write_text("\n")
    assert check_root(small).verdict == "open" and "plain folder" in check_root(small).note
    subprocess.run(["git", "init", "-q"], cwd=big, check=True)
    inside = check_root(big / "src")
    assert inside.verdict == "open" and inside.git_top == big.resolve() and "git work tree" in inside.note
