"""`hipport doctor` checks on SYNTHETIC detections and real project trees."""

from __future__ import annotations

import grp
import json
import os
import subprocess
import sys
from pathlib import Path

from hipport.engine.toolchain.detect import Detection, Gpu, KfdAccess, RocmInstall, TorchInfo
from hipport.engine.toolchain.doctor import hardcoded_ordinals, run_checks

MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304)
OK_KFD = KfdAccess(True, True, True, ("renderD128",), True)
ROCM7 = RocmInstall(root="/opt/rocm", version="7.0.2", hip_version="7.0.51831", hipcc="/opt/rocm/bin/hipcc")


def by_name(det: Detection, root: Path | None = None, env: dict[str, str] | None = None, groups: list[int] | None = None):  # type: ignore[no-untyped-def]
    return {c.name: c for c in run_checks(det, root, env or {"HIP_PLATFORM": "amd"}, groups)}


def existing_gids() -> dict[str, int]:
    out = {}
    for name in ("render", "video"):
        try:
            out[name] = grp.getgrnam(name).gr_gid
        except KeyError:
            pass
    return out


def test_healthy_mi300x_machine(tmp_path: Path) -> None:
    torch = TorchInfo(True, "2.9.0+rocm7.0", hip="7.0.51831", available=True, device_count=1)
    det = Detection(amd_gpus=(MI300X,), rocm=ROCM7, kfd=OK_KFD, torch=torch)
    checks = by_name(det, tmp_path, groups=list(existing_gids().values()))
    assert {c.status for c in checks.values()} <= {"pass", "info"}
    assert "ROCm 7.0.2" in checks["ROCm"].message
    assert "'cuda'" in checks["PyTorch"].message


def test_no_kfd_access_fails_with_the_group_fix() -> None:
    det = Detection(amd_gpus=(MI300X,), rocm=ROCM7, kfd=KfdAccess(True, False, True, ("renderD128",), False))
    checks = by_name(det, groups=[])
    assert checks["/dev/kfd"].status == "fail" and "render" in checks["/dev/kfd"].fix
    assert checks["/dev/dri"].status == "fail"
    missing = sorted(existing_gids())  # groups that exist here and that the user (groups=[]) lacks
    if missing:
        assert checks["groups"].status == "fail" and all(g in checks["groups"].message for g in missing)
        assert "usermod" in checks["groups"].fix
    else:
        assert checks["groups"].status == "pass"  # neither group exists on this system


def test_container_without_dev_kfd() -> None:
    det = Detection(amd_gpus=(MI300X,), rocm=ROCM7, kfd=KfdAccess(False, False, False, (), False))
    assert by_name(det)["/dev/kfd"].status == "fail"


def test_cuda_torch_on_an_amd_machine_and_version_mismatch() -> None:
    cuda_torch = TorchInfo(True, "2.11.0+cu130", cuda="13.0", available=False)
    assert by_name(Detection(amd_gpus=(MI300X,), rocm=ROCM7, kfd=OK_KFD, torch=cuda_torch))["PyTorch"].status == "fail"
    old = TorchInfo(True, "2.3.0+rocm6.0", hip="6.0.32830", available=True)
    c = by_name(Detection(amd_gpus=(MI300X,), rocm=ROCM7, kfd=OK_KFD, torch=old))["PyTorch"]
    assert c.status == "warn" and "7.0" in c.message


def test_visibility_conflicts() -> None:
    both = Detection(amd_gpus=(MI300X,), visibility={"HIP_VISIBLE_DEVICES": "0", "ROCR_VISIBLE_DEVICES": "0"})
    assert by_name(both)["visibility"].status == "warn"
    beyond = Detection(amd_gpus=(MI300X,), visibility={"HIP_VISIBLE_DEVICES": "3"})
    assert by_name(beyond)["visibility"].status == "fail"
    hidden = Detection(amd_gpus=(MI300X,), visibility={"HIP_VISIBLE_DEVICES": ""})
    assert by_name(hidden)["visibility"].status == "fail"


def test_hsa_override_on_a_native_gpu() -> None:
    same = by_name(Detection(amd_gpus=(MI300X,), hsa_override="9.4.2"))["HSA_OVERRIDE_GFX_VERSION"]
    assert same.status == "warn" and "natively" in same.message
    wrong = by_name(Detection(amd_gpus=(MI300X,), hsa_override="11.0.0"))["HSA_OVERRIDE_GFX_VERSION"]
    assert wrong.status == "fail" and "gfx1100" in wrong.message


def test_hip_platform_guess(tmp_path: Path) -> None:
    for tool in ("nvcc", "hipcc"):
        p = tmp_path / tool
        p.write_text("#!/bin/sh\n")
        p.chmod(0o755)
    assert by_name(Detection(), env={"PATH": str(tmp_path)})["HIP_PLATFORM"].status == "warn"


