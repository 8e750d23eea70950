"""One output-naming rule (engine/outputs.py): what the app writes is what the build plan builds.

Before, the app wrote kernel_cuda.cu -> kernel_hip.hip (outputs.sibling_name) while the plan looked
for kernel_cuda.hip (its own ported_name) and ignored the output mode, so `b` could not find a port
the app had just written. Synthetic Detection (no GPU here); the session and plan are the real ones.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.engine.outputs import output_rel, sibling_name
from hipport.engine.review import ReviewSession
from hipport.engine.toolchain.detect import Detection, Gpu, RocmInstall
from hipport.engine.toolchain.plan import plan, ported_name

MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100, "0000:26:00.0")
ROCM7 = RocmInstall(root="/opt/rocm", version="7.0.0", hip_version="7.0.51831", hipcc="/opt/rocm/bin/hipcc")
KERNEL = """\
#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
int main() { float* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); cudaDeviceSynchronize(); cudaFree(d); return 0; }
"""


@pytest.mark.parametrize("mode", ["sibling", "folder", "in-place"])
def test_the_port_the_app_writes_is_the_one_the_build_plan_builds(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "kernel_cuda.cu").write_text(KERNEL)
    (root / "pyproject.toml").write_text(f'[tool.hipport]\noutput_mode = "{mode}"\nast = "off"\n')
    session = ReviewSession.open(root)
    written = session.write("kernel_cuda.cu")
    assert "hipMalloc" in written.read_text()
    rp = plan(root, detection=Detection(amd_gpus=(MI300X,), rocm=ROCM7), env={})
    assert rp.ready and rp.kind == "single-file", rp.notes
    compile_step = next(s for s in rp.steps if s.argv[0] == "hipcc")
    source = Path(compile_step.cwd, compile_step.argv[compile_step.argv.index("-O3") + 1])
    assert source.resolve() == written.resolve()
    assert ported_name(root / "kernel_cuda.cu", session.config, root).resolve() == written.resolve()


def test_one_naming_rule() -> None:
    for name in ("kernel_cuda.cu", "MatMulCUDA.py", "gemm.cu", "util.h", "train.py", "a.cuh"):
        assert ported_name(Path("d") / name) == Path("d") / sibling_name(name)
    assert sibling_name("kernel_cuda.cu") == "kernel_hip.hip" and sibling_name("MatMulCUDA.py") == "MatMulHIP.py"
    assert os.fspath(ported_name(Path("x/kernel_cuda.cu"))) == "x/kernel_hip.hip"
    from hipport.engine.config import Config

    assert output_rel(Config(output_mode="folder"), "src/k.cu") == "hip/src/k.cu"


def test_cli_and_app_keep_the_original_in_the_same_place(tmp_path: Path) -> None:
    # one write policy (outputs.py): the app kept originals under .hipport/originals/, convert as .prehip
    from hipport.cli.main import main

    for how in ("cli", "app"):
        root = tmp_path / how
        root.mkdir()
        (root / "k.cu").write_text(KERNEL)
        (root / "pyproject.toml").write_text('[tool.hipport]\noutput_mode = "in-place"\nast = "off"\n')
        if how == "cli":
            assert main(["convert", "--in-place", str(root / "k.cu")]) == 0
        else:
            ReviewSession.open(root).write("k.cu")
        assert (root / "k.cu.prehip").read_text() == KERNEL
        assert not (root / ".hipport" / "originals").exists()
    assert (tmp_path / "cli" / "k.cu").read_bytes() == (tmp_path / "app" / "k.cu").read_bytes()


# The naming functions work on strings (the file list names 5,000 outputs at start); their reading
# of a name must stay pathlib's: stem/suffix, the last component, what clean_rel accepts.
_NAME_PARTS = ["a", ".", "/", "\\", "cu", "cuda", "CUDA", "Cuda", "..", "h", ".cu", ".CU", ".py", "Makefile", ""]


@given(st.lists(st.sampled_from(_NAME_PARTS), max_size=7).map("".join))
@settings(max_examples=400, deadline=None)
def test_string_naming_reads_names_as_pathlib_does(name: str) -> None:
    from pathlib import PurePath, PurePosixPath

    from hipport.engine.config import Config, ConfigError
    from hipport.engine.outputs import _stem_suffix, clean_rel
    from hipport.engine.source import language_for

    last = PurePosixPath(name).name
    assert _stem_suffix(last) == (PurePosixPath(last).stem, PurePosixPath(last).suffix)
    if name:
        assert language_for(name) == language_for(PurePath(name))
    try:
        cleaned: PurePosixPath | None = clean_rel(name)
    except ConfigError:
        cleaned = None
    p = PurePosixPath(name.replace("\\", "/"))
    ok = not p.is_absolute() and ".." not in p.parts and p.parts != ()
    assert (cleaned is not None) == ok
    if cleaned is not None:
        assert cleaned == p
        assert output_rel(Config(output_mode="in-place"), name) == p.as_posix()
        assert output_rel(Config(output_mode="sibling"), name) == p.with_name(sibling_name(p.name)).as_posix()
        assert output_rel(Config(output_mode="folder", output_folder="hip"), name) == f"hip/{p.as_posix()}"
