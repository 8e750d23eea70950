"""Parsers against RECORDED tool outputs (tests/data/toolchain; SOURCES.md names each source)."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

from hipport.engine.toolchain import parsers

DATA = Path(__file__).resolve().parent.parent / "data" / "toolchain"


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_every_recorded_file_names_its_source() -> None:
    sources = read("SOURCES.md")
    for p in DATA.rglob("*"):
        if p.is_file() and p.name != "SOURCES.md":
            rel = p.relative_to(DATA).as_posix()
            # a folder's files may be named by a pattern: `g12_h200/*.run.log`
            named = [line.split("`")[1] for line in sources.splitlines() if line.startswith("| `")]
            assert any(fnmatch.fnmatch(rel, n) for n in named), rel


def test_rocminfo_mi300x_gpu_agents_only_in_order() -> None:
    agents = parsers.parse_rocminfo(read("rocminfo_mi300x_x4.txt"))
    assert len(agents) == 4  # the CPU agent is skipped on Device Type, not on agent number
    a = agents[0]
    assert a.name == "gfx942"
    assert a.marketing_name == "AMD Instinct MI300X"
    assert a.gfx == "gfx942"
    assert a.isa == "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
    assert (a.compute_units, a.max_clock_mhz, a.wavefront_size, a.chip_id) == (304, 2100, 64, 0x74A1)
    assert [x.node for x in agents] == [2, 3, 4, 5]
    assert [x.uuid for x in agents][:2] == ["GPU-8d1457e2c20f59d2", "GPU-b4fa34630e85d42a"]
    # BDFID -> bus: the same host's rocm-smi lists PCI buses 26, 46, 65, 85 (thamada/nvidia-smi MI300X_x4_smi.py)
    assert [x.pci_bdf for x in agents] == ["26:00.0", "46:00.0", "65:00.0", "85:00.0"]


def test_rocminfo_without_gpus_or_garbage() -> None:
    assert parsers.parse_rocminfo("ROCk module is NOT loaded, possibly no GPU devices\n") == []
    cpu_only = read("rocminfo_mi300x_x4.txt").split("*******                  \nAgent 3")[0]
    assert parsers.parse_rocminfo(cpu_only) == []


def test_kfd_properties_mi325x() -> None:
    node = parsers.kfd_node(2, read("kfd_node_properties_mi325x.txt"))
    assert node.gfx == "gfx942"
    assert node.compute_units == 76  # 304 SIMDs / 4 per CU (one partition of the package here)
    assert node.pci_bdf == "0000:75:00.0"  # location_id 29952 = 0x7500
    assert node.properties["max_engine_clk_fcompute"] == 2100
    assert parsers.kfd_node(0, "cpu_cores_count 48\ngfx_target_version 0\n").gfx is None


def test_rocm_smi_json_gfx_bug_is_decoded() -> None:
    cards = parsers.rocmsmi_cards(read("rocm_smi_showproductname_mi250x.json"))
    assert list(cards) == [0]
    assert cards[0]["GFX Version"] == "gfx9010"
    from hipport.engine.toolchain.gfx import normalize_gfx

    assert normalize_gfx(cards[0]["GFX Version"]) == "gfx90a"
    assert parsers.rocmsmi_cards("not json") == {}


def test_amd_smi_text_static_and_list() -> None:
    static = parsers.parse_amdsmi(read("amd_smi_static_mi350x.txt"))
    assert static[0]["asic"]["market_name"] == "AMD Instinct MI350X"
    assert static[0]["bus"]["bdf"] == "0000:05:00.0"
    gpus = parsers.amdsmi_gpus(static_text=read("amd_smi_static_mi350x.txt"))
    assert gpus[0].gfx == "gfx950" and gpus[0].compute_units == 128 and gpus[0].bdf == "0000:05:00.0"
    listed = parsers.amdsmi_gpus(list_text=read("amd_smi_list_mi210.txt"))
    assert len(listed) == 1  # the AI NIC block is not a GPU
    assert listed[0].bdf == "0000:23:00.0"
    assert listed[0].uuid == "67ff740f-0000-1000-80e6-b5bb3c3ce0db"
    assert listed[0].kfd_node == 2


def test_amd_smi_json_forms() -> None:
    # SYNTHETIC: the JSON spelling of the recorded text sample (amd-smi's JSON keys are the text
    # keys lower-cased; amd-smi >= 26 wraps the list in "gpu_data", per ROCm/rocm-systems#223)
    rec = {"gpu": 0, "asic": {"market_name": "AMD Instinct MI350X", "target_graphics_version": "gfx950",
                              "num_compute_units": 128}, "bus": {"bdf": "0000:05:00.0"}}
    for text in (json.dumps([rec]), json.dumps({"gpu_data": [rec]})):
        g = parsers.amdsmi_gpus(static_text=text)[0]
        assert (g.gfx, g.compute_units, g.bdf) == ("gfx950", 128, "0000:05:00.0")


def test_amd_smi_metric_usage() -> None:
    usage = parsers.amdsmi_usage(read("amd_smi_metric_usage_w7700.json"))
    assert len(usage) == 1
    assert usage[0].index == 0 and usage[0].busy_percent == 42.0
    assert usage[0].mem_used_mib is None  # not asked for in that recorded call


def test_hipconfig_full_rocm62_and_debian() -> None:
    info = parsers.parse_hipconfig_full(read("hipconfig_full_rocm62.txt"))
    assert info["HIP version"] == "6.2.41133-dd7f95766"
    assert info["ROCM_PATH"] == "/opt/rocm-6.2.0"
    assert info["HIP_PLATFORM"] == "amd"
    assert info["clang"].startswith("AMD clang version 18.0.0git")
    deb = parsers.parse_hipconfig_full(read("hipconfig_full_debian_hip52.txt"))
    assert deb["HIP version"] == "5.2.21153-0"
    assert deb["HIP_COMPILER"] == "clang"


def test_hipcc_version_and_version_tuple() -> None:
    info = parsers.parse_hipcc_version(read("hipcc_version_debian_hip52.txt"))
    assert info["hip_version"] == "5.2.21153-0"
    assert info["clang"] == "Debian clang version 15.0.6"
    assert parsers.hip_version_tuple(info["hip_version"]) == (5, 2)
    assert parsers.hip_version_tuple("6.2.41133-dd7f95766") == (6, 2)
    assert parsers.hip_version_tuple(None) is None


def test_nvcc_and_nvidia_smi() -> None:
    assert parsers.parse_nvcc_version(read("nvcc_version_cuda130.txt")) == "13.0.88"
    gpus = parsers.parse_nvidia_smi_csv(read("nvidia_smi_query_h200.csv"))
    assert len(gpus) == 1 and gpus[0].name == "NVIDIA H200" and gpus[0].sm == "sm_90"
    assert gpus[0].memory_total_mib == 143771 and gpus[0].pci_bus_id == "00000000:00:06.0"
    assert gpus[0].uuid.startswith("GPU-")
    usage = parsers.parse_nvidia_smi_usage(read("nvidia_smi_usage_h200.csv"))
    assert (usage[0].index, usage[0].busy_percent, usage[0].mem_used_mib, usage[0].mem_total_mib) == (0, 0.0, 0.0, 143771.0)
    assert parsers.parse_nvidia_smi_csv("NVIDIA-SMI has failed because it couldn't communicate\n") == []
