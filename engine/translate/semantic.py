"""AST mode: libclang resolves what tokens cannot (a user declaration that shares a CUDA name).

Used when a clang resource directory (Debian `libclang-common-*-dev`, ROCm's llvm, or
$HIPPORT_CLANG_RESOURCE_DIR) and CUDA headers ($CUDA_PATH, /usr/local/cuda) are found. Never
required: without them translation runs on tokens and says so.

How it parses: `-x cuda --cuda-host-only -nocudainc` with the CUDA include folder on the path and
cuda_runtime.h pre-included (clang's own CUDA wrapper headers do not accept CUDA 13's headers:
texture references were removed). Errors in the user's code do not stop it: only declarations
and references in the file itself are consulted.
"""

from __future__ import annotations

import functools
import glob
import os
import re
from pathlib import Path
from typing import Any

from ..cxx.lexer import Tokens
from ..source import Source


class SemanticError(Exception):
    """The AST could not be built; one line."""


def _version_key(p: str) -> tuple[int, ...]:
    nums = re.findall(r"\d+", p)
    return tuple(int(x) for x in nums)


@functools.cache
def find_resource_dir() -> str | None:
    env = os.environ.get("HIPPORT_CLANG_RESOURCE_DIR")
    if env:
        return env if os.path.isdir(os.path.join(env, "include")) else None
    cands = glob.glob("/usr/lib/llvm-*/lib/clang/*/include/__clang_cuda_builtin_vars.h")
    cands += glob.glob("/opt/rocm*/llvm/lib/clang/*/include/__clang_cuda_builtin_vars.h")
    if not cands:
        return None
    best = max(cands, key=_version_key)
    return str(Path(best).parent.parent)


@functools.cache
def find_cuda_include() -> str | None:
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda", "/usr"):
        if root and os.path.isfile(os.path.join(root, "include", "cuda_runtime.h")):
            return os.path.join(root, "include")
    return None


@functools.cache
def unavailable_reason() -> str | None:
    """None when AST mode can run, else why not (one line)."""
    if os.environ.get("HIPPORT_NO_AST"):
        return "disabled by HIPPORT_NO_AST"
    if find_resource_dir() is None:
        return "no clang resource directory (install libclang-common-15-dev, or set HIPPORT_CLANG_RESOURCE_DIR)"
    if find_cuda_include() is None:
        return "no CUDA headers found (set CUDA_PATH); token mode needs none"
    import importlib.util

    if importlib.util.find_spec("clang") is None:  # found without importing it (~10 ms)
        return "the libclang Python package is not installed"
    return None


@functools.cache
def _index() -> Any:
    import atexit

    import clang.cindex as ci

    # free the index while libclang is still loaded (its __del__ fails during interpreter teardown)
    atexit.register(_index.cache_clear)
    return ci.Index.create()


_DECL_KINDS = {"FUNCTION_DECL", "VAR_DECL", "TYPEDEF_DECL", "TYPE_ALIAS_DECL", "STRUCT_DECL", "CLASS_DECL",
               "ENUM_DECL", "ENUM_CONSTANT_DECL", "UNION_DECL", "FUNCTION_TEMPLATE", "CLASS_TEMPLATE"}
_IDENT = re.compile(r"[A-Za-z_]\w*")


def declared_candidates(text: str, names: frozenset[str], toks: Tokens | None = None) -> set[str]:
    """CUDA names that may be declared by this file: a name after a type-like token (`int cudaFoo(`,
    `struct cudaX {`). Calls and uses (`= cudaMalloc(`, `(cudaStream_t)`) are not candidates; when
    there is none the AST cannot change the translation and the file is not parsed. Set
    HIPPORT_AST_ALWAYS=1 to parse every file (benchmarks)."""
    from ..cxx.lexer import declared_names, tokenize

    if os.environ.get("HIPPORT_AST_ALWAYS"):
        return {m.group() for m in _IDENT.finditer(text)} & names
    toks = toks if toks is not None else tokenize(text)
    return declared_names(toks, names.__contains__)


def _base_args() -> list[str]:
    rd = find_resource_dir()
    inc = find_cuda_include()
    return ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17",
            "-Wno-unknown-cuda-version", "-ferror-limit=0", f"-resource-dir={rd}", f"-I{inc}"]


def parse_args(source: Source, options: Any) -> list[str]:
    """Arguments for parsing `source`: CUDA's runtime header comes from a cached precompiled header
    when possible (saves ~90 ms a file), else it is pre-included."""
    args = _base_args()
    defines = tuple(getattr(options, "defines", ()))
    pch = None if defines else _runtime_pch()
    args += ["-include-pch", pch] if pch else ["-include", "cuda_runtime.h"]
    if source.path is not None:
        args.append(f"-I{source.path.parent}")
    args += [f"-I{d}" for d in getattr(options, "include_dirs", ())]
    args += [f"-D{d}" for d in defines]
    return args


