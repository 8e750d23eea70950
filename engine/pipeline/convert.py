"""A whole conversion: the files one `hipport convert` (or the app) ports, the options every file shares,
the ports run on the pipeline (pool.port_files), and the writes.

    result = convert(ConvertRequest(items, targets, options, ...), on_file=show)
    result.translated, result.changed, result.writes   # what the command prints at the end

`on_file` sees each FileResult in file order as it comes (reports, diffs, the text for stdout) while
the writes of earlier files go on in a few threads; `convert` returns once every write has ended and
the folders written are durable. Every write follows the one write policy (outputs.write_port):
nothing a person had is lost.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .files import FileResult, Job

if TYPE_CHECKING:
    from ..model import FixStyle
    from ..translate.options import TranslateOptions
    from ..walk import WalkItem

WRITE_THREADS = 8  # each write waits on its fsync; a few threads let those waits overlap


class ConvertError(Exception):
    """A conversion that must not start (an output would lose a file, or go through a link); one line,
    and nothing was written."""


def conversion_targets(items: Sequence[WalkItem], output: Path | None, *, in_place: bool = False,
                       suffix: bool = False) -> list[Path | None]:
    """Where each file is written (None: not written): over itself (`in_place`), beside itself under its
    port's name (`suffix`: gemm.cu -> gemm.hip), or under `output` (a file for one file argument, else a
    folder mirroring the tree). Raises ConvertError when a write would lose a file or follow a link."""
    targets = _targets(items, output, in_place, suffix)
    if output is not None:
        _refuse_links(output, targets)
    _refuse_shared_outputs(items, targets)
    if output is not None:
        _refuse_overwriting_inputs(items, targets)
    return targets


def _targets(items: Sequence[WalkItem], out: Path | None, in_place: bool, suffix: bool) -> list[Path | None]:
    if in_place:
        return [it.path for it in items]
    if suffix:
        from ..outputs import sibling_name

        return [it.path.with_name(sibling_name(it.path.name)) for it in items]
    if out is not None:
        single_file = len(items) == 1 and items[0].root is None
        if single_file:
            if out.is_dir():
                return [out / items[0].path.name]
            return [out]
        if out.exists() and not out.is_dir():
            raise ConvertError(f"{out}: exists and is not a folder (several files need an output folder)")
        return [out / it.rel for it in items]
    return [None] * len(items)


def _refuse_links(out: Path, targets: Sequence[Path | None]) -> None:
    """An output folder is never written through a link: not OUT itself, nor any folder below it on the
    way to a target, nor (for a relative OUT) a folder on the way from the current one. A repository can
    ship `out/kern` as a link to any folder of the person's (issue 22 item 8)."""
    from ..fsutil import first_link

    base = out if out.is_absolute() else Path(out.parts[0]) if out.parts else Path(".")
    for t in targets:
        # the folders; a link in place of the output file itself is refused when written (fsutil.atomic_write)
        link = first_link(t.parent, base) if t is not None and t != base else None
        if link is not None:
            raise ConvertError(f"{link}: is a symbolic link; -o never writes through one (name the folder it "
                               "leads to, or remove the link); nothing was written")


def _refuse_shared_outputs(items: Sequence[WalkItem], targets: Sequence[Path | None]) -> None:
    """Two inputs written to one output, or an output that is another input: one would be lost."""
    inputs = {os.path.realpath(it.path): it for it in items}
    seen: dict[str, WalkItem] = {}
    for it, t in zip(items, targets, strict=True):
        if t is None:
            continue
        key = os.path.realpath(t)
        first = seen.setdefault(key, it)
        if first is not it:
            raise ConvertError(f"{first.path} and {it.path} would both be written to {t}; convert them "
                               "separately, or give a folder that mirrors their own folders")
        other = inputs.get(key)
        if other is not None and other is not it:
            raise ConvertError(f"{it.path} would be written to {t}, which is another input ({other.path}); "
                               "convert them separately")


def _refuse_overwriting_inputs(items: Sequence[WalkItem], targets: Sequence[Path | None]) -> None:
    for it, t in zip(items, targets, strict=True):
        if t is not None and t.resolve() == it.path.resolve():
            raise ConvertError(f"{t}: output would overwrite its input (use --in-place for that)")


@dataclass(frozen=True)
class ConvertRequest:
    items: Sequence[WalkItem]          # the files, as walk() found them
    targets: Sequence[Path | None]     # where each one is written (None: not written)
    options: TranslateOptions          # the settings' options; convert adds what the set of files decides
    fixes: str | Collection[str] = "all"  # pipeline.port's fixes
    style: FixStyle | None = None      # 64-wide style of the fix groups; None: logical warps only
    warp_options: Any = None           # warp.WarpOptions
    allow_review: bool = False         # apply REVIEW-tier fix groups too
    render: bool = True                # keep each file's output (to write it or to print it)
    diff: bool = False                 # each file's unified diff
    in_place: bool = False             # the targets are the inputs (a file without changes is left alone)
    keep_original: bool = True         # in place: keep the original as <file>.prehip
    renamed_outputs: bool = False      # outputs get new names (--suffix): includes between the files follow them
    jobs: int | None = None            # worker processes (None: all cores when it pays off)


