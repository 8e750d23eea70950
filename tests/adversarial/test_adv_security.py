"""Security: no shell string is ever built from a file name or a config value (argv lists only); config
and state cannot make hipport write outside the project root; the environment given to builds is the
person's plus only the variables hipport documents.
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest
from adv_util import KERNEL, hipport, no_traceback, tree_digest

from hipport.engine.config import Config, ConfigError
from hipport.engine.review import Decision, ReviewError, ReviewSession
from hipport.engine.toolchain.detect import VISIBILITY_VARS, Detection, Gpu
from hipport.engine.toolchain.execute import run_plan
from hipport.engine.toolchain.plan import PlanError, plan

pytestmark = pytest.mark.security

REPO = Path(__file__).resolve().parents[2]
EVIL = ["x; touch pwned.cu", "$(touch pwned).cu", "`touch pwned`.cu", "a'b\"c && touch pwned.cu", "|touch pwned.cu"]


def pwned(*roots: Path) -> list[Path]:
    return [p for r in roots for p in r.rglob("pwned*")]


# ------------------------------------------------------------------------------------ no shell strings


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            out.append((name, node))
    return out


def test_no_shell_anywhere_in_engine_and_app_source() -> None:
    """shell=True, os.system, os.popen, create_subprocess_shell, or a str argv for a process call:
    none of them appear in hipport's own code."""
    offenders = []
    for folder in ("engine", "tui"):
        for path in sorted((REPO / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for name, call in _calls(tree):
                where = f"{path.relative_to(REPO)}:{call.lineno}"
                if name in ("system", "popen", "create_subprocess_shell", "getoutput", "getstatusoutput"):
                    offenders.append(f"{where} {name}()")
                for kw in call.keywords:
                    if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                        offenders.append(f"{where} shell=")
                if name in ("run", "Popen", "check_output", "check_call", "call") and call.args:
                    a0 = call.args[0]
                    if isinstance(a0, ast.JoinedStr | ast.BinOp) or (
                            isinstance(a0, ast.Constant) and isinstance(a0.value, str)):
                        offenders.append(f"{where} {name}(<string>)")
    assert offenders == []


def test_evil_file_names_are_data_for_convert_scan_and_commit(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    for n in EVIL:
        (proj / n).write_bytes(KERNEL.encode())
    r = hipport("convert", "--suffix", ".", cwd=proj)
    no_traceback(r)
    assert r.rc == 0, r.err
    for n in EVIL:
        assert (proj / n.replace(".cu", ".hip")).exists(), n
    r = hipport("scan", "--format", "json", *EVIL, cwd=proj)
    assert r.rc == 0 and len(json.loads(r.out)["files"]) == len(EVIL)
    r = hipport("scan", "--warp", *EVIL, cwd=proj)
    no_traceback(r)
    # the review session writes and commits such a file through git (argv, never a shell)
    from adv_util import git, init_repo

    init_repo(proj)
    s = ReviewSession.open(proj, Config(output_mode="folder", output_folder="hip out; touch pwned"))
    fr = s.load(EVIL[0])
    s.decide(EVIL[0], fr.findings[0].id, Decision.ACCEPTED)
    s.write(EVIL[0])
    s.commit("Port $(touch pwned); `touch pwned`")
    assert git(proj, "show", "--name-only", "--format=%s", "HEAD").splitlines() == [
        "Port $(touch pwned); `touch pwned`", "", f"hip out; touch pwned/{EVIL[0]}"]
    assert pwned(proj, tmp_path, Path.cwd()) == []


def _fake_tool(bin_dir: Path, name: str, log: Path) -> None:
    """A stand-in for hipcc/make that records its argv and cwd as JSON (one line per call)."""
    bin_dir.mkdir(exist_ok=True)
    p = bin_dir / name
    p.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                 f"open({str(log)!r}, 'a').write(json.dumps({{'argv': sys.argv, 'env': dict(os.environ)}}) + '\\n')\n")
    p.chmod(p.stat().st_mode | stat.S_IEXEC)


def _amd(index: int = 0) -> Detection:
    return Detection(amd_gpus=(Gpu("amd", index, "AMD Instinct MI300X", "gfx942"),))


def test_run_never_hands_an_evil_file_name_or_define_to_the_compiler_driver(tmp_path: Path) -> None:
    """Debian's hipcc (Perl) and nvcc pass their arguments through a shell: a file name or a define with
    shell characters is refused by name (issue 22 item 5), never passed on."""
    proj = tmp_path / "p"
    proj.mkdir()
    name = "x; touch pwned"
    (proj / f"{name}.cu").write_text(KERNEL)
    (proj / f"{name}.hip").write_text(KERNEL.replace("cuda", "hip"))
    with pytest.raises(PlanError, match=re.escape(repr(f"{name}.hip"))):
        plan(proj / f"{name}.cu", {}, detection=_amd(), arch="gfx942")
    (proj / "k.cu").write_text(KERNEL)
    (proj / "k.hip").write_text(KERNEL.replace("cuda", "hip"))
    with pytest.raises(PlanError, match="shell"):
        plan(proj / "k.cu", {"defines": ["A=1; touch pwned"]}, detection=_amd(), arch="gfx942")
    assert pwned(tmp_path) == []


def test_config_commands_and_arguments_are_argv_never_a_shell_line(tmp_path: Path) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "k.cu").write_text(KERNEL)
    (proj / "k.hip").write_text(KERNEL.replace("cuda", "hip"))
    log = tmp_path / "calls.jsonl"
    _fake_tool(tmp_path / "bin", "hipcc", log)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    cfg = {"run": "echo hi; touch pwned", "args": ["$(touch pwned)"], "defines": ["A=1"]}
    rp = plan(proj / "k.cu", cfg, detection=_amd(), env=env, arch="gfx942")
    report = run_plan(rp, _amd(), monitor=False)
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert calls and "k.hip" in calls[0]["argv"] and "-DA=1" in calls[0]["argv"]
    run_step = next(o for o in report.steps if o.step.role == "run")
    # a config string is split like a shell would split words, then run without one: `;` is text
    assert run_step.step.argv == ["echo", "hi;", "touch", "pwned"]
    assert [ln.text for ln in run_step.lines] == ["hi; touch pwned"]
    assert pwned(tmp_path) == []


# ------------------------------------------------------------------------------------ writes stay inside the root


@pytest.mark.parametrize("folder", ["../out", "/tmp/hipport-evil", "a/../../x", "..", ".", "", "C:/x", "hip\\..\\..",
                                    ".git/hooks", ".hipport/x", "a/\x00b"])
def test_config_output_folder_cannot_leave_the_root(tmp_path: Path, folder: str) -> None:
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / ".hipport.toml").write_text(f'output_mode = "folder"\noutput_folder = {json.dumps(folder)}\n')
    (proj / "k.cu").write_text(KERNEL)
    r = hipport("open", ".", cwd=proj)
    no_traceback(r)
    assert r.rc == 2 and len(r.err_lines) == 1 and r.err_lines[0].startswith("hipport: ")
    with pytest.raises(ConfigError):
        Config().replace(output_mode="folder", output_folder=folder)


