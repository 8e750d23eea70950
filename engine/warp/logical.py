"""Logical 32-lane warps: the default port of a CUDA program's warp code (WAVE64.md, "Design: logical warps").

A CUDA program is written for warps of 32 lanes. Instead of inferring the role of every `32` in it,
the port runs each 64-wide wave as two logical warps of 32 lanes: every warp collective is renamed to a
helper (`logical_warp.h`) that works on the caller's 32-lane half, the program's `warpSize` and its
host queries of the warp size answer 32, PTX lane registers read the logical lane. Every 32-lane
assumption of the program (`% 32`, `lane == 31`, `partial[32]`, `unsigned b = __ballot_sync(...)`,
host launch math) is then true again by construction, on every platform: on 32-wide waves (NVIDIA,
RDNA) the helpers are the plain builtins or reduce to them.

What cannot be made exact is reported with its place (`NotExact`): halves of one wave that wait on each
other, inline PTX other than the lane registers, code that measures the hardware, coalesced groups.

Each rewrite remembers the function body it sits in: a 64-wide fix group the user accepts takes whole
functions out of the logical port (compose.py), so a function is either logical or 64-wide.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from ..cxx import brackets
from ..edits import Edit, line_starts, offset_to_line_col
from .lex import ID, NUM, STR, Columns, columns
from .scopes import find_functions

HELPERS = Path(__file__).with_name("logical_warp.h")
PART_ORDER = ("SIZE", "DEVICE", "HOST")
RULE = "logical-warp"  # Edit.rule of every rewrite and of the inserted helpers
WARP_SIZE_CONSTANT = "HIPPORT_WARP_SIZE"

# CUDA warp collectives -> the logical-warp helper of the same meaning (logical_warp.h, part DEVICE)
RENAMES: dict[str, str] = {name: "hipport_" + name[2:] for name in (
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor",
    "__ballot_sync", "__ballot", "__activemask", "__any_sync", "__all_sync", "__uni_sync", "__any", "__all",
    "__match_any_sync", "__match_all_sync",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
    "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
    "__syncwarp",
)}
PROPERTY_QUERIES = frozenset({"cudaGetDeviceProperties", "cudaGetDeviceProperties_v2", "hipGetDeviceProperties"})
ATTRIBUTE_QUERIES = frozenset({"cudaDeviceGetAttribute", "hipDeviceGetAttribute", "cuDeviceGetAttribute"})
WARP_SIZE_ATTRIBUTES = frozenset({"cudaDevAttrWarpSize", "hipDeviceAttributeWarpSize", "CU_DEVICE_ATTRIBUTE_WARP_SIZE"})
# CUB/hipCUB warp-level class templates -> the position of their LOGICAL_WARP_THREADS argument (1-based)
CUB_WARP_TYPES = {"WarpReduce": 2, "WarpScan": 2, "WarpLoad": 3, "WarpStore": 3, "WarpExchange": 3,
                  "WarpMergeSort": 3}
LAUNCHERS = frozenset({"hipLaunchKernelGGL", "cudaLaunchKernel", "hipLaunchKernel", "cudaLaunchCooperativeKernel"})
ASM_WORDS = frozenset({"asm", "__asm__", "__asm"})
ASM_QUALIFIERS = frozenset({"volatile", "__volatile__", "inline", "goto"})
LANE_REGISTER = re.compile(r"^\s*mov\.[usb]32\s+%0\s*,\s*%%?(laneid|lanemask_(?:lt|le|eq|ge|gt))\s*;?\s*$")
HARDWARE_PTX = re.compile(r"%%?(warpid|nwarpid|smid|nsmid|gridid|clock|clock64|clock_hi|globaltimer\w*)\b")
CLOCKS = frozenset({"clock", "clock64", "__clock64", "__clock"})
SPIN_ATOMICS = frozenset({"atomicCAS", "atomicExch", "atomicCAS_system", "atomicExch_system", "atomicAdd",
                          "atomicOr", "atomicAnd", "atomicMax", "atomicMin"})
# words before `warpSize` that do not make it a declaration (`return warpSize;`)
NOT_TYPES = frozenset({"return", "case", "sizeof", "else", "do", "new", "delete", "throw", "co_return",
                       "co_yield", "goto", "typename", "alignof", "decltype", "static_assert", "operator"})
TYPE_WORDS = frozenset({"int", "unsigned", "signed", "long", "short", "char", "size_t", "auto", "const",
                        "constexpr", "uint32_t", "int32_t", "uint64_t", "int64_t", "uint", "float", "double"})


@lru_cache(maxsize=1)
def helper_parts() -> dict[str, str]:
    """The helpers' fixed text per part (logical_warp.h is the one copy)."""
    found = dict(re.findall(r"// @part (\w+)\n(.*?)// @end", HELPERS.read_text(encoding="utf-8"), re.S))
    return {name: found[name].rstrip("\n") for name in PART_ORDER}