@dataclass(frozen=True)
class Written:
    """One write: what the target held before is kept as `kept` (None: nothing to keep), or it failed."""

    target: Path
    kept: Path | None = None
    error: str | None = None  # one line; the file was not written


@dataclass
class WarpTally:
    """What the conversion did to the warp code: the default logical-warp port, the groups rewritten
    64-wide, those held, and the places that are not exact."""

    files: int = 0
    rewrites: int = 0
    wide: int = 0
    logical_groups: int = 0
    held: int = 0
    not_exact: int = 0

    def add(self, res: FileResult) -> None:
        self.files += res.logical_rewrites > 0
        self.rewrites += res.logical_rewrites
        self.wide += res.wide_groups
        self.logical_groups += res.logical_groups
        self.held += len(res.held)
        self.not_exact += len(res.not_exact)

    def summary(self, plain: bool) -> str:
        """One line for the end of the conversion ("" when there is nothing to say)."""
        if plain:
            return "warp code left as written (--fixes none): hipify's translation, not ported to 64-wide waves"
        if not (self.files or self.wide or self.not_exact or self.logical_groups):
            return ""
        parts = [f"warp code in {self.files} file(s) ported as logical 32-lane warps ({self.rewrites} rewrite(s))"]
        if self.wide or self.logical_groups:
            parts.append(f"{self.wide} fix group(s) 64-wide, {self.logical_groups} kept as logical warps"
                         + (f" ({self.held} held, reasons above)" if self.held else ""))
        parts.append(f"{self.not_exact} place(s) not exact (listed above)" if self.not_exact
                     else "no place reported as not exact")
        return "; ".join(parts)


@dataclass
class ConvertResult:
    files: int = 0                     # files asked for
    failed: int = 0                    # not translated (each said through on_file, FileResult.error)
    changed: int = 0
    modes: set[str] = field(default_factory=set)
    reports: list[dict[str, Any]] = field(default_factory=list)  # every file's, in file order
    replaced: dict[str, int] = field(default_factory=dict)  # exact replacements (shims.py): files using each
    warp: WarpTally = field(default_factory=WarpTally)
    writes: list[Written] = field(default_factory=list)     # in file order

    @property
    def translated(self) -> int:
        return self.files - self.failed

    @property
    def not_written(self) -> int:
        return sum(1 for w in self.writes if w.error is not None)

    def add(self, res: FileResult) -> None:
        """Count a translated file."""
        self.modes.add(res.mode)
        self.changed += res.changed
        self.reports += res.reports
        self.warp.add(res)
        for key, n in res.stats.items():
            if key.startswith("shim.") and n:
                self.replaced[key[5:]] = self.replaced.get(key[5:], 0) + 1


def conversion_options(request: ConvertRequest) -> TranslateOptions:
    """The options every file of the conversion is translated with: the request's, plus what the set of
    files decides (renamed outputs for includes between them; the names they define themselves)."""
    from ..project.names import with_project_names

    options = request.options
    if request.renamed_outputs:
        options = dataclasses.replace(options, sibling_outputs=frozenset(
            os.path.normpath(os.path.abspath(it.path)) for it in request.items))
    # error macros and helpers a tree defines in one file (or header) and uses in the others
    return with_project_names(options, [it.path for it in request.items])


def convert(request: ConvertRequest, on_file: Callable[[FileResult], None]) -> ConvertResult:
    """Port every file of `request` and write each to its target; see the module docstring."""
    from .files import port_files

    options = conversion_options(request)
    jobs = [Job(str(it.path), it.rel, options, fixes=request.fixes, style=request.style,
                warp_options=request.warp_options, allow_review=request.allow_review, render=request.render,
                diff=request.diff, diff_label=str(t) if t is not None else str(it.path))
            for it, t in zip(request.items, request.targets, strict=True)]
    result = ConvertResult(files=len(jobs))
    pending: list[tuple[Path, Future[Path | None]]] = []
    # distinct targets (always, but for a tree holding both a.cu and its sibling output): parallel writes
    threads = WRITE_THREADS if len(set(request.targets)) == len(request.targets) else 1
    with ThreadPoolExecutor(max_workers=threads) as writer:
        for res, target in zip(port_files(jobs, request.jobs), request.targets, strict=True):
            on_file(res)
            if res.error:
                result.failed += 1
                continue
            result.add(res)
            output = res.output
            # in place, a file with nothing to translate is left alone (and its mtime)
            if target is not None and output is not None and not (request.in_place and not res.changed):
                pending.append((target, writer.submit(_write, request, target, output)))
        result.writes = [_written(target, fut) for target, fut in pending]
    from ..fsutil import sync_folders

    sync_folders(w.target.parent for w in result.writes if w.error is None)  # one fsync per folder
    return result


def _write(request: ConvertRequest, target: Path, data: bytes) -> Path | None:
    from ..outputs import write_port

    return write_port(target, data, in_place=request.in_place, keep_original=request.keep_original,
                      sync_folder=False)


def _written(target: Path, fut: Future[Path | None]) -> Written:
    from ..fsutil import WriteError

    try:
        return Written(target, fut.result())
    except WriteError as e:
        return Written(target, error=str(e))
    except OSError as e:
        return Written(target, error=f"{target}: cannot write ({e.strerror or e})")
