"""The engine's public value types. Frozen dataclasses; the app renders these and nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .edits import Edit
from .source import Source


class ReportKind(StrEnum):
    """Why something was reported instead of (or besides) being translated."""

    UNSUPPORTED = "unsupported"          # AMD lists the CUDA API as not supported in HIP/ROC
    NEEDS_NEWER_ROCM = "needs-newer-rocm"  # exists in HIP, but after the selected --rocm target
    DEPRECATED = "deprecated"            # translated, but deprecated/removed in HIP or CUDA
    UNKNOWN = "unknown"                  # looks like a CUDA API (cu*/cuda*/CU_*) but is in no table
    MANUAL = "manual"                    # needs a person: inline PTX, textures, ...
    PYTHON = "python"                    # Python-side item: nvcc flag, visibility variable, device ordinal
    INFO = "info"                        # e.g. which mode ran
    NOT_EXACT = "not-exact"              # the logical-warp port cannot make it exact (warp/logical.py NotExact)


# report kinds that mean "a person has to port this by hand", in the order `convert`, `scan` and the app
# list them; the app marks each such report in the diff's gutter and lets j/k and the overview reach it
PERSON_KINDS = (ReportKind.UNSUPPORTED, ReportKind.NEEDS_NEWER_ROCM, ReportKind.MANUAL, ReportKind.UNKNOWN)


@dataclass(frozen=True, slots=True)
class Report:
    """Something the translation could not (fully) do, located in the original text."""

    kind: ReportKind
    name: str            # the CUDA name or item, e.g. "cudaGraphInstantiateWithParams"
    start: int           # str offset in the original text
    end: int
    line: int            # 1-based
    col: int             # 1-based
    message: str         # one line a person can act on
    hip_name: str = ""   # the HIP name where one exists (e.g. needs a newer ROCm)
    since: str = ""      # HIP/ROCm version that added hip_name, when known


class TranslationMode(StrEnum):
    TOKENS = "tokens"  # libclang lexer only
    AST = "ast"        # libclang AST resolved what tokens could not


@dataclass(frozen=True)
class Translation:
    """CUDA -> HIP for one Source: ordered, non-overlapping edits plus reports."""

    source: Source
    edits: tuple[Edit, ...]
    reports: tuple[Report, ...] = ()
    mode: TranslationMode = TranslationMode.TOKENS
    stats: dict[str, int] = field(default_factory=dict)  # e.g. {"api": 12, "include": 1, "launch": 2}

    @property
    def changed(self) -> bool:
        return bool(self.edits)


class Severity(StrEnum):
    WRONG_RESULT = "wrong-result"
    COMPILE_ERROR = "compile-error"
    PERFORMANCE = "performance"


class FixTier(StrEnum):
    """How far a fix group can be trusted (issue 9). `convert --fixes all` applies SAFE groups only;
    REVIEW groups need an explicit option (CLI) or a deliberate key (app), with `tier_reason` shown."""

    SAFE = "safe"      # every use of the value was understood; the fix is exact
    REVIEW = "review"  # some use was not understood (e.g. the constant also sizes a launch)


class FixStyle(StrEnum):
    WAVE64 = "wave64"      # MI-series only: 64, 64-bit masks and ballots
    PORTABLE = "portable"  # correct on NVIDIA 32, RDNA 32 and CDNA 64


@dataclass(frozen=True, slots=True)
class Fix:
    style: FixStyle
    edits: tuple[Edit, ...]
    summary: str  # one line: "lane = threadIdx.x % 64"


@dataclass(frozen=True, slots=True)
class Use:
    """One place a finding's root cause is used (issue 9: one finding per root cause, listing its uses)."""

    line: int
    col: int
    text: str  # the source line, stripped, shortened
    role: str = ""  # "lane" | "virtual" | "launch" | "bit-word" | "number" | "" (the finding's own kind)


@dataclass(frozen=True, slots=True)
class Finding:
    """One 32-lane assumption at one place in the original text."""

    id: str              # stable within a file: f"{rule}:{line}:{col}"
    rule: str            # "W64-06"
    severity: Severity
    start: int
    end: int
    line: int
    col: int
    message: str         # what is wrong here, one or two sentences
    group: str           # fix-group id: findings that must change together share it
    fixes: tuple[Fix, ...]  # one per style (wave64, portable); may be empty when only a person can fix
    confidence: str = "high"  # "high" | "medium" | "low" (heuristic)
    uses: tuple[Use, ...] = ()  # the other places of the same root cause (merged, or a constant's uses)

    def fix(self, style: FixStyle) -> Fix | None:
        for f in self.fixes:
            if f.style == style:
                return f
        return None


@dataclass(frozen=True)
class FixGroup:
    """Findings that must be accepted or rejected together (a partial fix can be worse than none)."""

    id: str
    finding_ids: tuple[str, ...]
    reason: str
    # Edits shared by the group per style (e.g. one inserted `lane_mask_t` typedef). Applied once
    # when any finding of the group is accepted in that style.
    shared: tuple[Fix, ...] = ()
    tier: FixTier = FixTier.SAFE
    tier_reason: str = ""  # why REVIEW, one line naming the use, e.g. "WS also sizes the launch at main.cu:120"


@dataclass(frozen=True)
class Analysis:
    """Warp-width analysis of one Source."""

    source: Source
    findings: tuple[Finding, ...]
    groups: tuple[FixGroup, ...]
    mode: TranslationMode = TranslationMode.TOKENS
