"""The state the passes of one translation share (driver.py composes them).

- `TextView`: read-only facts about the text (tokens, preprocessor directives, inactive #if branches)
  and the small token-walking helpers every pass needs.
- `Output`: what the passes produce (edits, reports, counts), offsets shifted by `base`.
- `ShimUse`: the exact replacements (mapping/shims.tsv) the file takes, inserted by headers.py.
- `TranslationState`: the three above, the options and per-name decisions, and the facts one pass
  hands to a later one (what was renamed, whether CUDA names occur outside directives, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..cxx.lexer import Tokens, declared_names, directive_spans
from ..edits import Edit
from ..mapping import Mapping
from ..model import Report, ReportKind
from ..ppcond import inactive_tokens
from . import shims
from .decisions import Decision
from .options import TranslateOptions
from .shims import MemberRewrite

NO_SHIM_HINT = "; hipport inserts an exact replacement unless --no-shims is given"
MEMBER_OR_SCOPE = (".", "->", "::")  # before a name: a member, or a name in a scope
_CUDA_WORDS = frozenset({"__global__", "__device__", "__shared__", "__constant__", "threadIdx", "blockIdx",
                         "blockDim", "gridDim", "__syncthreads", "<<<"})


@dataclass
class TextView:
    text: str
    toks: Tokens
    directives: list[tuple[int, int, str]]  # (first token, end token, directive name)
    dir_of: list[int]                       # per token: first token of its directive, -1 outside one
    dir_names: dict[int, str]               # first token of a directive -> its name
    dir_index: dict[int, int]               # first token of a directive -> its index in `directives`
    inactive: list[bool] | None             # per token, with --skip-excluded-...: in an inactive #if branch

    @classmethod
    def of(cls, text: str, toks: Tokens, options: TranslateOptions) -> TextView:
        directives = directive_spans(toks)
        dir_of = [-1] * len(toks.kinds)
        dir_names: dict[int, str] = {}
        for a, b, name in directives:
            for j in range(a, b):
                dir_of[j] = a
            dir_names[a] = name
        inactive = inactive_tokens(toks, directives, options.defines) if options.skip_inactive else None
        dir_index = {a: k for k, (a, _b, _nm) in enumerate(directives)}
        return cls(text, toks, directives, dir_of, dir_names, dir_index, inactive)

    @property
    def n(self) -> int:
        return len(self.toks.kinds)

    def sp(self, i: int) -> str:
        """The spelling of token i ("" out of range)."""
        return self.text[self.toks.starts[i] : self.toks.ends[i]] if 0 <= i < len(self.toks.kinds) else ""

    def in_directive_or_inactive(self, i: int) -> bool:
        """Token i is on a preprocessor line or in an inactive #if branch (the scans leave both out)."""
        return self.dir_of[i] >= 0 or (self.inactive is not None and self.inactive[i])

    def has_cuda_code(self) -> bool:
        """Device code or launches: the file needs the HIP runtime header even if no API is called."""
        text = self.text
        return any(text[s:e] in _CUDA_WORDS for s, e in zip(self.toks.starts, self.toks.ends, strict=True))


@dataclass
class Output:
    """Edits and reports at offsets of the file (`base` added: code held in a Python string), and counts."""
    base: int
    locate: Callable[[int], tuple[int, int]]  # file offset -> (line, col)
    edits: list[Edit] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)

    def count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n

    def edit(self, s: int, e: int, repl: str, rule: str, note: str = "") -> None:
        self.edits.append(Edit(self.base + s, self.base + e, repl, rule, note))

    def report(self, kind: ReportKind, name: str, s: int, e: int, msg: str, hip: str = "", since: str = "") -> None:
        line, col = self.locate(self.base + s)
        self.reports.append(Report(kind, name, self.base + s, self.base + e, line, col, msg, hip, since))


@dataclass
class ShimUse:
    needed: dict[str, shims.Shim] = field(default_factory=dict)  # by guard: the blocks to insert
    replaced: set[str] = field(default_factory=set)              # what the convert summary lists
    _declared: set[str] | None = None  # shim triggers the file declares itself (never shimmed); read once

    def take(self, sh: shims.Shim, out: Output, s: int, e: int, what: str) -> None:
        self.needed.setdefault(sh.guard, sh)
        self.replaced.add(sh.name)
        out.report(ReportKind.INFO, what, s, e, f"{what}: exact replacement inserted ({sh.name}; --no-shims leaves "
                   f"it out): {sh.note}")

    def usable(self, sh: shims.Shim | None, view: TextView, i: int, options: TranslateOptions) -> shims.Shim | None:
        """`sh` when the target lacks it and the file does not declare the name (token i) itself."""
        if sh is None or not sh.needed(options.rocm):
            return None
        if self._declared is None:
            trig = shims.declarable_triggers()
            self._declared = declared_names(view.toks, lambda nm: nm in trig)
        name = view.sp(i)
        return None if name in self._declared or name in options.project_names else sh


@dataclass
class TranslationState:
    view: TextView
    out: Output
    options: TranslateOptions
    mapping: Mapping
    decide: Callable[[str], Decision | None]
    cuda_file: bool                      # .cu/.cuh: nvcc includes cuda_runtime.h implicitly
    c_header: bool                       # a .h (C files may include it too)
    insert_runtime: bool                 # hip_runtime.h may be inserted (not into code held in a Python string)
    newline: str                         # the file's line break, for inserted lines
    user_spans: frozenset[int]           # start offsets of identifiers the AST found to be user declarations
    bf16_context: str                    # engine/translate/bf16.py's device_context of the text
    shims: ShimUse = field(default_factory=ShimUse)
    renamed_to: set[str] = field(default_factory=set)  # HIP names the renames wrote (their headers follow)
    used_in_code: bool = False           # a CUDA name translated outside preprocessor lines
    # token ranges whose names are not reported: #if branches dropped for lacking names, spans an exact
    # rewrite replaced (name_rewrites)
    silent_ranges: list[tuple[int, int]] = field(default_factory=list)
    _device_code: bool | None = None

    def apply_rewrite(self, name: str, s: int, e: int, rw: MemberRewrite | str, msg: str) -> str | None:
        """Make the exact rewrite `rw` of the use of `name` at [s, e) (None: done), or return the report
        message `msg` saying why not (`rw` is the reason) or that --no-shims left it."""
        if isinstance(rw, str):
            return msg + f"; no exact replacement here: {rw}"
        if not self.options.shims:
            return msg + NO_SHIM_HINT
        self.out.edit(rw.start, rw.end, rw.text, "shim", f"{name} -> {rw.text}")
        if rw.shim is not None:
            self.shims.needed.setdefault(rw.shim.guard, rw.shim)
        self.shims.replaced.add(rw.label)
        self.out.report(ReportKind.INFO, name, s, e, f"{name}: replaced by {rw.shown} ({rw.why}; --no-shims leaves it)")
        return None

    def has_device_code(self) -> bool:
        """A CUDA file, or one with device code (min/max overloads are not for plain C++ files)."""
        if self._device_code is None:
            self._device_code = self.cuda_file or self.view.has_cuda_code()
        return self._device_code
