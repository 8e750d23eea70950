"""Property tests of the engine over generated C/C++/CUDA-like text and mutated real samples.

Properties (issue 6, part 1): no exception on any input; output equals input when no CUDA name is
present; translation is idempotent; every edit span lies inside the source and edits never overlap;
comments and string literals are untouched by default. The warp analysis is held to the agreed API:
fix edits never overlap translation edits, and applying every fix (both styles) never conflicts.

Example counts add up to >= 10,000 generated cases per run (see CASES at the bottom, asserted).
"""

from __future__ import annotations

from adv_strategies import CUDA_NAMES, Seg, real_samples, render, segments, spans
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hipport.engine.edits import Edit, apply_edits, find_conflict, line_starts
from hipport.engine.model import FixStyle, FixTier
from hipport.engine.pipeline import port
from hipport.engine.source import Language, Source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions
from hipport.engine.warp import WarpOptions, analyze

TOKENS = TranslateOptions(ast="off")
GGL = TranslateOptions(ast="off", launch_syntax="ggl")
AUTO = TranslateOptions(translate_strings=False)  # libclang AST mode where available, literals kept
KEEP = TranslateOptions(ast="off", translate_strings=False)  # string literals byte for byte
LANGS = st.sampled_from([Language.CUDA, Language.CPP])
CASES: dict[str, int] = {}


def cases(n: int) -> settings:
    """Settings for a property with n generated cases (counted towards the 10,000 total)."""
    return settings(max_examples=n, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


def count(name: str, n: int) -> settings:
    CASES[name] = n
    return cases(n)


def check_edits(text: str, edits: tuple[Edit, ...] | list[Edit]) -> str:
    """Spans inside the text, no two overlapping; returns the rendered text."""
    for e in edits:
        assert 0 <= e.start <= e.end <= len(text), (e, len(text))
    assert find_conflict(list(edits)) is None
    return apply_edits(text, edits)


def trans(text: str, lang: Language, opts: TranslateOptions = TOKENS) -> tuple[str, tuple[Edit, ...]]:
    tr = translate(Source.from_text(text, language=lang), opts)
    return check_edits(text, tr.edits), tr.edits


# ------------------------------------------------------------------------------------ any input


@count("arbitrary_text", 4000)
@given(text=st.text(max_size=300), lang=LANGS, ggl=st.booleans())
def test_any_text_translates_without_exception_and_edits_are_well_formed(text: str, lang: Language,
                                                                          ggl: bool) -> None:
    trans(text, lang, GGL if ggl else TOKENS)


@count("arbitrary_ascii_code", 1500)
@given(text=st.lists(st.sampled_from(list("cudaMl_ (){}<>;,\"'/*\\\n\r#0x1f.") + CUDA_NAMES[:8]),
                     max_size=120).map("".join), lang=LANGS)
def test_punctuation_soup_with_cuda_fragments(text: str, lang: Language) -> None:
    """Unbalanced quotes, unterminated comments, stray '<<<' and continuations: still no exception."""
    out, _ = trans(text, lang)
    again, _ = trans(out, lang)
    assert again == out


@count("python_text", 1500)
@given(text=st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from([
        "import torch\n", "x = torch.randn(4, device='cuda:1')\n", "src = '''__global__ void k(){ cudaFree(0); }'''\n",
        "load_inline(name='m', cpp_sources=src, cuda_sources=[src], extra_cuda_cflags=['-arch=sm_80'])\n",
        "os.environ['CUDA_VISIBLE_DEVICES'] = '1'\n", "def f(:\n", "'''unterminated\n", "\tx = 1\n",
        "k = cupy.RawKernel(r'extern \"C\" __global__ void k(){ __shfl_down_sync(0xffffffff, 1, 16); }', 'k')\n",
        "torch.cuda.set_device(1)\n", "y = x.cuda(1)\n", "# cudaMalloc in a comment\n", "\r\n", "é = 'Ω'\n",
    ]), max_size=12).map("".join),
))
def test_python_host_never_raises_and_is_idempotent(text: str) -> None:
    src = Source.from_text(text, language=Language.PYTHON)
    tr = translate(src, TOKENS)
    out = check_edits(text, tr.edits)
    tr2 = translate(Source.from_text(out, language=Language.PYTHON), TOKENS)
    assert check_edits(out, tr2.edits) == out
    analyze(src, tr, WarpOptions())


