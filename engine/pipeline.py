"""One call from a source to its HIP text: translation, optional warp fixes (composed by compose.py,
the same composer the review session uses), render."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from .compose import choose, compose, dedupe, fix_edits
from .edits import apply_edits
from .model import Analysis, FixStyle, Translation
from .source import Source

__all__ = ["PortResult", "dedupe", "fix_edits", "port"]


@dataclass(frozen=True)
class PortResult:
    translation: Translation
    analysis: Analysis | None
    applied_findings: tuple[str, ...]
    text: str
    held: dict[str, str] = field(default_factory=dict)  # fix group id -> why it was not applied


def port(
    source: Source,
    options: object | None = None,
    *,
    fixes: str | Collection[str] = "none",
    style: FixStyle = FixStyle.WAVE64,
    warp_options: object | None = None,
    allow_review: bool = False,
) -> PortResult:
    """Translate `source`; with fixes="all" or a set of rule ids, also apply those warp fixes (whole
    groups; REVIEW-tier groups only with `allow_review`; a group that conflicts is held, see `held`)."""
    from .translate import translate  # lazy: keeps `hipport --help` fast

    tr = translate(source, options)  # type: ignore[arg-type]
    if fixes == "none":
        return PortResult(tr, None, (), apply_edits(source.text, tr.edits))
    from .warp import analyze

    analysis = analyze(source, tr, warp_options)  # type: ignore[arg-type]
    chosen = choose(analysis, None if fixes == "all" else set(fixes), style)
    c = compose(tr.edits, analysis, chosen, allow_review=allow_review)
    return PortResult(tr, analysis, c.applied, apply_edits(source.text, c.edits), c.held)
