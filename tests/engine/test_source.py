"""Reading sources: encodings, BOM, newline styles, binary refusal."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from hipport.engine.source import Language, SourceError, language_for, read_source


def test_utf8_crlf_round_trips_byte_for_byte(tmp_path: Path) -> None:
    data = "// café\r\n__global__ void k() {}\r\n".encode()
    p = tmp_path / "k.cu"
    p.write_bytes(data)
    src = read_source(p)
    assert src.language is Language.CUDA
    assert src.newline == "\r\n"
    assert src.encode(src.text) == data


def test_bom_is_kept(tmp_path: Path) -> None:
    data = codecs.BOM_UTF8 + b"int x;\n"
    p = tmp_path / "a.cuh"
    p.write_bytes(data)
    src = read_source(p)
    assert src.bom and src.text == "int x;\n"
    assert src.encode(src.text) == data


def test_latin1_is_kept_as_latin1(tmp_path: Path) -> None:
    data = "// Größe\nint x;\n".encode("latin-1")
    p = tmp_path / "a.cu"
    p.write_bytes(data)
    src = read_source(p)
    assert src.encoding == "latin-1"
    assert src.encode(src.text) == data


def test_binary_file_is_refused_with_one_line(tmp_path: Path) -> None:
    p = tmp_path / "blob.cu"
    p.write_bytes(b"\x7fELF\x00\x00\x01")
    with pytest.raises(SourceError) as err:
        read_source(p)
    assert "binary" in str(err.value) and "\n" not in str(err.value)


def test_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        read_source(tmp_path / "nope.cu")
    with pytest.raises(SourceError, match="directory"):
        read_source(tmp_path)


def test_language_by_extension() -> None:
    assert language_for("x.cu") is Language.CUDA
    assert language_for("x.hip") is Language.CPP
    assert language_for("m.py") is Language.PYTHON
    assert language_for("README.md") is None
