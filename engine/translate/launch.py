"""Kernel launches: `k<<<grid, block[, shmem[, stream]]>>>(args)` -> `hipLaunchKernelGGL(...)`.

The output follows hipify-clang: `hipLaunchKernelGGL(kernel, dim3(grid), dim3(block), shmem, stream,
args...)` with `0, 0` for omitted launch arguments and `HIP_KERNEL_NAME(k<T>)` for kernels named with
explicit template arguments or that are function templates. Only the punctuation between the pieces is
rewritten, so renames of identifiers inside the pieces stay separate, non-overlapping edits. A launch
written inside a `#define` body is rewritten in the body, except where hipify-clang rewrites the call
site (macro_launches: a body that is one launch of a kernel passed as a parameter, or a body ending in
`<<<...>>>` whose call supplies the arguments); other launches split between a macro and its call
(`k KERNEL_ARGS(g, b)(x)`) are reported.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..cxx.brackets import CLOSE, OPEN, angle_open, closing, matching, split_commas
from ..cxx.lexer import IDENT, KEYWORD, PUNCT, Tokens
from ..edits import Edit
from .tables import LAUNCH_MACRO, TEMPLATE_KERNEL_WRAPPER


@dataclass(frozen=True, slots=True)
class LaunchProblem:
    start: int
    end: int
    message: str


def _sp(toks: Tokens, i: int) -> str:
    return toks.text[toks.starts[i] : toks.ends[i]]


_NAME_STOPS = frozenset({";", "{", "}"})


def _kernel_name_start(toks: Tokens, i: int, lo: int) -> tuple[int, bool] | None:
    """Walk back from token i (the last token of the kernel expression). Returns (first token
    index, has explicit template arguments) or None when it is not a name we can move."""
    templated = False
    j = i
    while True:
        if toks.kinds[j] == PUNCT and _sp(toks, j) in (">", ">>"):
            k = angle_open(lambda q: _sp(toks, q) if toks.kinds[q] == PUNCT else "", j, lo, _NAME_STOPS)
            if k < 0:
                return None
            templated = True
            j = k - 1
            if j < lo:
                return None
        if toks.kinds[j] != IDENT:
            if toks.kinds[j] == PUNCT and _sp(toks, j) == ")":  # a parenthesised kernel expression: (*fp)
                k = matching(lambda q: _sp(toks, q) if toks.kinds[q] == PUNCT else "", j, lo - 1, ")", "(", -1)
                return (k, templated) if k >= lo else None
            return None
        start = j
        # qualified names: ns::k, ::k, a::template k<T>
        if j - 1 >= lo and toks.kinds[j - 1] == KEYWORD and _sp(toks, j - 1) == "template":
            j -= 1
            start = j
        if j - 1 >= lo and toks.kinds[j - 1] == PUNCT and _sp(toks, j - 1) == "::":
            start = j - 1
            if j - 2 >= lo and (toks.kinds[j - 2] == IDENT or _sp(toks, j - 2) in (">", ">>")):
                j -= 2
                continue
        elif j - 1 >= lo and toks.kinds[j - 1] == PUNCT and _sp(toks, j - 1) in (".", "->"):
            # a kernel pointer held in an object (s->kernel<<<...>>>): the object moves with it, when it
            # is a name; anything else (a call, an index, nothing) is not a name we can move
            if j - 2 >= lo and toks.kinds[j - 2] == IDENT:
                j -= 2
                continue
            return None
        return start, templated


def split_arguments(toks: Tokens, lo: int, hi: int) -> list[tuple[int, int]] | None:
    """Token index ranges [a, b) of the comma-separated pieces between lo and hi, or None when a
    piece is empty (`f(a,,b)`, a trailing comma)."""
    pieces = split_commas(toks.spellings(), lo, hi)
    if any(b <= a for a, b in pieces):
        return None
    return pieces


def function_template_kernels(toks: Tokens) -> set[str]:
    """Names of the `__global__` function templates the file declares (`template <...> __global__
    void k(...)`): hipify-clang wraps a launch of such a kernel in HIP_KERNEL_NAME even when its
    template arguments are deduced, as it knows from the AST."""
    tx = toks.spellings()
    n = len(tx)
    out: set[str] = set()
    for g in range(n):
        if tx[g] != "__global__":
            continue
        templated = False
        for k in range(g - 1, max(-1, g - 64), -1):
            t = tx[k]
            if t == "template" and toks.kinds[k] == KEYWORD:
                templated = True
                break
            if t in (";", "{", "}", ")") or (toks.bol[k] and t == "#"):
                break
        if not templated:
            continue
        j = g + 1
        while j < n and tx[j] not in ("(", ";", "{"):
            j += 1
        while j + 1 < n and tx[j - 1] == "__launch_bounds__" and tx[j] == "(":
            j = closing(tx, j, n) + 1
            while 0 < j < n and tx[j] not in ("(", ";", "{"):
                j += 1
        if 0 < j < n and tx[j] == "(" and toks.kinds[j - 1] == IDENT:
            out.add(tx[j - 1])
    return out


def _object_macros(toks: Tokens, directive_of: list[int], directive_names: dict[int, str]
                   ) -> dict[str, tuple[str, ...]]:
    """Body tokens of the file's object-like macros (`#define NAME body`)."""
    tx = toks.spellings()
    n = len(tx)
    out: dict[str, tuple[str, ...]] = {}
    for d, nm in directive_names.items():
        if nm != "define" or d + 2 >= n or directive_of[d + 2] != d:
            continue
        end = d + 3
        while end < n and directive_of[end] == d:
            end += 1
        if end > d + 3 and tx[d + 3] == "(" and toks.starts[d + 3] == toks.ends[d + 2]:
            continue  # function-like
        out[tx[d + 2]] = tuple(tx[d + 3 : end])
    return out


