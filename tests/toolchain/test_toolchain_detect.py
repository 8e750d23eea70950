"""detect() on a SYNTHETIC host root (KFD tree, /dev/kfd) with fake tools on PATH that print
RECORDED outputs: real child processes, no AMD hardware needed."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from hipport.engine.toolchain.detect import detect, detect_torch, parse_torch_probe, tool_env

DATA = Path(__file__).resolve().parent.parent / "data" / "toolchain"


def fake_tool(bindir: Path, name: str, body: str) -> None:
    p = bindir / name
    p.write_text("#!/bin/sh\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)


def mi300x_host(tmp_path: Path, with_tools: bool = True) -> tuple[Path, dict[str, str]]:
    """4 MI300X GPU nodes (KFD nodes 2-5, as in the recorded rocminfo) and a CPU node 0."""
    root = tmp_path / "root"
    nodes = root / "sys/class/kfd/kfd/topology/nodes"
    (nodes / "0").mkdir(parents=True)
    (nodes / "0" / "properties").write_text("cpu_cores_count 48\nsimd_count 0\ngfx_target_version 0\n")
    props = (DATA / "kfd_node_properties_mi325x.txt").read_text()
    for n, loc in zip((2, 3, 4, 5), (0x2600, 0x4600, 0x6500, 0x8500), strict=True):
        (nodes / str(n)).mkdir()
        # SYNTHETIC variation of the recorded file: full-package SIMD count and each GPU's PCI location
        text = props.replace("simd_count 304", "simd_count 1216").replace("location_id 29952", f"location_id {loc}")
        (nodes / str(n) / "properties").write_text(text)
    (root / "dev").mkdir()
    (root / "dev/kfd").write_text("")
    (root / "dev/dri").mkdir()
    (root / "dev/dri/renderD128").write_text("")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    if with_tools:
        fake_tool(bindir, "rocminfo", f"/bin/cat '{DATA / 'rocminfo_mi300x_x4.txt'}'")
        fake_tool(bindir, "hipcc", "echo 'HIP version: 6.2.41133-dd7f95766'; echo 'AMD clang version 18.0.0git'")
        fake_tool(bindir, "hipconfig", f"/bin/cat '{DATA / 'hipconfig_full_rocm62.txt'}'")
    env = {"PATH": str(bindir), "HOME": str(tmp_path)}
    return root, env


def test_mi300x_host_from_kfd_and_rocminfo(tmp_path: Path) -> None:
    root, env = mi300x_host(tmp_path)
    det = detect(env, root=root, torch=False)
    assert [g.index for g in det.amd_gpus] == [0, 1, 2, 3]  # HIP index = KFD node order
    g = det.amd_gpus[0]
    assert g.arch == "gfx942" and g.name == "AMD Instinct MI300X"
    assert g.compute_units == 304 and g.max_clock_mhz == 2100
    assert g.pci == "0000:26:00.0" and g.uuid == "GPU-8d1457e2c20f59d2"
    assert g.target_id == "gfx942:sramecc+:xnack-"
    assert g.wave_size == 64
    assert g.sources == ("kfd", "rocminfo")
    assert det.amd_gpus[3].pci == "0000:85:00.0"
    assert det.rocm.hip_version == "6.2.41133-dd7f95766" and det.rocm.hip_version_tuple == (6, 2)
    assert det.kfd.kfd_exists and det.kfd.render_nodes == ("renderD128",)
    assert not det.has_nvidia_gpu


def test_kfd_alone_is_enough(tmp_path: Path) -> None:
    root, env = mi300x_host(tmp_path, with_tools=False)
    det = detect(env, root=root, torch=False)
    assert [g.arch for g in det.amd_gpus] == ["gfx942"] * 4
    assert det.amd_gpus[0].name == "gfx942"  # no marketing name without rocminfo/amd-smi
    assert not det.rocm.found


def test_nothing_installed(tmp_path: Path) -> None:
    det = detect({"PATH": str(tmp_path)}, root=tmp_path, torch=False)
    assert det.amd_gpus == () and det.nvidia_gpus == ()
    assert not det.kfd.kfd_exists


def test_failing_and_hanging_tools_are_ignored(tmp_path: Path) -> None:
    root, env = mi300x_host(tmp_path, with_tools=False)
    bindir = Path(env["PATH"])
    fake_tool(bindir, "rocminfo", "echo boom >&2; exit 1")
    fake_tool(bindir, "amd-smi", "/bin/sleep 30 & /bin/sleep 30")  # a grandchild keeps the pipe open
    import time

    start = time.monotonic()
    det = detect(env, root=root, torch=False, timeout=0.5)
    assert time.monotonic() - start < 5  # the hanging tool's whole group was killed at its time limit
    assert len(det.amd_gpus) == 4 and det.amd_gpus[0].sources == ("kfd",)


def test_visibility_variables_are_recorded_but_not_passed_to_tools(tmp_path: Path) -> None:
    root, env = mi300x_host(tmp_path)
    # a rocminfo that honours ROCR_VISIBLE_DEVICES the way ROCr does would hide GPUs
    fake_tool(Path(env["PATH"]), "rocminfo",
              f"[ -n \"$ROCR_VISIBLE_DEVICES\" ] && exit 1; /bin/cat '{DATA / 'rocminfo_mi300x_x4.txt'}'")
    env = {**env, "ROCR_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "0"}
    det = detect(env, root=root, torch=False)
    assert det.visibility == {"HIP_VISIBLE_DEVICES": "0", "ROCR_VISIBLE_DEVICES": "1"}
    assert det.amd_gpus[0].sources == ("kfd", "rocminfo")
    assert "ROCR_VISIBLE_DEVICES" not in tool_env(env)


def test_nvidia_smi_and_nvcc(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake_tool(bindir, "nvidia-smi", "echo '0, NVIDIA H200, 00000000:00:06.0, GPU-x, 143771, 9.0'")
    fake_tool(bindir, "nvcc", f"/bin/cat '{DATA / 'nvcc_version_cuda130.txt'}'")
    det = detect({"PATH": str(bindir)}, root=tmp_path, torch=False)
    assert det.nvidia_gpus[0].name == "NVIDIA H200" and det.nvidia_gpus[0].arch == "sm_90"
    assert det.cuda.version == "13.0.88"


def test_torch_probe_runs_in_a_subprocess(tmp_path: Path) -> None:
    # a stand-in interpreter that prints what the probe prints on a ROCm build
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho \'{"found": true, "version": "2.9.0+rocm7.0", "hip": "7.0.51831", '
                    '"cuda": null, "available": true, "count": 8, "devices": ["AMD Instinct MI300X"], '
                    '"archs": ["gfx942"]}\'\n')
    fake.chmod(0o755)
    t = detect_torch({"PATH": os.environ.get("PATH", "")}, str(fake), timeout=5)
    assert t.found and t.hip == "7.0.51831" and t.device_count == 8 and t.backend == "ROCm (HIP 7.0.51831)"


def test_torch_probe_with_the_real_interpreter(tmp_path: Path) -> None:
    t = detect_torch(dict(os.environ), sys.executable, timeout=60)
    try:
        import torch  # noqa: F401
    except ImportError:
        assert not t.found and t.error and "ModuleNotFoundError" in t.error
    else:
        assert t.found and t.version


def test_torch_probe_timeout_and_garbage(tmp_path: Path) -> None:
    slow = tmp_path / "python"
    slow.write_text("#!/bin/sh\n/bin/sleep 30\n")
    slow.chmod(0o755)
    t = detect_torch({}, str(slow), timeout=0.5)
    assert not t.found and "longer than" in (t.error or "")
    assert not parse_torch_probe("Segmentation fault\n").found


FAKE_TORCH = ("__version__ = '2.9.0+rocm7.0'\n"
              "class version:\n    hip = '7.0.51831'\n    cuda = None\n"
              "class cuda:\n    @staticmethod\n    def is_available():\n        return False\n")


def test_torch_probe_ignores_the_current_folder_but_keeps_pythonpath(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -I` in an empty folder (issue 22 item 3): a torch.py where hipport runs is never imported; a
    torch the person put on PYTHONPATH still is, as their own run would find it."""
    here = tmp_path / "cloned-repo"
    here.mkdir()
    marker = tmp_path / "imported"
    (here / "torch.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    monkeypatch.chdir(here)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    t = detect_torch(env, sys.executable, timeout=60)
    assert not marker.exists()
    site_dir = tmp_path / "site"
    (site_dir / "torch").mkdir(parents=True)
    (site_dir / "torch" / "__init__.py").write_text(FAKE_TORCH)
    t = detect_torch({**env, "PYTHONPATH": str(site_dir)}, sys.executable, timeout=60)
    assert t.found and t.version == "2.9.0+rocm7.0" and t.hip == "7.0.51831" and not marker.exists()