def prelude_text(parts: Collection[str], newline: str = "\n") -> str:
    """The helpers a file needs, in a fixed order, each part identical wherever it appears."""
    chosen = [helper_parts()[p] for p in PART_ORDER if p in parts]
    if not chosen:
        return ""
    return ("\n".join(chosen) + "\n").replace("\n", newline)


@dataclass(frozen=True, slots=True)
class Rewrite:
    edit: Edit
    part: str                              # the helper part it needs: SIZE | DEVICE | HOST | "" (none)
    function: tuple[int, int] | None       # offsets of the enclosing function body, None at file level
    macro: str = ""                        # the macro whose body holds it ("" when none)
    replaces_token: bool = False           # the edit replaces one whole token (the translation may rename it too)


@dataclass(frozen=True, slots=True)
class NotExact:
    """A place the logical-warp port cannot make exact: reported, never silently changed."""

    kind: str      # lockstep-wait | inline-ptx | hardware | coalesced-group
    start: int
    end: int
    line: int
    col: int
    message: str


@dataclass(frozen=True, slots=True)
class FunctionSpan:
    name: str
    start: int          # offset of the body's `{`
    end: int            # offset just past its `}`
    device: bool
    calls: frozenset[str]
    macros: frozenset[str]  # names used in the body (macro uses are among them)
    kernel: bool = False
    launches: frozenset[str] = frozenset()  # kernels it launches (`k<<<...>>>`, hipLaunchKernelGGL(k, ...))
    decl_start: int = -1  # offset of its declaration (a finding in the parameter list belongs to it)


@dataclass(frozen=True)
class LogicalWarps:
    rewrites: tuple[Rewrite, ...]
    not_exact: tuple[NotExact, ...]
    prelude_at: int
    newline: str
    functions: tuple[FunctionSpan, ...] = field(default=())
    present_parts: frozenset[str] = frozenset()  # helper parts the text already holds (a port converted again)

    def function_at(self, offset: int) -> FunctionSpan | None:
        for f in self.functions:
            if (f.decl_start if f.decl_start >= 0 else f.start) <= offset < f.end:
                return f
        return None

    def kept(self, skip_functions: Collection[tuple[int, int]] = (), skip_macros: Collection[str] = ()) -> list[Rewrite]:
        return [r for r in self.rewrites if r.function not in skip_functions and r.macro not in skip_macros]

    def edits(self, skip_functions: Collection[tuple[int, int]] = (), skip_macros: Collection[str] = ()) -> list[Edit]:
        """The rewrites outside the given function bodies and macros, with the helpers they need."""
        kept = self.kept(skip_functions, skip_macros)
        if not kept:
            return []
        text = prelude_text({r.part for r in kept if r.part} - self.present_parts, self.newline)
        out = [r.edit for r in kept]
        if text:
            out.insert(0, Edit(self.prelude_at, self.prelude_at, text, RULE, "logical-warp helpers"))
        return out


