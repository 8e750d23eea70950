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


# A typo in any [tool.hipport*] table is reported when the settings load (ConfigError, one line naming the
# file, the key and the nearest known name), by every command, before anything builds or opens.
TYPOS = [
    ("ouput_mode = 'folder'", "unknown key 'ouput_mode' (did you mean 'output_mode'?"),
    ("fix_style = 'wave46'", "fix_style must be one of logical, wave64, portable"),
    ("archs = ['gfx94']", "'gfx94' is not an AMD GPU architecture"),
    ("rocm = '7.x'", "rocm must be a version like"),
    ("[tool.hipport.run]\nbiuld_timeout = 60", "[tool.hipport.run]: unknown key 'biuld_timeout' (did you mean "
                                               "'build_timeout'?"),
    ("[tool.hipport.run]\nrun_timeout = '10 minutes'", "[tool.hipport.run] run_timeout must be a number of seconds"),
    ("[tool.hipport.run]\narch = 'gfx94'", "[tool.hipport.run] arch: not an AMD GPU target"),
    ("[tool.hipport.run]\ntarget = '../elsewhere'", "[tool.hipport.run] target '../elsewhere' must be a path inside"),
    ("[tool.hipport.run]\nbaseline_ignore = ['(']", "[tool.hipport.run] baseline_ignore: '(' is not a regular"),
    ("[tool.hipport.keymap]\n'review.accept' = 7", "keymap must be a table of binding id"),
]


@pytest.mark.parametrize("table, message", TYPOS)
def test_a_typo_in_any_table_is_reported_at_load(tmp_path: Path, table: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.hipport]\n{table}\n")
    with pytest.raises(ConfigError) as ei:
        load_config(tmp_path)
    text = str(ei.value)
    assert message in text and "pyproject.toml" in text and "\n" not in text, text


@pytest.mark.parametrize("command", [["run", "--dry-run"], ["convert"], ["scan"]])
def test_commands_report_a_run_table_typo_before_building(tmp_path: Path, command: list[str],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".hipport.toml").write_text("[run]\ncomand = 'make run'\n")
    (tmp_path / "Makefile").write_text("all:\n\thipcc k.cu -o k\nrun:\n\t./k\n")
    (tmp_path / "k.cu").write_text(KERNEL)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main([*command, str(tmp_path / "k.cu" if command != ["run", "--dry-run"] else tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ".hipport.toml" in err[0] and "did you mean 'command'?" in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing built, nothing written


@pytest.mark.parametrize("table, message", [
    ("[tool.hipport.keymap]\n'review.acept' = 'y'", "keymap: unknown binding id 'review.acept' (did you mean "
                                                   "'review.accept'?"),
    ("theme = 'hipport-drak'", "unknown theme 'hipport-drak' (did you mean 'hipport-dark'?"),
])
def test_the_app_reports_its_own_names_at_load(tmp_path: Path, table: str, message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Binding ids and themes are the app's vocabulary: checked when `hipport open` loads the settings, the
    same one-line error, before the app starts (it used to start and show a warning, or fall back)."""
    from hipport.tui.app import check_settings

    (tmp_path / "pyproject.toml").write_text(f"[tool.hipport]\n{table}\n")
    (tmp_path / "k.cu").write_text(KERNEL)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("?", r"\?")):
        check_settings(load_config(tmp_path))
    assert main(["open", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "pyproject.toml" in err[0], err
    check_settings(load_config(tmp_path).replace(keymap={"review.accept": "y"}, theme="nord"))  # known names pass