def _no_newline(text: str, a: int, b: int) -> bool:
    seg = text[a:b]
    return "\n" not in seg and "\r" not in seg


def launch_edits(
    toks: Tokens, directive_of: list[int], directive_names: dict[int, str], skip: set[int] | None = None,
) -> tuple[list[Edit], list[LaunchProblem]]:
    """Edits turning every `<<<...>>>` launch into hipLaunchKernelGGL, and launches it cannot move.

    `directive_of[i]` is the index of the directive holding token i (-1 outside directives);
    a launch must lie wholly in code or wholly in one `#define` body.
    """
    edits: list[Edit] = []
    problems: list[LaunchProblem] = []
    region_lo, region_hi = _regions(directive_of, len(toks))
    kernels = _TemplateKernels(toks, directive_of, directive_names)
    for i in range(len(toks)):
        if toks.kinds[i] != PUNCT or _sp(toks, i) != "<<<" or (skip and i in skip):
            continue
        d = directive_of[i]
        if d >= 0 and directive_names.get(d) != "define":
            continue
        launch = _parse_launch(toks, i, region_lo[i], region_hi[i])
        if isinstance(launch, str):
            problems.append(LaunchProblem(toks.starts[i], toks.ends[i], launch))
            continue
        if not launch.templated and toks.kinds[i - 1] == IDENT:
            launch = dataclasses.replace(launch, templated=kernels.templated(_sp(toks, i - 1)))
        edits.extend(_launch_rewrite(toks, launch))
    return edits, problems


def _regions(directive_of: list[int], n: int) -> tuple[list[int], list[int]]:
    """Each token's region [lo, hi): a run of code tokens between directives, or one directive (O(n) once)."""
    region_lo = [0] * n
    region_hi = [0] * n
    a = 0
    for j in range(1, n + 1):
        if j == n or directive_of[j] != directive_of[j - 1] or (directive_of[j] >= 0) != (directive_of[j - 1] >= 0):
            for k in range(a, j):
                region_lo[k] = a
                region_hi[k] = j
            a = j
    return region_lo, region_hi


class _TemplateKernels:
    """Which launched names are templates (read from the file once, on the first launch that asks)."""

    def __init__(self, toks: Tokens, directive_of: list[int], directive_names: dict[int, str]) -> None:
        self.toks, self.directive_of, self.directive_names = toks, directive_of, directive_names
        self.kernels: set[str] | None = None
        self.name_macros: dict[str, tuple[str, ...]] = {}

    def templated(self, name: str) -> bool:
        if self.kernels is None:
            self.kernels = function_template_kernels(self.toks)
            self.name_macros = _object_macros(self.toks, self.directive_of, self.directive_names)
        body = self.name_macros.get(name, ())  # KERNEL_NAME_MACRO<<<...>>> with `#define KERNEL_NAME_MACRO k<T>`
        return name in self.kernels or "<" in body or bool(body and body[-1] in self.kernels)


