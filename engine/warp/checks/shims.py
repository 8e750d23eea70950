"""Before ROCm 7 the *_sync builtins are opt-in or absent and __syncwarp does not exist: a file that calls
them needs the pre-ROCm-7 shims of the prelude (prelude.py). No hits of its own."""

from __future__ import annotations

from ..facts import FileFacts
from ..hits import HitLog
from ..lex import ID
from ..words import SYNC_CALLS
from .interface import CheckOutput, Upstream


def check_shims(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    log = HitLog(upstream.claimed)
    if facts.rocm >= (7, 0):
        return CheckOutput(log)
    tokens = facts.tokens
    names = {tokens.texts[k] for k, kind in enumerate(tokens.kinds) if kind == ID}
    if names & (SYNC_CALLS - {"__syncwarp"}) or "__activemask" in names:
        log.needs.sync_shim = True
    if "__syncwarp" in names:
        log.needs.syncwarp_shim = True
    return CheckOutput(log)
