"""The warp checks, registered by id in the order they run (analyzer.py runs them).

Each check is a function `(FileFacts, Upstream) -> CheckOutput` (interface.py): it reads the file's facts and
what earlier checks handed on, and returns its hits. Order matters where checks meet: a token claimed by an
earlier hit is not edited again, the device check reads which macros hold a finding, and the warp-size
constants read what the device check learnt about each function's names.
"""

from __future__ import annotations

from .constants import check_warp_size_constants
from .device import check_device
from .directives import check_directives
from .file_scope import check_file_scope
from .host import check_host
from .host_variables import check_host_variables
from .interface import Check, CheckOutput, Upstream
from .macros import check_macros
from .masks import check_mask_constants, check_sync_masks
from .shims import check_shims

CHECKS: tuple[Check, ...] = (
    Check("host-variables", ("W64-10",), check_host_variables),
    Check("macros", ("W64-01", "W64-02"), check_macros),
    Check("device", ("W64-01", "W64-02", "W64-03", "W64-04", "W64-05", "W64-06", "W64-07", "W64-09", "W64-13",
                     "W64-14", "W64-15", "W64-16", "W64-17", "W64-18", "W64-20", "W64-23", "W64-24"), check_device),
    Check("host", ("W64-10", "W64-12", "W64-20"), check_host),
    Check("sync-masks", ("W64-03", "W64-04"), check_sync_masks),
    Check("warp-size-constants", ("W64-08",), check_warp_size_constants),
    Check("directives", ("W64-22",), check_directives),
    Check("mask-constants", ("W64-03",), check_mask_constants),
    Check("file-scope", ("W64-09", "W64-19", "W64-20", "W64-21"), check_file_scope),
    Check("shims", (), check_shims),
)

__all__ = ["CHECKS", "Check", "CheckOutput", "Upstream"]