def analyze_logical(text: str, prelude_at: int, newline: str = "\n",
                    translated: Iterable[tuple[int, int]] = ()) -> LogicalWarps:
    """The logical-warp rewrites of one C/C++/CUDA text. `prelude_at`: where helpers go (after the
    runtime include; the warp analysis computes it). `translated`: spans the translation rewrites
    (an inline asm the translation already turned into HIP is not reported)."""
    found = _Scan(text, prelude_at, newline, tuple(translated)).run()
    # a port converted again: its helpers are hipport's own text, never rewritten nor inserted twice
    present = {name: (at, at + len(part)) for name, body in helper_parts().items()
               for part in [body.replace("\n", newline)] if (at := text.find(part)) >= 0}
    if not present:
        return found

    def outside(start: int, end: int) -> bool:
        return not any(a <= start and end <= b for a, b in present.values())

    return replace(found, rewrites=tuple(r for r in found.rewrites if outside(r.edit.start, r.edit.end)),
                   not_exact=tuple(x for x in found.not_exact if outside(x.start, x.end)),
                   present_parts=frozenset(present))


class _Scan:
    def __init__(self, text: str, prelude_at: int, newline: str, translated: tuple[tuple[int, int], ...]) -> None:
        self.text = text
        self.prelude_at = prelude_at
        self.newline = newline
        self.translated = translated
        self.c: Columns = columns(text)
        self.tt = self.c.texts
        self.n = len(self.c)
        self.tx = self.tt + [""] * 4
        self.pairs = brackets.match_brackets(self.tx)
        self.funcs, self.owner = find_functions(self.c, self.pairs)
        self.rewrites: list[Rewrite] = []
        self.not_exact: list[NotExact] = []
        self._line_starts: list[int] | None = None
        self.directive_word: dict[int, str] = {}   # directive index -> its word (define, include, ...)
        self.directive_name: dict[int, str] = {}   # directive index -> the macro a #define defines
        for i in range(self.n):
            d = self.c.pps[i]
            if d >= 0 and d not in self.directive_word and self.tt[i] != "#":
                self.directive_word[d] = self.tt[i]
                if self.tt[i] == "define" and i + 1 < self.n and self.c.pps[i + 1] == d:
                    self.directive_name[d] = self.tt[i + 1]

    # ------------------------------------------------------------------------------------ helpers
    def line_col(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = line_starts(self.text)
        return offset_to_line_col(self._line_starts, offset)

    def function_span(self, i: int) -> tuple[int, int] | None:
        f = self.owner[i] if 0 <= i < self.n else -1
        if f < 0:
            return None
        a, b = self.funcs[f].body
        return self.c.starts[a], self.c.ends[b]

    def macro_of(self, i: int) -> str:
        d = self.c.pps[i]
        return self.directive_name.get(d, "") if d >= 0 else ""

    def add(self, i: int, j: int, replacement: str, part: str, note: str, whole_token: bool = False) -> None:
        """Replace tokens i..j (inclusive) by `replacement`."""
        e = Edit(self.c.starts[i], self.c.ends[j], replacement, RULE, note)
        self.rewrites.append(Rewrite(e, part, self.function_span(i), self.macro_of(i), whole_token))

    def insert_before(self, i: int, text: str, note: str) -> None:
        at = self.c.starts[i]
        self.rewrites.append(Rewrite(Edit(at, at, text, RULE, note), "", self.function_span(i), self.macro_of(i)))

    def report(self, kind: str, i: int, j: int, message: str) -> None:
        start, end = self.c.starts[i], self.c.ends[j]
        line, col = self.line_col(start)
        self.not_exact.append(NotExact(kind, start, end, line, col, message))

    def member(self, i: int) -> bool:
        """Token i is a member name (`prop.warpSize`, `p->warpSize`) or qualified by a scope (`ns::x`)."""
        p = self.tx[i - 1] if i > 0 else ""
        if p in (".", "->"):
            return True
        return p == "::" and i > 1 and self.c.kinds[i - 2] == ID

    def in_include(self, i: int) -> bool:
        d = self.c.pps[i]
        return d >= 0 and self.directive_word.get(d) in ("include", "include_next", "import", "pragma", "error")

    # ------------------------------------------------------------------------------------ passes
    def run(self) -> LogicalWarps:
        self.collectives()
        self.warp_size()
        self.host_queries()
        self.cub_warp_types()
        self.inline_asm()
        self.device_reports()
        functions = tuple(self.function_spans())
        rewrites = sorted(self.rewrites, key=lambda r: (r.edit.start, r.edit.end))
        return LogicalWarps(tuple(rewrites), tuple(sorted(self.not_exact, key=lambda x: x.start)),
                            self.prelude_at, self.newline, functions)

    def collectives(self) -> None:
        for i in range(self.n):
            new = RENAMES.get(self.tt[i])
            if new is None or self.c.kinds[i] != ID or self.member(i) or self.in_include(i):
                continue
            self.add(i, i, new, "DEVICE", f"{self.tt[i]} -> {new} (logical 32-lane warp)", whole_token=True)

    def warp_size(self) -> None:
        """`warpSize` -> 32, except where the program defines the name itself."""
        positions = [i for i in range(self.n) if self.tt[i] == "warpSize" and self.c.kinds[i] == ID]
        if not positions:
            return
        if any(self.macro_of(i) == "warpSize" and self.tx[i - 1] == "define" for i in positions):
            return  # the program's own `#define warpSize ...` is what every use means
        own: list[tuple[int, int]] = [self.scope_of(i) for i in positions if self.declares(i)]
        for i in positions:
            if self.member(i) or self.in_include(i) or self.declares(i) or any(a <= i < b for a, b in own):
                continue
            self.add(i, i, WARP_SIZE_CONSTANT, "SIZE", "warpSize -> 32 (the program's logical warp)", whole_token=True)
        # PyTorch's names for the same number
        for i in range(self.n):
            if self.tt[i] == "C10_WARP_SIZE" and self.c.kinds[i] == ID and not self.in_include(i) \
                    and self.tx[i - 1] != "define":
                self.add(i, i, WARP_SIZE_CONSTANT, "SIZE", "C10_WARP_SIZE -> 32 (logical warp)", whole_token=True)
            elif self.tt[i] == "warp_size" and self.tx[i + 1] == "(" and self.tx[i + 2] == ")" \
                    and self.tx[i - 1] == "::" and self.tx[i - 2] == "cuda" and self.tx[i - 3] == "::" \
                    and self.tx[i - 4] == "at":
                self.add(i - 4, i + 2, WARP_SIZE_CONSTANT, "SIZE", "at::cuda::warp_size() -> 32 (logical warp)")

    def declares(self, i: int) -> bool:
        """`int warpSize = 32;`, `void f(int warpSize)`, `template <int warpSize>`: the program's own name."""
        p, nx = self.tx[i - 1] if i > 0 else "", self.tx[i + 1]
        if nx not in ("=", ";", ",", ")", "[", "{", ">", "(", ":"):
            return False
        if p in ("*", "&", "&&"):
            return i > 1 and self.tx[i - 2] in TYPE_WORDS
        return i > 0 and self.c.kinds[i - 1] == ID and p not in NOT_TYPES and self.c.pps[i - 1] < 0

    def scope_of(self, i: int) -> tuple[int, int]:
        """Token range where the declaration at i is the name's meaning."""
        tx, pairs = self.tx, self.pairs
        depth_paren = 0
        depth_brace = 0
        for k in range(i - 1, -1, -1):
            x = tx[k]
            if x == ")":
                depth_paren += 1
            elif x == "(":
                if depth_paren == 0:
                    close = pairs.get(k, self.n - 1)
                    j = close + 1
                    while j < self.n and tx[j] not in ("{", ";", "}"):
                        j += 1
                    if j < self.n and tx[j] == "{":
                        return i, pairs.get(j, self.n)
                    return i, close
                depth_paren -= 1
            elif x == "}":
                depth_brace += 1
            elif x == "{":
                if depth_brace == 0:
                    return i, pairs.get(k, self.n)
                depth_brace -= 1
            elif x == "<" and k > 0 and tx[k - 1] == "template":
                j = i
                while j < self.n and tx[j] not in ("{", ";"):
                    j += 1
                return i, pairs.get(j, j) if j < self.n and tx[j] == "{" else j
        return i, self.n

    def host_queries(self) -> None:
        reads_member = any(self.tt[i] == "warpSize" and self.tx[i - 1] in (".", "->") for i in range(1, self.n))
        for i in range(self.n):
            x = self.tt[i]
            if self.tx[i + 1] != "(" or self.member(i):
                continue
            if x in PROPERTY_QUERIES and reads_member:
                self.add(i, i, "hipport_get_device_properties", "HOST",
                         f"{x} -> hipport_get_device_properties (warpSize reads 32: logical warps)", whole_token=True)
            elif x in ATTRIBUTE_QUERIES:
                close = self.pairs.get(i + 1, i + 1)
                if any(self.tt[k] in WARP_SIZE_ATTRIBUTES for k in range(i + 2, close)):
                    self.add(i, i, "hipport_device_get_attribute", "HOST",
                             f"{x} -> hipport_device_get_attribute (the warp size reads 32: logical warps)",
                             whole_token=True)

    def cub_warp_types(self) -> None:
        for i in range(self.n):
            pos = CUB_WARP_TYPES.get(self.tt[i])
            if pos is None or self.tx[i + 1] != "<" or self.tx[i - 1] != "::" or self.tx[i - 2] not in ("cub", "hipcub"):
                continue
            args, close = self.template_args(i + 1)
            if close is not None and args == pos - 1:  # the logical warp size is the next argument
                self.insert_before(close, ", 32", f"{self.tt[i]}: a logical warp of 32 threads")

    def template_args(self, lt: int) -> tuple[int, int | None]:
        """(number of arguments, index of the closing `>`) of the template argument list opened at lt."""
        depth, args = 0, 1
        k = lt + 1
        while k < self.n:
            x = self.tt[k]
            if x in ("(", "[", "{"):
                k = self.pairs.get(k, k) + 1
                continue
            if x == "<":
                depth += 1
            elif x in (">", ">>"):
                if depth == 0:
                    return args, k
                depth -= 1 if x == ">" else 2
                if depth < 0:
                    return args, k
            elif x == "," and depth == 0:
                args += 1
            elif x == ";":
                return args, None
            k += 1
        return args, None

    def inline_asm(self) -> None:
        for i in range(self.n):
            if self.tt[i] not in ASM_WORDS or self.c.kinds[i] != ID:
                continue
            j = i + 1
            while self.tx[j] in ASM_QUALIFIERS:
                j += 1
            if self.tx[j] != "(":
                continue
            close = self.pairs.get(j)
            if close is None:
                continue
            start, end = self.c.starts[i], self.c.ends[close]
            if any(a < end and start < b for a, b in self.translated):
                continue  # the translation turned it into HIP already
            k = j + 1
            template = ""
            while k < close and self.c.kinds[k] == STR:
                template += _string_value(self.tt[k])
                k += 1
            operands = self.operand_sections(k, close)
            m = LANE_REGISTER.match(template)
            if m and len(operands) >= 1 and len(operands[0]) == 1 and all(not s for s in operands[1:]):
                a, b = operands[0][0]
                out = self.text[self.c.starts[a]:self.c.ends[b - 1]] if b > a else ""
                if out:
                    helper = "hipport_lane_id" if m.group(1) == "laneid" else f"hipport_{m.group(1)}"
                    self.add(i, close, f"({out}) = {helper}()", "DEVICE",
                             f"PTX %{m.group(1)} -> {helper}() (logical warp)")
                    continue
            if HARDWARE_PTX.search(template):
                self.report("hardware", i, close,
                            f"inline PTX reads a hardware register ({HARDWARE_PTX.search(template).group(0).lstrip('%')}):"  # type: ignore[union-attr]
                            " on AMD a wave holds two logical warps and the register has no HIP equivalent; "
                            "rewrite it by hand")
            else:
                self.report("inline-ptx", i, close,
                            "inline PTX other than the lane registers: no exact HIP form; rewrite it by hand")

    def operand_sections(self, k: int, close: int) -> list[list[tuple[int, int]]]:
        """The asm statement's `: outputs : inputs : clobbers` as lists of (a, b) token ranges of the
        parenthesised expressions of each operand."""
        sections: list[list[tuple[int, int]]] = []
        while k < close:
            if self.tt[k] == ":":
                sections.append([])
            elif self.tt[k] == "::":
                sections.extend([[], []])
            elif self.tt[k] == "(" and sections:
                end = self.pairs.get(k, close)
                sections[-1].append((k + 1, end))
                k = end
            k += 1
        return sections

    def device_reports(self) -> None:
        for f in self.funcs:
            if not f.device:
                continue
            a, b = f.body
            for i in range(a, b):
                x = self.tt[i]
                if x in CLOCKS and self.tx[i + 1] == "(" and not self.member(i):
                    self.report("hardware", i, self.pairs.get(i + 1, i + 1),
                                f"{x}() in device code: timing per warp measures a wave that holds two logical "
                                "warps on MI-series; the figure is not the CUDA warp's")
                elif x == "coalesced_threads" and self.tx[i + 1] == "(":
                    self.report("coalesced-group", i, self.pairs.get(i + 1, i + 1),
                                "coalesced_threads(): HIP's coalesced group holds the active lanes of the whole "
                                "64-wide wave, not of the 32-lane warp (size() and thread_rank() can exceed 31); "
                                "check that the code does not assume 32")
                elif x == "while" and self.tx[i + 1] == "(" and self.spin_wait(i + 1):
                    self.report("lockstep-wait", i, self.pairs.get(i + 1, i + 1),
                                "a spin-wait: if a lane of the other logical warp of the same 64-wide wave must "
                                "end it, the two halves wait on each other and the wave hangs (they run in "
                                "lockstep on AMD); make sure the signal comes from another wave or block")

    def spin_wait(self, lp: int) -> bool:
        """`while (atomicCAS(...) != 0)`, `while (flag[i] == 0);`, `while (*(volatile int*)p ...)`:
        a loop whose condition waits on memory another thread writes."""
        close = self.pairs.get(lp)
        if close is None:
            return False
        words = set(self.tt[lp + 1:close])
        if words & SPIN_ATOMICS or "volatile" in words:
            return True
        body_empty = self.tx[close + 1] == ";" or (self.tx[close + 1] == "{" and self.tx[close + 2] == "}")
        return body_empty and not (words & {"<", ">", "<=", ">="}) and any(
            self.c.kinds[k] == NUM or self.c.kinds[k] == ID for k in range(lp + 1, close)) and "[" in words

    def function_spans(self) -> Iterable[FunctionSpan]:
        for f in self.funcs:
            a, b = f.body
            names = {self.tt[k] for k in range(a, b) if self.c.kinds[k] == ID}
            # calls and kernel launches (`k<<<g, b>>>(...)`: the kernel's block width is the host's choice)
            calls = frozenset(self.tt[k] for k in range(a, b)
                              if self.c.kinds[k] == ID and self.tx[k + 1] in ("(", "<<<"))
            launches = {self.tt[k] for k in range(a, b) if self.c.kinds[k] == ID and (
                self.tx[k + 1] == "<<<" or (self.tx[k - 1] == "(" and self.tx[k - 2] in LAUNCHERS))}
            launches |= {name for k in range(a, b) if self.tt[k] == "<<<" and (name := self.template_launch(k))}
            yield FunctionSpan(f.name, self.c.starts[a], self.c.ends[b], f.device, calls, frozenset(names),
                               f.kernel, frozenset(launches), self.c.starts[f.header[0]])

    def template_launch(self, k: int) -> str:
        """The kernel of `name<args><<<...>>>` (a template kernel's launch), else ""."""
        j = k - 1
        if self.tx[j] not in (">", ">>"):
            return ""
        depth = 0
        while j >= 0:
            x = self.tt[j]
            depth += {">": 1, ">>": 2, "<": -1, "<<": -2}.get(x, 0)
            if depth <= 0 and x in ("<", "<<"):
                break
            if x in (";", "{", "}"):
                return ""
            j -= 1
        return self.tt[j - 1] if j > 0 and self.c.kinds[j - 1] == ID else ""


def _string_value(token: str) -> str:
    """The characters of a C string literal token, escapes kept as written except `\\n`, `\\t`."""
    m = re.match(r'^(?:u8|u|U|L)?"(.*)"$', token, re.S)
    body = m.group(1) if m else token.strip('"')
    return body.replace("\\n", "\n").replace("\\t", "\t")


__all__ = ["HELPERS", "RENAMES", "FunctionSpan", "LogicalWarps", "NotExact", "Rewrite", "analyze_logical",
           "helper_parts", "prelude_text"]
