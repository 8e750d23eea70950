"""Per-name decisions: what the translation does with one identifier, cached per option set (the same
name gets the same answer everywhere in a run)."""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from ..mapping import Mapping
from ..model import ReportKind
from .options import TranslateOptions
from .ptx import ASM_KEYWORDS
from .tables import (
    ARG_REWRITES,
    ARG_REWRITES_HIP_ONLY,
    HIP_DATA_TYPES,
    OVERLOADS,
    UNKNOWN_PATTERN,
)


class Action(enum.IntEnum):
    RENAME = 0
    KEEP = 1       # a CUDA name HIP spells the same
    REPORT = 2     # left as is, reported (Decision.report says how)
    NAMESPACE = 3  # renamed where it qualifies a name (`cub::`) or is declared (`namespace cub`)


class Decision(NamedTuple):
    action: Action
    hip: str                   # the replacement ("" for REPORT)
    family: str                # mapping family (the convert summary counts per family)
    report: ReportKind | None  # a report also made where the name is translated (e.g. DEPRECATED)
    message: str
    since: str                 # the HIP release the message is about


class Unlisted(enum.IntEnum):
    """An identifier in no API table: what else it may be."""
    NOTHING = 0
    INLINE_ASM = 1     # `asm` spelled as an identifier (__asm__ in some lexers' eyes)
    CUDA_MACRO = 2     # a CUDA preprocessor macro (mapping/macros.tsv)
    CUDA_LOOKING = 3   # looks like a CUDA API (tables.UNKNOWN_PATTERN): reported as unknown


# calls whose arguments (not only their name) may change: call_args.py
ARG_REWRITTEN_NAMES = frozenset(ARG_REWRITES) | frozenset(OVERLOADS) | frozenset(ARG_REWRITES_HIP_ONLY)

_decisions: dict[tuple[Any, ...], dict[str, Decision | None]] = {}
_unlisted: dict[str, Unlisted] = {}


@functools.cache
def unknown_name_re() -> re.Pattern[str]:
    return re.compile(UNKNOWN_PATTERN)  # compiled on first use: ~4 ms, not needed by every run


def unlisted_kind(name: str, mapping: Mapping) -> Unlisted:
    """What a name no API table lists is (cached by name)."""
    kind = _unlisted.get(name)
    if kind is None:
        kind = _unlisted[name] = (
            Unlisted.INLINE_ASM if name in ASM_KEYWORDS else
            Unlisted.CUDA_MACRO if mapping.macro(name) is not None
            else Unlisted.CUDA_LOOKING if unknown_name_re().match(name) else Unlisted.NOTHING)
    return kind


def _decide(name: str, mapping: Mapping, options: TranslateOptions) -> Decision | None:
    e = mapping.lookup(name)
    if e is None:
        return None
    fam = e.family
    if e.kind == "namespace":
        return Decision(Action.NAMESPACE, e.hip, fam, None, "", "") if e.hip else None
    target = e.target(options.roc, options.miopen)
    if options.hip_data_types and name in HIP_DATA_TYPES:
        target = HIP_DATA_TYPES[name]
    note = e.section.split("overrides.tsv: ", 1)[1][:-1] if "overrides.tsv: " in e.section else ""
    if not target or (e.status == "unsupported" and target == e.hip):
        why = note or "AMD's HIPIFY tables list it as unsupported"
        return Decision(Action.REPORT, "", fam, ReportKind.UNSUPPORTED, f"{name} has no HIP equivalent ({why})", "")
    if target == e.hip and e.hip_removed and mapping.version_at_least(e.hip_removed, options.rocm):
        return Decision(Action.REPORT, "", fam, ReportKind.UNSUPPORTED,
                        f"{name}: its HIP counterpart {target} was removed in HIP {e.hip_removed}", "")
    if target == e.hip and e.needs_newer_rocm(options.rocm):
        releases, _, flag = e.opt_in.partition(" ")
        behind_flag = f"; ROCm {releases} have it with {flag}" if flag else ""
        return Decision(Action.REPORT, "", fam, ReportKind.NEEDS_NEWER_ROCM,
                        f"{name} -> {target} needs ROCm {e.hip_added} (target is ROCm {options.rocm_text}; use "
                        f"--rocm){behind_flag}", e.hip_added)
    exp = e.roc_experimental if target != e.hip else e.experimental
    if exp and not options.experimental:
        return Decision(Action.REPORT, "", fam, ReportKind.UNSUPPORTED,
                        f"{name} -> {target} is experimental in HIP {exp}; pass --experimental to translate it", exp)
    action = Action.RENAME if target != name else Action.KEEP
    if target == e.hip and e.hip_deprecated and mapping.version_at_least(e.hip_deprecated, options.rocm):
        return Decision(action, target, fam, ReportKind.DEPRECATED,
                        f"{name} -> {target}, which is deprecated since HIP {e.hip_deprecated}", e.hip_deprecated)
    return Decision(action, target, fam, None, "", "")


def decider(mapping: Mapping, options: TranslateOptions) -> Callable[[str], Decision | None]:
    """`decide(name)`: the Decision for a name under these options, None for a name in no table."""
    key = (id(mapping), options.rocm, options.roc, options.experimental, options.miopen, options.hip_data_types)
    cache = _decisions.setdefault(key, {})

    def decide(name: str) -> Decision | None:
        try:
            return cache[name]
        except KeyError:
            d = cache[name] = _decide(name, mapping, options)
            return d

    return decide


def load_mapping() -> Mapping:
    from ..mapping import load

    return load()
