"""GNU Makefiles: nvcc build -> hipcc build, as edits on the original text.

What is translated, and only on nvcc command lines (recipes that run nvcc or a variable holding it)
and in the variables such lines use (transitively): nvcc flags, -gencode/-arch, CUDA libraries
(rules.toml). Everywhere: CUDA toolkit variables and prefixes (CUDA_PATH -> ROCM_PATH,
/usr/local/cuda -> /opt/rocm), `nvcc` -> `hipcc`, NVIDIA tools reported. A variable the arch flag
names (`-arch=$(ARCH)`, `ARCH = sm_60`) gets the target gfx list as its value, so `make ARCH=gfx90a`
still overrides it. `.cu` sources keep their names (hipcc compiles .cu as HIP) unless the outputs are
siblings (gemm.cu -> gemm.hip), then `.cu` in the Makefile becomes `.hip`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..edits import Edit
from ..model import ReportKind
from .flags import FlagTranslator, Word, arch_numbers, split_words
from .rules import Rules

_ASSIGN = re.compile(r"[ \t]*(?:(?:export|override|private)[ \t]+)*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*"
                     r"(::?=|:::=|\?=|\+=|!=|=)")
_DIRECTIVE = re.compile(r"[ \t]*(ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|define|endef|"
                        r"export|unexport|override|vpath)\b")
_KEYWORDS = frozenset({"define", "endef", "export", "unexport", "override", "private", "include", "vpath",
                       "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif"})
_REF = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)")
_C_SOURCE = re.compile(r"^[^-$%\s]\S*\.c$")  # a C source named on an nvcc line
_CONT = re.compile(r"(\\+)\r?$")


@dataclass(frozen=True, slots=True)
class Line:
    start: int       # logical line (continuations joined), offsets in the text
    end: int         # end of the code (before a comment and the newline)
    recipe: bool
    assign: str      # variable name for an assignment, else ""
    value_start: int  # for an assignment: where the value begins


def _code_end(text: str, start: int, end: int) -> int:
    """End of the code on a logical line: before an unescaped '#'."""
    i = start
    while True:
        j = text.find("#", i, end)
        if j < 0:
            return end
        if j > start and text[j - 1] == "\\":
            i = j + 1
            continue
        return j


def logical_lines(text: str) -> list[Line]:
    lines: list[Line] = []
    pos = 0
    n = len(text)
    in_rule = False
    while pos < n:
        start = pos
        while True:
            nl = text.find("\n", pos)
            end = n if nl < 0 else nl
            m = _CONT.search(text, pos, end)
            pos = n if nl < 0 else nl + 1
            if m and len(m.group(1)) % 2 == 1 and pos < n:
                continue
            break
        body_end = end - 1 if end > start and text[end - 1] == "\r" else end
        code_end = _code_end(text, start, body_end)
        first = text[start:code_end]
        tab = text.startswith("\t", start)
        recipe = tab and in_rule
        assign = ""
        vstart = 0
        if not recipe and first.strip():
            m = _ASSIGN.match(first)
            if m and m.group(1) not in _KEYWORDS:
                assign, vstart = m.group(1), start + m.end()
                in_rule = False
            elif not _DIRECTIVE.match(first):
                in_rule = ":" in re.sub(r"\$[({][^)}]*[)}]", "", first)
        lines.append(Line(start, code_end, recipe, assign, vstart))
    return lines


def _first_command_word(ws: list[Word]) -> Word | None:
    for w in ws:
        t = w.text.lstrip("@+-")
        if t:
            return w
    return None


def translate_makefile(text: str, ft: FlagTranslator) -> None:
    """Fill `ft` (edits, reports, stats) for a Makefile."""
    mk = _Makefile.read(text, ft.r)
    # a toolkit variable assigned a relative path is the project's own folder (minimap2: CUDA_PATH = device)
    ft.user_vars = frozenset(v for v in ft.r.path_variables for ln in mk.values.get(v, ())
                             if (ws := mk.value_words(ln)) and not ws[0].text.startswith(("/", "$", "~")))
    path_vars = set(ft.r.path_variables) - ft.user_vars
    later: list[Line] = []
    for i, ln in enumerate(mk.lines):
        if ln.assign and ln.assign in path_vars:
            _path_variable(ft, mk, ln)
        elif ln.assign and i not in mk.compile_lines and (
                ln.assign not in mk.context or _arch_like(mk.value_words(ln))):
            later.append(ln)  # after every command line: an arch flag may name this variable
        elif ln.assign or i in mk.compile_lines:
            _compile_line(ft, mk, ln)
        else:
            for w in split_words(text, ln.start, ln.end):
                if ln.recipe:
                    _tool(ft, w)
                if not ft.compiler(w) and not ft.library_word(w):
                    ft.path_edit(w, host=True)
    # assignments outside the nvcc context: arch variables get the gfx list, the rest only paths
    for ln in later:
        _later_assignment(ft, mk, ln)
    if ft.rdc:  # device code linked across objects: every hipcc call, the link included, needs -fgpu-rdc
        for k, e in enumerate(ft.edits):
            if e.rule == "build-compiler" and e.replacement.endswith("hipcc"):
                ft.edits[k] = Edit(e.start, e.end, e.replacement + " -fgpu-rdc", e.rule,
                                   e.note + "; -fgpu-rdc: the Makefile builds relocatable device code (-dc/-rdc)")


@dataclass
class _Makefile:
    """What a Makefile's lines say about its nvcc build: the variables holding the compiler, the
    lines that run it, and every variable those lines use (transitively: the nvcc context)."""
    text: str
    lines: list[Line]
    values: dict[str, list[Line]]   # variable -> its assignments
    compiler_vars: set[str]
    compile_lines: set[int]         # indices into lines
    context: set[str]

    @classmethod
    def read(cls, text: str, rules: Rules) -> _Makefile:
        lines = logical_lines(text)
        values: dict[str, list[Line]] = {}
        for ln in lines:
            if ln.assign:
                values.setdefault(ln.assign, []).append(ln)
        mk = cls(text, lines, values, set(), set(), set())
        mk.compiler_vars = {name for name, lns in values.items() for ln in lns
                            if (ws := mk.value_words(ln)) and _is_compiler_word(rules, ws[0])}
        for i, ln in enumerate(lines):
            if ln.assign and ln.assign in mk.compiler_vars:
                continue
            ws = split_words(text, ln.value_start if ln.assign else ln.start, ln.end)
            if (ln.recipe or ln.assign) and mk.refs_compiler(rules, ws):
                mk.compile_lines.add(i)
        mk.context = mk.used_variables()
        return mk

    def value_words(self, ln: Line) -> list[Word]:
        return split_words(self.text, ln.value_start, ln.end)

    def refs_compiler(self, rules: Rules, ws: list[Word]) -> bool:
        for w in ws:
            if _is_compiler_word(rules, w):
                return True
            if any(m.group(1) in self.compiler_vars for m in _REF.finditer(w.text)):
                return True
        return False

    def used_variables(self) -> set[str]:
        """The compiler variables and the variables compile lines use, transitively."""
        text, lines, values = self.text, self.lines, self.values
        context: set[str] = set(self.compiler_vars)
        todo = [m.group(1) for i in self.compile_lines for m in _REF.finditer(text, lines[i].start, lines[i].end)]
        todo += [m.group(1) for v in self.compiler_vars for ln in values[v]
                 for m in _REF.finditer(text, ln.value_start, ln.end)]
        while todo:
            v = todo.pop()
            if v in context or v not in values:
                continue
            context.add(v)
            for ln in values[v]:
                todo.extend(m.group(1) for m in _REF.finditer(text, ln.value_start, ln.end))
        return context


def _is_compiler_word(rules: Rules, w: Word) -> bool:
    base = w.text.lstrip("@+-").rsplit("/", 1)[-1]
    return base in rules.compilers or base in rules.report_compilers


def _path_variable(ft: FlagTranslator, mk: _Makefile, ln: Line) -> None:
    """An assignment of a toolkit path variable (CUDA_PATH = ...): renamed, its value's paths translated."""
    name_at = mk.text.index(ln.assign, ln.start)
    ft.edits.append(_rename_edit(name_at, ln.assign, ft.r.hip_variable))
    ft.stats["path"] = ft.stats.get("path", 0) + 1
    for w in mk.value_words(ln):
        if not ft.compiler(w):
            ft.path_edit(w)


