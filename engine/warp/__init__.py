"""Warp-width analysis: rules W64-01..24, findings and fix groups.

`analyze(source, translation=None, options=None) -> Analysis` finds every 32-lane assumption in
the ORIGINAL text and offers two fix styles per finding (wave64: MI-series only; portable: NVIDIA
32, RDNA 32 and CDNA 64). Findings that must change together share a `FixGroup`; shared insertions
(the portable `HIPPORT_WS` / `lane_mask_t` prelude, pre-ROCm-7 shims) are the group's `shared` fixes.
Fix edits never overlap the translation's edits: a fix that would is dropped (and said so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..model import Analysis, Translation, TranslationMode
from ..source import BUILD_LANGUAGES, Language, Source
from ..toolchain.gfx import wave_size
from .rules import RULES, Rule

if TYPE_CHECKING:
    from .hits import Result

__all__ = ["RULES", "Rule", "WarpOptions", "analyze", "count_findings", "wave32_arch"]


@dataclass(frozen=True)
class WarpOptions:
    rocm: tuple[int, int] = (7, 0)
    archs: tuple[str, ...] = ("gfx942",)
    project_headers: bool = True  # read the file's own quoted headers (constants and kernels defined there)


def wave32_arch(arch: str) -> bool:
    """gfx10/gfx11/gfx12 (RDNA, and gfx1250) run 32-lane waves under HIP; gfx8/gfx9 run 64.
    The rule itself is toolchain/gfx.py's wave_size (one place)."""
    return wave_size(arch.lower().split(":")[0]) == 32


def analyze(source: Source, translation: Translation | None = None, options: WarpOptions | None = None) -> Analysis:
    if source.language in BUILD_LANGUAGES:  # build scripts hold no device code: nothing to find
        return Analysis(source=source, findings=(), groups=(), mode=TranslationMode.TOKENS)
    opts = options or WarpOptions()
    wave32 = _wave32(opts)
    from .build import build_analysis

    findings, groups = build_analysis(source, _results(source, opts, wave32), wave32, translation)
    return Analysis(source=source, findings=tuple(findings), groups=tuple(groups), mode=TranslationMode.TOKENS)


def count_findings(source: Source, options: WarpOptions | None = None) -> int:
    """len(analyze(source, ..., options).findings), without building the findings (the background
    analysis of a whole project needs only the number; a finding's fixes do not change whether it is one)."""
    if source.language in BUILD_LANGUAGES:
        return 0
    opts = options or WarpOptions()
    from .build import count_findings as count

    return count(source.text, _results(source, opts, _wave32(opts)))


def _wave32(opts: WarpOptions) -> bool:
    """The fat binary includes a wave32 architecture: no wave64 fix is offered."""
    return any(wave32_arch(a) for a in opts.archs)


def _results(source: Source, opts: WarpOptions, wave32: bool) -> list[Result]:
    """The analyzer's hits on the source (C/C++/CUDA text, or a Python file's CUDA strings and launches)."""
    if source.language == Language.PYTHON:
        from .python_side import analyze_python

        return analyze_python(source.text, opts.rocm, wave32)
    from .analyzer import analyze_text
    from .project import project_facts

    facts = project_facts(source.path, source.text) if opts.project_headers else None
    return [analyze_text(source.text, opts.rocm, wave32, facts)]
