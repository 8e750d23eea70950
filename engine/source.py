"""Reading source files safely: encoding, BOM, newline style, binary refusal, language.

The text keeps its newlines exactly as they are (CRLF stays CRLF), so a file with nothing to
translate renders back to the very same bytes.
"""

from __future__ import annotations

import codecs
import stat
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path, PurePath

from .edits import line_starts, offset_to_line_col


class Language(StrEnum):
    CUDA = "cuda"      # .cu .cuh
    CPP = "cpp"        # .cpp .cc .cxx .h .hpp .inl .hip (HIP/C++ host or device)
    PYTHON = "python"  # .py
    MAKE = "make"      # Makefile, makefile, GNUmakefile, *.mk (engine/buildsys)
    CMAKE = "cmake"    # CMakeLists.txt, *.cmake (engine/buildsys)


EXTENSIONS: dict[str, Language] = {
    ".cu": Language.CUDA,
    ".cuh": Language.CUDA,
    ".cpp": Language.CPP,
    ".cc": Language.CPP,
    ".cxx": Language.CPP,
    ".c": Language.CPP,
    ".h": Language.CPP,
    ".hpp": Language.CPP,
    ".hh": Language.CPP,
    ".inl": Language.CPP,
    ".hip": Language.CPP,
    ".py": Language.PYTHON,
    ".mk": Language.MAKE,
    ".cmake": Language.CMAKE,
}
# build scripts known by their whole name (engine/buildsys translates them)
NAMES: dict[str, Language] = {
    "Makefile": Language.MAKE,
    "makefile": Language.MAKE,
    "GNUmakefile": Language.MAKE,
    "CMakeLists.txt": Language.CMAKE,
}
BUILD_LANGUAGES = frozenset({Language.MAKE, Language.CMAKE})

# Files larger than this are refused with a clear message (a 50 MB source is accepted).
MAX_BYTES = 256 * 1024 * 1024


class SourceError(Exception):
    """A file hipport will not read; the message is one line a person can act on."""


def language_for(path: str | Path) -> Language | None:
    if isinstance(path, PurePath):
        name = path.name
    else:  # a plain string: no Path built (discover asks for every file name of a 5,000-file tree)
        name = path.rsplit("/", 1)[-1]
        if name in ("", "."):  # rare ('dir/', 'dir/.'): pathlib's own answer
            name = PurePath(path).name
    i = name.rfind(".")
    suffix = name[i:] if 0 < i < len(name) - 1 else ""  # PurePath.suffix
    return NAMES.get(name) or EXTENSIONS.get(suffix.lower())


@dataclass(frozen=True)
class Source:
    """One source text as read from disk (or given in memory)."""

    text: str
    path: Path | None = None
    language: Language = Language.CUDA
    encoding: str = "utf-8"  # codec used to write back: "utf-8" or "latin-1"
    bom: bool = False        # a UTF-8 BOM was present and is written back
    raw: bytes | None = field(default=None, repr=False, compare=False)

    @cached_property
    def line_starts(self) -> list[int]:
        return line_starts(self.text)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a str offset."""
        return offset_to_line_col(self.line_starts, offset)

    @cached_property
    def newline(self) -> str:
        """The dominant newline style, used for inserted lines (counted once per Source: the warp
        analysis asks for it at every edit it makes)."""
        crlf = self.text.count("\r\n")
        lf = self.text.count("\n") - crlf
        return "\r\n" if crlf > lf else "\n"

    def encode(self, text: str) -> bytes:
        """Encode rendered text the way the original was encoded (BOM and codec kept)."""
        data = text.encode(self.encoding)
        return (codecs.BOM_UTF8 + data) if self.bom else data

    @classmethod
    def from_text(cls, text: str, path: str | Path | None = None, language: Language | None = None) -> Source:
        p = Path(path) if path is not None else None
        lang = language or (language_for(p) if p else None) or Language.CUDA
        return cls(text=text, path=p, language=lang)


def decode_bytes(data: bytes, where: str = "<memory>") -> tuple[str, str, bool]:
    """Return (text, encoding, bom). Refuses binary data; Latin-1 is kept as Latin-1."""
    if b"\x00" in data[:8192]:
        raise SourceError(f"{where}: looks like a binary file (NUL bytes); not translated")
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode("utf-8"), "utf-8", bom
    except UnicodeDecodeError:
        # Latin-1 decodes any byte sequence and round-trips it exactly.
        return data.decode("latin-1"), "latin-1", bom


def read_source(path: str | Path, language: Language | None = None) -> Source:
    """Read a file for translation. Raises SourceError with a one-line message."""
    p = Path(path)
    try:
        if p.is_dir():
            raise SourceError(f"{p}: is a directory")
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            # a FIFO would block forever and /dev/zero never ends: never open them
            raise SourceError(f"{p}: not a regular file (a pipe, socket or device); not read")
        size = st.st_size
        if size > MAX_BYTES:
            raise SourceError(f"{p}: {size} bytes is larger than the {MAX_BYTES} byte limit")
        with p.open("rb") as f:
            data = f.read(MAX_BYTES + 1)  # the file may have grown since stat()
        if len(data) > MAX_BYTES:
            raise SourceError(f"{p}: larger than the {MAX_BYTES} byte limit")
    except FileNotFoundError:
        raise SourceError(f"{p}: no such file") from None
    except PermissionError:
        raise SourceError(f"{p}: permission denied (cannot read)") from None
    except IsADirectoryError:
        raise SourceError(f"{p}: is a directory") from None
    except OSError as e:
        raise SourceError(f"{p}: cannot read ({e.strerror or e})") from None
    text, enc, bom = decode_bytes(data, str(p))
    lang = language or language_for(p) or Language.CPP
    return Source(text=text, path=p, language=lang, encoding=enc, bom=bom, raw=data)
