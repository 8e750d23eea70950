"""Helpers for the app tests: a real git repository holding a small CUDA project, and a
ReviewSession over it whose translate/analyze are small deterministic functions producing the
engine's own objects (Translation, Analysis, Finding, Fix, FixGroup), so snapshots and key paths
do not move when the real translator or rule catalog changes. Everything else (decisions, undo,
persistence, writing, git) is the real engine."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hipport.engine.config import Config
from hipport.engine.edits import Edit
from hipport.engine.model import (
    Analysis,
    Finding,
    Fix,
    FixGroup,
    FixStyle,
    Severity,
    Translation,
    Use,
)
from hipport.engine.review import ReviewSession
from hipport.engine.source import Source
from hipport.tui.screens.review import ReviewScreen

# warp_sum and gemm form one connected fix group (gemm calls warp_sum); main launches gemm, so the
# group is SAFE (a kernel launched only from another file makes it REVIEW: compose.connected_groups)
GEMM_CU = """\
#include <cuda_runtime.h>
#include <cstdio>

// Sum across a warp: assumes 32 lanes.
__device__ float warp_sum(float v) {
    unsigned mask = 0xffffffff;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(mask, v, offset);
    return v;
}

__global__ void gemm(const float* a, const float* b, float* c, int n) {
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    float acc = 0.0f;
    for (int k = lane; k < n; k += 32)
        acc += a[warp * n + k] * b[k];
    acc = warp_sum(acc);
    if (lane == 0) c[warp] = acc;
}

int main() {
    float* d = nullptr;
    cudaMalloc(&d, 1024 * sizeof(float));
    cudaMemset(d, 0, 1024 * sizeof(float));
    gemm<<<1, 64>>>(d, d, d, 32);
    cudaDeviceSynchronize();
    cudaFree(d);
    printf("ok\\n");
    return 0;
}
"""

UTIL_CUH = """\
#pragma once
#include <cuda_runtime.h>
inline void check(cudaError_t e) { if (e != cudaSuccess) { throw 1; } }
"""

MODEL_PY = """\
import torch

def run():
    x = torch.randn(1024, device="cuda")
    return x.sum()
"""

# (pattern, rule, severity, wave64 replacement, portable replacement, group)
RULES: list[tuple[str, str, Severity, str, str, str]] = [
    (r"unsigned mask = 0xffffffff\b", "W64-02", Severity.COMPILE_ERROR,
     "unsigned long long mask = 0xffffffffffffffffull", "unsigned long long mask = __activemask()", "mask"),
    (r"(?<=offset = )16\b", "W64-03", Severity.WRONG_RESULT, "32", "warpSize / 2", "mask"),
    (r"(?<=threadIdx\.x % )32\b", "W64-01", Severity.WRONG_RESULT, "64", "warpSize", ""),
    (r"(?<=threadIdx\.x / )32\b", "W64-01", Severity.WRONG_RESULT, "64", "warpSize", ""),
    (r"(?<=k \+= )32\b", "W64-04", Severity.PERFORMANCE, "64", "warpSize", ""),
]


def fake_translate(source: Source, options: Any = None) -> Translation:
    edits = []
    for m in re.finditer(r"\bcuda([A-Z]\w*)|cuda_runtime\.h", source.text):
        if m.group(0) == "cuda_runtime.h":
            edits.append(Edit(m.start(), m.end(), "hip/hip_runtime.h", "include", ""))
        else:
            edits.append(Edit(m.start(), m.end(), "hip" + m.group(1), "api", ""))
    return Translation(source, tuple(edits))


def fake_analyze(source: Source, translation: Translation, options: Any = None) -> Analysis:
    text = source.text
    findings: list[Finding] = []
    groups: dict[str, list[str]] = {}
    for pattern, rule, severity, w64, portable, group in RULES:
        for m in re.finditer(pattern, text):
            line = text.count("\n", 0, m.start()) + 1
            col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
            fid = f"{rule}:{line}:{col}"
            gid = group or fid
            groups.setdefault(gid, []).append(fid)
            findings.append(Finding(
                id=fid, rule=rule, severity=severity, start=m.start(), end=m.end(), line=line, col=col,
                message=f"{m.group(0)} assumes a 32-lane warp",
                group=gid,
                fixes=(
                    Fix(FixStyle.WAVE64, (Edit(m.start(), m.end(), w64, rule, ""),), f"{m.group(0)} -> {w64}"),
                    Fix(FixStyle.PORTABLE, (Edit(m.start(), m.end(), portable, rule, ""),),
                        f"{m.group(0)} -> {portable}"),
                ),
            ))
    fix_groups = tuple(FixGroup(g, tuple(ids), "mask and shuffle offsets change together")
                       for g, ids in groups.items() if len(ids) > 1)
    return Analysis(source, tuple(findings), fix_groups)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository holding `files` (name -> text), committed on `main`."""
    root.mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "cuda")
    return root


