"""`hipport [PATH]` and `hipport demo`: the parts that run before the app opens, through the real CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hipport.cli.main import main


def test_open_refuses_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and "Traceback" not in err


def test_open_refuses_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "gemm.cu"
    f.write_text("int main() {}\n")
    assert main([str(f)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_open_refuses_a_folder_without_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    assert main([str(tmp_path)]) == 2
    assert "no CUDA, C++ or Python files" in capsys.readouterr().err


def test_open_explains_a_corrupt_state_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "gemm.cu").write_text("int main() {}\n")
    (tmp_path / ".hipport").mkdir()
    (tmp_path / ".hipport" / "state.json").write_text("{not json")
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--fresh" in err and "Traceback" not in err
    assert (tmp_path / ".hipport" / "state.json").read_text() == "{not json"  # never overwritten


def test_open_reports_a_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "gemm.cu").write_text("int main() {}\n")
    (tmp_path / ".hipport.toml").write_text('output_mode = "sideways"\n')
    assert main([str(tmp_path)]) == 2
    assert "output_mode" in capsys.readouterr().err


def test_demo_makes_a_git_repository_with_one_commit(tmp_path: Path) -> None:
    dest = tmp_path / "demo"
    proc = subprocess.run([sys.executable, "-m", "hipport.cli", "demo", "--dir", str(dest), "--no-open"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(dest.resolve())
    log = subprocess.run(["git", "log", "--format=%s"], cwd=dest, capture_output=True, text=True).stdout
    assert log.strip().splitlines() == ["Import the CUDA sample (hipport demo)"]
    assert (dest / "gemm.cu").is_file()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=dest, capture_output=True, text=True).stdout
    assert status == ""
    # a build (make -> build/gemm) leaves the work tree clean: the demo repository ignores build/
    (dest / "build").mkdir()
    (dest / "build" / "gemm").write_bytes(b"\x7fELF")
    ignored = subprocess.run(["git", "check-ignore", "build/gemm"], cwd=dest, capture_output=True, text=True)
    assert ignored.returncode == 0, ignored
    assert subprocess.run(["git", "status", "--porcelain"], cwd=dest, capture_output=True, text=True).stdout == ""


def test_demo_refuses_a_non_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "keep.txt").write_text("mine\n")
    assert main(["demo", "--dir", str(tmp_path), "--no-open"]) == 2
    err = capsys.readouterr().err
    assert "not empty" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_demo_into_a_new_folder_by_default_temp(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--no-open"]) == 0
    path = Path(capsys.readouterr().out.strip())
    try:
        assert path.is_dir() and (path / ".git").is_dir() and path.name.startswith("hipport-demo-")
    finally:
        import shutil

        shutil.rmtree(path)


def test_cli_parser_does_not_import_textual() -> None:
    code = ("import sys\nfrom hipport.cli.main import build_parser\nbuild_parser()\n"
            "print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_explain_prints_the_page_shipped_in_the_package_and_no_project_address(
        capsys: pytest.CaptureFixture[str]) -> None:
    import tomllib
    from importlib import resources

    shipped = resources.files("hipport.engine.warp") / "rules.toml"  # package data (pyproject)
    data = tomllib.loads(shipped.read_text(encoding="utf-8"))
    assert main(["explain", "6"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# W64-06: {data['W64-06']['title']}") and data["W64-06"]["why"].strip()[:40] in out
    assert "http" not in out  # no web address: the project has none that exists
    repo = Path(__file__).resolve().parents[2]
    pyproject = tomllib.loads((repo / "pyproject.toml").read_text())
    assert "*.toml" in pyproject["tool"]["setuptools"]["package-data"]["hipport.engine.warp"]
    for folder in ("engine", "tui", "docs"):
        for path in (repo / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".toml", ".tcss") and path.is_file():
                assert "github.com/hipport" not in path.read_text(encoding="utf-8", errors="replace"), path
