"""Trust before running the project's own commands: `hipport run` shows the argv that comes from
[tool.hipport.run] and runs it only once trusted; without a terminal it needs --trust (remembered in
.hipport/trust.json, asked again when the commands change)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.engine.toolchain.detect import Detection, Gpu, RocmInstall
from hipport.engine.toolchain.plan import plan
from hipport.engine.toolchain.trust import describe, remember, untrusted

MI300X = Gpu("amd", 0, "AMD Instinct MI300X", "gfx942", 304, 2100)
DET = Detection(amd_gpus=(MI300X,), rocm=RocmInstall(hip_version="7.0.0"))


def project(tmp_path: Path, run: str) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "k.hip").write_text("int main() { return 0; }\n")
    (root / "pyproject.toml").write_text(f"[tool.hipport.run]\nrun = {json.dumps(run)}\n")
    return root


def test_config_commands_need_trust_once_and_again_when_they_change(tmp_path: Path) -> None:
    root = project(tmp_path, "./build/k --fast")
    from hipport.engine.config import load_config

    rp = plan(root, dict(load_config(root).run), detection=DET, env={})
    steps = untrusted(rp)
    assert [s.argv for s in steps] == [["./build/k", "--fast"]]  # only the config's command, not hipcc
    assert "./build/k --fast" in describe(steps)[0]
    remember(rp)
    assert untrusted(plan(root, dict(load_config(root).run), detection=DET, env={})) == []
    (root / "pyproject.toml").write_text('[tool.hipport.run]\nrun = "./build/k --slow"\n')
    changed = plan(root, dict(load_config(root).run), detection=DET, env={})
    assert [s.argv for s in untrusted(changed)] == [["./build/k", "--slow"]]
    # hipport's own plan (no config commands) needs no trust
    (root / "pyproject.toml").unlink()
    assert untrusted(plan(root, {}, detection=DET, env={})) == []


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_headless_run_needs_the_trust_flag(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "k.hip").write_text("int main() { return 0; }\n")
    (root / "pyproject.toml").write_text('[tool.hipport.run]\narch = "gfx90a"\ndefines = ["FAST=1"]\n')

    def hipport(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hipport.tui.cli", "run", *args, str(root)], capture_output=True,
                              text=True, timeout=600, stdin=subprocess.DEVNULL)

    r = hipport("--json")
    assert r.returncode == 2 and json.loads(r.stdout)["status"] == "not trusted"
    assert "-DFAST=1" in r.stderr and "pass --trust" in r.stderr and not (root / "build" / "k").exists()
    r = hipport("--json", "--trust")
    report = json.loads(r.stdout)
    assert r.returncode == 0 and report["status"] == "built, not launched", r.stderr[-2000:]
    assert (root / ".hipport" / "trust.json").is_file() and (root / "build" / "k").is_file()
    # remembered: no flag needed the next time
    assert hipport("--json").returncode == 0
