"""Token-level warp-width analysis of C++/CUDA/HIP text: build the file's facts once (facts.py), run the
registered checks in order (checks/__init__.py), collect their hits into one `Result`.

The analysis follows values derived from `threadIdx` (thread ids, lane ids, warp ids), ballot and
activemask results, mask constants and warp-size constants (macros, `constexpr`, `static const`)
through assignments, small device helpers that return a lane id, and macros. A literal 32 is
reported only when it meets such a value (or a warp builtin); tile sizes, bank padding, bit widths
and 2-D block shapes do not, which is where most of the precision comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .checks import CHECKS, Upstream
from .facts import FileFacts, ProjectFacts, build_facts
from .hits import HitLog, Result
from .lex import Columns
from .prelude import prelude_offset
from .values import FunctionValues

__all__ = ["Run", "analyze_text", "run_checks"]


@dataclass(frozen=True)
class Run:
    """One text's analysis: its facts, every check's hits, and what the device check learnt per function."""

    facts: FileFacts
    log: HitLog
    function_values: Mapping[int, FunctionValues]

    def result(self) -> Result:
        tokens = self.facts.tokens
        columns = Columns(tokens.kinds, tokens.texts[:tokens.count], tokens.starts, tokens.ends, tokens.directive)
        return Result(tokens.starts, tokens.ends, tokens.functions, self.log.hits, self.log.needs, self.log.links,
                      prelude_offset(tokens.text, columns))


def run_checks(facts: FileFacts) -> Run:
    log = HitLog()
    log.links += facts.links
    upstream = Upstream()
    for check in CHECKS:
        out = check.run(facts, upstream)
        log.merge(out.log)
        upstream = upstream.after(out)
    return Run(facts, log, upstream.function_values)


def analyze_text(text: str, rocm: tuple[int, int], wave32: bool, project: ProjectFacts | None = None) -> Result:
    """The warp analysis of one C/C++/CUDA text (`project`: what its own headers say, project.py)."""
    return run_checks(build_facts(text, rocm, wave32, project)).result()
