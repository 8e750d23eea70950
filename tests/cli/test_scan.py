"""`hipport scan`: untranslated/unsupported APIs with file:line and per-file statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipport.cli.main import main

SRC = ("#include <cuda_runtime.h>\n"
       "#include <cublas_v2.h>\n"
       "void f(cublasHandle_t h) {\n"
       "  cudaDeviceSynchronize();\n"
       "  cublasCreate(&h);\n"
       "  cudaDeviceFlushGPUDirectRDMAWrites(a, b);\n"
       "  cudaMadeUpName();\n"
       "  cudaGraphInstantiateWithParams(0, 0, 0);\n"
       "}\n")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text(SRC)
    (tmp_path / "src" / "clean.cpp").write_text("int x;\n")
    (tmp_path / "run.py").write_text("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '1'\n")
    return tmp_path


def test_json_schema_and_statistics(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(tree), "--format", "json", "--rocm", "6.1", "--ast", "off"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "hipport.scan/2"
    assert doc["rocm"] == "6.1" and doc["mode"] == "tokens" and len(doc["mapping_commit"]) == 40
    by_path = {Path(f["path"]).name: f for f in doc["files"]}
    assert sorted(by_path) == ["a.cu", "clean.cpp", "run.py"]
    a = by_path["a.cu"]
    assert a["error"] is None and a["language"] == "cuda" and a["mode"] == "tokens"
    s = a["stats"]
    assert s["lines"] == 10
    assert s["families"] == {"blas": 2, "runtime": 1}  # cublasHandle_t, cublasCreate; cudaDeviceSynchronize
    assert s["converted"] == 3 and s["unconverted"] == 2  # unsupported + needs-newer-rocm
    assert s["edits"]["include"] == 2 and s["edits"]["api"] == 3
    assert s["reports"] == {"unsupported": 1, "unknown": 1, "needs-newer-rocm": 1}
    rep = {(r["name"], r["kind"], r["line"], r["col"]) for r in a["reports"]}
    assert ("cudaDeviceFlushGPUDirectRDMAWrites", "unsupported", 6, 3) in rep
    assert ("cudaMadeUpName", "unknown", 7, 3) in rep
    assert ("cudaGraphInstantiateWithParams", "needs-newer-rocm", 8, 3) in rep
    since = [r["since"] for r in a["reports"] if r["kind"] == "needs-newer-rocm"]
    assert since == ["6.2.0"]
    assert set(a["reports"][0]) == {"kind", "name", "line", "col", "start", "end", "message", "hip_name", "since"}
    assert by_path["clean.cpp"]["reports"] == []
    assert by_path["run.py"]["reports"][0]["kind"] == "python"
    t = doc["totals"]
    assert t["files"] == 3 and t["errors"] == 0 and t["converted"] == 3 and t["unconverted"] == 2
    assert t["reports"]["python"] == 1


def test_text_format_lists_locations_and_examine_statistics(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(tree / "src" / "a.cu"), "--ast", "off"]) == 0
    out = capsys.readouterr().out
    a = str(tree / "src" / "a.cu")
    assert f"{a}:6:3: unsupported: cudaDeviceFlushGPUDirectRDMAWrites" in out
    assert f"{a}:7:3: unknown: cudaMadeUpName" in out
    assert f"[HIPPORT] info: file '{a}' statistics (mode: tokens):" in out
    assert "  CONVERTED refs count: 4\n" in out  # ROCm 7.0: the graph call converts too
    assert "  UNCONVERTED refs count: 1\n" in out
    assert "  TOTAL lines of code: 10\n" in out
    assert "CONVERTED refs by API family: blas: 2, runtime: 2" in out


def test_scan_writes_nothing_but_the_report(tree: Path) -> None:
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    out = tree / "report.json"
    assert main(["scan", str(tree / "src"), "--format", "json", "-o", str(out), "--ast", "off"]) == 0
    assert json.loads(out.read_text())["totals"]["files"] == 2
    after = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file() and p != out}
    assert after == before


def test_scan_errors(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(tree / "nope")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    (tree / "src" / "bin.cu").write_bytes(b"\x00\x00cuda")
    assert main(["scan", str(tree / "src"), "--format", "json", "--ast", "off"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert next(f["error"] for f in doc["files"] if f["error"]).endswith("binary file (NUL bytes); not translated")


def test_a_report_is_serialised_the_same_by_scan_and_scan_warp(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # scan/1 wrote a report's HIP name as "hip", scan --warp --format json as "hip_name"
    a = str(tree / "src" / "a.cu")
    assert main(["scan", a, "--format", "json", "--rocm", "6.1", "--ast", "off"]) == 0
    plain = json.loads(capsys.readouterr().out)["files"][0]["reports"]
    assert main(["scan", a, "--warp", "--format", "json", "--rocm", "6.1", "--ast", "off"]) == 0
    warp = json.loads(capsys.readouterr().out)["files"][0]["reports"]
    assert plain == warp and len(plain) == 3
    newer = next(r for r in plain if r["kind"] == "needs-newer-rocm")
    assert newer["hip_name"] == "" and newer["since"] and "hip" not in newer