def _compile_line(ft: FlagTranslator, mk: _Makefile, ln: Line) -> None:
    """A line of the nvcc context: its words translated as compiler words and flags."""
    ft.new_line()
    ws = mk.value_words(ln) if ln.assign else split_words(mk.text, ln.start, ln.end)
    ft.words(ws)
    if ln.recipe and any(_C_SOURCE.search(w.text) for w in ws):
        first = _first_command_word(ws)
        if first is not None:
            ft._edit(first.end, first.end, " " + ft.r.c_source_flag, "flag",
                     "C sources include the HIP headers only with the platform macro")


def _later_assignment(ft: FlagTranslator, mk: _Makefile, ln: Line) -> None:
    ws = mk.value_words(ln)
    if ln.assign in ft.arch_vars:
        _arch_value(ft, ln, ws)
    elif ln.assign in mk.context:
        ft.new_line()
        ft.words(ws)
    else:
        for w in ws:
            if not ft.compiler(w) and not ft.library_word(w):
                ft.path_edit(w, host=True)


def _rename_edit(at: int, old: str, new: str) -> Edit:
    return Edit(at, at + len(old), new, "build-path", f"{old} -> {new} (the ROCm root)")


def _arch_value(ft: FlagTranslator, ln: Line, ws: list[Word]) -> None:
    sm = [w for w in ws if arch_numbers(w.text)]
    if not sm:
        if ws:
            ft.report(ReportKind.MANUAL, ln.assign, ws[0].start, ws[-1].end,
                      f"{ln.assign} is used as the GPU architecture but holds no sm_NN value; "
                      f"set it to {' '.join(ft.archs)}")
        return
    ft._edit(sm[0].start, sm[0].end, " ".join(ft.archs), "arch",
             f"{ln.assign}: the target GPU architectures (override with make {ln.assign}=<gfx>)")
    for w in sm[1:]:
        ft._edit(w.start, w.end, "", "arch", "one gfx list replaces the sm_NN list")


def _arch_like(ws: list[Word]) -> bool:
    """A value such as `sm_60` or `70` (no flags): possibly the variable an arch flag names."""
    return bool(ws) and not any(w.text.startswith("-") for w in ws) and any(arch_numbers(w.text) for w in ws)


def _tool(ft: FlagTranslator, w: Word) -> None:
    base = w.text.lstrip("@+-").rsplit("/", 1)[-1]
    hint = ft.r.tools.get(base)
    if hint:
        ft.report(ReportKind.MANUAL, base, w.start, w.end, f"NVIDIA tool {base}: on ROCm use {hint}")


__all__ = ["Line", "logical_lines", "translate_makefile"]