@dataclass(frozen=True, slots=True)
class _Launch:
    at: int                       # token index of `<<<`
    close: int                    # token index of `>>>`
    paren_close: int              # token index of the `)` closing the kernel arguments
    name_start: int               # first token of the kernel expression
    templated: bool
    config: list[tuple[int, int]]  # token ranges of grid, block[, shared memory[, stream]]


def _launch_close(toks: Tokens, i: int, hi: int) -> int:
    """The `>>>` of the `<<<` at token i (-1: none before the statement, region or next `<<<` ends)."""
    depth = 0
    for j in range(i + 1, hi):
        if toks.kinds[j] != PUNCT:
            continue
        s = _sp(toks, j)
        if s in OPEN:
            depth += 1
        elif s in CLOSE:
            depth -= 1
        elif s == ">>>" and depth == 0:
            return j
        elif s in (";", "<<<") and depth == 0:
            # another `<<<` first: this one is stray (its `>>>` belongs to the next launch)
            return -1
    return -1


def _parse_launch(toks: Tokens, i: int, lo: int, hi: int) -> _Launch | str:
    """The launch at `<<<` token i within region [lo, hi), or why it cannot be moved."""
    close = _launch_close(toks, i, hi)
    if close < 0 or close + 1 >= hi or _sp(toks, close + 1) != "(":
        return "kernel launch split across a macro and its use (or malformed); rewrite it as hipLaunchKernelGGL by hand"
    paren_close = closing(toks.spellings(), close + 1, hi)
    if paren_close < 0:
        return "kernel launch arguments not closed before the end of the statement or macro; rewrite it by hand"
    if i - 1 < lo:
        return "kernel launch without a visible kernel name (macro argument split?); rewrite it by hand"
    name = _kernel_name_start(toks, i - 1, lo)
    cfg = split_arguments(toks, i + 1, close)
    if name is None or cfg is None or not 2 <= len(cfg) <= 4:
        return ("kernel launch with an unusual kernel expression or launch configuration; rewrite it as "
                "hipLaunchKernelGGL by hand")
    return _Launch(i, close, paren_close, name[0], name[1], cfg)


def _launch_rewrite(toks: Tokens, launch: _Launch) -> list[Edit]:
    """The edits of one launch: the head before the kernel, `<<<` and the configuration's commas,
    then `>>>(` (the defaults the configuration leaves out added)."""
    text, tx, st, en = toks.text, toks.spellings(), toks.starts, toks.ends
    i, cfg, templated = launch.at, launch.config, launch.templated
    name_end = en[i - 1]
    out: list[Edit] = []
    head = LAUNCH_MACRO + "(" + (TEMPLATE_KERNEL_WRAPPER + "(" if templated else "")
    out.append(Edit(st[launch.name_start], st[launch.name_start], head, "launch"))
    # grid and block are wrapped in dim3(...) unless written as dim3(...) already
    wrap = [not (tx[a] == "dim3" and a + 1 < b and tx[a + 1] == "(" and closing(tx, a + 1, b) == b - 1)
            for a, b in cfg[:2]]
    open_repl = (")" if templated else "") + ", " + ("dim3(" if wrap[0] else "")
    if _no_newline(text, name_end, st[cfg[0][0]]):
        out.append(Edit(name_end, st[cfg[0][0]], open_repl, "launch"))
    elif _no_newline(text, name_end, en[i]):
        out.append(Edit(name_end, en[i], open_repl, "launch"))
    else:
        out.append(Edit(st[i], en[i], open_repl, "launch"))
    for k in range(len(cfg) - 1):
        a_end = en[cfg[k][1] - 1]
        comma = cfg[k][1]
        b_start = st[cfg[k + 1][0]]
        if k == 0:
            repl = (")" if wrap[0] else "") + ", " + ("dim3(" if wrap[1] else "")
        else:
            repl = (")" if k == 1 and wrap[1] else "") + ", "
        if _no_newline(text, a_end, b_start):
            out.append(Edit(a_end, b_start, repl, "launch"))
        else:
            out.append(Edit(st[comma], en[comma], repl.rstrip(), "launch"))
    tail = {2: (")" if wrap[1] else "") + ", 0, 0", 3: ", 0", 4: ""}[len(cfg)]
    out.extend(_close_edits(toks, launch, tail))
    return out


