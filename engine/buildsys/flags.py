"""nvcc command-line words -> hipcc words, as edits on the original text. Shared by the Makefile and
the CMake translators (the rules are data: rules.toml [[flag]], [[library]], [paths], [compilers]).

The caller cuts a command line (a Makefile logical line, a CMake argument) into `Word`s with offsets
into the original text and hands them over in order; `FlagTranslator.words()` returns nothing, it
collects edits and reports on the translator.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..edits import Edit
from ..model import ReportKind
from .rules import FlagRule, Rules, rules

_VAR_REF = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]")
_PLAIN_WORD = re.compile(r"\S+")
_CU = re.compile(r"\.cu(?![A-Za-z0-9_])")
_PATHLIKE = re.compile(r"[A-Za-z0-9_./+-]+\.[A-Za-z0-9]+")
_SM = re.compile(r"^(?:sm_|compute_|lto_|cc)?(\d{2,3}[a-z]?)$")
# nvcc warning kinds for -Werror=<kind> (nvcc docs, --Werror)
_NVCC_WERROR = {"cross-execution-space-call", "reorder", "default-stream-launch", "missing-launch-bounds",
                "ext-lambda-captures-this", "deprecated-declarations", "all-warnings"}

ReportFn = Callable[[ReportKind, str, int, int, str], None]


@dataclass(frozen=True, slots=True)
class Word:
    start: int
    end: int
    text: str


def split_words(text: str, start: int, end: int) -> list[Word]:
    """Shell/make words of text[start:end]: quotes and $(...)/${...} (balanced, spaces allowed, e.g.
    `$(shell find . -name x)`) stay inside one word; a line-continuation backslash is not a word."""
    out: list[Word] = []
    chunk = text[start:end]
    if not any(c in chunk for c in ("\"", "'", "$(", "${")):  # the common case: plain blank-separated words
        words = (_unglue(text, m.start(), m.end()) for m in _PLAIN_WORD.finditer(text, start, end)
                 if m.group() != "\\")
        return [Word(a, b, text[a:b]) for a, b in words if b > a]
    i = start
    while i < end:
        c = text[i]
        if c.isspace() or (c == "\\" and (i + 1 >= end or text[i + 1] in "\r\n")):
            i += 1
            continue
        j = i
        while j < end and not text[j].isspace():
            c = text[j]
            if c in "\"'":
                k = text.find(c, j + 1, end)
                while c == '"' and k > 0 and text[k - 1] == "\\":
                    k = text.find(c, k + 1, end)
                j = end if k < 0 else k + 1
            elif c == "$" and j + 1 < end and text[j + 1] in "({":
                j = _balanced(text, j + 1, end)
            else:
                j += 1
        a, b = _unglue(text, i, j)
        if b > a:
            out.append(Word(a, b, text[a:b]))
        i = j
    return out


def _unglue(text: str, start: int, end: int) -> tuple[int, int]:
    """A word that ends a physical line with an odd run of backslashes (`-arch=$(ARCH)\\`) ends before
    the last one: that backslash is make's line continuation, glued to the flag, not part of it."""
    if end > start and text[end - 1] == "\\" and text.startswith(("\n", "\r\n"), end):
        run = len(text[start:end]) - len(text[start:end].rstrip("\\"))
        if run % 2 == 1:
            return start, end - 1
    return start, end


def _balanced(text: str, i: int, end: int) -> int:
    """text[i] is '(' or '{': offset after its match (or `end`)."""
    opening = text[i]
    closing = ")" if opening == "(" else "}"
    depth = 0
    while i < end:
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return end


@functools.lru_cache(maxsize=64)
def _path_var_regex(names: tuple[str, ...], skip: frozenset[str]) -> re.Pattern[str] | None:
    alts = "|".join(re.escape(v) for v in names if v not in skip)
    return re.compile(rf"(\$[({{]|\b)({alts})\b") if alts else None


def unquote(s: str) -> str:
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        return s[1:-1]
    return s.replace('\\"', '"').replace('"', "")


def arch_numbers(value: str) -> list[str]:
    """sm_70 / compute_70 / "arch=compute_70,code=[sm_70,compute_70]" / cc70 -> ["70"] (order kept)."""
    found: list[str] = []
    for part in re.split(r"[\s,=\[\]\"'\\;]+", value):
        m = _SM.match(part)
        if m and m.group(1) not in found:
            found.append(m.group(1))
    return found