def test_hard_coded_ordinals(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("int main() {\n  cudaSetDevice(2);\n}\n")
    (tmp_path / "t.py").write_text("import torch\nx = torch.zeros(3, device='cuda:1')\ny = x.cuda(0)\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.cu").write_text("cudaSetDevice(7);\n")  # build output is skipped
    found, files = hardcoded_ordinals(tmp_path)
    hits = sorted((o.path.name, o.line, o.index) for o in found)
    assert hits == [("a.cu", 2, 2), ("t.py", 2, 1), ("t.py", 3, 0)] and files == 2
    two = Detection(amd_gpus=(MI300X, Gpu("amd", 1, "AMD Instinct MI300X", "gfx942")))
    c = by_name(two, tmp_path)["device ordinals"]
    assert c.status == "fail" and "a.cu:2" in c.message and c.places == ("a.cu:2: device 2",)
    masked = Detection(amd_gpus=(*two.amd_gpus, Gpu("amd", 2, "x", "gfx942")), visibility={"HIP_VISIBLE_DEVICES": "0,1"})
    assert by_name(masked, tmp_path)["device ordinals"].status == "fail"


def test_doctor_command_json_and_exit_code(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("cudaSetDevice(0);\n")
    cp = subprocess.run([sys.executable, "-m", "hipport.cli", "doctor", str(tmp_path), "--json", "--no-torch"],
                        capture_output=True, text=True, timeout=60, env={**os.environ, "HIP_VISIBLE_DEVICES": "-1"})
    checks = {c["name"]: c for c in json.loads(cp.stdout)}
    assert set(checks) >= {"ROCm", "/dev/kfd", "visibility", "HSA_OVERRIDE_GFX_VERSION", "device ordinals"}
    assert cp.returncode == (1 if any(c["status"] == "fail" for c in checks.values()) else 0)
    missing = subprocess.run([sys.executable, "-m", "hipport.cli", "doctor", str(tmp_path / "nope")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "no such file" in missing.stderr and "Traceback" not in missing.stderr



def doctor(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hipport.cli", "doctor", "--no-torch", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "HIP_VISIBLE_DEVICES": "0"})


def test_every_hard_coded_index_is_named_with_file_and_line(tmp_path: Path) -> None:
    """Issue 19 item 13: "20 hard-coded device index(es)" came with no file:line, even in JSON."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text("int main() {\n  cudaSetDevice(0);\n" + "  hipSetDevice(0);\n" * 11 + "}\n")
    (tmp_path / "t.py").write_text("x = y.cuda(0)\n")
    doc = json.loads(doctor(str(tmp_path), "--format", "json", cwd=tmp_path).stdout)
    ordinals = next(c for c in doc if c["name"] == "device ordinals")
    assert ordinals["places"] == ["src/a.cu:2: device 0", *(f"src/a.cu:{n}: device 0" for n in range(3, 14)),
                                  "t.py:1: device 0"]
    assert "13 hard-coded device index(es) in 2 source file(s) under" in ordinals["message"]
    text = doctor(str(tmp_path), cwd=tmp_path).stdout
    assert "src/a.cu:2: device 0" in text and "src/a.cu:11: device 0" in text
    assert "src/a.cu:12: device 0" not in text and "… and 3 more (--format json lists all)" in text


def test_without_a_path_only_a_project_folder_is_scanned(tmp_path: Path) -> None:
    """The default is the current folder when it is a project (in git, or <= 300 sources): a workspace
    outside git with many sources is not walked, and a git subfolder is scanned alone, not the whole tree."""
    workspace = tmp_path / "workspace"
    for i in range(301):
        (workspace / f"p{i // 100}").mkdir(parents=True, exist_ok=True)
        (workspace / f"p{i // 100}" / f"k{i}.cu").write_text("cudaSetDevice(0);\n")
    doc = json.loads(doctor("--format", "json", cwd=workspace).stdout)
    ordinals = next(c for c in doc if c["name"] == "device ordinals")
    assert ordinals["status"] == "info" and ordinals["places"] == []
    assert ordinals["message"].startswith(f"not scanned: {workspace} is not in a git work tree and holds more than 300")
    repo = tmp_path / "repo"
    (repo / "app").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "top.cu").write_text("cudaSetDevice(3);\n")
    (repo / "app" / "k.cu").write_text("int x;\ncudaSetDevice(1);\n")
    doc = json.loads(doctor("--format", "json", cwd=repo / "app").stdout)
    assert next(c for c in doc if c["name"] == "device ordinals")["places"] == ["k.cu:2: device 1"]


def test_one_output_format_option_for_every_command_and_json_still_works(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    for argv in (["doctor", "--no-torch", str(tmp_path)], ["run", "--list-devices", str(tmp_path)],
                 ["scan", str(tmp_path)]):
        new = subprocess.run([sys.executable, "-m", "hipport.cli", *argv, "--format", "json"],
                             capture_output=True, text=True, timeout=120)
        old = subprocess.run([sys.executable, "-m", "hipport.cli", *argv, "--json"],
                             capture_output=True, text=True, timeout=120)
        assert isinstance(json.loads(new.stdout), list | dict), argv
        assert json.loads(old.stdout) == json.loads(new.stdout), argv
        assert "--json is deprecated; use --format json" in old.stderr and "deprecated" not in new.stderr