# ------------------------------------------------------------------------------------ generated CUDA-like text


@count("identity_without_cuda", 800)
@given(segs=segments(with_cuda=False), lang=LANGS)
def test_output_equals_input_when_no_cuda_name_is_present(segs: list[Seg], lang: Language) -> None:
    text = render(segs)
    out, edits = trans(text, lang, KEEP)  # (CUDA names may still sit in comments and literals)
    if lang == Language.CUDA:  # a CUDA file gets the runtime header, as hipify-clang's headers_test_03 expects
        runtime = [e for e in edits if e.rule == "include" and e.start == e.end
                   and e.replacement.strip() == "#include <hip/hip_runtime.h>"]
        assert len(runtime) == len(edits) <= 1, edits  # none when the file holds no code at all
        return
    assert edits == () or not edits, edits
    assert out == text
    # and the bytes on disk would be the same too (encoding kept)
    src = Source.from_text(text, language=lang)
    assert src.encode(out) == text.encode("utf-8")


@count("idempotent", 1000)
@given(segs=segments(), lang=LANGS, ggl=st.booleans())
def test_translation_is_idempotent(segs: list[Seg], lang: Language, ggl: bool) -> None:
    opts = GGL if ggl else TOKENS
    text = render(segs)
    once, _ = trans(text, lang, opts)
    twice, edits2 = trans(once, lang, opts)
    assert twice == once, edits2


@count("comments_strings_untouched", 1000)
@given(segs=segments(), lang=LANGS)
def test_comments_and_string_literals_are_untouched_by_default(segs: list[Seg], lang: Language) -> None:
    """Comments always; string literals with translate_strings=False (hipify-clang's word rule is the
    default, tested in tests/engine and tests/conformance)."""
    text = render(segs)
    _, edits = trans(text, lang, KEEP)
    for a, b in spans(segs, {"comment", "string"}):
        for e in edits:
            if e.start == e.end:
                assert not a < e.start < b, (text[a:b], e)
            else:
                assert not (e.start < b and a < e.end), (text[a:b], e)


@count("ast_mode", 100)
@given(segs=segments(), lang=LANGS)
def test_ast_mode_keeps_the_same_invariants(segs: list[Seg], lang: Language) -> None:
    text = render(segs)
    out, edits = trans(text, lang, AUTO)
    for a, b in spans(segs, {"comment", "string"}):
        assert all(not (e.start < b and a < e.end) for e in edits if e.start != e.end)
        assert all(not a < e.start < b for e in edits if e.start == e.end)
    assert trans(out, lang, AUTO)[0] == out


@count("warp_fixes", 600)
@given(segs=segments(), lang=LANGS, style=st.sampled_from(list(FixStyle)),
       arch=st.sampled_from([("gfx942",), ("gfx90a", "gfx1100"), ("gfx1201",)]))
def test_warp_fixes_never_overlap_translation_and_apply_cleanly(segs: list[Seg], lang: Language,
                                                                 style: FixStyle, arch: tuple[str, ...]) -> None:
    text = render(segs)
    src = Source.from_text(text, language=lang)
    tr = translate(src, TOKENS)
    an = analyze(src, tr, WarpOptions(archs=arch))
    for f in an.findings:
        assert 0 <= f.start <= f.end <= len(text)
        for fx in f.fixes:
            for e in fx.edits:
                assert 0 <= e.start <= e.end <= len(text)
            assert find_conflict([*tr.edits, *fx.edits]) is None, (f.id, fx.edits)
    res = port(src, TOKENS, fixes="all", style=style, warp_options=WarpOptions(archs=arch))
    applied = set(res.applied_findings)
    by_id = {f.id: f for f in an.findings}
    for g in an.groups:
        fixed = {i for i in g.finding_ids if by_id[i].fix(style) is not None}
        if fixed & applied:
            assert fixed <= applied, g.id  # a group is applied whole
            assert g.tier == FixTier.SAFE, g.id  # `--fixes all` never applies a REVIEW group
    if not applied:  # nothing 64-wide: the port is the translation plus the logical-warp port, byte for byte
        logical = res.logical.edits() if res.logical is not None else []
        assert res.logical_rewrites == len(res.logical.rewrites if res.logical is not None else ())
        assert res.text == apply_edits(text, [*tr.edits, *logical])
    plain = port(src, TOKENS, fixes="none", style=style, warp_options=WarpOptions(archs=arch))
    assert plain.text == apply_edits(text, tr.edits) and not plain.applied_findings  # --fixes none: translation only
    if style == FixStyle.WAVE64 and any(a.startswith("gfx1") for a in arch):
        assert not applied  # a wave64 fix is never offered with a wave32 target in the fat binary


