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


def test_rocm_6_4_report_says_the_builtin_is_there_behind_the_flag(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`convert --rocm 6.4`: __shfl_up_sync is not "ROCm 7.0 only"; 6.2-6.4 have it with the opt-in flag."""
    from hipport.cli.main import main

    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float* x) {\n  float v = x[threadIdx.x];\n"
                   "  x[threadIdx.x] = __shfl_up_sync(0xffffffffffffffffull, v, 1);\n}\n")
    # the translation's report (`--fixes none`: the default port calls no *_sync builtin at all)
    assert main(["convert", "--rocm", "6.4", "--fixes", "none", str(src)]) == 0
    err = capsys.readouterr().err
    assert ("k.cu:3:20: needs-newer-rocm: __shfl_up_sync -> __shfl_up_sync needs ROCm 7.0.0 (target is ROCm 6.4; "
            "use --rocm); ROCm 6.2-6.4 have it with -DHIP_ENABLE_WARP_SYNC_BUILTINS") in err
    assert main(["convert", "--rocm", "7.0", "--fixes", "none", str(src)]) == 0
    assert "needs-newer-rocm" not in capsys.readouterr().err