def _write_one(proj: Path, config: Config) -> ReviewSession:
    s = ReviewSession.open(proj, config)
    fr = s.load("k.cu")
    s.decide("k.cu", fr.findings[0].id, Decision.ACCEPTED)
    return s


def test_symlinks_cannot_carry_outputs_or_state_out_of_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "k.cu").write_text(KERNEL)
    before = tree_digest(outside)
    # 1. the output folder is a link leading out
    (proj / "hip").symlink_to(outside)
    s = _write_one(proj, Config(output_mode="folder", output_folder="hip"))
    with pytest.raises((ConfigError, ReviewError)):
        s.write("k.cu")
    # 2. the sibling output name is a link leading out
    (proj / "k.hip").symlink_to(outside / "k.hip")
    s = _write_one(proj, Config(output_mode="sibling"))
    with pytest.raises(Exception) as e:
        s.write("k.cu")
    assert "\n" not in str(e.value)
    assert tree_digest(outside) == before and not (outside / "k.hip").exists()


def test_state_folder_that_is_a_link_out_of_the_root_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "k.cu").write_text(KERNEL)
    (proj / ".hipport").symlink_to(outside)
    before = tree_digest(outside)
    try:
        s = _write_one(proj, Config(output_mode="in-place"))
        s.write("k.cu")
    except Exception as e:  # refused is fine; writing outside is not
        assert "\n" not in str(e)
    assert tree_digest(outside) == before, "hipport wrote its state/originals outside the project root"


# ------------------------------------------------------------------------------------ environment for builds


DOCUMENTED = {"HIP_PLATFORM", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "PYTORCH_ROCM_ARCH"}


MAKEFILE = "all: app\n\napp: g.cu\n\tnvcc -arch=sm_90 g.cu -o app\n\nrun: app\n\t./app\n"
CMAKELISTS = "cmake_minimum_required(VERSION 3.21)\nproject(x LANGUAGES CXX CUDA)\nadd_executable(app g.cu)\n"


def _project(tmp_path: Path, kind: str) -> Path:
    """A CUDA project ported the way a person ports it: the run builds only a PORTED project with its
    ported build script (engine/toolchain/buildscript.py), so make and CMake projects are converted by
    `hipport convert` itself (Makefile -> Makefile_hip in sibling mode; CMake, which cannot read a
    renamed CMakeLists, in place with the project's output_mode saying so)."""
    proj = tmp_path / kind
    proj.mkdir()
    if kind == "single":
        (proj / "g.cu").write_text(KERNEL)
        (proj / "g.hip").write_text(KERNEL)
    elif kind == "make":
        (proj / "Makefile").write_text(MAKEFILE)
        (proj / "g.cu").write_text(KERNEL)
        r = hipport("convert", "-q", "--suffix", "g.cu", "Makefile", cwd=proj)
        assert r.rc == 0, r.err
        assert (proj / "g.hip").is_file() and "hipcc" in (proj / "Makefile_hip").read_text()
    elif kind == "cmake":
        (proj / "CMakeLists.txt").write_text(CMAKELISTS)
        (proj / "g.cu").write_text(KERNEL)
        (proj / "pyproject.toml").write_text('[tool.hipport]\noutput_mode = "in-place"\n')
        r = hipport("convert", "-q", "--in-place", "g.cu", "CMakeLists.txt", cwd=proj)
        assert r.rc == 0, r.err
        assert "LANGUAGES CXX HIP" in (proj / "CMakeLists.txt").read_text()
    else:
        (proj / "matmul_cuda.py").write_text("import torch\n")
        (proj / "matmul_hip.py").write_text("import torch\n")
    return proj


