"""Python files: the CUDA held in strings is translated; the Python itself is only reported on.

- `torch.cuda` is PyTorch's ROCm API too (device strings stay "cuda", `torch.cuda.is_available()`
  stays; ROCm is told apart by `torch.version.hip`), so no Python identifier is ever renamed.
- CUDA C++ in string literals given to `torch.utils.cpp_extension.load_inline` (cpp_sources,
  cuda_sources) and CuPy `RawKernel` / `RawModule` (code) is translated in place, also when the call
  names a variable assigned a string (or list of strings) elsewhere in the module.
- nvcc-only flags in `extra_cuda_cflags`, `CUDA_VISIBLE_DEVICES`, and hard-coded device ordinals
  ("cuda:1", `.cuda(1)`, `set_device(1)`) are reported.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from ..buildsys.rules import flag_notes
from ..model import Report, ReportKind, Translation, TranslationMode
from ..pyscan import AstOffsets, string_literals
from ..source import Source

# nvcc flag -> what to use with hipcc: one table for Makefiles, CMake and Python builds
# (engine/buildsys/rules.toml [[flag]], each row with its source).
NVCC_FLAGS: dict[str, str] = flag_notes()

_INLINE_FUNCS = {"load_inline": (("cpp_sources", 1), ("cuda_sources", 2)),
                 "RawKernel": (("code", 0),), "RawModule": (("code", 0),)}
_ORDINAL_STR = re.compile(r"^cuda:(\d+)$")


def _func_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def translate_python(source: Source, options: Any, translate_text: Callable[..., Any]) -> Translation:
    """Translate the CUDA held in `source`'s strings with `translate_text` (translate/driver.py's C++
    translator, passed in so that this module does not import the driver, which imports it)."""
    text = source.text
    stats: dict[str, int] = {"lines": len(source.line_starts)}
    py = _PythonFile(source)
    try:
        tree = ast.parse(text.replace("\r\n", "\n") if "\r" in text else text)
    except SyntaxError as err:
        py.rep(ReportKind.INFO, "python", 0, 0, f"not valid Python ({err.msg}, line {err.lineno}); left unchanged")
        return Translation(source, (), tuple(py.reports), TranslationMode.TOKENS, stats)
    except (MemoryError, RecursionError, ValueError):
        # CPython's parser gives up on very deep nesting ("((((..." thousands deep) with MemoryError
        py.rep(ReportKind.INFO, "python", 0, 0, "Python too deeply nested for the parser; left unchanged")
        return Translation(source, (), tuple(py.reports), TranslationMode.TOKENS, stats)
    py.read_assignments(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            py.call(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            py.string_constant(node, node.value)
    for dn in py.dynamic:
        py.rep(ReportKind.MANUAL, "cuda source", py.off(dn.lineno, dn.col_offset),
               py.off(dn.end_lineno or dn.lineno, dn.end_col_offset or 0),
               "CUDA source built at run time (f-string or .format): not translated; translate its pieces "
               "or the generated text")
    edits = []
    lowered = 0
    for body_start, lex in py.embedded_sources():
        out = translate_text(lex, options, source.line_col, base=body_start, cuda_file=False,
                             insert_runtime=False, newline=source.newline)
        edits.extend(out.edits)
        py.reports.extend(out.reports)
        for k2, v in out.stats.items():
            stats[k2] = stats.get(k2, 0) + v
        lowered += 1
    stats["embedded_sources"] = lowered
    return Translation(source, tuple(sorted(edits, key=lambda x: (x.start, x.end))),
                       tuple(sorted(py.reports, key=lambda r: (r.start, r.end))), TranslationMode.TOKENS, stats)


class _PythonFile:
    """One Python module's reports and what its walk collects: the strings that hold CUDA code, the
    ones built at run time, and the module's assignments (a call may name a variable)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.reports: list[Report] = []
        self.off = AstOffsets(source.text)
        self.assigns: dict[str, list[ast.expr]] = {}
        self.dynamic: list[ast.expr] = []  # CUDA source built at run time (f-strings, .format): reported
        self.code_nodes: dict[int, ast.Constant] = {}

    def rep(self, kind: ReportKind, name: str, s: int, e: int, msg: str) -> None:
        line, col = self.source.line_col(s)
        self.reports.append(Report(kind, name, s, e, line, col, msg))

    def span(self, node: ast.expr) -> tuple[int, int]:
        return (self.off(node.lineno, node.col_offset),
                self.off(node.end_lineno or node.lineno, node.end_col_offset or 0))

    def read_assignments(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.assigns.setdefault(t.id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.assigns.setdefault(node.target.id, []).append(node.value)

    def str_nodes(self, e: ast.expr, depth: int = 0) -> list[ast.Constant]:
        """The string constants expression `e` is made of (through names assigned in the module)."""
        if depth > 5:
            return []
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return [e]
        if isinstance(e, ast.JoinedStr) or (isinstance(e, ast.Call) and _func_name(e.func) in ("format", "replace")):
            self.dynamic.append(e)
            return []
        if isinstance(e, (ast.List, ast.Tuple)):
            return [c for x in e.elts for c in self.str_nodes(x, depth + 1)]
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            return self.str_nodes(e.left, depth + 1) + self.str_nodes(e.right, depth + 1)
        if isinstance(e, ast.Name):
            return [c for v in self.assigns.get(e.id, []) for c in self.str_nodes(v, depth + 1)]
        return []

    def call(self, node: ast.Call) -> None:
        """Inline CUDA sources, nvcc flags and hard-coded device ordinals of one call."""
        fname = _func_name(node.func)
        for kw_name, pos in _INLINE_FUNCS.get(fname, ()):
            exprs = [k.value for k in node.keywords if k.arg == kw_name]
            if len(node.args) > pos:
                exprs.append(node.args[pos])
            for ex in exprs:
                for c in self.str_nodes(ex):
                    self.code_nodes[id(c)] = c
        for k in node.keywords:
            if k.arg in ("extra_cuda_cflags", "extra_compile_args", "options"):
                _check_flags(k.value, self.off, self.rep, self.assigns)
        if fname in ("cuda", "set_device") and node.args:
            a = node.args[0]
            if isinstance(a, ast.Constant) and isinstance(a.value, int) and not isinstance(a.value, bool):
                self.rep(ReportKind.PYTHON, f"{fname}({a.value})", *self.span(a),
                         f"hard-coded device ordinal {a.value}: HIP_VISIBLE_DEVICES renumbers GPUs; "
                         "take the ordinal from configuration")

    def string_constant(self, node: ast.Constant, value: str) -> None:
        if value == "CUDA_VISIBLE_DEVICES":
            self.rep(ReportKind.PYTHON, "CUDA_VISIBLE_DEVICES", *self.span(node),
                     "on ROCm set HIP_VISIBLE_DEVICES (one visibility variable; setting both can mask GPUs twice)")
        elif m := _ORDINAL_STR.match(value):
            self.rep(ReportKind.PYTHON, value, *self.span(node),
                     f"hard-coded device ordinal {m.group(1)} (the device string 'cuda' itself is right on "
                     "ROCm); HIP_VISIBLE_DEVICES renumbers GPUs")

    def embedded_sources(self) -> list[tuple[int, str]]:
        """(offset, text for the C++ lexer) of each plain string literal inside the code nodes."""
        text = self.source.text
        strtoks = string_literals(text)
        found: list[tuple[int, str]] = []
        for c in self.code_nodes.values():
            s, e = self.span(c)
            for st in strtoks:
                if st.start < s or st.end > e or not st.plain_text:
                    continue
                body = text[st.body_start : st.body_end]
                found.append((st.body_start, body if st.raw else _mask_escapes(body)))
        return found


def _mask_escapes(body: str) -> str:
    """Same-length stand-in of a non-raw Python string body for the C++ lexer: `\\n` becomes a
    real line break (so `//` comments and directives end where the C++ sees them end)."""
    def sub(m: re.Match[str]) -> str:
        c = m.group(1)
        if c == "n":
            return " \n"
        if c in "tr":
            return "  "
        if c in "\"'":
            return " " + c
        if c in "\\\n":
            return m.group()
        return " " + c

    return re.sub(r"\\([\s\S])", sub, body)


def _check_flags(value: ast.expr, off: Any, rep: Any, assigns: dict[str, list[ast.expr]]) -> None:
    nodes: list[ast.expr] = [value]
    if isinstance(value, ast.Name):
        nodes = list(assigns.get(value.id, []))
    if isinstance(value, ast.Dict):  # extra_compile_args={"nvcc": [...], "cxx": [...]}
        nodes = [v for k, v in zip(value.keys, value.values, strict=True)
                 if isinstance(k, ast.Constant) and k.value == "nvcc"]
    for n in nodes:
        elts = n.elts if isinstance(n, (ast.List, ast.Tuple)) else []
        for el in elts:
            if not (isinstance(el, ast.Constant) and isinstance(el.value, str)):
                continue
            flag = el.value.strip()
            key = re.split(r"[= ]", flag, maxsplit=1)[0]
            meaning = NVCC_FLAGS.get(key)
            if meaning is None and key.startswith("-arch"):
                meaning = NVCC_FLAGS["-arch"]
            if meaning is None:
                continue
            s = off(el.lineno, el.col_offset)
            e = off(el.end_lineno or el.lineno, el.end_col_offset or 0)
            rep(ReportKind.PYTHON, flag, s, e, f"nvcc flag {flag!r}: {meaning}")