@functools.cache
def _runtime_pch() -> str | None:
    """A precompiled cuda_runtime.h for these headers and this libclang, built once and kept under
    $XDG_CACHE_HOME/hipport (or ~/.cache/hipport). None when it cannot be built or stored: the
    header is then parsed with each file. -D definitions bypass it (a PCH fixes the macros)."""
    if os.environ.get("HIPPORT_NO_PCH"):
        return None
    import hashlib
    import tempfile

    try:
        import clang.cindex as ci

        lib = str(getattr(ci.conf.lib, "_name", ""))
        lib_st = os.stat(lib) if os.path.isfile(lib) else None
        version_s = f"{lib}:{lib_st.st_mtime_ns if lib_st else 0}:{lib_st.st_size if lib_st else 0}"
        inc = find_cuda_include() or ""
        st = os.stat(os.path.join(inc, "cuda_runtime.h"))
        key = "\0".join([str(version_s), *_base_args(), str(st.st_mtime_ns), str(st.st_size)])
        digest = hashlib.sha256(key.encode()).hexdigest()[:20]
        root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(root, "hipport")
        path = os.path.join(folder, f"cuda_runtime-{digest}.pch")
        if os.path.isfile(path):
            return path
        os.makedirs(folder, exist_ok=True)
        tu = _index().parse("hipport-pch.cu", args=_base_args(),
                            unsaved_files=[("hipport-pch.cu", "#include <cuda_runtime.h>\n")],
                            options=ci.TranslationUnit.PARSE_INCOMPLETE)
        if any(d.severity >= 3 for d in tu.diagnostics):
            return None
        fd, tmp = tempfile.mkstemp(prefix=".cuda_runtime-", suffix=".pch", dir=folder)
        os.close(fd)
        tu.save(tmp)
        os.replace(tmp, path)  # atomic: concurrent workers never read a half-written file
        return path
    except Exception:
        return None


# libclang parses made by this process (a parse reads the file's whole include tree: the per-file
# analysis cache keeps no summary of a file that needed one)
parses = 0


def user_declared_spans(source: Source, options: Any, toks: Tokens | None = None) -> frozenset[int]:
    """Str offsets of identifier tokens that name a declaration made in this file although the name
    is a CUDA API name (the file's own `cudaMemsetD8`, a struct `cudaConfig`, ...). Those are left
    alone. Parses only when such a candidate exists: otherwise the AST cannot change anything."""
    from ..mapping import load

    mapping = load()
    names = mapping.names()
    text = source.text
    cands = declared_candidates(text, names, toks)
    # a name HIP keeps as it is (`min`, `max`) is left alone either way: no parse for it
    cands = {c for c in cands if (e := mapping.lookup(c)) is None or e.hip != c or (e.roc and e.roc != c)}
    if not cands:
        return frozenset()
    import clang.cindex as ci

    global parses
    parses += 1
    fname = str(source.path) if source.path is not None else "hipport-input.cu"
    try:
        tu = _index().parse(fname, args=parse_args(source, options), unsaved_files=[(fname, text)],
                            options=ci.TranslationUnit.PARSE_INCOMPLETE)
    except ci.TranslationUnitLoadError as e:
        raise SemanticError(f"libclang could not parse {fname}: {e}") from None

    def in_main(c: Any) -> bool:
        f = c.location.file
        return f is not None and f.name == fname

    user_names: set[str] = set()
    stack = [c for c in tu.cursor.get_children() if in_main(c)]
    while stack:
        c = stack.pop()
        if c.kind.name in _DECL_KINDS and c.spelling in cands:
            user_names.add(c.spelling)
        if c.kind.name in ("NAMESPACE", "STRUCT_DECL", "CLASS_DECL", "ENUM_DECL", "LINKAGE_SPEC", "UNEXPOSED_DECL"):
            stack.extend(c.get_children())
    if not user_names:
        return frozenset()
    data = text.encode("utf-8")
    ascii_text = len(data) == len(text)
    out: set[int] = set()
    file_obj = ci.File.from_name(tu, fname)
    for m in _IDENT.finditer(text):
        if m.group() not in user_names:
            continue
        off = m.start()
        boff = off if ascii_text else len(text[:off].encode("utf-8"))
        loc = ci.SourceLocation.from_offset(tu, file_obj, boff)
        cur = ci.Cursor.from_location(tu, loc)
        ref = cur.referenced if cur is not None else None
        target = ref if ref is not None else cur
        if target is not None and in_main(target) and target.spelling == m.group():
            out.add(off)
    return frozenset(out)
