"""Conformance: AMD's hipify-clang unit tests, replayed with `hipport convert` in place of hipify-clang.

One case per test file that AMD's lit.cfg selects for CUDA 12.6 / LLVM 19 / cuDNN 9 / CUB (112 files).
Each runs as AMD's run_test.sh does: the RUN line's hipify-clang options and `-- clang args` go to
`hipport convert FILE -o OUT --fixes none` (the pure hipify-clang translation: the default port also
rewrites warp code as logical 32-lane warps, which AMD's checks do not expect), the output goes through the comment-blanking sed, then the real LLVM
FileCheck checks it against the test file. Files that still fail are expected failures (strict), each
with the reason it fails.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import hipify_suite as hs

from hipport.cli.main import main

if not (hs.SUITE / "lit.cfg").is_file():
    pytest.skip(f"HIPIFY unit tests not found at {hs.SUITE} (set HIPPORT_HIPIFY_TESTS)", allow_module_level=True)

SELECTED, CLANG_ARGS = hs.selected_tests()
FILECHECK = hs.filecheck()

# Test files hipport does not pass yet, and why (strict: a file that starts passing must leave this list).
XFAIL: dict[str, str] = {
}


def test_selection_is_amds():
    """lit.cfg selects 112 files for CUDA 12.6, LLVM 19, cuDNN 9 and CUB (AMD's documented set-up)."""
    assert len(SELECTED) == 112
    assert "libraries/CUB/cub_01.cu" not in SELECTED  # excluded from CUDA 12.6 on
    assert "headers/headers_test_06_12000.cu" in SELECTED
    assert not set(XFAIL) - set(SELECTED), "XFAIL names files that are not selected"


def _clang_args(path: Path, run: hs.RunLine) -> list[str]:
    db = path.parent / "compile_commands.json.in"
    if db.is_file():  # run_test.sh: the compilation database replaces `-- ARGS`
        entry = next(e for e in json.loads(db.read_text()) if e["file"] == path.name)
        words = shlex.split(entry["command"].replace("<test dir>", str(path.parent)))[2:]
        return [w.replace("-I./", f"-I{path.parent}/") for w in words]
    return list(run.clang_args)


@pytest.mark.parametrize("rel", [pytest.param(r, marks=pytest.mark.xfail(strict=True, reason=XFAIL[r]))
                                 if r in XFAIL else r for r in SELECTED])
def test_hipify_unit_test(rel: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if FILECHECK is None:
        pytest.skip("LLVM FileCheck not installed (Debian: apt-get install llvm-15-tools; make test does it)")
    path = hs.SUITE / "unit_tests" / rel
    run = hs.run_line(path.read_text(encoding="utf-8", errors="surrogateescape"), CLANG_ARGS)
    out = tmp_path / ("out" + path.suffix)
    argv = ["convert", str(path), "-o", str(out), "-q", "--fixes", "none", *run.hipify_options, "--", *_clang_args(path, run)]
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 0, f"hipport {shlex.join(argv)} exited {rc}: {err.strip()[-2000:]}"
    checked = hs.blank_comments(out.read_bytes().decode("utf-8", errors="surrogateescape"))
    fc = subprocess.run([FILECHECK, str(path)], input=checked.encode("utf-8", errors="surrogateescape"),
                        capture_output=True, timeout=60)
    assert fc.returncode == 0, fc.stderr.decode(errors="replace")[-3000:]
