"""Any text: the analysis never raises, findings lie inside the text, and every style's fixes apply."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from warp_samples import REDUCE, UNROLLED

from hipport.engine.edits import apply_edits
from hipport.engine.model import FixStyle
from hipport.engine.pipeline import fix_edits
from hipport.engine.source import Language, Source
from hipport.engine.warp import analyze

PIECES = [
    "__global__ void k(int* o) {", "}", "{", "(", ")", "[", "]", ";", "\n", "#define WARP_SIZE 32\n", "#if ",
    "threadIdx.x", " % 32", " & 31", " / 32", " >> 5", "__shfl_down_sync(", "0xffffffff", ", v, 16)",
    "for (int o = 16; o > 0; o >>= 1)", "unsigned b = __ballot_sync(", "__popc(b)", "1u << lane", "lane",
    "__shared__ float s[256 / 32];", "s[threadIdx.x / warpSize]", "if (lane < 16) s[t] += s[t + 16];",
    "asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));", "<<<g, 32>>>", "__launch_bounds__(256, 4)", "=",
    "\"str", "/*", "*/", "//", "'", "\\\n", "int ", "__device__ ", "static_assert(WARP_SIZE == 32);",
    "tiled_partition<32>", "__activemask() == 0xffffffff", "warpSize", "constexpr int W = warpSize;",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40), st.sampled_from([Language.CUDA, Language.PYTHON]))
def test_any_token_soup(pieces: list[str], lang: Language) -> None:
    text = "".join(pieces)
    src = Source.from_text(text, "x.py" if lang == Language.PYTHON else "x.cu", lang)
    a = analyze(src)
    for f in a.findings:
        assert 0 <= f.start <= f.end <= len(text)
    for style in FixStyle:
        edits, _ = fix_edits(a, None, style)
        apply_edits(text, edits)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([REDUCE, UNROLLED]), st.integers(0, 400), st.integers(0, 400))
def test_truncated_and_cut_kernels(text: str, a: int, b: int) -> None:
    """A kernel cut anywhere: findings stay inside the text and on what they name, every style's fixes
    apply, and where nothing was cut the wave64 fixes leave nothing to find."""
    cut = text[: min(a, b)] + text[max(a, b):]
    src = Source.from_text(cut, "k.cu")
    an = analyze(src)
    ids = {f.id for f in an.findings}
    for f in an.findings:
        assert 0 <= f.start < f.end <= len(cut) and cut[f.start:f.end].strip()
        assert f.group in {g.id for g in an.groups}
    for g in an.groups:
        assert set(g.finding_ids) <= ids
    for style in FixStyle:
        edits, _ = fix_edits(an, None, style)
        out = apply_edits(cut, edits)
        if edits:
            assert out != cut
    if a == b or min(a, b) >= len(text):  # the whole kernel: the wave64 port has nothing left to find
        edits, _ = fix_edits(an, None, FixStyle.WAVE64)
        again = analyze(Source.from_text(apply_edits(cut, edits), "k.cu"))
        assert again.findings == (), [x.id for x in again.findings]