def _close_edits(toks: Tokens, launch: _Launch, tail: str) -> list[Edit]:
    """`>>>(` after the last configuration argument becomes `tail` and the comma before the arguments."""
    text, st, en = toks.text, toks.starts, toks.ends
    close, paren_close = launch.close, launch.paren_close
    last_end = en[launch.config[-1][1] - 1]
    has_args = paren_close > close + 2
    if has_args and _no_newline(text, last_end, st[close + 2]):
        return [Edit(last_end, st[close + 2], tail + ", ", "launch")]
    if _no_newline(text, last_end, en[close + 1]):
        end = en[close + 1]
        if not has_args and text[end : st[paren_close]].strip(" \t") == "":
            end = st[paren_close]  # `k<<<g, b>>>( )`: hipify-clang writes `..., 0, 0)`
        return [Edit(last_end, end, tail + (", " if has_args else ""), "launch")]
    return [Edit(st[close], en[close], tail, "launch"),
            Edit(st[close + 1], en[close + 1], ", " if has_args else "", "launch")]


@dataclass(frozen=True, slots=True)
class MacroLaunch:
    """A macro call that hipify-clang turns into hipLaunchKernelGGL at the call site: `pieces` are
    literal text or (start, end) spans of call-site text (whose own edits still apply)."""

    start: int
    end: int
    pieces: tuple[str | tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class _MacroLaunchDef:
    name: str
    params: tuple[str, ...] | None  # None: object-like
    kernel: tuple[int, int]         # token ranges in the #define body
    config: tuple[tuple[int, int], ...]
    args: tuple[int, int] | None    # None: the launch ends at `>>>` (its arguments follow the call)


def _macro_launch_defs(toks: Tokens, directives: list[tuple[int, int, str]]) -> dict[str, _MacroLaunchDef]:
    """#define bodies that hipify-clang expands at the call site: an object-like macro ending in
    `<<<...>>>` (`#define CALL k<<<g, b>>>`, used as `CALL(args)`), and a function-like macro that is
    one launch whose kernel is a parameter (`#define LAUNCH(k, g, b, ...) k<<<g, b>>>(__VA_ARGS__)`)."""
    tx = toks.spellings()
    out: dict[str, _MacroLaunchDef] = {}
    for a, b, name in directives:
        if name != "define" or b - a < 5 or "<<<" not in tx[a + 3 : b]:
            continue
        macro = tx[a + 2]
        params: tuple[str, ...] | None = None
        body = a + 3
        if tx[a + 3] == "(" and toks.starts[a + 3] == toks.ends[a + 2]:
            close = closing(tx, a + 3, b)
            if close < 0:
                continue
            params = tuple(t for t in tx[a + 4 : close] if t != ",")
            body = close + 1
        lt = tx.index("<<<", body, b)
        gt = next((j for j in range(lt + 1, b) if tx[j] == ">>>"), -1)
        if lt == body or gt < 0:
            continue
        cfg = split_arguments(toks, lt + 1, gt)
        if cfg is None or not 2 <= len(cfg) <= 4:
            continue
        if params is None and gt + 1 == b:
            out[macro] = _MacroLaunchDef(macro, None, (body, lt), tuple(cfg), None)
        elif (params is not None and lt == body + 1 and tx[body] in params and gt + 1 < b and tx[gt + 1] == "("):
            pc = closing(tx, gt + 1, b)
            if pc > 0 and (pc + 1 == b or (tx[pc + 1] == ";" and pc + 2 == b)):
                out[macro] = _MacroLaunchDef(macro, params, (body, lt), tuple(cfg), (gt + 2, pc))
    return out


def macro_launches(toks: Tokens, directives: list[tuple[int, int, str]], directive_of: list[int]
                   ) -> tuple[list[MacroLaunch], set[int]]:
    """Call sites of the macros _macro_launch_defs finds, rewritten as hipify-clang rewrites them, and
    the token indices of the `<<<` those macros hold (their bodies are left as they are)."""
    defs = _macro_launch_defs(toks, directives)
    if not defs:
        return [], set()
    tx = toks.spellings()
    template_kernels = function_template_kernels(toks)
    handled = {j for a, b, name in directives if name == "define" and tx[a + 2] in defs
               for j in range(a, b) if tx[j] == "<<<"}
    sites: list[MacroLaunch] = []
    for i in range(len(tx) - 1):
        d = defs.get(tx[i]) if toks.kinds[i] == IDENT else None
        if d is None or directive_of[i] >= 0 or tx[i + 1] != "(" or (i > 0 and tx[i - 1] in (".", "->", "::")):
            continue
        site = _macro_site(toks, tx, i, d, template_kernels)
        if site is not None:
            sites.append(site)
    return sites, handled


_Pieces = list[str | tuple[int, int]]  # text, and (start, end) spans of the original text


def _macro_site(toks: Tokens, tx: list[str], i: int, d: _MacroLaunchDef, template_kernels: set[str]
                ) -> MacroLaunch | None:
    """The call of macro `d` at token i written as a hipLaunchKernelGGL (None: its arguments do not fit)."""
    close = closing(tx, i + 1, len(tx))
    if close < 0:
        return None
    call = split_arguments(toks, i + 2, close) if close > i + 2 else []
    if call is None:
        return None
    spans = [(toks.starts[x], toks.ends[y - 1]) for x, y in call]
    binding = _bind(d, spans)
    if binding is None:
        return None
    kernel = _render(toks, tx, binding, *d.kernel)
    pieces: _Pieces = [LAUNCH_MACRO + "("]
    pieces += [TEMPLATE_KERNEL_WRAPPER + "(", *kernel, ")"] if _templated(toks, tx, d, binding, template_kernels) \
        else kernel
    for k, (lo, hi) in enumerate(d.config):
        dim = k < 2 and not (tx[lo] == "dim3" and tx[lo + 1 : lo + 2] == ["("] and closing(tx, lo + 1, hi) == hi - 1)
        pieces += [", "] + (["dim3("] if dim else []) + _render(toks, tx, binding, lo, hi) + ([")"] if dim else [])
    pieces += [", 0"] * (4 - len(d.config))
    if d.args is not None:
        args = _render(toks, tx, binding, *d.args) if d.args[1] > d.args[0] else []
    else:
        args = _join(spans)
    if args:
        pieces += [", ", *args]
    pieces.append(")")
    return MacroLaunch(toks.starts[i], toks.ends[close], tuple(pieces))


def _bind(d: _MacroLaunchDef, spans: list[tuple[int, int]]) -> dict[str, _Pieces] | None:
    """The macro's parameters bound to the call's argument spans (None: the argument count does not fit)."""
    binding: dict[str, _Pieces] = {}
    if d.params is None:
        return binding
    named = [p for p in d.params if p not in ("...",)]
    if len(spans) < len(named) or ("..." not in d.params and len(spans) != len(named)):
        return None
    for p, sp in zip(named, spans, strict=False):
        binding[p] = [sp]
    binding["__VA_ARGS__"] = _join(spans[len(named):])
    return binding


def _render(toks: Tokens, tx: list[str], binding: dict[str, _Pieces], lo: int, hi: int) -> _Pieces:
    """Tokens lo..hi of the macro body with its parameters replaced by the call's arguments."""
    st, en = toks.starts, toks.ends
    pieces: _Pieces = []
    for j in range(lo, hi):
        if j > lo and st[j] > en[j - 1]:
            pieces.append(" ")
        pieces += binding.get(tx[j], [tx[j]])
    return pieces


def _templated(toks: Tokens, tx: list[str], d: _MacroLaunchDef, binding: dict[str, _Pieces],
               template_kernels: set[str]) -> bool:
    """The launched kernel is named with template arguments, or is a function template."""
    if d.params is not None:
        ksp = binding[tx[d.kernel[0]]][0]
        assert isinstance(ksp, tuple)
        ktext = toks.text[ksp[0] : ksp[1]]
        return "<" in ktext or ktext.split("::")[-1].strip() in template_kernels
    return "<" in tx[d.kernel[0] : d.kernel[1]] or tx[d.kernel[1] - 1] in template_kernels


def _join(spans: list[tuple[int, int]]) -> _Pieces:
    out: _Pieces = []
    for k, sp in enumerate(spans):
        out += ([", "] if k else []) + [sp]
    return out
