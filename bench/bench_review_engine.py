"""Engine side of the review app on a 10,000-line CUDA file: what one key costs before any painting.

Prints milliseconds for: open, first load (translate + analyze), first rows, and per key
`decide` (+ autosave of state.json) + rebuilding rows, `next_finding`, `undo`; and `write`.
Target: a key well under 50 ms in total (the app adds its own painting).
Uses the engine's real translator and warp analysis. Times are CPU time of this process
(time.process_time), so a busy machine does not inflate them; wall time is printed for the key total.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hipport.engine.review import Decision, ReviewSession  # noqa: E402

KERNEL = """\
__global__ void reduce{i}(const float* in, float* out, int n) {{
  int lane = threadIdx.x % 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffff, v, off);
  if (lane == 0) atomicAdd(out, v);
}}
void launch{i}(const float* in, float* out, int n) {{
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  reduce{i}<<<n / 256, 256>>>(in, out, n);
  cudaFree(tmp);
}}

"""


def make_file(lines: int = 10_000) -> str:
    parts = ["#include <cuda_runtime.h>\n\n"]
    i = 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(KERNEL.format(i=i))
        i += 1
    return "".join(parts)


def ms(t0: float) -> float:
    return (time.process_time() - t0) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        text = make_file()
        (root / "big.cu").write_text(text)
        t0 = time.process_time()
        s = ReviewSession.open(root)
        print(f"open:                    {ms(t0):8.1f} ms")
        t0 = time.process_time()
        fr = s.load("big.cu")
        print(f"load (translate+analyze): {ms(t0):8.1f} ms  ({text.count(chr(10))} lines, "
              f"{len(fr.translation.edits)} edits, {len(fr.findings)} findings, {len(fr.groups)} groups)")
        t0 = time.process_time()
        rows = s.rows("big.cu")
        print(f"first rows:              {ms(t0):8.1f} ms  ({len(rows)} rows)")
        fid = s.next_finding("big.cu", None)
        decide: list[float] = []
        rebuild: list[float] = []
        nav: list[float] = []
        for _ in range(40):
            if fid is None:
                break
            t0 = time.process_time()
            s.decide("big.cu", fid, Decision.ACCEPTED)
            decide.append(ms(t0))
            t0 = time.process_time()
            s.rows("big.cu")
            rebuild.append(ms(t0))
            t0 = time.process_time()
            fid = s.next_finding("big.cu", fid)
            nav.append(ms(t0))
        undo: list[float] = []
        for _ in range(10):
            t0 = time.process_time()
            s.undo()
            s.rows("big.cu")
            undo.append(ms(t0))
        for name, xs in (("decide (+autosave)", decide), ("rows after a decision", rebuild),
                         ("next_finding", nav), ("undo + rows", undo)):
            print(f"{name + ':':25s}{statistics.median(xs):8.2f} ms median, {max(xs):8.2f} ms max")
        key = [a + b + c for a, b, c in zip(decide, rebuild, nav, strict=False)]
        wall: list[float] = []
        fid = s.next_finding("big.cu", None)
        for _ in range(20):
            if fid is None:
                break
            w0 = time.perf_counter()
            s.decide("big.cu", fid, Decision.REJECTED)
            s.rows("big.cu")
            fid = s.next_finding("big.cu", fid)
            wall.append((time.perf_counter() - w0) * 1000)
        print(f"{'one n/r key, wall clock:':25s}{statistics.median(wall):8.2f} ms median, {max(wall):8.2f} ms max")
        print(f"{'one a/y key, engine side:':25s}{statistics.median(key):8.2f} ms median, {max(key):8.2f} ms max"
              f"  (target < 50 ms with painting)")
        t0 = time.process_time()
        s.write("big.cu")
        print(f"write:                   {ms(t0):8.1f} ms")


if __name__ == "__main__":
    main()