@pytest.mark.parametrize("kind", ["single", "make", "cmake", "python"])
@pytest.mark.parametrize("baseline", [False, True])
def test_build_environment_is_the_persons_plus_only_documented_variables(tmp_path: Path, kind: str,
                                                                        baseline: bool) -> None:
    person = {"PATH": os.environ["PATH"], "HOME": "/home/p", "MY_SECRET_FLAG": "1", "LANG": "C.UTF-8",
              "ROCR_VISIBLE_DEVICES": "3", "GPU_DEVICE_ORDINAL": "2", "HIP_VISIBLE_DEVICES": "5",
              "CUDA_VISIBLE_DEVICES": "7", "HIP_PLATFORM": "nvidia"}
    det = Detection(amd_gpus=(Gpu("amd", 1, "MI300X", "gfx942"),), nvidia_gpus=(Gpu("nvidia", 0, "H200", "sm_90"),))
    proj = _project(tmp_path, kind)
    cfg = {"run": ["./app"]} if kind == "cmake" else {}
    rp = plan(proj, cfg, detection=det, env=person, baseline=baseline, device=None)
    assert rp.steps
    for st in rp.steps:
        env = st.env
        added = set(env) - set(person)
        removed = set(person) - set(env)
        changed = {k for k in set(env) & set(person) if env[k] != person[k]}
        assert added <= DOCUMENTED, (st.title, added)
        assert removed <= set(VISIBILITY_VARS), (st.title, removed)
        assert changed <= DOCUMENTED, (st.title, changed)
        for k in ("PATH", "HOME", "MY_SECRET_FLAG", "LANG"):
            assert env[k] == person[k]  # the person's own settings pass through untouched
        if st.role == "run":
            # one visibility knob, naming the chosen device
            vis = [v for v in VISIBILITY_VARS if v in env]
            assert vis == (["CUDA_VISIBLE_DEVICES"] if baseline else ["HIP_VISIBLE_DEVICES"]), vis


async def test_the_app_run_pane_passes_exactly_the_planned_environment(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The run pane must not re-add variables the plan removed (ROCR_VISIBLE_DEVICES would make the
    chosen HIP index mean another GPU)."""
    from textual.app import App, ComposeResult

    from hipport.engine.toolchain.plan import Step, custom_plan
    from hipport.tui.widgets.run_pane import RunPane

    monkeypatch.setenv("ROCR_VISIBLE_DEVICES", "3")
    monkeypatch.setenv("GPU_DEVICE_ORDINAL", "2")
    env = {k: v for k, v in os.environ.items() if k not in ("ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")}
    env["HIP_VISIBLE_DEVICES"] = "1"
    out = tmp_path / "env.json"
    code = f"import json, os; open({str(out)!r}, 'w').write(json.dumps(dict(os.environ)))"

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield RunPane()

    app = Host()
    async with app.run_test() as pilot:
        pane = app.query_one(RunPane)
        pane.start(custom_plan([Step("probe", [sys.executable, "-c", code], tmp_path, env, "build", 30)]))
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    seen = json.loads(out.read_text())
    assert seen.get("HIP_VISIBLE_DEVICES") == "1"
    assert "ROCR_VISIBLE_DEVICES" not in seen and "GPU_DEVICE_ORDINAL" not in seen


@pytest.mark.parametrize("target", ["../outside", "/tmp", "sub/../../outside", "link_out"])
def test_run_config_target_cannot_lead_the_build_outside_the_root(tmp_path: Path, target: str) -> None:
    """Found: `[tool.hipport.run] target = "../x"` made `hipport run` build (mkdir build/, compile,
    link) in a folder outside the project."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "g.cu").write_text(KERNEL)
    (outside / "g.hip").write_text(KERNEL)
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / "link_out").symlink_to(outside)
    (proj / ".hipport.toml").write_text(f"[run]\ntarget = {json.dumps(target)}\n")
    before = tree_digest(outside)
    r = hipport("run", "--dry-run", ".", cwd=proj, timeout=60)
    no_traceback(r)
    assert r.rc == 2 and len(r.err_lines) == 1 and "target" in r.err_lines[0], r.err
    r = hipport("run", ".", cwd=proj, timeout=60)
    assert r.rc == 2 and tree_digest(outside) == before
