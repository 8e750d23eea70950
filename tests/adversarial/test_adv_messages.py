"""Messages and leftovers (issue 22, item 15; the two commit messages are in test_adv_commit.py).

- a file name holding a newline split its one-line error in two;
- a file translated but not written was counted "0 of 1 file(s) translated, 1 changed";
- a kill during `w` left a `*.hipport-tmp` file that nothing ever removed;
- after its own in-place write, the app said the file "changed on disk (outside hipport)".
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from adv_util import KERNEL, hipport, no_traceback, one_line_error

from hipport.engine.config import Config
from hipport.engine.fsutil import _write_temp
from hipport.engine.review import ReviewSession
from hipport.tui.app import PortApp
from hipport.tui.screens.review import ReviewScreen

NL_NAME = "bad\nname.cu"


def test_a_file_name_with_a_newline_keeps_each_error_on_one_line(tmp_path: Path) -> None:
    (tmp_path / NL_NAME).write_bytes(b"\x00\x01binary")
    r = hipport("convert", "--diff", NL_NAME, cwd=tmp_path)
    no_traceback(r)
    assert r.rc == 1
    assert all(ln.startswith("hipport") for ln in r.err_lines), r.err_lines  # no line starts mid-message
    assert any("bad\\nname.cu: looks like a binary file" in ln for ln in r.err_lines), r.err_lines
    one_line_error(hipport("convert", "--diff", "miss\ning.cu", cwd=tmp_path), "miss\\ning.cu: no such file")
    s = hipport("scan", ".", cwd=tmp_path)
    errors = [ln for ln in s.out.splitlines() if "binary" in ln]
    assert errors == ["bad\\nname.cu: error: bad\\nname.cu: looks like a binary file (NUL bytes); not translated"]
    w = hipport("scan", "--warp", ".", cwd=tmp_path)
    assert [ln for ln in w.out.splitlines() if "binary" in ln] == [
        "bad\\nname.cu: error: bad\\nname.cu: looks like a binary file (NUL bytes); not translated"]


def test_a_file_translated_but_not_written_is_counted_as_such(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(KERNEL)
    out = tmp_path / "k.hip"
    out.write_text("// read-only\n")
    out.chmod(0o444)
    r = hipport("convert", "k.cu", "-o", "k.hip", cwd=tmp_path)
    no_traceback(r)
    assert r.rc == 1 and "k.hip: file is read-only; not written" in r.err, r.err
    assert "1 of 1 file(s) translated, 1 changed, 1 not written" in r.err, r.err
    assert out.read_text() == "// read-only\n" and not (tmp_path / "k.hip.prehip").exists()


KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from hipport.engine.fsutil import _write_temp
    _write_temp(Path(sys.argv[1]), sys.argv[2], b"half a write", None)  # the temp file of a write ...
    os.kill(os.getpid(), signal.SIGKILL)                                  # ... killed before its rename
""")


def test_temp_files_of_a_killed_write_are_removed_at_the_next_start(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "gemm.cu").write_text(KERNEL)
    (root / ".hipport").mkdir()
    for folder, name in ((root / "src", "gemm.hip"), (root / ".hipport", "state.json")):
        p = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(folder), name])
        assert p.returncode == -signal.SIGKILL
    left = sorted(p.name for p in root.rglob("*.hipport-tmp"))
    assert len(left) == 2, left
    live = Path(_write_temp(root / "src", "util.h", b"a write under way", None))  # this process: alive
    session = ReviewSession.open(root, Config(ast="off"))
    assert sorted(p.name for p in root.rglob("*.hipport-tmp")) == [live.name]
    assert sorted(p.name for p in session.leftovers_removed) == left
    os.unlink(live)


async def test_the_apps_own_in_place_write_is_no_change_outside_hipport(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "gemm.cu").write_text(KERNEL)
    config = Config(ast="off", output_mode="in-place")
    app = PortApp(ReviewSession.open(root, config), config)
    async with app.run_test(size=(120, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        screen.watch_disk()  # the disk watch's timer, called at once: it notes the file as it is
        await pilot.press("w")
        await pilot.pause()
        assert (root / "gemm.cu.prehip").read_text() == KERNEL and "Wrote gemm.cu" in screen.last_message
        screen.watch_disk()
        await pilot.pause()
        assert "outside hipport" not in screen.last_message, screen.last_message
        # an edit made outside hipport is still noticed
        with (root / "gemm.cu").open("a") as f:
            f.write("// edited elsewhere\n")
        screen.watch_disk()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "changed on disk (outside hipport)" in screen.last_message, screen.last_message