@dataclass
class FlagTranslator:
    """Translates the words of nvcc command lines. One per build file."""

    text: str
    archs: tuple[str, ...]
    report: ReportFn
    roc: bool = False
    # make variables that hold the GPU architecture (from -arch=$(ARCH)); the caller rewrites their values
    arch_vars: set[str] = field(default_factory=set)
    make_syntax: bool = True  # $(addprefix ...) for a variable holding several archs
    sibling: bool = False     # outputs are siblings (gemm.cu -> gemm.hip): `.cu` names become `.hip`
    user_vars: frozenset[str] = frozenset()  # CUDA_PATH & co. the project uses for its own folders
    # sibling outputs of one conversion (absolute paths, as TranslateOptions.sibling_outputs) and the
    # build file's folder: a word naming one of those files gets that file's output name
    sibling_files: frozenset[str] = frozenset()
    base_dir: str = ""
    edits: list[Edit] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    r: Rules = field(default_factory=rules)
    rdc: bool = False  # relocatable device code was asked for (-rdc=true, -dc): link with -fgpu-rdc too
    _arch_done: bool = False

    # ------------------------------------------------------------------------------------ helpers

    def _edit(self, start: int, end: int, new: str, rule: str, note: str = "") -> None:
        if not new:  # a removed word takes the blanks before it along (no double spaces left behind)
            t = self.text
            while start > 0 and t[start - 1] in " \t" and not (
                    t[start - 1] == "\t" and (start == 1 or t[start - 2] in "\r\n")):  # a recipe's TAB stays
                start -= 1
        self.edits.append(Edit(start, end, new, f"build-{rule}", note))
        self.stats[rule] = self.stats.get(rule, 0) + 1

    def offload_flags(self) -> str:
        return " ".join(f"--offload-arch={a}" for a in self.archs)

    def new_line(self) -> None:
        """A new command line begins: its first arch flag emits the offload-arch list again."""
        self._arch_done = False

    def rewrite_paths(self, s: str) -> str:
        """CUDA toolkit variables and prefixes in a string -> ROCm ones."""
        r = self.r
        rx = _path_var_regex(r.path_variables, self.user_vars)
        if rx is not None:
            s = rx.sub(lambda m: m.group(1) + r.hip_variable, s)
        s = r.cuda_prefix.sub(r.hip_prefix, s)
        if self.sibling:
            s = self._sibling_names(s)
        return re.sub(rf"({re.escape(r.hip_prefix)}|\$[({{]{r.hip_variable}[)}}])/{r.cuda_libdir}\b",
                      rf"\1/{r.hip_libdir}", s)

    def _sibling_names(self, s: str) -> str:
        """Names of files of the conversion -> their sibling outputs (engine/outputs.sibling_name, the one
        naming rule); `.cu` patterns (%.cu, *.cu, $(src:.cu=.o)) -> `.hip`, as every .cu gets a .hip."""
        from ..outputs import sibling_name

        if self.sibling_files and self.base_dir:
            def one(m: re.Match[str]) -> str:
                token = m.group()
                full = os.path.normpath(os.path.join(self.base_dir, token))
                if full in self.sibling_files:
                    head, _, name = token.rpartition("/")
                    return (head + "/" if head else "") + sibling_name(name)
                return token
            s = _PATHLIKE.sub(one, s)
        return _CU.sub(".hip", s)

    def path_edit(self, w: Word, host: bool = False) -> bool:
        """CUDA locations in a word -> ROCm ones. `host`: the word is outside nvcc commands."""
        new = self.rewrite_paths(w.text)
        if (host and new != w.text and w.text.startswith("-I") and re.search(r"/include/?$", new)
                and re.search(rf"^-I(?:{re.escape(self.r.hip_prefix)}|\$[({{]{self.r.hip_variable}[)}}])", new)):
            # the toolkit's include folder named for a host compiler (g++ builds .cpp files including
            # CUDA headers): HIP's headers then need the platform macro (harmless under hipcc)
            new += " " + self.r.c_source_flag
        if new != w.text:
            self._edit(w.start, w.end, new, "path", "CUDA toolkit location -> ROCm (ROCM_PATH)"
                       if not self.sibling or _CU.sub(".hip", w.text) != new else ".cu -> .hip (sibling outputs)")
            return True
        return False

    # ------------------------------------------------------------------------------------ words

    def compiler(self, w: Word) -> bool:
        """nvcc (or a path to it) -> hipcc; NVIDIA HPC compilers reported. True when `w` was one."""
        if "$(shell" in w.text and re.search(r"\bnvcc\b", w.text):  # $(shell dirname $$(command -v nvcc))
            new = self.rewrite_paths(re.sub(r"\bnvcc\b", "hipcc", w.text))
            self._edit(w.start, w.end, new, "compiler", "nvcc -> hipcc")
            return True
        base = w.text.rsplit("/", 1)[-1]
        hip = self.r.compilers.get(base)
        if hip is not None:
            new = self.rewrite_paths(w.text[: len(w.text) - len(base)]) + hip
            self._edit(w.start, w.end, new, "compiler", f"{base} -> {hip}")
            return True
        if base in self.r.report_compilers:
            self.report(ReportKind.MANUAL, base, w.start, w.end, f"{base}: {self.r.report_compiler_note}")
            return True
        return False

    def words(self, ws: Sequence[Word], *, check_unknown: bool = True) -> None:
        """Translate the flag words of one command line (or one flags variable's value)."""
        i = 0
        n = len(ws)
        while i < n:
            w = ws[i]
            t = unquote(w.text) if w.text[:1] in "\"'" else w.text
            if not t.startswith("-") or t in ("-", "--") or t.startswith("-$"):
                if not self.compiler(w):
                    self.path_edit(w)
                i += 1
                continue
            name, eq, joined = t.partition("=")
            rule = self.r.flags.get(name)
            if rule is not None and rule.value == "joined" and not eq:
                rule = None
            if rule is None:
                i += self._plain(ws, i, t, check_unknown)
                continue
            value = joined
            used = 1
            if not eq and rule.value == "either":
                if i + 1 < n:
                    value = ws[i + 1].text
                    used = 2
                else:
                    self.report(ReportKind.UNKNOWN, name, w.start, w.end,
                                f"nvcc flag {name!r} without its value at the end of the line")
                    i += 1
                    continue
            last = ws[i + used - 1]
            self._apply(rule, name, unquote(value), w, last)
            i += used

    def _plain(self, ws: Sequence[Word], i: int, t: str, check_unknown: bool) -> int:
        """A word that is no nvcc rule: a library, a passthrough flag, or unknown. Returns words used."""
        w = ws[i]
        if t.startswith("-l"):
            lib = t[2:]
            nxt = 1
            if not lib and i + 1 < len(ws):
                lib, nxt = ws[i + 1].text, 2
            self._library(lib, w, ws[i + nxt - 1])
            return nxt
        if t in self.r.separate_value and i + 1 < len(ws):
            self.path_edit(ws[i + 1])
            return 2
        if self.r.passthrough.fullmatch(t):
            self.path_edit(w)
            return 1
        if check_unknown:
            self.report(ReportKind.UNKNOWN, t, w.start, w.end,
                        f"flag {t!r}: not a known nvcc or clang flag; check what hipcc should get")
        return 1

    def library_word(self, w: Word) -> bool:
        """-l<cuda lib> outside an nvcc command (a link by mpicxx, g++, ...). True when translated."""
        if w.text.startswith("-l") and w.text[2:] in self.r.libraries:
            self._library(w.text[2:], w, w, outside=True)
            return True
        return False

    def _library(self, lib: str, first: Word, last: Word, outside: bool = False) -> None:
        rule = self.r.libraries.get(lib)
        if rule is None:
            if re.match(r"(cu|nv|cuda)", lib):
                self.report(ReportKind.UNKNOWN, f"-l{lib}", first.start, last.end,
                            f"-l{lib}: a CUDA library with no HIP library in hipport's table")
            return
        hip = rule.lib(self.roc) or (rule.link if outside else "")
        note = rule.note or (f"-l{lib} -> -l{hip}" if hip else f"-l{lib}: hipcc links the HIP runtime itself")
        if outside and rule.link and hip == rule.link:
            note = f"-l{lib} -> -l{hip}: linked by a program other than hipcc, which needs the HIP runtime"
        self._edit(first.start, last.end, f"-l{hip}" if hip else "", "lib", note)

    def _apply(self, rule: FlagRule, name: str, value: str, first: Word, last: Word) -> None:
        a = rule.action
        if a == "report":
            self.report(ReportKind.MANUAL, name, first.start, last.end, f"nvcc flag {name!r}: {rule.note}")
            return
        if a == "arch":
            self._edit(first.start, last.end, self._arch(value), "arch", rule.note)
            return
        if a == "unwrap":
            items = [x for x in re.split(r"[,\s]+", value) if x]
            self._edit(first.start, last.end, self.rewrite_paths(" ".join(items)), "flag", rule.note)
            return
        new = rule.hip
        if "{rdc}" in new:
            new = "-fgpu-rdc" if value.lower() in ("true", "") else "-fno-gpu-rdc"
            self.rdc = self.rdc or new == "-fgpu-rdc"
        elif "-fgpu-rdc" in new:
            self.rdc = True
        elif "{stream}" in new:
            new = "-fgpu-default-stream=per-thread" if value == "per-thread" else ""
        elif "{ftz}" in new:
            new = "-fgpu-flush-denormals-to-zero" if value.lower() == "true" else ""
        elif "{werror}" in new:
            kinds = [k for k in value.split(",") if k and k not in _NVCC_WERROR]
            new = f"-Werror={','.join(kinds)}" if kinds else ""
        elif "{lang}" in new:
            new = "-x hip" if value in ("cu", "cuda") else f"-x {value}"
        else:
            new = new.replace("{value}", value)
        self._edit(first.start, last.end, self.rewrite_paths(new), "flag", rule.note)

    def _arch(self, value: str) -> str:
        """The replacement of one arch flag: the offload list once per command line."""
        if not self.make_syntax:  # CMake: HIP_ARCHITECTURES / CMAKE_HIP_ARCHITECTURES give the targets
            return ""
        names = {m.group(1) for m in _VAR_REF.finditer(value)}
        if len(names) == 1 and not arch_numbers(value):  # -arch=$(ARCH), -arch=sm_$(SM), -gencode ...$(SM)
            var = names.pop()
            self.arch_vars.add(var)
            ref = f"$({var})" if self.make_syntax else f"${{{var}}}"
            if len(self.archs) > 1 and self.make_syntax:
                return f"$(addprefix --offload-arch=,{ref})"
            return f"--offload-arch={ref}"
        if self._arch_done:
            return ""
        self._arch_done = True
        return self.offload_flags()
