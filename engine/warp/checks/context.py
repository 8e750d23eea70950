"""What a device-code rule works with while the device check scans one function (ruff's `Checker`): the
file's facts, the hit log, the values the function's names hold, and answers remembered per function."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..facts import FileFacts
from ..hits import HitLog
from ..scopes import Func
from ..tokens import Tokens
from ..values import FunctionValues
from ..words import CHAIN_COPY_BUDGET


@dataclass
class CopyBudget:
    """Statement bytes the W64-06 fixes of unrolled chains may still copy in this file (forms.unrolled_chain)."""

    left: int = CHAIN_COPY_BUDGET


@dataclass
class DeviceFunction:
    facts: FileFacts
    log: HitLog
    values: FunctionValues
    func: Func
    budget: CopyBudget
    # argument spans of shuffles given an explicit width of at most 32: deliberate sub-warp logic (lanes.py)
    sub_warp: list[tuple[int, int]] = field(default_factory=list)
    # remembered per function: a kernel of 20,000 lines must not rescan itself per hit
    uses_index: dict[str, list[int]] | None = None                  # name -> token indices (lanes.py)
    warp_op_facts: tuple[bool, set[str]] | None = None              # lanes.flows_to_warp_op
    offset32: bool | None = None                                    # forms.has_offset32_shuffle
    full32_at: dict[tuple[int, int], list[int]] = field(default_factory=dict)  # forms.unrolled_chain, per statement
    lane_dependent_names: frozenset[str] | None = None              # lane0.lane_names
    calls_shfl_down: bool | None = None                             # lane0.lane0_stores
    tokens: Tokens = field(init=False)  # facts.tokens, read by every rule: a field, not a property (speed)

    def __post_init__(self) -> None:
        self.tokens = self.facts.tokens

    @property
    def key(self) -> str:
        """The function's fix group: lane ids, warp ids, loops."""
        return f"fn:{self.func.index}"

    @property
    def mask_key(self) -> str:
        """Masks and ballot types are their own value: widening them is right whatever the lane ids do, so
        they form their own group per function (a safe mask fix is not held by a review lane fix)."""
        return f"masks:{self.func.index}"

    @property
    def body(self) -> tuple[int, int]:
        """The tokens inside the braces: [first, closing brace)."""
        return self.func.body[0] + 1, self.func.body[1]