# ------------------------------------------------------------------------------------ real samples


SAMPLES = real_samples()


@st.composite
def mutated_sample(draw: st.DrawFn) -> tuple[str, str]:
    name, text = draw(st.sampled_from(SAMPLES))
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["cut", "insert", "crlf", "cr", "truncate", "dup"]))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 200)))
        if op == "cut":
            text = text[:i] + text[j:]
        elif op == "insert":
            piece = draw(st.sampled_from(["/*", "*/", '"', "'", "<<<", ">>>", "\\\n", "#if 1\n", "#endif\n",
                                          "cudaMalloc", "__shfl_sync(0xffffffff, v, 16)", "R\"(", "é", "\x0c"]))
            text = text[:i] + piece + text[i:]
        elif op == "crlf":
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        elif op == "cr":
            text = text[:i] + text[i:j].replace("\n", "\r") + text[j:]
        elif op == "truncate":
            text = text[:i]
        else:
            text = text[:j] + text[i:j] + text[j:]
    return name, text


@count("real_samples", 200)
@given(sample=mutated_sample())
def test_mutated_real_samples_keep_every_invariant(sample: tuple[str, str]) -> None:
    name, text = sample
    lang = Language.PYTHON if name.endswith(".py") else Language.CUDA
    src = Source.from_text(text, language=lang)
    tr = translate(src, TOKENS)
    out = check_edits(text, tr.edits)
    assert trans(out, lang)[0] == out
    an = analyze(src, tr, WarpOptions())
    for f in an.findings:
        for fx in f.fixes:
            assert find_conflict([*tr.edits, *fx.edits]) is None
    port(src, TOKENS, fixes="all", style=FixStyle.PORTABLE)


def test_every_real_sample_cut_after_each_open_bracket() -> None:
    """Unbalanced brackets, as in a file being edited (`__ballot_sync(` with no `)`): the warp analysis
    and the translator must take them. Deterministic: every cut point of every C++ sample."""
    for name, text in SAMPLES:
        if name.endswith(".py"):
            continue
        cuts = [i + 1 for i, c in enumerate(text) if c in "([{"][::3]
        for i in cuts:
            cut = text[:i] + "\n" + text[i:].split("\n", 1)[-1]  # drop the rest of that line
            src = Source.from_text(cut, language=Language.CUDA)
            tr = translate(src, TOKENS)
            check_edits(cut, tr.edits)
            analyze(src, tr, WarpOptions())


def test_stray_chevron_before_a_launch_with_ggl_syntax() -> None:
    """Found by test_translation_is_idempotent: a stray `<<<` took the next launch's `>>>` and both
    launches emitted the same edits (EditConflict). The stray one is now reported, the real one moved."""
    text = "alpha <<< alpha<<<0, 256>>>(alpha); "
    out, _ = trans(text, Language.CUDA, GGL)
    assert "alpha <<< hipLaunchKernelGGL(alpha, dim3(0), dim3(256), 0, 0, alpha);" in out
    assert trans(out, Language.CUDA, GGL)[0] == out


def _line_starts_reference(text: str) -> list[int]:
    starts = [0]
    i = 0
    while i < len(text):
        if text[i] == "\n" or (text[i] == "\r" and text[i + 1 : i + 2] != "\n"):
            starts.append(i + 1)
        i += 1
    return starts


@count("line_starts", 300)
@given(text=st.lists(st.sampled_from(["\r", "\n", "a", " ", "é", "\r\n"]), max_size=60).map("".join))
def test_line_starts_matches_a_character_by_character_reference(text: str) -> None:
    assert line_starts(text) == _line_starts_reference(text)


def test_unmodified_real_samples_translate_idempotently_in_every_mode() -> None:
    assert len(SAMPLES) >= 20
    for name, text in SAMPLES:
        lang = Language.PYTHON if name.endswith(".py") else Language.CUDA
        for opts in (TOKENS, GGL, AUTO):
            out, _ = trans(text, lang, opts)
            assert trans(out, lang, opts)[0] == out, name


def test_at_least_ten_thousand_generated_cases_per_run() -> None:
    assert sum(CASES.values()) >= 10_000, CASES
