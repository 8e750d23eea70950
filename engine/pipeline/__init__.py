"""The pipeline: source files to their HIP text, one way for the command line, the app and the app's
background analysis.

    port(source, options, ...)        here: one source -> its HIP text (translation, the logical-warp
                                      port and chosen warp fixes composed by compose.py, render)
    files.port_file(job)              one file: read, port, render, diff -> FileResult (plain data);
                                      files.FileError / failure: the one wording of a file's failure
    pool.port_files(jobs)             many files, here or on workers.py's one pool (pool.on_workers)
    convert.convert(request, on_file) a whole conversion: shared options, project names, the writes
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..compose import WIDTH_INDEPENDENT_RULES, choose, compose, connected_groups, dedupe, fix_edits
from ..edits import Edit, apply_edits
from ..model import Analysis, FixStyle, FixTier, Report, ReportKind, Translation
from ..source import Language, Source

if TYPE_CHECKING:
    from ..warp.logical import LogicalWarps

__all__ = ["PortResult", "dedupe", "fix_edits", "port"]


@dataclass(frozen=True)
class PortResult:
    translation: Translation
    analysis: Analysis | None
    applied_findings: tuple[str, ...]
    text: str
    held: dict[str, str] = field(default_factory=dict)  # fix group id -> why it was not applied
    logical: LogicalWarps | None = None               # the logical-warp port (None: --fixes none)
    wide_groups: tuple[str, ...] = ()                 # fix groups applied as 64-wide rewrites
    logical_rewrites: int = 0                         # logical-warp rewrites in `text`
    reports: tuple[Report, ...] = ()                  # the translation's reports still true of `text`


def port(
    source: Source,
    options: object | None = None,
    *,
    fixes: str | Collection[str] = "all",
    style: FixStyle | None = None,
    warp_options: object | None = None,
    allow_review: bool = False,
) -> PortResult:
    """Translate `source` and port its warp code.

    fixes="none": the translation alone (hipify-clang's output). Otherwise the warp code is ported as
    logical 32-lane warps (right on every GPU by construction), and with a 64-wide `style` (wave64 or
    portable) the fix groups of `fixes` ("all" or a set of rule ids) are applied as 64-wide rewrites
    instead: whole groups, REVIEW-tier groups only with `allow_review`; a group that cannot be applied
    whole is held, see `held`."""
    from ..translate.driver import translate  # lazy: keeps `hipport --help` fast

    tr = translate(source, options)  # type: ignore[arg-type]
    if fixes == "none" or (source.language not in LOGICAL_LANGUAGES and style is None):
        return PortResult(tr, None, (), apply_edits(source.text, tr.edits), reports=tr.reports)
    from ..warp import analyze

    logical = logical_port(source, tr)
    # the 64-wide offers need the role analysis; the default port only for its width-independent rules
    # (W64-24 follows a __shfl_down tree), so a file without one is not analysed: convert stays fast
    analysis = None
    if style is not None or "__shfl_down" in source.text:
        analysis = connected_groups(analyze(source, tr, warp_options), logical)  # type: ignore[arg-type]
    if analysis is None:
        c = compose(tr.edits, None, {}, allow_review=False, logical=logical)
        return PortResult(tr, None, (), apply_edits(source.text, c.edits), c.held, logical, (), c.logical_rewrites,
                          port_reports(tr.reports, c.edits, logical))
    # the default port also takes the SAFE groups of width-independent rules (compose.py)
    review = {g.id for g in analysis.groups if g.tier != FixTier.SAFE}
    group_of = {f.id: f.group or f.id for f in analysis.findings}
    chosen = {fid: s for fid, s in choose(analysis, WIDTH_INDEPENDENT_RULES, FixStyle.WAVE64).items()
              if group_of[fid] not in review}
    if style is not None:
        chosen.update(choose(analysis, None if fixes == "all" else set(fixes), style))
    c = compose(tr.edits, analysis, chosen, allow_review=allow_review, logical=logical)
    return PortResult(tr, analysis, c.applied, apply_edits(source.text, c.edits), c.held, logical,
                      c.wide_groups, c.logical_rewrites, port_reports(tr.reports, c.edits, logical))


# Languages whose warp code is ported as logical warps (Python's CUDA strings are not rewritten yet)
LOGICAL_LANGUAGES = frozenset({Language.CUDA, Language.CPP})


# every word logical.py acts on or reports (a file with none of them has nothing to port or to say)
_MAY_HAVE_WARP_CODE = re.compile(
    r"__shfl|__ballot|__any|__all|__uni_sync|__activemask|__match_a|__reduce_|__syncwarp|warpSize|C10_WARP_SIZE|"
    r"warp_size|GetDeviceProperties|DeviceGetAttribute|Warp(?:Reduce|Scan|Load|Store|Exchange|MergeSort)|"
    r"\basm\b|__asm|clock|coalesced_threads|__global__|__device__")


def logical_port(source: Source, translation: Translation) -> LogicalWarps | None:
    """The logical-warp rewrites of `source` (None for languages they do not apply to); the CLI and the
    review session both take them from here."""
    if source.language not in LOGICAL_LANGUAGES or not _MAY_HAVE_WARP_CODE.search(source.text):
        return None
    from ..warp.lex import columns
    from ..warp.logical import analyze_logical
    from ..warp.prelude import prelude_offset

    return analyze_logical(source.text, prelude_offset(source.text, columns(source.text)), source.newline,
                           ((e.start, e.end) for e in translation.edits))


def port_reports(reports: Iterable[Report], edits: Iterable[Edit], logical: LogicalWarps | None) -> tuple[Report, ...]:
    """What is still to say about the port: the translation's reports minus those about a name the port
    replaced (a `__syncwarp` the target ROCm lacks is no longer called once it is `hipport_syncwarp`),
    plus what the logical-warp port cannot make exact (ReportKind.NOT_EXACT), in text order."""
    replaced = [(e.start, e.end) for e in edits if e.rule == "logical-warp" and e.start != e.end]
    kept = [r for r in reports if not any(a <= r.start and r.end <= b for a, b in replaced)]
    if logical is not None:
        said = [r.start for r in kept]  # an asm statement the translation reports already is not said twice
        kept += [Report(ReportKind.NOT_EXACT, x.kind, x.start, x.end, x.line, x.col, x.message)
                 for x in logical.not_exact if not any(x.start <= at < x.end for at in said)]
    return tuple(sorted(kept, key=lambda r: (r.start, r.end)))
