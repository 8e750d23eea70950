"""Hand-kept corrections on top of the HIPIFY snapshot: the warp-sync builtins exist in HIP (same names)."""

from __future__ import annotations

import pytest

from hipport.engine.mapping import load


@pytest.mark.parametrize("name", ["__shfl_down_sync", "__ballot_sync", "__activemask", "__syncwarp",
                                  "__reduce_add_sync", "__match_any_sync"])
def test_warp_sync_builtins_keep_their_name_from_rocm_7(name: str) -> None:
    e = load().lookup(name)
    assert e is not None and e.hip == name and e.status == "supported"
    assert not e.needs_newer_rocm((7, 0))
    assert e.needs_newer_rocm((6, 4))  # opt-in only before 7.0: reported for older targets
    assert name in load().names()


def test_overrides_do_not_shadow_table_rows_they_do_not_name() -> None:
    e = load().lookup("__shfl_down")
    assert e is not None and e.hip == "__shfl_down" and e.hip_added == "1.6.0"
