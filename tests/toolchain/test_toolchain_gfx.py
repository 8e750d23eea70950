"""gfx target decoding (KFD gfx_target_version, tool spellings) and wave sizes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hipport.engine.toolchain.gfx import decode_gfx_target_version, normalize_gfx, override_to_gfx, wave_size


@pytest.mark.parametrize(
    ("value", "gfx"),
    [
        (90010, "gfx90a"),  # MI200: step 10 is the hex digit a (decimal concat would say gfx9010)
        (90008, "gfx908"),
        (90402, "gfx942"),
        (90500, "gfx950"),
        (100300, "gfx1030"),
        (110000, "gfx1100"),
        (110501, "gfx1151"),
        (120001, "gfx1201"),
        ("90402\n", "gfx942"),
    ],
)
def test_decode_gfx_target_version(value: int | str, gfx: str) -> None:
    assert decode_gfx_target_version(value) == gfx


@pytest.mark.parametrize("value", [0, "0", "", "junk", -5, 91600])
def test_decode_rejects_cpu_nodes_and_garbage(value: int | str) -> None:
    assert decode_gfx_target_version(value) is None


@given(st.integers(8, 12), st.integers(0, 15), st.integers(0, 15))
def test_decode_is_major_then_hex_minor_and_step(major: int, minor: int, step: int) -> None:
    gfx = decode_gfx_target_version(major * 10000 + minor * 100 + step)
    assert gfx == f"gfx{major}{minor:x}{step:x}"
    assert normalize_gfx(gfx) == gfx


@pytest.mark.parametrize(
    ("spelling", "gfx"),
    [
        ("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "gfx942"),  # rocminfo ISA name
        ("gfx90a:sramecc+:xnack-", "gfx90a"),  # torch gcnArchName
        ("gfx9010", "gfx90a"),  # rocm-smi's decimal-concatenation bug (ROCm/rocm_smi_lib#159)
        ("GFX942", "gfx942"),
        ("9.4.2", "gfx942"),  # HSA_OVERRIDE_GFX_VERSION style
        ("90010", "gfx90a"),
        ("gfx1100", "gfx1100"),
        ("gfx000", None),  # rocm_agent_enumerator's CPU
        ("", None),
        (None, None),
        ("sm_90", None),
    ],
)
def test_normalize_gfx(spelling: str | None, gfx: str | None) -> None:
    assert normalize_gfx(spelling) == gfx


@pytest.mark.parametrize(
    ("gfx", "size"),
    [("gfx908", 64), ("gfx90a", 64), ("gfx942", 64), ("gfx950", 64), ("gfx1030", 32), ("gfx1100", 32), ("gfx1201", 32)],
)
def test_wave_size_gfx9_is_64_rdna_is_32(gfx: str, size: int) -> None:
    assert wave_size(gfx) == size


def test_override_value_to_gfx() -> None:
    assert override_to_gfx("9.4.2") == "gfx942"
    assert override_to_gfx("11.0.0") == "gfx1100"
    assert override_to_gfx("gfx942") is None  # not the variable's format
