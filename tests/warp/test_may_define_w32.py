"""project.may_define_w32 (whether a file may define a warp-size constant, so that its includers are read) gives
what the one-regex form it replaced gave, on generated text and on real code. (Its speed is a bench figure:
the old form spent 1.4 ms a file on the 5,000-file bench tree, most of a reopened project's time.)"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.warp.project import may_define_w32

# the specification: the regex project.py used before (one search over the whole text)
SPEC = re.compile(r"(?i)\b\w*(?:warp|wave|ws|lanes_per)\w*(?:[ \t]*=[ \t]*|[ \t]+\(?[ \t]*)32[uUlL]*\b")
HECBENCH = Path(os.environ.get("HIPPORT_HECBENCH", "/work/hecbench"))

PIECES = st.sampled_from(["warp", "WARP_SIZE", "kWs", "wave", "lanes_per_", "rows", "x", "_", "é", "3", "32", "320",
                          "0x32", "132", "32u", "32UL", "32.0", "32f", " ", "\t", "  ", "=", "==", "(", ")", ";", "\n",
                          "\r\n", "\r", "#define ", "const int ", ".", ",", "//"])


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=24).map("".join))
def test_same_answer_as_the_one_regex_form(text: str) -> None:
    assert may_define_w32(text) == (SPEC.search(text) is not None)


@pytest.mark.parametrize("text,expected", [
    ("#define WARP_SIZE 32\n", True), ("constexpr int kWarp = 32;", True), ("lanes_per_warp ( 32", True),
    ("int rows = 32;", True),  # a superset on purpose: `ws` in `rows`
    ("warp = 0x32;", False), ("warp = 132;", False), ("warp = 320;", False), ("WARP\n= 32", False),
    ("int lane = threadIdx.x % 32;", False), ("warp 32x", False), ("", False),
])
def test_examples(text: str, expected: bool) -> None:
    assert may_define_w32(text) is expected
    assert (SPEC.search(text) is not None) is expected


@pytest.mark.skipif(not (HECBENCH / "src").is_dir(),
                    reason=f"HeCBench 49175104c not found at {HECBENCH} (set HIPPORT_HECBENCH)")
def test_same_answer_on_hecbench() -> None:
    texts = [p.read_text(errors="replace") for p in sorted((HECBENCH / "src").glob("*-cuda/**/*"))
             if p.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp") and p.is_file()]
    assert len(texts) > 1000
    differ = [t[:60] for t in texts if may_define_w32(t) != (SPEC.search(t) is not None)]
    assert differ == []
    assert sum(map(may_define_w32, texts)) > 10

