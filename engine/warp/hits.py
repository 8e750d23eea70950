"""What a check reports: `Hit`s, recorded in a `HitLog` that also collects the prelude parts the fixes need
and the links between fix groups; `Result` is one text's analysis, as build.py reads it.

A hit claims the tokens its edits change: a later hit claiming one of them is dropped, so the first check
to reach a token owns it. The driver (analyzer.py) hands each check the tokens claimed before it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..edits import Edit
from .prelude import Needs
from .scopes import Func
from .words import VIRTUAL_OK


@dataclass
class Hit:
    rule: str
    anchor: int  # token index the finding points at
    w64: list[Edit] | None
    port: list[Edit] | None
    w64_summary: str
    port_summary: str
    message: str
    key: str
    confidence: str = "high"
    end_anchor: int | None = None
    review: str = ""  # why this hit's group is REVIEW, naming the use ("WS also sizes the launch at line 120")
    uses: list[int] = field(default_factory=list)  # token indices of the other uses of the same root cause
    use_roles: dict[int, str] = field(default_factory=dict)  # token index -> role (roles.py) where known


@dataclass
class Result:
    starts: list[int]   # str offset of each token (hits name tokens by index)
    ends: list[int]
    funcs: list[Func]
    hits: list[Hit]
    needs: Needs
    links: list[tuple[str, str]] = field(default_factory=list)  # union pairs of keys
    prelude_at: int = 0


class HitLog:
    """One check's output: its hits, the tokens they claim, the prelude parts and the group links.
    `taken`: the tokens claimed by the checks that ran before."""

    def __init__(self, taken: frozenset[int] = frozenset()) -> None:
        self.hits: list[Hit] = []
        self.claimed: set[int] = set(taken)
        self.needs = Needs()
        self.links: list[tuple[str, str]] = []
        # the device function being scanned is a consistent virtual 32-lane warp (functions.py): the hits
        # of VIRTUAL_OK rules are dropped there
        self.in_virtual_warp = False

    def dropped(self, rule: str, claim: Iterable[int]) -> bool:
        """Whether add() would drop a hit of `rule` claiming these tokens (a check whose edits cost much to
        build asks first)."""
        if self.in_virtual_warp and rule in VIRTUAL_OK:
            return True  # a self-consistent 32-lane sub-group is correct on a 64-lane wavefront
        return any(c in self.claimed for c in claim)

    def add(self, hit: Hit, claim: Iterable[int] = ()) -> bool:
        claim = list(claim) or [hit.anchor]
        if self.dropped(hit.rule, claim):
            return False
        self.claimed.update(claim)
        self.hits.append(hit)
        return True

    def merge(self, other: HitLog) -> None:
        """Take over a later check's output (its claims include this log's: HitLog(taken=...))."""
        self.hits += other.hits
        self.claimed |= other.claimed
        self.links += other.links
        self.needs.merge(other.needs)
