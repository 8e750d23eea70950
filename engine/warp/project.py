"""What a translation unit's own headers tell the warp analysis (issue 9: "follow a value through the
translation unit and the project's own headers"): warp-size constants defined in a header and used
here, and kernels defined in a header that take their lanes from warpSize (so a launch here that gives
them 32-wide blocks passes the wrong width). Only quoted includes that resolve next to the including
file are read, two levels deep; system and toolkit headers are never opened.

The other way round (`includer_uses`): a file that defines a warp-size constant is also read from the
files that include it (those whose `project_facts` lists it: the same reach), so the header's own fix
(raise the constant, or split it) knows that `24 * WARP_SIZE` sizes a launch in b.cu. Includers are looked
for among the project's source files, from any folder and by any relative spelling ("common.h",
"../common.h", "../inc/common.h"): the project is the git work tree holding the header, else the header's
own folder and its subfolders. Quoted includes are resolved by local_includes.resolve_quoted, the one
resolver (beside the including file; -I folders are not known here).
"""

from __future__ import annotations

import dataclasses
import os
import re
from functools import lru_cache
from pathlib import Path

from ..discover import SKIP_DIRS
from ..local_includes import quoted_includes, resolve_quoted
from ..project.root import git_top

# the facts type lives in facts.py: the checks call includer_uses through ProjectFacts, not by importing this
from .facts import MAX_INCLUDERS, ProjectFacts
from .lex import ID

_MAX_BYTES = 4 << 20
MAX_SCAN = 20000  # project source files looked at for includers of one header
# a cheap superset of constants.collect_constants' warp-size constants (`#define WS 32`, `kWarp = 32`):
# only a file that may define one has its includers read. As one regex over the whole text
# (`\b\w*(?:warp|...)\w*<sep>32`) it retried every word at every start: 1.4 ms a file, most of a reopened
# project's time. So each `32` is found first and only its line before it is searched (the name, the
# separator and the 32 never span a line): the same answers (tests/warp/test_may_define_w32.py).
_W32_LITERAL = re.compile(r"32[uUlL]*\b")
_W32_NAME_BEFORE = re.compile(r"(?i)\b\w*(?:warp|wave|ws|lanes_per)\w*(?:[ \t]*=[ \t]*|[ \t]+\(?[ \t]*)\Z")


def may_define_w32(text: str) -> bool:
    """A warp-ish name, then `=` or blanks (and an optional `(`), then the literal 32, somewhere in text."""
    for m in _W32_LITERAL.finditer(text):
        at = m.start()
        if _W32_NAME_BEFORE.search(text, text.rfind("\n", 0, at) + 1, at):
            return True
    return False


def project_facts(path: Path | None, text: str) -> ProjectFacts:
    if path is None:
        return ProjectFacts()
    seen: list[Path] = []
    me = Path(_norm(path))
    todo = [(me.parent, text, 0)]
    while todo:
        base, body, depth = todo.pop()
        for inc in quoted_includes(body):
            found = resolve_quoted(inc, base)
            if found is None:
                continue
            p = Path(found)
            if p in seen or p == me:
                continue
            seen.append(p)
            if depth < 1:
                sub = _read(str(p), _mtime(p))
                if sub is not None:
                    todo.append((p.parent, sub, depth + 1))
    w32: set[str] = set()
    kernels: set[str] = set()
    widths: list[tuple[str, str, str]] = []
    wave: set[str] = set()
    for p in seen:
        facts = _header_facts(str(p), _mtime(p))
        w32 |= facts[0]
        kernels |= {k[0] for k in facts[1]}
        widths += facts[1]
        wave |= facts[2]
    return ProjectFacts(frozenset(w32), frozenset(kernels), tuple(str(p) for p in seen), tuple(widths),
                        frozenset(wave), str(path), includer_uses)


def _mtime(p: Path) -> float:
    try:
        return os.stat(p).st_mtime
    except OSError:
        return 0.0


@lru_cache(maxsize=256)
def _read(path: str, _mtime: float) -> str | None:
    try:
        if os.path.getsize(path) > _MAX_BYTES:
            return None
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@lru_cache(maxsize=256)
def _header_facts(path: str, mtime: float) -> tuple[frozenset[str], tuple[tuple[str, str, str], ...], frozenset[str]]:
    """The header's warp-size constants; its kernels that use warpSize with how they use the block's
    width and height (hostflow.kernel_width_reason, located as `name.h:line`); its device functions that
    use the whole wavefront themselves or through their callees (functions.classify_functions)."""
    text = _read(path, mtime)
    if text is None:
        return frozenset(), (), frozenset()
    from .facts import build_facts
    from .hostflow import kernel_width_reason

    facts = build_facts(text, (7, 0), False)
    tokens = facts.tokens
    where = f"{Path(path).name}:"
    kernels = tuple((f.name, kernel_width_reason(tokens, f, "x", where), kernel_width_reason(tokens, f, "y", where))
                    for f in tokens.functions if f.kernel and "warpSize" in tokens.texts[f.body[0]:f.body[1]])
    return frozenset(facts.warp_size_constants), kernels, facts.wave_functions


