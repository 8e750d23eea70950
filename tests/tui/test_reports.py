"""Translation reports in the app and one count everywhere (issue 19 items 3 and 4).

llm.c is not on this machine: `llmc_like` builds a small project with llm.c's pattern (a project
header, dev/cuda/common.h, defines a `cudaCheck` function and macro used in every file) and one report
of each kind a person acts on (unsupported, needs a newer ROCm, manual, unknown), plus a CMakeLists.txt.
Everything runs on the real engine (translator, warp analysis), the real CLI and the real app."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from apptest import analysed_ready
from textual.widgets import Static

from hipport.cli.main import main
from hipport.engine.review import ReviewSession
from hipport.tui.app import PortApp
from hipport.tui.screens.overview import OverviewScreen
from hipport.tui.screens.review import ReviewScreen
from hipport.tui.widgets.diff_view import DiffView
from hipport.tui.widgets.finding_panel import FindingPanel

COMMON_H = """\
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// CUDA error checking
void cudaCheck(cudaError_t error, const char *file, int line) {
  if (error != cudaSuccess) {
    printf("[CUDA ERROR] at file %s:%d:\\n%s\\n", file, line, cudaGetErrorString(error));
    exit(EXIT_FAILURE);
  }
};
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))
"""

PLAIN_CU = """\
#include "common.h"
__global__ void {k}_kernel(float* out, const float* in, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.0f;
}}
int main() {{
    float* d;
    cudaCheck(cudaMalloc(&d, 1024 * sizeof(float)));
    {k}_kernel<<<4, 256>>>(d, d, 1024);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaFree(d));
    return 0;
}}
"""

ATTENTION_CU = """\
#include "common.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void softmax(float* out, const float* in, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = in[threadIdx.x];
    float s = cg::reduce(warp, v, cg::plus<float>{});
    out[threadIdx.x] = v / s + __reduce_add_sync(0xffffffffu, (unsigned)threadIdx.x);
    int arch = __CUDA_ARCH__;
    out[0] += arch;
}
int main() {
    float* d;
    cudaCheck(cudaMalloc(&d, 1024 * sizeof(float)));
    softmax<<<1, 32>>>(d, d, 32);
    cudaGraphInstantiateResult instantiated;
    cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner);
    cudaNotAnApi(d);
    cudaCheck(cudaFree(d));
    return 0;
}
"""

REDUCE_CU = """\
#include "common.h"
__global__ void reduce(const float* in, float* out) {
    int lane = threadIdx.x % 32;
    float v = in[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0) out[threadIdx.x / 32] = v;
}
int main() {
    float* d;
    cudaCheck(cudaMalloc(&d, 1024 * sizeof(float)));
    reduce<<<1, 256>>>(d, d);
    cudaCheck(cudaFree(d));
    return 0;
}
"""

CMAKE = """\
cmake_minimum_required(VERSION 3.18)
set(LANG "CUDA" CACHE STRING "CUDA or HIP")
project(llmc LANGUAGES CXX ${LANG})
set(CMAKE_CUDA_ARCHITECTURES 80)
add_executable(attention dev/cuda/attention_forward.cu)
"""

KINDS = ("unsupported", "needs-newer-rocm", "manual", "unknown")
LETTER = {"unsupported": "U", "needs-newer-rocm": "R", "manual": "M", "unknown": "X"}  # the gutter's, docs/app.md


def llmc_like(root: Path) -> Path:
    (root / "dev" / "cuda").mkdir(parents=True)
    (root / "dev" / "cuda" / "common.h").write_text(COMMON_H)
    for k in ("adamw", "gelu", "layernorm"):
        (root / "dev" / "cuda" / f"{k}_forward.cu").write_text(PLAIN_CU.format(k=k))
    (root / "dev" / "cuda" / "attention_forward.cu").write_text(ATTENTION_CU)
    (root / "dev" / "cuda" / "reduce_forward.cu").write_text(REDUCE_CU)
    (root / "CMakeLists.txt").write_text(CMAKE)
    # cudaGraphInstantiateResult needs a newer ROCm (__reduce_add_sync does not: the logical-warp port
    # writes it as hipport_reduce_add_sync, which any ROCm has)
    (root / ".hipport.toml").write_text('rocm = "6.0"\n')
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    return root


def header(screen: ReviewScreen) -> str:
    return str(screen.query_one("#status-bar").render())


def header_kinds(text: str) -> dict[str, int]:
    return {kind: int(n) for n, kind in re.findall(r"(\d+) (unsupported|needs-newer-rocm|manual|unknown)\b", text)}


async def test_scan_convert_and_the_app_header_give_the_same_report_counts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = llmc_like(tmp_path / "llmc")
    assert main(["scan", "--format", "json", str(root)]) == 0
    scan = json.loads(capsys.readouterr().out)
    scanned = {k: v for k, v in scan["totals"]["reports"].items() if k in KINDS}
    unknown_names = {r["name"] for f in scan["files"] for r in f["reports"] if r["kind"] == "unknown"}
    assert unknown_names == {"cudaNotAnApi"}  # the project's own cudaCheck is never "unknown"

    assert main(["convert", str(root), "-o", str(tmp_path / "out")]) == 0
    summary = next(line for line in capsys.readouterr().err.splitlines() if "reports by kind:" in line)
    converted = {kind: int(n) for kind, n in re.findall(r"([a-z-]+) (\d+) \(", summary) if kind in KINDS}

    app = PortApp(ReviewSession.open(root, autosave=False))
    async with app.run_test(size=(220, 40)) as pilot:
        screen = await analysed_ready(pilot)
        shown = header_kinds(header(screen))
    assert scanned == converted == shown, (scanned, converted, shown)
    assert set(shown) == set(KINDS)  # one of each kind in the sample, each named in the header


ATTENTION = "dev/cuda/attention_forward.cu"


async def shown(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait until a file opened by a key is translated and painted."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    for _ in range(200):
        if getattr(screen, "loading_rel", None) is None:
            break
        await pilot.pause(0.02)
    await pilot.pause()


def gutter_of(dv: DiffView, item_id: str) -> str:
    row = dv.row_of_finding(item_id)
    assert row is not None, item_id
    dv.cursor = row
    return dv.render_line(dv.visual_top(row) - int(dv.scroll_y)).text[:2]


async def test_reports_have_gutter_marks_panel_entries_and_overview_rows(tmp_path: Path) -> None:
    """Issue 19 item 3: every translation report a person acts on is marked in the gutter with its kind's
    letter, explained in the panel when the cursor is on it, reached by j/k and listed in the overview
    (a CMakeLists.txt report too)."""
    root = llmc_like(tmp_path / "llmc")
    session = ReviewSession.open(root, autosave=False)
    app = PortApp(session)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await analysed_ready(pilot)
        screen.open_file(ATTENTION)
        await shown(pilot)
        fr = session.load(ATTENTION)
        assert {r.kind.value for r in fr.reports} == set(KINDS)
        assert "cudaCheck" not in {r.name for r in fr.reports}
        dv = screen.query_one(DiffView)
        for r in fr.reports:
            await pilot.pause()
            gutter = gutter_of(dv, r.id)
            await pilot.pause()
            if not any(f.line == r.line for f in fr.findings):  # a finding's mark wins on a shared line
                assert gutter == LETTER[r.kind.value] + "·", (r.kind, r.name, gutter)
        # j from the top stops at every report (and every undecided finding), in the order of the text
        screen.current = None
        seen: list[str] = []
        for _ in range(len(fr.marked)):
            await pilot.press("j")
            await shown(pilot)
            if screen.rel != ATTENTION:
                break
            seen.append(screen.current or "")
            if screen.current in fr.report_by_id:
                r = fr.report_by_id[screen.current]
                panel = screen.query_one(FindingPanel)
                body = str(panel.query_one("#finding-body", Static).render())
                assert str(panel.border_title).startswith("Report ") and r.name in body and r.kind.value in body
        assert seen == [m.id for m in fr.marked], seen
        assert any(screen.current == r.id for r in fr.reports) or screen.rel != ATTENTION
        # y on a report decides nothing and says why
        screen.current = fr.reports[0].id
        await pilot.press("y")
        assert "nothing to decide" in screen.last_message
        # the overview lists the reports of every file by kind, CMakeLists.txt's too, and goes to one
        await pilot.press("O")
        await shown(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        kinds_listed = {(r.rule, r.rel) for r in overview.rows if r.decision == "by hand"}
        assert {(r.kind.value, ATTENTION) for r in fr.reports} <= kinds_listed
        cmake = [r for r in overview.rows if r.rel == "CMakeLists.txt"]
        assert cmake and cmake[0].rule == "manual", cmake
        summary = str(overview.query_one("#overview-summary", Static).render())
        assert "to port by hand" in summary and "manual" in summary
        overview.dismiss(("CMakeLists.txt", cmake[0].finding_id))
        await shown(pilot)
        assert screen.rel == "CMakeLists.txt" and screen.current == cmake[0].finding_id
        assert gutter_of(screen.query_one(DiffView), cmake[0].finding_id) == "M·"


async def test_j_and_k_walk_the_whole_project_in_file_list_order(tmp_path: Path) -> None:
    """Issue 19 item 6: at the end of a file j goes on to the next file with something to stop at (file
    list order, around the end), k back to the previous one's last stop; a file with nothing (the one
    llm.c opens on) does not stop them."""
    root = llmc_like(tmp_path / "llmc")
    session = ReviewSession.open(root, autosave=False)
    app = PortApp(session)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await analysed_ready(pilot)
        order = [it.rel for it in screen.file_list.shown_items()]
        stops = [(rel, m.id) for rel in order for m in getattr(session.load(rel), "marked", session.load(rel).findings)]
        assert len({rel for rel, _ in stops}) >= 2, stops  # several files to walk through
        # start in a file with nothing to stop at
        empty = next(rel for rel in order if not getattr(session.load(rel), "marked", session.load(rel).findings))
        screen.open_file(empty)
        await shown(pilot)
        start = next(i for i, (rel, _) in enumerate(stops) if order.index(rel) > order.index(empty))
        walked = []
        for _ in range(len(stops) + 1):  # once around the project, and one more
            await pilot.press("j")
            await shown(pilot)
            walked.append((screen.rel, screen.current))
        expected = [stops[(start + k) % len(stops)] for k in range(len(stops) + 1)]
        assert walked == expected, (walked, expected)
        for _ in range(len(stops)):  # and back with k
            await pilot.press("k")
            await shown(pilot)
            walked.append((screen.rel, screen.current))
        back = [stops[(start + len(stops) - k) % len(stops)] for k in range(1, len(stops) + 1)]
        assert walked[len(stops) + 1:] == back


async def test_a_file_shown_before_the_projects_names_were_learned_is_translated_again(tmp_path: Path) -> None:
    """The app learns the project's own names in its background analysis, after the first screen: a file
    translated before (cudaCheck then looked unknown) is dropped and translated again while shown."""
    root = llmc_like(tmp_path / "llmc")
    rel = "dev/cuda/adamw_forward.cu"
    session = ReviewSession.open(root, autosave=False)
    early = session.load(rel)  # as the app's first file is, before the analysis ran
    assert {r.name for r in early.reports} == {"cudaCheck"}
    app = PortApp(session)
    app.first_file = rel  # type: ignore[attr-defined]
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await analysed_ready(pilot)
        for _ in range(100):  # the next analysis tick reloads the shown file
            screen._analysis_tick()
            await shown(pilot)
            if session.is_loaded(rel) and session.load(rel) is not early:
                break
        assert screen.rel == rel and session.load(rel) is not early
        assert session.load(rel).reports == ()
        dv = screen.query_one(DiffView)
        assert not any(dv.marks.get(i) for row in dv.rows for i in row.finding_ids if i.startswith("report:"))
        assert header_kinds(header(screen)).get("unknown") == 1  # cudaNotAnApi only, as scan says
