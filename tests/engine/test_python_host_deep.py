"""A Python file too deeply nested for CPython's parser is left unchanged with a note, not a crash."""

from __future__ import annotations

import pytest

from hipport.engine.model import ReportKind
from hipport.engine.source import Language, Source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions
from hipport.engine.warp import analyze


@pytest.mark.parametrize("prefix", ["-", "not ", "lambda: "])  # RecursionError, RecursionError, MemoryError
def test_deeply_nested_python_is_left_unchanged(prefix: str) -> None:
    text = "x = " + prefix * 3000 + "1\nimport os  # cudaMalloc\n"
    src = Source.from_text(text, language=Language.PYTHON)
    tr = translate(src, TranslateOptions(ast="off"))
    assert tr.edits == ()
    assert [r.kind for r in tr.reports] == [ReportKind.INFO]
    assert "deeply nested" in tr.reports[0].message
    analyze(src, tr)  # and the warp analysis copes too
