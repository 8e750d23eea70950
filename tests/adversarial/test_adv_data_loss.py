"""No content lost outside git (issue 22, items 6, 7 and 9).

- `.prehip` was a single slot: a second in-place conversion, an edited output converted again, or a
  second `-o` over a file already kept replaced the kept copy. Now the first `<file>.prehip` is never
  replaced and later content goes to `<file>.prehip.1`, `.2`, ... (engine/outputs.py, one policy for
  the CLI and the app).
- Several inputs mapping to one output are refused, naming both, before anything is written.
- `--suffix` (and `-o` inside the tree) skip the ports of earlier runs instead of porting them again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from adv_util import KERNEL, hipport, no_traceback, one_line_error

from hipport.engine.config import Config
from hipport.engine.fsutil import WriteError
from hipport.engine.review import Decision, ReviewSession

HAND = b"// a HIP port written by hand\n"


def cu(tmp_path: Path, name: str = "gemm.cu", text: str = KERNEL) -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------ item 6: one slot


def test_in_place_twice_keeps_the_cuda_original(tmp_path: Path) -> None:
    f = cu(tmp_path)
    r1 = hipport("convert", "--in-place", "--fixes", "none", "gemm.cu", cwd=tmp_path)
    assert r1.rc == 0, r1.err
    first = f.read_bytes()
    r2 = hipport("convert", "--in-place", "--fixes", "all", "gemm.cu", cwd=tmp_path)
    no_traceback(r2)
    assert r2.rc == 0, r2.err
    assert (tmp_path / "gemm.cu.prehip").read_text() == KERNEL  # the original, never replaced
    assert (tmp_path / "gemm.cu.prehip.1").read_bytes() == first  # the first conversion, kept too
    assert "gemm.cu.prehip.1" in r2.err and f.read_bytes() != first


def test_an_edited_output_converted_again_keeps_the_edit(tmp_path: Path) -> None:
    f = cu(tmp_path)
    assert hipport("convert", "--in-place", "gemm.cu", cwd=tmp_path).rc == 0
    edited = f.read_text() + "\n// my edit\nvoid sync() { cudaDeviceSynchronize(); }\n"
    f.write_text(edited)
    r = hipport("convert", "--in-place", "gemm.cu", cwd=tmp_path)
    assert r.rc == 0, r.err
    assert (tmp_path / "gemm.cu.prehip").read_text() == KERNEL
    assert (tmp_path / "gemm.cu.prehip.1").read_text() == edited
    # a third run with nothing to translate writes nothing and keeps nothing more
    assert hipport("convert", "--in-place", "gemm.cu", cwd=tmp_path).rc == 0
    assert not (tmp_path / "gemm.cu.prehip.2").exists()


def test_output_twice_loses_neither_the_hand_port_nor_the_first_output(tmp_path: Path) -> None:
    cu(tmp_path, "s.cu")
    out = tmp_path / "o3" / "s.hip"
    out.parent.mkdir()
    out.write_bytes(HAND)
    r1 = hipport("convert", "--fixes", "none", "s.cu", "-o", "o3/s.hip", cwd=tmp_path)
    assert r1.rc == 0 and "kept it as o3/s.hip.prehip" in r1.err, r1.err
    first = out.read_bytes()
    # the default port (logical warps) differs from the plain translation: a second, different output
    r2 = hipport("convert", "s.cu", "-o", "o3/s.hip", cwd=tmp_path)
    assert r2.rc == 0 and "kept it as o3/s.hip.prehip.1" in r2.err, r2.err
    assert (tmp_path / "o3" / "s.hip.prehip").read_bytes() == HAND
    assert (tmp_path / "o3" / "s.hip.prehip.1").read_bytes() == first
    assert out.read_bytes() != first and b"hipport_shfl_down_sync(" in out.read_bytes()


def test_the_app_never_replaces_a_kept_original(tmp_path: Path) -> None:
    """convert --in-place first, then the app writes the same file in place: the app's copy of what it
    replaced (the CLI's port) goes beside the CUDA original, not over it."""
    cu(tmp_path, "k.cu")
    (tmp_path / "pyproject.toml").write_text('[tool.hipport]\noutput_mode = "in-place"\nast = "off"\n')
    assert hipport("convert", "--in-place", "k.cu", cwd=tmp_path).rc == 0
    port = (tmp_path / "k.cu").read_bytes()
    s = ReviewSession.open(tmp_path, Config(output_mode="in-place", ast="off"))
    fr = s.load("k.cu")
    assert fr.findings, "the CLI's port (no fixes) still has warp findings"
    for f in fr.findings:  # every one, the REVIEW-tier ones as read (the app's Y)
        s.decide("k.cu", f.id, Decision.ACCEPTED, review_confirmed=True)
    s.write("k.cu")
    assert (tmp_path / "k.cu.prehip").read_text() == KERNEL
    assert (tmp_path / "k.cu.prehip.1").read_bytes() == port
    assert (tmp_path / "k.cu").read_bytes() not in (port, KERNEL.encode())


def files_of(root: Path) -> dict[str, bytes]:
    """Every file under `root` but hipport's own `.hipport/`: relative path -> bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".hipport" not in p.relative_to(root).parts}


def app_and_cli(tmp_path: Path, mode: int = 0o644) -> tuple[Path, Path, ReviewSession]:
    """The same project twice (file mode `mode`): app/ for the app, cli/ for `convert --in-place`."""
    app, cli = tmp_path / "app", tmp_path / "cli"
    for root in (app, cli):
        cu(root, "k.cu").chmod(mode)
    return app, cli, ReviewSession.open(app, Config(output_mode="in-place"))


def test_the_app_and_the_cli_write_the_same_files_in_place(tmp_path: Path) -> None:
    """One write policy (outputs.write_port): the app's in-place write leaves what `convert --in-place`
    leaves, port and kept original alike, and so does writing it again."""
    app, cli, s = app_and_cli(tmp_path)
    for _ in range(2):
        s.write("k.cu")
        r = hipport("convert", "--in-place", "k.cu", cwd=cli)
        assert r.rc == 0, r.err
        assert files_of(app) == files_of(cli)
    assert files_of(app)["k.cu.prehip"] == KERNEL.encode() and sorted(files_of(app)) == ["k.cu", "k.cu.prehip"]


def test_a_read_only_file_is_refused_alike_by_the_app_and_the_cli(tmp_path: Path) -> None:
    """The app kept the original as k.cu.prehip before the write was refused; now neither leaves one."""
    app, cli, s = app_and_cli(tmp_path, 0o444)
    with pytest.raises(WriteError, match="read-only"):
        s.write("k.cu")
    r = hipport("convert", "--in-place", "k.cu", cwd=cli)
    assert r.rc != 0 and "read-only" in r.err, r.err
    assert files_of(app) == files_of(cli) == {"k.cu": KERNEL.encode()}


def test_a_kept_copy_path_taken_by_a_link_refuses_the_write(tmp_path: Path) -> None:
    f = cu(tmp_path)
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not yours\n")
    assert hipport("convert", "--in-place", "gemm.cu", cwd=tmp_path).rc == 0
    (tmp_path / "gemm.cu.prehip.1").symlink_to(outside)
    port = f.read_bytes()
    f.write_text(f.read_text() + "void sync() { cudaDeviceSynchronize(); }\n")
    edited = f.read_bytes()
    r = hipport("convert", "--in-place", "gemm.cu", cwd=tmp_path)
    no_traceback(r)
    assert r.rc == 1 and "symbolic link" in r.err, r.err
    assert f.read_bytes() == edited != port and outside.read_text() == "not yours\n"


# ------------------------------------------------------------------------------ item 7: one output


def test_two_inputs_with_one_output_are_refused_naming_both(tmp_path: Path) -> None:
    cu(tmp_path, "a/k.cu")
    cu(tmp_path, "b/k.cu", KERNEL.replace("warp_sum", "other_sum"))
    hand = cu(tmp_path, "out/k.cu", "// mine\n")
    r = hipport("convert", "a/k.cu", "b/k.cu", "-o", "out", cwd=tmp_path)
    line = one_line_error(r, "a/k.cu", "b/k.cu", "out/k.cu")
    assert "both" in line
    assert hand.read_text() == "// mine\n" and sorted(p.name for p in hand.parent.iterdir()) == ["k.cu"]


def test_an_output_that_is_another_input_is_refused(tmp_path: Path) -> None:
    """`--suffix` maps gemm.cu to gemm.hip; with gemm.hip itself an input, gemm.cu's port would replace
    the file being converted."""
    cu(tmp_path, "gemm.cu")
    other = cu(tmp_path, "gemm.hip", KERNEL.replace("warp_sum", "hand_sum"))
    r = hipport("convert", "--suffix", "gemm.cu", "gemm.hip", cwd=tmp_path)
    one_line_error(r, "gemm.cu", "gemm.hip")
    assert other.read_text() == KERNEL.replace("warp_sum", "hand_sum")


# ------------------------------------------------------------------------------ item 9: own outputs


def test_suffix_twice_does_not_port_its_own_outputs(tmp_path: Path) -> None:
    cu(tmp_path, "gemm.cu")
    cu(tmp_path, "util.h", "#include <cuda_runtime.h>\ninline void s() { cudaDeviceSynchronize(); }\n")
    assert hipport("convert", "--suffix", ".", cwd=tmp_path).rc == 0
    before = sorted(p.name for p in tmp_path.iterdir())
    assert before == ["gemm.cu", "gemm.hip", "util.h", "util_hip.h"]
    r = hipport("convert", "--suffix", ".", cwd=tmp_path)
    no_traceback(r)
    assert r.rc == 0, r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no gemm_hip.hip, no util_hip_hip.h
    assert "skipped 2 earlier port(s)" in r.err and "gemm.hip" in r.err


def test_a_hand_written_cuda_file_named_like_a_port_is_no_port(tmp_path: Path) -> None:
    """By name and content: `x.hip` beside `x.cu` that still holds CUDA is no port of it; it is an input
    that x.cu's port would replace, so the conversion is refused."""
    cu(tmp_path, "x.cu")
    mine = cu(tmp_path, "x.hip", KERNEL.replace("warp_sum", "my_sum"))
    r = hipport("convert", "--suffix", ".", cwd=tmp_path)
    one_line_error(r, "x.cu", "x.hip")
    assert mine.read_text() == KERNEL.replace("warp_sum", "my_sum")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.cu", "x.hip"]


def test_output_folder_inside_the_tree_is_not_ported_again(tmp_path: Path) -> None:
    cu(tmp_path, "src/gemm.cu")
    assert hipport("convert", "src", "-o", "src/hip1", cwd=tmp_path).rc == 0
    r = hipport("convert", "src", "-o", "src/hip2", cwd=tmp_path)
    assert r.rc == 0, r.err
    assert sorted(p.relative_to(tmp_path / "src/hip2").as_posix() for p in (tmp_path / "src/hip2").rglob("*")) \
        == ["gemm.cu"]
    assert "skipped 1 earlier port(s)" in r.err


def test_an_earlier_port_named_explicitly_is_converted(tmp_path: Path) -> None:
    """Asked for by name: converted (nothing to translate: written unchanged; the logical-warp helpers
    it holds are hipport's own, neither rewritten nor inserted again)."""
    cu(tmp_path, "gemm.cu")
    assert hipport("convert", "--suffix", ".", cwd=tmp_path).rc == 0
    r = hipport("convert", "gemm.hip", "-o", "again.hip", cwd=tmp_path)
    assert r.rc == 0 and (tmp_path / "again.hip").read_bytes() == (tmp_path / "gemm.hip").read_bytes()
