"""AMD's hipify-clang unit tests (ROCm/HIPIFY `tests/`), replayed as AMD's lit set-up runs them.

- Selection: `lit.cfg` itself decides which files run (its `config.excludes` depend on the CUDA, LLVM
  and cuDNN versions of the build). It is executed here with a stand-in `config` describing the
  configuration HIPIFY documents for this commit (CUDA 12.6.1, LLVM 19, cuDNN 9, CUB on): 112 files.
- Each file's `// RUN:` line: `%run_test hipify "%s" "%t" %hipify_args [N OPT1..OPTN] %clang_args ARGS`
  (run_test.sh takes N hipify-clang options, the rest goes to clang after `--`).
- The output goes through `sed -Ee 's|//.+|// |g'` and then LLVM FileCheck with the test file as the
  check file.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
import types
import typing
from dataclasses import dataclass
from pathlib import Path

# ../shared beside the checkout (where CI puts its copy of shared/), unless HIPPORT_HIPIFY_TESTS says otherwise
SUITE = Path(os.environ.get("HIPPORT_HIPIFY_TESTS",
                            Path(__file__).resolve().parents[3] / "shared" / "reference" / "hipify-unit-tests"))
FILECHECK_CANDIDATES = ("/usr/lib/llvm-15/bin/FileCheck", "/usr/lib/llvm-19/bin/FileCheck", "FileCheck")

# The build configuration the selection is made for (HIPIFY's documented test set-up at this commit).
CUDA_VERSION = (12, 6)
LLVM_MAJOR = 19
CUDNN_MAJOR = 9


@dataclass(frozen=True)
class RunLine:
    hipify_options: tuple[str, ...]
    clang_args: tuple[str, ...]


class _Config:
    """What lit.cfg reads from lit.site.cfg (the values of a CUDA 12.6 / LLVM 19 / cuDNN 9 build)."""

    def __init__(self) -> None:
        self.cuda_version_full = f"{CUDA_VERSION[0]}.{CUDA_VERSION[1]}"
        self.cuda_version_major, self.cuda_version_minor = CUDA_VERSION
        self.llvm_version = str(LLVM_MAJOR)
        self.llvm_version_major = LLVM_MAJOR
        self.cudnn_version_major = CUDNN_MAJOR
        self.cuda_dnn_root = "<cudnn>"
        self.cuda_cub_root = "<cub>"
        self.cuda_sdk_root = "OFF"
        self.cuda_root = "<cuda>"
        self.clang_resource_dir = "<clang-resource-dir>"
        self.pointer_size = 8
        self.hipify_clang_tests_only = "0"
        self.hipify_install_path = ""
        self.obj_root = "<obj>"
        self.llvm_tools_dir = "<llvm-tools>"
        self.environment = {"PATH": ""}
        self.substitutions: list[tuple[str, str]] = []
        self.excludes: list[str] = []
        self.suffixes: list[str] = []


def _lit_config() -> _Config:
    """Run lit.cfg with stand-ins for lit's modules; returns the config it filled in."""
    cfg = _Config()
    stubs = {name: types.ModuleType(name) for name in ("lit", "lit.formats", "lit.util")}
    stubs["lit.formats"].ShTest = lambda *a, **k: None  # type: ignore[attr-defined]
    stubs["lit"].formats = stubs["lit.formats"]  # type: ignore[attr-defined]
    stubs["lit"].util = stubs["lit.util"]  # type: ignore[attr-defined]

    class _LitConfig:
        params: typing.ClassVar[dict[str, str]] = {}

        def load_config(self, *_a: object) -> None:
            pass

        def fatal(self, msg: str) -> None:
            raise RuntimeError(msg)

    saved = {k: sys.modules.get(k) for k in stubs}
    sys.modules.update(stubs)
    try:
        code = compile((SUITE / "lit.cfg").read_text(), str(SUITE / "lit.cfg"), "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, {"lit_config": _LitConfig(), "config": cfg, "sys": sys, "__file__": str(SUITE / "lit.cfg")})
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return cfg


def clang_args_substitution(cfg: _Config) -> str:
    return dict(cfg.substitutions).get("%clang_args", "")


def selected_tests() -> tuple[list[str], str]:
    """(paths relative to unit_tests/ that lit runs, the %clang_args substitution)."""
    cfg = _lit_config()
    root = SUITE / "unit_tests"
    out: list[str] = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in cfg.excludes)
        for f in files:
            if f not in cfg.excludes and os.path.splitext(f)[1] in cfg.suffixes:
                out.append(Path(d, f).relative_to(root).as_posix())
    return sorted(out), clang_args_substitution(cfg)


_RUN = re.compile(r"//\s*RUN:\s*(.*)")


def run_line(text: str, clang_args: str) -> RunLine:
    """The hipify-clang options and clang arguments of a test's RUN line (as run_test.sh splits them)."""
    m = _RUN.search(text)
    if m is None:
        raise ValueError("no RUN line")
    words = shlex.split(m.group(1).replace("%clang_args", clang_args))
    k = words.index("%hipify_args")
    rest = words[k + 1 :]
    opts: list[str] = []
    if rest and rest[0] in ("1", "2", "3", "4", "5"):  # run_test.sh shifts exactly N options
        n = int(rest[0])
        opts, rest = rest[1 : 1 + n], rest[1 + n :]
    return RunLine(tuple(opts), tuple(rest))


_COMMENT = re.compile(r"//.+")


def blank_comments(text: str) -> str:
    """`sed -Ee 's|//.+|// |g'`: sed works line by line, and `.` never matches a newline."""
    return _COMMENT.sub("// ", text)


def filecheck() -> str | None:
    import shutil

    for c in FILECHECK_CANDIDATES:
        p = shutil.which(c) if "/" not in c else (c if os.access(c, os.X_OK) else None)
        if p:
            return p
    return None
