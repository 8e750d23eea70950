"""Every fixed corpus sample compiles with Debian's hipcc for gfx90a:
- `--rocm 5.2`: the output as is (HIP 5.2 has no *_sync builtins: hipport inserts its shims);
- the default ROCm 7.0 target: against tests/include/hip_warp_sync_rocm62.h, which declares the
  ROCm >= 6.2 warp-sync builtins with the 64-bit-mask static_assert;
and the unfixed translation of the 0xffffffff-mask kernel fails that header."""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hipport.engine.model import FixStyle
from hipport.engine.pipeline import port
from hipport.engine.source import Source, read_source
from hipport.engine.translate.options import TranslateOptions
from hipport.engine.warp import WarpOptions

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "warp"
HEADER = ROOT / "tests" / "include" / "hip_warp_sync_rocm62.h"
# hipCUB is not installed with Debian's HIP; W64-11 is Python.
SKIP = {"W64-11", "W64-21"}

pytestmark = [
    pytest.mark.hipcc,
    pytest.mark.slow,  # ~92 hipcc compiles: about a minute on 2 idle cores
    pytest.mark.skipif(shutil.which("hipcc") is None, reason="Debian's hipcc is not installed"),
]


def hipcc(path: Path, *extra: str) -> tuple[bool, str]:
    env = dict(os.environ, HIP_PLATFORM="amd")
    obj = path.with_suffix(".o")
    p = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-c", *extra, str(path), "-o", str(obj)],
                       capture_output=True, text=True, env=env, timeout=300)
    return p.returncode == 0, p.stdout + p.stderr


def _sources() -> list[tuple[str, Source]]:
    out = [(p.stem, read_source(p)) for p in sorted(CORPUS.glob("W64-*_fire.*")) if p.name[:6] not in SKIP]
    # inline samples from the unit tests (unrolled chain, macro lane ids, the issue-9 role samples)
    from warp_samples import SAMPLES

    out += [(name, Source.from_text(text, f"{name}.cu")) for name, text in SAMPLES.items()]
    return out


SOURCES = _sources()


def test_the_compile_check_covers_every_sample() -> None:
    assert len(SOURCES) >= 21 + 15


@pytest.mark.parametrize("name,src", SOURCES, ids=[n for n, _ in SOURCES])
def test_every_fixed_sample_compiles(tmp_path: Path, name: str, src: Source) -> None:
    """Both styles, ROCm 5.2 (shims) and 7.0 (64-bit-mask header), review groups applied too."""
    jobs: list[tuple[Path, tuple[str, ...]]] = []
    for rocm, extra in (((5, 2), ()), ((7, 0), ("-include", str(HEADER)))):
        for style in FixStyle:
            r = port(src, TranslateOptions(rocm=rocm), fixes="all", style=style, allow_review=True,
                     warp_options=WarpOptions(rocm=rocm))
            out = tmp_path / f"{name}.{style.value}.rocm{rocm[0]}{rocm[1]}.hip"
            out.write_text(r.text)
            jobs.append((out, extra))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(lambda j: (j[0].name, *hipcc(j[0], *j[1])), jobs))
    failed = [(n, log[-600:]) for n, ok, log in results if not ok]
    assert not failed, failed


def test_unfixed_full_mask_kernel_fails_the_rocm7_header(tmp_path: Path) -> None:
    src = read_source(CORPUS / "W64-03_fire.cu")
    unfixed = port(src, TranslateOptions(rocm=(7, 0)), fixes="none")
    assert "0xffffffff," in unfixed.text
    p = tmp_path / "unfixed.hip"
    p.write_text(unfixed.text)
    ok, log = hipcc(p, "-include", str(HEADER))
    assert not ok
    assert "The mask must be a 64-bit integer" in log
    fixed = tmp_path / "fixed.hip"
    fixed.write_text(port(src, TranslateOptions(rocm=(7, 0)), fixes="all", style=FixStyle.WAVE64).text)
    ok, log = hipcc(fixed, "-include", str(HEADER))
    assert ok, log[-600:]
