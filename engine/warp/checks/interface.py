"""The typed interface of a check: it reads the file's facts and what earlier checks handed on (`Upstream`),
and returns its own output (`CheckOutput`): its hits, and what a later check depends on."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from ..facts import FileFacts
from ..hits import HitLog
from ..values import FunctionValues


@dataclass
class CheckOutput:
    log: HitLog
    macro_keys: frozenset[str] = frozenset()  # macros.py: macros holding a lane/warp-id finding
    function_values: dict[int, FunctionValues] = field(default_factory=dict)  # device.py: per device function


@dataclass(frozen=True)
class Upstream:
    """What the checks that ran before hand to a later one."""

    claimed: frozenset[int] = frozenset()  # tokens their hits claim: a later hit claiming one is dropped
    macro_keys: frozenset[str] = frozenset()
    function_values: Mapping[int, FunctionValues] = field(default_factory=lambda: MappingProxyType({}))

    def after(self, out: CheckOutput) -> Upstream:
        return replace(self, claimed=frozenset(out.log.claimed), macro_keys=self.macro_keys | out.macro_keys,
                       function_values=MappingProxyType({**self.function_values, **out.function_values}))


@dataclass(frozen=True)
class Check:
    id: str
    rules: tuple[str, ...]  # the rules whose hits it reports (rules.toml)
    run: Callable[[FileFacts, Upstream], CheckOutput]
