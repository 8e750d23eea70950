"""Record what hipport prints and writes for a tree, to prove a refactor changed no behaviour.

    .venv/bin/python scripts/snapshot_outputs.py record LABEL TREE [TREE...]   # -> $TMPDIR/hipport-snap/LABEL.json
    .venv/bin/python scripts/snapshot_outputs.py compare LABEL_A LABEL_B

`record` runs, per tree, `scan --format json`, `scan --warp --format json` and three converts (the
default logical port, every 64-wide group in wave64 form, `--fixes none`) into a scratch folder of its own,
and keeps a sha256 per written file and per printed stream (the scratch path replaced by a token, so two
records compare). `compare` lists every difference and exits 1 when there is one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HIPPORT = str(Path(sys.executable).with_name("hipport"))
SNAPS = Path(tempfile.gettempdir()) / "hipport-snap"
RUNS: dict[str, list[str]] = {
    "scan": ["scan", "{tree}", "--format", "json"],
    "scan-warp": ["scan", "{tree}", "--warp", "--format", "json"],
    "convert-default": ["convert", "{tree}", "-o", "{out}"],
    "convert-wave64": ["convert", "{tree}", "-o", "{out}", "--fix-style", "wave64", "--fixes-review"],
    "convert-none": ["convert", "{tree}", "-o", "{out}", "--fixes", "none"],
    "convert-rocm52": ["convert", "{tree}", "-o", "{out}", "--rocm", "5.2"],
}


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def record(label: str, trees: list[str]) -> None:
    result: dict[str, str] = {}
    for tree in trees:
        name = Path(tree).resolve().as_posix()
        for run, argv in RUNS.items():
            scratch = Path(tempfile.mkdtemp(prefix="hipport-snap-"))  # one per run: records may run at once
            out = scratch / "out"
            cmd = [HIPPORT, *(a.format(tree=tree, out=out) for a in argv)]
            proc = subprocess.run(cmd, capture_output=True, env={**os.environ, "NO_COLOR": "1"})
            key = f"{name}::{run}"
            result[f"{key}::rc"] = str(proc.returncode)
            result[f"{key}::stdout"] = digest(proc.stdout.replace(str(scratch).encode(), b"<SCRATCH>"))
            result[f"{key}::stderr"] = digest(proc.stderr.replace(str(scratch).encode(), b"<SCRATCH>"))
            if out.is_dir():
                for path in sorted(p for p in out.rglob("*") if p.is_file()):
                    result[f"{key}::{path.relative_to(out).as_posix()}"] = digest(path.read_bytes())
            shutil.rmtree(scratch)
            print(f"{run:16} {tree}: rc {proc.returncode}", file=sys.stderr)
    SNAPS.mkdir(parents=True, exist_ok=True)
    (SNAPS / f"{label}.json").write_text(json.dumps(result, indent=0, sort_keys=True))
    print(f"{len(result)} entries -> {SNAPS / f'{label}.json'}")


def compare(a: str, b: str) -> int:
    left = json.loads((SNAPS / f"{a}.json").read_text())
    right = json.loads((SNAPS / f"{b}.json").read_text())
    diffs = sorted(k for k in left.keys() | right.keys() if left.get(k) != right.get(k))
    for key in diffs:
        print(f"{key}: {left.get(key)} != {right.get(key)}")
    print(f"{len(left)} vs {len(right)} entries, {len(diffs)} differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"] and len(sys.argv) >= 4:
        record(sys.argv[2], sys.argv[3:])
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 4:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
