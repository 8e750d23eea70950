"""The warp lexer is linear in blank runs.

Its skip-blanks prefix was `(?:[ \\t]+|\\\\\\n)*`: a nested quantifier that backtracked exponentially
whenever a run of blanks ended the text (24 trailing spaces took 12 s, 40 would take days): any CUDA
file ending in blanks, and every Python file (the analysis blanks out non-CUDA text), could hang
`hipport scan --warp`, `convert --fixes` and the app. The timeout turns a regression into a failure.
"""

from __future__ import annotations

import pytest

from hipport.engine.source import Language, Source
from hipport.engine.warp import analyze
from hipport.engine.warp.lex import tokenize

KERNEL = "__global__ void k(int* o) { int lane = threadIdx.x % 32; o[lane] = __shfl(lane, 0); }"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("tail", [" ", "\t", "\f", " \\\n", "\\\r\n "])
def test_trailing_blanks_are_linear(tail: str) -> None:
    toks = tokenize("x" + tail * 200_000)
    assert [t.text for t in toks] == ["x"]


@pytest.mark.timeout(30)
def test_blank_runs_everywhere_keep_the_tokens() -> None:
    text = ("a" + " " * 5000 + "\\\n" + "\t" * 5000 + "b /* c */" + " " * 5000 + "\n") * 20
    assert [t.text for t in tokenize(text)] == ["a", "b"] * 20


@pytest.mark.timeout(60)
@pytest.mark.parametrize("language", [Language.CUDA, Language.PYTHON])
def test_analysis_of_files_ending_in_blanks_terminates(language: Language) -> None:
    body = KERNEL if language is Language.CUDA else f"from torch.utils.cpp_extension import load_inline\nsrc = '''{KERNEL}'''\n"
    a = analyze(Source.from_text(body + " " * 5000, language=language))
    assert [f.rule for f in a.findings] == ["W64-01"]