def _norm(path: Path) -> str:
    return os.path.normpath(os.path.abspath(path))  # as resolve_quoted names files


def includer_scope(path: Path | None, text: str) -> tuple[list[Path], bool]:
    """The project files that include `path` (a quoted include that resolves to it, from any folder) when it
    may define a warp-size constant; and whether that list is complete (every project file looked at, the list
    not cut at MAX_INCLUDERS). analysis_cache keys a file's summary on these files too."""
    if path is None or not may_define_w32(text):
        return [], True
    me = _norm(path)
    folder = os.path.dirname(me)
    top = git_top(Path(folder))
    files, complete = _project_includes(str(top) if top is not None else folder)
    name = os.path.basename(me)
    out: list[Path] = []
    for f, spelled in files:
        if f != me and any(os.path.basename(s) == name and resolve_quoted(s, Path(os.path.dirname(f))) == me
                           for s in spelled):
            out.append(Path(f))
    return out[:MAX_INCLUDERS], complete and len(out) <= MAX_INCLUDERS


_INCLUDES: dict[str, tuple[int, int, tuple[str, ...]]] = {}  # file -> (mtime_ns, size, what its includes spell)


def _project_includes(root: str) -> tuple[list[tuple[str, tuple[str, ...]]], bool]:
    """The C++/CUDA files under root that have quoted includes, with what those spell (the folders discover
    skips are skipped; at most MAX_SCAN files looked at); and whether every file was looked at. A file is read
    again only when its mtime or size changed."""
    from ..source import Language, language_for

    includers = (Language.CUDA, Language.CPP)  # the files that can #include a header
    out: list[tuple[str, tuple[str, ...]]] = []
    n = 0
    todo = [root]
    while todo:
        d = todo.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in SKIP_DIRS and not e.name.startswith("."):
                        todo.append(e.path)
                    continue
                if language_for(e.name) not in includers or not e.is_file():
                    continue
                st = e.stat()
            except OSError:
                continue
            n += 1
            if n > MAX_SCAN:
                return sorted(out), False
            known = _INCLUDES.get(e.path)
            if known is None or known[0] != st.st_mtime_ns or known[1] != st.st_size:
                body = None if st.st_size > _MAX_BYTES else _read.__wrapped__(e.path, 0.0)
                known = (st.st_mtime_ns, st.st_size,
                         tuple(quoted_includes(body)) if body is not None and "include" in body else ())
                if len(_INCLUDES) > 4 * MAX_SCAN:
                    _INCLUDES.clear()
                _INCLUDES[e.path] = known
            if known[2]:
                out.append((e.path, known[2]))
    return sorted(out), True


def includer_uses(path: Path | None, text: str, names: frozenset[str], rocm: tuple[int, int],
                  wave32: bool) -> tuple[tuple[tuple[str, str, int, str], ...], bool]:
    """Uses of the warp-size constants `names` (defined in `path`) in the project files that include `path`:
    (name, file relative to path's folder, line, role as roles.UseRoles sees it there); and whether every
    candidate file was looked at."""
    files, complete = includer_scope(path, text)
    if not files or not names or path is None:
        return (), complete
    from .analyzer import run_checks
    from .facts import build_facts
    from .roles import UseRoles

    me = _norm(path)
    out: list[tuple[str, str, int, str]] = []
    for p in files:
        body = _read(str(p), _mtime(p))
        if body is None or not any(n in body for n in names):
            continue
        facts = project_facts(p, body)
        if me not in facts.headers:
            continue
        run = run_checks(build_facts(body, rocm, wave32, dataclasses.replace(facts, path="")))  # its own includers: not read
        roles = UseRoles(run.facts, run.function_values)
        tokens = run.facts.tokens
        rel = os.path.relpath(p, path.parent).replace(os.sep, "/")
        for k, kind in enumerate(tokens.kinds):
            x = tokens.texts[k]
            if x in names and kind == ID and tokens.texts[k - 1] not in (".", "->", "define", "ifdef", "ifndef",
                                                                          "defined", "undef"):
                out.append((x, rel, tokens.line(k), roles.role(k)))
    return tuple(out), complete