def make_project(root: Path, extra_lines: int = 0) -> Path:
    """A git repository with gemm.cu, util.cuh and model.py, committed on `main`."""
    root.mkdir(parents=True, exist_ok=True)
    body = GEMM_CU
    if extra_lines:
        filler = "".join(f"static int filler_{i} = {i};\n" for i in range(extra_lines))
        body = body.replace("int main() {", filler + "int main() {")
    (root / "gemm.cu").write_text(body)
    (root / "util.cuh").write_text(UTIL_CUH)
    (root / "model.py").write_text(MODEL_PY)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.invalid")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial CUDA")
    return root


def merged_analyze(source: Source, translation: Translation, options: Any = None) -> Analysis:
    """fake_analyze, with each finding listing the other lines that use the name it assigns (`mask`,
    `lane`, ...) as `Finding.uses`: the shape of the engine's merged findings (one per root cause)."""
    an = fake_analyze(source, translation, options)
    text = source.text
    lines = text.split("\n")
    out = []
    for f in an.findings:
        decl = re.search(r"(\w+) = ", lines[f.line - 1])
        uses: list[Use] = []
        if decl:
            name = decl.group(1)
            for n, line in enumerate(lines, 1):
                m = re.search(rf"\b{name}\b", line)
                if m and n != f.line and not line.lstrip().startswith("//"):
                    uses.append(Use(n, m.start() + 1, line.strip(), "lane" if name == "lane" else ""))
        out.append(dataclasses.replace(f, uses=tuple(uses)))
    return dataclasses.replace(an, findings=tuple(out))


def open_session(root: Path, config: Config | None = None, analyze: Any = fake_analyze) -> ReviewSession:
    return ReviewSession.open(root, config or Config(), translate=fake_translate, analyze=analyze)


async def analysed(pilot: Any) -> None:
    """Wait for Textual's workers and the background project analysis, then repaint its result, so
    screenshots and counts do not depend on how fast the analysis thread ran."""
    await pilot.app.workers.wait_for_complete()
    analysis = getattr(pilot.app, "analysis", None)
    if analysis is not None:
        # the app starts the analysis after its first refresh: start it here (idempotent) so that
        # waiting cannot return before it began (under load a snapshot caught "analysing… 1/3 files")
        pilot.app.start_analysis()
        assert analysis.wait(60), "the background analysis did not finish within 60 s"
    tick = getattr(pilot.app.screen, "_analysis_tick", None)
    if tick is not None:
        tick()
    await pilot.pause()


def review_screen(pilot: Any) -> ReviewScreen:
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def ready(pilot: Any) -> ReviewScreen:
    """The review screen once Textual's workers are done."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return review_screen(pilot)


async def analysed_ready(pilot: Any) -> ReviewScreen:
    """The review screen once the background project analysis is in too (see analysed)."""
    await analysed(pilot)
    return review_screen(pilot)


async def settle(pilot: Any, until: Callable[[], object], pause: float = 0.05) -> None:
    """Wait (400 pauses at most) until `until()` holds."""
    for _ in range(400):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(pause)
        if until():
            return
    raise AssertionError("timed out")
