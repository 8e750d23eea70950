"""Translation options and per-name decisions (cached per option set: the same name gets the same
answer everywhere). Split out of engine/translate.py, which re-exports the public names."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .model import ReportKind
from .translate_tables import ARG_REWRITES, ARG_REWRITES_HIP_ONLY, HIP_DATA_TYPES, OVERLOADS, UNKNOWN_PATTERN


class TranslateError(Exception):
    """Translation cannot run as asked (e.g. ast="on" without a clang resource dir). One line."""


@dataclass(frozen=True)
class TranslateOptions:
    rocm: tuple[int, int] = (7, 0)
    launch_syntax: str = "chevron"  # "chevron" keeps <<<...>>>; "ggl" emits hipLaunchKernelGGL
    roc: bool = False               # rocBLAS/rocSPARSE/... and MIOpen names instead of hip*
    experimental: bool = False      # also translate names HIP marks experimental
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()   # "NAME" or "NAME=VALUE" (AST mode, and skip_inactive)
    skip_inactive: bool = False     # leave #if branches the preprocessor leaves inactive untouched
    amap: bool = False              # with skip_inactive: still rename CUDA names in the inactive branches
    miopen: bool = False            # cuDNN -> MIOpen names (what --roc also does for cuDNN)
    hip_data_types: bool = False    # cudaDataType -> hipDataType, not hipblasDatatype_t / rocblas_datatype
    translate_comments: bool = False
    translate_strings: bool = True  # hipify-clang's RewriteString: whole words of string literals
    ast: str = "auto"               # "auto" | "off" | "on"
    # absolute paths of the files of this conversion whose outputs get sibling names (--suffix):
    # quoted includes of them are pointed at their ports (engine/local_includes.py)
    sibling_outputs: frozenset[str] = frozenset()
    archs: tuple[str, ...] = ("gfx942",)  # build scripts: --offload-arch / CMAKE_HIP_ARCHITECTURES targets
    output_mode: str = "folder"     # build scripts: "sibling" renames gemm.cu -> gemm.hip in the script
    shims: bool = True              # insert the exact replacements of mapping/shims.tsv where the target lacks them
    # CUDA-looking names other files of the conversion define (engine/project/names.py): not "unknown"
    project_names: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.launch_syntax not in ("chevron", "ggl"):
            raise ValueError(f"launch_syntax must be 'chevron' or 'ggl', not {self.launch_syntax!r}")
        if self.ast not in ("auto", "off", "on"):
            raise ValueError(f"ast must be 'auto', 'off' or 'on', not {self.ast!r}")


# ---------------------------------------------------------------------------------------------
# Per-name decisions (cached per option set: the same name gets the same answer everywhere)

_RENAME, _KEEP, _REPORT, _NAMESPACE = 0, 1, 2, 3


@functools.cache
def _unknown_re() -> re.Pattern[str]:
    return re.compile(UNKNOWN_PATTERN)  # compiled on first use: ~4 ms, not needed by every run

_Decision = tuple[int, str, str, ReportKind | None, str, str]  # (action, replacement, family, report kind, message, since)
_decisions: dict[tuple[Any, ...], dict[str, _Decision | None]] = {}
_ARG_NAMES = frozenset(ARG_REWRITES) | frozenset(OVERLOADS) | frozenset(ARG_REWRITES_HIP_ONLY)
# names in no API table: 0 nothing, 1 inline asm keyword, 2 CUDA preprocessor macro, 3 CUDA-looking
_other: dict[str, int] = {}


def _mapping() -> Any:
    from .mapping import load

    return load()


def _decide(name: str, mapping: Any, options: TranslateOptions) -> _Decision | None:
    e = mapping.lookup(name)
    if e is None:
        return None
    fam = e.family
    if e.kind == "namespace":
        return (_NAMESPACE, e.hip, fam, None, "", "") if e.hip else None
    target = e.target(options.roc, options.miopen)
    if options.hip_data_types and name in HIP_DATA_TYPES:
        target = HIP_DATA_TYPES[name]
    v = ".".join(map(str, options.rocm))
    note = e.section.split("overrides.tsv: ", 1)[1][:-1] if "overrides.tsv: " in e.section else ""
    if not target or (e.status == "unsupported" and target == e.hip):
        why = note or "AMD's HIPIFY tables list it as unsupported"
        return (_REPORT, "", fam, ReportKind.UNSUPPORTED, f"{name} has no HIP equivalent ({why})", "")
    if target == e.hip and e.hip_removed and mapping.version_at_least(e.hip_removed, options.rocm):
        return (_REPORT, "", fam, ReportKind.UNSUPPORTED,
                f"{name}: its HIP counterpart {target} was removed in HIP {e.hip_removed}", "")
    if target == e.hip and e.needs_newer_rocm(options.rocm):
        releases, _, flag = e.opt_in.partition(" ")
        behind_flag = f"; ROCm {releases} have it with {flag}" if flag else ""
        return (_REPORT, "", fam, ReportKind.NEEDS_NEWER_ROCM,
                f"{name} -> {target} needs ROCm {e.hip_added} (target is ROCm {v}; use --rocm){behind_flag}",
                e.hip_added)
    exp = e.roc_experimental if target != e.hip else e.experimental
    if exp and not options.experimental:
        return (_REPORT, "", fam, ReportKind.UNSUPPORTED,
                f"{name} -> {target} is experimental in HIP {exp}; pass --experimental to translate it", exp)
    if target == e.hip and e.hip_deprecated and mapping.version_at_least(e.hip_deprecated, options.rocm):
        return (_RENAME if target != name else _KEEP, target, fam, ReportKind.DEPRECATED,
                f"{name} -> {target}, which is deprecated since HIP {e.hip_deprecated}", e.hip_deprecated)
    return (_RENAME if target != name else _KEEP, target, fam, None, "", "")


def _decider(mapping: Any, options: TranslateOptions) -> Callable[[str], _Decision | None]:
    key = (id(mapping), options.rocm, options.roc, options.experimental, options.miopen, options.hip_data_types)
    cache = _decisions.setdefault(key, {})

    def decide(name: str) -> _Decision | None:
        try:
            return cache[name]
        except KeyError:
            d = cache[name] = _decide(name, mapping, options)
            return d

    return decide
