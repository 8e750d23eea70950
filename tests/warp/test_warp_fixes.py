"""Fixes: both styles, whole groups, no overlap with the translation, target awareness."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from warp_samples import REDUCE, UNROLLED, launched_elsewhere, logical_helpers

from hipport.engine.edits import apply_edits, find_conflict
from hipport.engine.model import FixStyle, Severity
from hipport.engine.pipeline import fix_edits, port
from hipport.engine.source import Source, read_source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions
from hipport.engine.warp import WarpOptions, analyze

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "warp"
FILES = sorted(p for p in CORPUS.glob("*_fire.*"))



@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_fix_edits_never_overlap_the_translation(path: Path) -> None:
    src = read_source(path)
    tr = translate(src, TranslateOptions())
    a = analyze(src, tr, WarpOptions())
    for style in FixStyle:
        edits, _ = fix_edits(a, None, style)
        assert find_conflict([*tr.edits, *edits]) is None
        apply_edits(src.text, [*tr.edits, *edits])
    for f in a.findings:
        if RULE_HAS_FIX.get(f.rule, True):
            assert f.fixes, f.id


RULE_HAS_FIX = {"W64-12": False, "W64-13": False}


def test_a_group_is_applied_whole() -> None:
    src = Source.from_text(REDUCE, "k.cu")
    a = analyze(src)
    by_rule = {f.rule: f for f in a.findings}
    assert {"W64-01", "W64-03", "W64-06"} <= set(by_rule)
    # the lane id and the loop start belong to one value (the kernel's lane width) and form one group;
    # the masks are another value (right at 64 bits whatever the lanes do) and form their own
    lane = by_rule["W64-01"].group
    assert by_rule["W64-06"].group == lane and by_rule["W64-03"].group != lane
    group = next(g for g in a.groups if g.id == lane)
    assert set(group.finding_ids) == {by_rule["W64-01"].id, by_rule["W64-06"].id}
    # asking for the lane fix alone still brings the loop start along, and nothing else
    edits, applied = fix_edits(a, {"W64-01"}, FixStyle.WAVE64)
    out = apply_edits(src.text, edits)
    assert "threadIdx.x % 64" in out and "o = 32" in out and "0xffffffffffffffffull" not in out
    assert set(applied) == set(group.finding_ids)


def test_wave64_and_portable_styles() -> None:
    src = Source.from_text(REDUCE, "k.cu")
    # REDUCE's kernel is launched from another file: its lane group and its masks group share the kernel
    # and are one REVIEW offer, so a 64-wide style alone keeps the whole kernel logical
    for style in (FixStyle.WAVE64, FixStyle.PORTABLE):
        held = port(src, fixes="all", style=style)
        assert held.held == {"group:W64-01:4:28": launched_elsewhere("k")} and held.wide_groups == ()
        assert "#ifndef HIPPORT_LOGICAL_WARP_DEVICE\n" in held.text and "int lane = threadIdx.x % 32;" in held.text
        assert "for (int o = 16; o > 0; o >>= 1) v += hipport_shfl_down_sync(0xffffffff, v, o);" in held.text
    # accepted for review: the whole kernel is 64-wide, no logical helper is left
    r64 = port(src, fixes="all", style=FixStyle.WAVE64, allow_review=True)
    rp = port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True)
    assert r64.wide_groups == rp.wide_groups == ("group:W64-01:4:28",)
    assert logical_helpers(r64.text) == logical_helpers(rp.text) == []
    assert "% 64" in r64.text and "o = 32" in r64.text and "HIPPORT_WS" not in r64.text
    assert "% warpSize" in rp.text and "(warpSize / 2)" in rp.text and "(~lane_mask_t{0})" in rp.text
    # the shared prelude is inserted once, right after the runtime include
    assert rp.text.count("typedef unsigned long long lane_mask_t") == 1
    assert rp.text.index("#include <hip/hip_runtime.h>") < rp.text.index("#ifndef HIPPORT_LANE_MASK_T")


def test_portable_never_hard_codes_64_with_rdna_in_the_fat_binary() -> None:
    src = Source.from_text(REDUCE.replace("% 32", "% WARP").replace("#include <cuda_runtime.h>",
                                          "#include <cuda_runtime.h>\n#define WARP 32"), "k.cu")
    a = analyze(src, options=WarpOptions(archs=("gfx942", "gfx1100")))
    assert a.findings
    for f in a.findings:
        assert f.fix(FixStyle.WAVE64) is None  # a wave64 fix would be wrong on gfx1100
        port_fix = f.fix(FixStyle.PORTABLE)
        assert port_fix is not None
        assert not any(re.search(r"\b64\b", e.replacement) for e in port_fix.edits)


def test_rocm_version_decides_warpsize_constexpr_and_shims() -> None:
    text = "#include <hip/hip_runtime.h>\n__global__ void k(int* o) {\n  __shared__ int s[warpSize];\n" \
           "  s[threadIdx.x % warpSize] = 1; o[0] = s[0];\n}\n"
    src = Source.from_text(text, "k.hip")
    assert [f.rule for f in analyze(src, options=WarpOptions(rocm=(7, 0))).findings] == ["W64-09"]
    assert analyze(src, options=WarpOptions(rocm=(6, 4))).findings == ()
    # ROCm < 7 targets get the *_sync shims with the fix; ROCm 7 does not
    red = Source.from_text(REDUCE, "k.cu")
    # (REDUCE's kernel is launched from another file: its 64-wide rewrite is a REVIEW offer)
    old = port(red, TranslateOptions(rocm=(5, 2)), fixes="all", style=FixStyle.WAVE64,
               warp_options=WarpOptions(rocm=(5, 2)), allow_review=True)
    new = port(red, TranslateOptions(rocm=(7, 0)), fixes="all", style=FixStyle.WAVE64,
               warp_options=WarpOptions(rocm=(7, 0)), allow_review=True)
    assert "#define __shfl_down_sync(m, ...)" in old.text
    assert "__shfl_down_sync(m" not in new.text
    # logical warps call no *_sync builtin: no shim at any ROCm version
    logical = port(red, TranslateOptions(rocm=(5, 2)), fixes="all", warp_options=WarpOptions(rocm=(5, 2)))
    assert "hipport_shfl_down_sync(0xffffffff, v, o)" in logical.text and "#define __shfl_down_sync" not in logical.text


def test_severity_and_confidence_come_from_the_catalog() -> None:
    a = analyze(Source.from_text(REDUCE, "k.cu"))
    sev = {f.rule: f.severity for f in a.findings}
    assert sev["W64-03"] == Severity.COMPILE_ERROR and sev["W64-06"] == Severity.WRONG_RESULT


def test_python_launch_math_and_cuda_strings_map_to_the_original_file() -> None:
    path = CORPUS / "W64-11_fire.py"
    src = read_source(path)
    a = analyze(src)
    rules = sorted(f.rule for f in a.findings)
    assert rules.count("W64-11") == 2 and "W64-01" in rules and "W64-03" in rules
    for f in a.findings:
        assert src.text[f.start:f.end] in ("32", "0xffffffff")
    # W64-11 (severity performance) changes code only when named: name every rule found here
    out = port(src, fixes={"W64-01", "W64-03", "W64-11"}, style=FixStyle.PORTABLE).text
    assert "num_warps * torch.cuda.get_device_properties(torch.cuda.current_device()).warp_size" in out
    assert "threadIdx.x % warpSize" in out
    compile(out, str(path), "exec")  # still valid Python


def test_unchanged_text_without_findings() -> None:
    src = read_source(CORPUS / "sgemm_tiled_nofire.cu")
    a = analyze(src)
    assert a.findings == () and a.groups == ()
    for style in FixStyle:
        assert fix_edits(a, None, style) == ([], [])


def test_unrolled_chain_and_macro_lane_ids_form_one_group() -> None:
    src = Source.from_text(UNROLLED, "k.cu")
    a = analyze(src)
    rules = [f.rule for f in a.findings]
    assert rules.count("W64-06") == 1 and "W64-01" in rules and "W64-02" in rules
    lane = {f.group for f in a.findings if f.rule != "W64-03"}
    assert len(lane) == 1 and len(a.groups) == 2  # lane ids + chain, and the masks
    # the kernel is launched from another file: both groups (they share it) are one REVIEW offer
    held = port(src, fixes="all", style=FixStyle.WAVE64)
    assert held.held == {"group:W64-01:2:32": launched_elsewhere("k")} and held.wide_groups == ()
    assert "#define LANE_ID (threadIdx.x & 31)" in held.text
    assert "v += hipport_shfl_down_sync(0xffffffff, v, 16);" in held.text
    w = port(src, fixes="all", style=FixStyle.WAVE64, allow_review=True).text
    assert "v += __shfl_down_sync(0xffffffffffffffffull, v, 32);\n  v += __shfl_down_sync(0xffffffffffffffffull, v, 16);" in w
    assert "#define LANE_ID (threadIdx.x & 63)" in w and "#define WARP_ID (threadIdx.x >> 6)" in w
    p = port(src, fixes="all", style=FixStyle.PORTABLE, allow_review=True).text
    assert "if (warpSize > 32) v += __shfl_down_sync((~lane_mask_t{0}), v, 32);" in p
    assert "#define WARP_ID (threadIdx.x / warpSize)" in p


def test_chain_with_explicit_width_or_a_32_step_is_left_alone() -> None:
    text = UNROLLED.replace("v, 16);", "v, 16, 32);").replace("& 31", "& 7").replace(">> 5", ">> 3")
    assert [f.rule for f in analyze(Source.from_text(text, "k.cu")).findings if f.rule == "W64-06"] == []
    text = UNROLLED.replace("  v += __shfl_down_sync(0xffffffff, v, 16);",
                            "  v += __shfl_down_sync(0xffffffff, v, 32);\n  v += __shfl_down_sync(0xffffffff, v, 16);")
    assert [f.rule for f in analyze(Source.from_text(text, "k.cu")).findings if f.rule == "W64-06"] == []


def test_a_fix_that_would_overlap_a_translated_span_is_dropped_and_said() -> None:
    from hipport.engine.edits import Edit
    from hipport.engine.model import Translation

    src = Source.from_text(REDUCE, "k.cu")
    lit = REDUCE.index("0xffffffff")
    # a translation that (hypothetically) rewrote the whole mask argument
    tr = Translation(src, (Edit(lit, lit + 10, "FULL", "api"),))
    a = analyze(src, tr)
    mask = next(f for f in a.findings if f.rule == "W64-03")
    assert mask.fixes == () and "overlap a translated span" in mask.message
    for style in FixStyle:
        edits, _ = fix_edits(a, None, style)
        assert find_conflict([*tr.edits, *edits]) is None
