"""config (pyproject / .hipport.toml, validation), outputs (paths always inside the root), discover."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hipport.engine.config import Config, ConfigError, load_config
from hipport.engine.discover import discover
from hipport.engine.model import FixStyle
from hipport.engine.outputs import output_path, output_rel, sibling_name


def write(root: Path, name: str, text: str) -> None:
    (root / name).write_text(text)


def test_defaults_without_files(tmp_path: Path) -> None:
    c = load_config(tmp_path)
    assert c == Config()
    assert (c.output_mode, c.output_folder, c.fix_style, c.rocm, c.archs) == \
        ("sibling", "hip", FixStyle.WAVE64, (7, 0), ("gfx942",))


def test_pyproject_table(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", """
[project]
name = "x"
[tool.hipport]
output-mode = "folder"
output_folder = "ported/hip"
fix_style = "portable"
rocm = "6.4"
archs = ["gfx90a", "gfx942"]
launch_syntax = "ggl"
theme = "hipport-light"
include = ["src/**"]
exclude = "*_test.cu"
[tool.hipport.keymap]
"hunk.accept" = "y,a,enter"
[tool.hipport.run]
command = "make run"
""")
    c = load_config(tmp_path)
    assert c.output_mode == "folder" and c.output_folder == "ported/hip"
    assert c.fix_style is FixStyle.PORTABLE and c.rocm == (6, 4) and c.archs == ("gfx90a", "gfx942")
    assert c.launch_syntax == "ggl" and c.theme == "hipport-light"
    assert c.include == ("src/**",) and c.exclude == ("*_test.cu",)
    assert c.keymap == {"hunk.accept": "y,a,enter"} and c.run == {"command": "make run"}
    assert c.origin is not None and "pyproject.toml" in c.origin


def test_dotfile_used_when_pyproject_has_no_table(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n")
    write(tmp_path, ".hipport.toml", "rocm = [6, 2]\n[keymap]\n'app.quit' = 'ctrl+q'\n")
    c = load_config(tmp_path)
    assert c.rocm == (6, 2) and c.keymap == {"app.quit": "ctrl+q"}
    write(tmp_path, ".hipport.toml", "[tool.hipport]\noutput_mode = 'in-place'\n")
    assert load_config(tmp_path).output_mode == "in-place"


def test_pyproject_wins_over_dotfile(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.hipport]\ntheme = 'a'\n")
    write(tmp_path, ".hipport.toml", "theme = 'b'\n")
    assert load_config(tmp_path).theme == "a"


@pytest.mark.parametrize("body, match", [
    ("colour = 'red'", "unknown key 'colour'"),
    ("output_mode = 'beside'", "output_mode must be one of in-place, sibling, folder"),
    ("output_mode = 3", "must be a string"),
    ("fix_style = 'wave32'", "fix_style must be one of logical, wave64, portable"),
    ("rocm = 'seven'", "version like"),
    ("rocm = [7]", "version like"),
    ("rocm = true", "version like"),
    ("archs = ['sm_80']", "not an AMD GPU architecture"),
    ("archs = []", "at least one"),
    ("launch_syntax = 'triple'", "chevron, ggl"),
    ("keymap = {a = 1}", "binding id"),
    ("run = 'make'", "must be a table"),
    ("include = [1]", "list of non-empty strings"),
    ("output_folder = '../elsewhere'", "inside the project root"),
    ("output_folder = '/tmp/abs'", "relative to the project root"),
    ("output_folder = '.'", "project root itself"),
    ("output_folder = '.git/x'", "reserved"),
    ("output_folder = 'a\\\\b'", "separators"),
    ("output_mode = 'sibling'\noutput-mode = 'folder'", "given twice"),
    ("not toml ===", "not valid TOML"),
])
def test_bad_values_are_one_line_errors(tmp_path: Path, body: str, match: str) -> None:
    write(tmp_path, ".hipport.toml", body + "\n")
    with pytest.raises(ConfigError, match=match) as ei:
        load_config(tmp_path)
    assert "\n" not in str(ei.value) and ".hipport.toml" in str(ei.value)


def test_replace_validates() -> None:
    c = Config().replace(output_mode="in-place")
    assert c.output_mode == "in-place"
    with pytest.raises(ConfigError):
        Config().replace(output_mode="nowhere")
    with pytest.raises(ConfigError):
        Config().replace(output_folder="../x")


@pytest.mark.parametrize("name, out", [
    ("gemm.cu", "gemm.hip"), ("matmul_cuda.py", "matmul_hip.py"), ("gemm.cuh", "gemm_hip.cuh"),
    ("util.h", "util_hip.h"), ("CUDAKernels.cpp", "HIPKernels.cpp"), ("run.py", "run_hip.py"),
    ("kernel_cuda.cu", "kernel_hip.hip"),
])
def test_sibling_names(name: str, out: str) -> None:
    assert sibling_name(name) == out


def test_output_paths_per_mode(tmp_path: Path) -> None:
    assert output_path(Config(), tmp_path, "src/gemm.cu") == tmp_path / "src" / "gemm.hip"
    assert output_path(Config(output_mode="in-place"), tmp_path, "src/gemm.cu") == tmp_path / "src/gemm.cu"
    assert output_path(Config(output_mode="folder"), tmp_path, "src/gemm.cu") == tmp_path / "hip/src/gemm.cu"
    assert output_rel(Config(output_mode="folder", output_folder="./out/"), "a.cu") == "out/a.cu"


@pytest.mark.parametrize("rel", ["../x.cu", "/etc/x.cu", "a/../../x.cu", ""])
def test_output_refuses_paths_outside(tmp_path: Path, rel: str) -> None:
    with pytest.raises(ConfigError):
        output_path(Config(), tmp_path, rel)


def test_output_refuses_symlinked_folder_leading_out(tmp_path: Path) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / "hip")
    with pytest.raises(ConfigError, match="outside the project root"):
        output_path(Config(output_mode="folder"), root, "a.cu")


def test_discover_skips_and_filters(tmp_path: Path) -> None:
    for rel in ["a.cu", "src/b.cuh", "src/c.cpp", "src/d.py", "src/e.txt", ".git/x.cu", ".hipport/y.cu",
                "build/z.cu", "node_modules/n.cu", ".hidden/h.cu", "hip/out.cu", "tests/t_test.cu"]:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x\n")
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir(exist_ok=True)
    (outside / "o.cu").write_text("o\n")
    os.symlink(outside, tmp_path / "linkdir")
    os.symlink(outside / "o.cu", tmp_path / "link_out.cu")
    os.symlink(tmp_path / "a.cu", tmp_path / "link_in.cu")
    assert list(discover(tmp_path, skip=["hip"])) == \
        ["a.cu", "link_in.cu", "src/b.cuh", "src/c.cpp", "src/d.py", "tests/t_test.cu"]
    assert list(discover(tmp_path, include=["src/**"])) == ["src/b.cuh", "src/c.cpp", "src/d.py"]
    assert list(discover(tmp_path, exclude=["*_test.cu", "*.py", "hip/**"])) == \
        ["a.cu", "link_in.cu", "src/b.cuh", "src/c.cpp"]
