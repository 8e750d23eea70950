"""One settings type (engine/config.Config) for the command line and the app: `hipport convert`/`scan`
read the project's [tool.hipport] like the app does, command-line options override it key by key, and
both are checked by the same rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipport.cli.main import main
from hipport.engine.api import settings, settings_root
from hipport.engine.config import ConfigError, load_config, parse_archs
from hipport.engine.model import FixStyle
from hipport.engine.review import Decision, ReviewSession

KERNEL = """\
#include <cuda_runtime.h>
__global__ void k(float* x) {
  int lane = threadIdx.x % 32;
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  if (lane == 0) x[threadIdx.x / 32] = v;
}
int main() { float* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); cudaDeviceSynchronize(); return 0; }
"""
TOOL = """\
[tool.hipport]
fix_style = "portable"
rocm = "7"
archs = "gfx90a,gfx1100"
launch_syntax = "ggl"
ast = "off"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(TOOL)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(KERNEL)
    return tmp_path


def test_the_same_project_ports_the_same_from_the_cli_and_the_app(project: Path) -> None:
    out = project / "out.hip"
    assert main(["convert", str(project / "src" / "k.cu"), "-o", str(out), "--fixes", "all", "--fixes-review"]) == 0
    cli = out.read_text()
    assert "hipLaunchKernelGGL(k" in cli  # launch_syntax = "ggl" from [tool.hipport]
    assert "0xffffffff" not in cli and "lane_mask_t" in cli  # the fix applied, in the portable style
    assert "0xffffffffffffffff" not in cli  # (gfx1100 is wave32: no wave64 fix is offered)
    s = ReviewSession.open(project)
    s.load("src/k.cu")
    s.decide_rest("src/k.cu", Decision.ACCEPTED)
    assert s.result_text("src/k.cu") == cli


def test_command_line_options_override_the_project_key_by_key(project: Path) -> None:
    cfg = settings([project / "src"], {"fix_style": ("--fix-style", "wave64"), "rocm": ("--rocm", None)})
    assert cfg.fix_style is FixStyle.WAVE64 and cfg.rocm == (7, 0) and cfg.archs == ("gfx90a", "gfx1100")
    assert cfg.launch_syntax == "ggl" and cfg.origin == load_config(project).origin
    assert settings_root([project / "src" / "k.cu"]) == project


def test_rocm_and_arch_rules_are_the_same_in_both(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `--rocm 7` always worked; `rocm = "7"` in [tool.hipport] was a config error
    assert load_config(project).rocm == (7, 0)
    assert main(["scan", str(project / "src"), "--format", "json", "--rocm", "7"]) == 0
    assert json.loads(capsys.readouterr().out)["rocm"] == "7.0"
    for bad in ("sm_80", "gfx942;rm", "gfx"):
        with pytest.raises(ValueError):
            parse_archs([bad])
        (project / "pyproject.toml").write_text(f'[tool.hipport]\narchs = ["{bad}"]\n')
        with pytest.raises(ConfigError, match="not an AMD GPU architecture"):
            load_config(project)
        assert main(["scan", "--warp", "--arch", bad, str(project / "src" / "k.cu")]) == 2
        assert "not an AMD GPU architecture" in capsys.readouterr().err
    assert parse_archs(["GFX90A:xnack-,gfx942", "gfx90a:sramecc+:xnack-"]) == \
        ("gfx90a:xnack-", "gfx942", "gfx90a:sramecc+:xnack-")


def test_a_bad_project_setting_is_one_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text('[tool.hipport]\nfix_style = "fast"\n')
    assert main(["convert", str(project / "src" / "k.cu")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fix_style must be one of logical, wave64, portable" in err


def test_one_version_number(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import tomllib
    from importlib.metadata import version

    from hipport.engine import __version__
    from hipport.engine.report import to_sarif

    repo = Path(__file__).resolve().parents[2]
    assert "version" not in tomllib.loads((repo / "pyproject.toml").read_text())["project"]  # dynamic
    assert version("hipport") == __version__
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"hipport {__version__}"
    assert main(["scan", str(project / "src"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["tool"]["version"] == __version__
    assert to_sarif([])["runs"][0]["tool"]["driver"]["version"] == __version__
