"""Differential check: what the CUDA original printed, recorded, and a run of the port compared with it.

`hipport run --baseline` runs the CUDA original (on an NVIDIA GPU) and records its values under
`.hipport/baseline/<name>.json`: a plain JSON file, so it can be recorded on an NVIDIA machine and
compared on an AMD one. A later run of the port is compared value by value.

Values taken from the program's output (data: BASELINE_RULES below):
  - JSON object lines: every number and boolean field, keyed by the object's "kernel"/"name"/"test"
    (else its position) and the field name; timing fields (time_ms, gflops, ...) and error
    measurements (max_rel_err, ...) are not compared: they are speed, or already a self-check;
  - verdict words (PASS, FAIL, PASSED, FAILED, SUCCESS, ...): compared exactly;
  - numbers in other lines, keyed by the line with its numbers blanked ("Checksum: # #") and the
    occurrence; lines about time and speed, and lines describing the machine (vendor, arch, driver,
    version, warp size, multiprocessor count, memory in use: MACHINE_LINE) are skipped; on lines about
    errors/differences only integers (counts) are compared. A line that merely says "GPU", "device",
    "CUDA" or "HIP" ("Sum of output prices on GPU: 1.5") is a result and is compared.
  - NOT values: the commands the run echoed (make prints each recipe line before it runs it:
    `./build/gemm 4096 --repeats 30`). The runner knows them (execute.py asks make for the recipe of the
    run step it ran, `make ... --just-print`) and passes them as `commands`; each is skipped as often as
    it was echoed, and only a line equal to it, so a result line is never taken for one.
  - output files named in `[tool.hipport.run] outputs = ["out.txt", ...]`: text files the same way,
    other files as little-endian floats of `output_dtype` (fp32) element by element.
Integers are compared exactly; other numbers with |a - b| <= atol + rtol * max(|a|, |b|), rtol by
dtype (fp32 1e-4, fp16/bf16 1e-2, fp64 1e-8; `[tool.hipport.run] tolerance = {fp32 = 1e-5}`), atol =
rtol * 1e-3. Text values use `dtype` from the config (default fp32), JSON values their "dtype" field.

API:
    run_values(lines, config, root, commands=()) -> (values, notes) ; extract(lines, ignore, dtype, commands=())
    Baseline(program, values, machine, exit_code, commands=[...]).save(path) ; load(path)
    compare(baseline, values, config, path, commands=()) -> Comparison  (.matches, .checked, .mismatches, .lines())
    baseline_path(root, name) -> Path
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import state_files
from ..fsutil import WriteError, atomic_write
from ..project.lock import state_write_lock

FORMAT = 1
DEFAULT_RTOL = {"fp64": 1e-8, "fp32": 1e-4, "tf32": 1e-3, "fp16": 1e-2, "bf16": 1e-2, "fp8": 1e-1}
ATOL_FACTOR = 1e-3
MAX_VALUES = 200_000  # per run: a program printing more is compared on its first values only
MAX_FILE_BYTES = 256 * 1024 * 1024
SHOWN_MISMATCHES = 10

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b", re.IGNORECASE)
VERDICT = re.compile(r"\b(PASS(?:ED)?|FAIL(?:ED|URE)?|SUCCESS(?:FUL)?|OK)\b")
# lines whose numbers are speed or time, not results
TIMING_LINE = re.compile(
    r"\b(time|times|timing|elapsed|duration|throughput|bandwidth|speed|latency|seconds?|secs?|ms|us|usec|"
    r"msec|ns|[GMT]FLOP/?s|GFLOPS|TFLOPS|GB/s|GiB/s|MB/s|it/s)\b|\((?:s|ms|us|ns)\)", re.IGNORECASE)
# lines describing the machine: they differ between the NVIDIA original and the AMD port by design
# ("device: NVIDIA H200 (132 multiprocessors, warp size 32)"). Not "GPU"/"device"/"CUDA"/"HIP" alone:
# "Summation of output prices on GPU: %f" (HeCBench 49175104c) is a result.
MACHINE_LINE = re.compile(r"\b(nvidia|amd|rocm|radeon|instinct|geforce|quadro|tesla|driver|version|sm_\d+|gfx\w+|"
                          r"compute capability|warp ?size|wavefront|multiprocessors?|compute units?|"
                          r"device count|memory (?:usage|used|free|total|size)|clock|pci|uuid)\b", re.IGNORECASE)
ERROR_LINE = re.compile(r"\b(err|error|errors|diff|difference|residual|tolerance|eps|epsilon)\b", re.IGNORECASE)
TIMING_KEY = re.compile(r"(time|_ms$|^ms$|_us$|_ns$|_s$|sec|flops|bandwidth|gbps|throughput|speed|elapsed|"
                        r"latency|repeats|warmup|runs|spread|p\d\d)", re.IGNORECASE)
ERROR_KEY = re.compile(r"(err|error|diff|tol)", re.IGNORECASE)
NAME_KEYS = ("kernel", "name", "test", "case", "id")


@dataclass(frozen=True)
class Value:
    key: str
    text: str  # as printed
    number: float | None  # None: a verdict word or boolean, compared as text
    integer: bool = False
    dtype: str | None = None


@dataclass
class Baseline:
    program: str  # what ran: argv as one line
    values: list[Value]
    machine: str = ""  # e.g. "NVIDIA H200 (sm_90), nvcc 13.0"
    exit_code: int | None = 0
    files: list[str] = field(default_factory=list)
    format: int = FORMAT
    commands: list[str] = field(default_factory=list)  # echoed by the run (make's recipe lines): not values

    def save(self, path: Path) -> None:
        """Atomically; when `path` is in a `.hipport/`, under the project's lock (the app's
        `.hipport/app.lock`) and never through a link (state_files). Raises project.lock.LockHeld while
        another process's app has the project open, fsutil.WriteError when it cannot be written."""
        data = (json.dumps(asdict(self), indent=1) + "\n").encode("utf-8")
        inside = state_files.rel_path(path)
        if inside is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)
            return
        root, rel = inside
        with state_write_lock(root):
            state_files.write(root, rel, data)


def load(path: Path) -> Baseline:
    """ValueError (one line) for a file that is not a baseline of this format (or, in a `.hipport/`, that is
    a link: state_files)."""
    try:
        inside = state_files.rel_path(path)
        raw = Path(path).read_bytes() if inside is None else state_files.read(*inside)
        if raw is None:
            raise FileNotFoundError(f"no such file: {path}")
        d = json.loads(raw.decode("utf-8"))
        if d.get("format") != FORMAT:
            raise ValueError(f"{path}: baseline format {d.get('format')!r}, expected {FORMAT}")
        values = [Value(**v) for v in d["values"]]
        return Baseline(str(d["program"]), values, str(d.get("machine", "")), d.get("exit_code"),
                        [str(f) for f in d.get("files", [])], commands=[str(c) for c in d.get("commands", [])])
    except (OSError, WriteError, KeyError, TypeError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a hipport baseline ({e})") from None


def baseline_path(root: Path, name: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "program"
    return Path(root) / ".hipport" / "baseline" / f"{safe}.json"


# ---------------------------------------------------------------------------------------------- values


def _num(text: str) -> tuple[float, bool]:
    low = text.lower().lstrip("+-")
    if low in ("nan", "inf"):
        return float(text), False
    integer = re.fullmatch(r"[-+]?\d+", text) is not None
    return float(text), integer


def _json_values(d: Mapping[str, Any], prefix: str, dtype: str | None, out: list[Value]) -> None:
    dt = str(d.get("dtype", dtype or "")).lower() or None
    for k, v in d.items():
        key = f"{prefix}.{k}"
        if isinstance(v, bool):
            out.append(Value(key, "true" if v else "false", None))
        elif isinstance(v, int | float):
            if TIMING_KEY.search(k) or ERROR_KEY.search(k):
                continue
            out.append(Value(key, json.dumps(v), float(v), isinstance(v, int), dt))
        elif isinstance(v, dict):
            _json_values(v, key, dt, out)
        elif isinstance(v, str) and VERDICT.fullmatch(v.strip()):
            out.append(Value(key, v.strip(), None))


def line_template(line: str) -> str:
    """A text line's key: its numbers blanked, its verdict words too (PASS in one run, FAIL in the other)."""
    return VERDICT.sub("<verdict>", NUMBER.sub("#", line.strip()))


def extract(lines: Iterable[str], ignore: Sequence[str] = (), dtype: str | None = None, source: str = "",
            commands: Sequence[str] = ()) -> list[Value]:
    """The comparable values of a program's output, in order, with stable keys. `commands`: lines the run
    echoed (make's recipe lines); each is skipped as many times as it is listed, and only an equal line."""
    skip = [re.compile(p) for p in ignore]
    echoed = Counter(c.strip() for c in commands if c.strip())
    out: list[Value] = []
    seen: dict[str, int] = {}
    json_seen: dict[str, int] = {}
    for raw in lines:
        line = raw.strip()
        if echoed[line] > 0:
            echoed[line] -= 1
            continue
        if not line or any(p.search(line) for p in skip):
            continue
        if line.startswith("{") and line.endswith("}"):
            try:
                d = json.loads(line)
            except ValueError:
                d = None
            if isinstance(d, dict):
                name = next((str(d[k]) for k in NAME_KEYS if isinstance(d.get(k), str | int)), "")
                n = json_seen.get(name, 0)
                json_seen[name] = n + 1
                _json_values(d, f"{source}json[{name}]" + (f"#{n}" if n else ""), dtype, out)
                continue
        verdicts = VERDICT.findall(line)
        template = line_template(line)
        n = seen.get(template, 0)
        seen[template] = n + 1
        where = f"{source}{template!r}" + (f"#{n}" if n else "")
        for i, v in enumerate(verdicts):
            out.append(Value(f"{where} verdict{i}", v, None))
        if TIMING_LINE.search(line) or MACHINE_LINE.search(line):
            continue
        only_integers = ERROR_LINE.search(line) is not None
        for i, m in enumerate(NUMBER.finditer(line)):
            number, integer = _num(m.group())
            if only_integers and not integer:
                continue
            out.append(Value(f"{where}[{i}]", m.group(), number, integer, dtype))
        if len(out) > MAX_VALUES:
            break
    return out[:MAX_VALUES]


def file_values(path: Path, rel: str, ignore: Sequence[str], dtype: str | None, binary_dtype: str) -> list[Value]:
    """Values of an output file: text like program output, anything else as floats of `binary_dtype`."""
    data = path.read_bytes()[:MAX_FILE_BYTES]
    try:
        text = data.decode("utf-8")
        if "\0" not in text:
            return extract(text.splitlines(), ignore, dtype, source=f"{rel}: ")
    except UnicodeDecodeError:
        pass
    fmt = {"fp64": "d", "fp32": "f", "fp16": "e"}.get(binary_dtype, "f")
    size = struct.calcsize(fmt)
    count = min(len(data) // size, MAX_VALUES)
    nums = struct.unpack_from(f"<{count}{fmt}", data)
    return [Value(f"{rel}[{i}]", repr(x), float(x), False, binary_dtype) for i, x in enumerate(nums)]


# ---------------------------------------------------------------------------------------------- compare


@dataclass(frozen=True)
class Mismatch:
    key: str
    expected: str | None  # None: the port printed a value the baseline does not have
    got: str | None  # None: missing in the port's output
    rel_err: float | None = None
    tolerance: float | None = None

    def line(self) -> str:
        if self.got is None:
            return f"missing: {self.key} (CUDA printed {self.expected})"
        if self.expected is None:
            return f"extra: {self.key} = {self.got} (not in the CUDA baseline)"
        tol = f", rel err {self.rel_err:.2e} > {self.tolerance:.0e}" if self.rel_err is not None and self.tolerance else ""
        return f"{self.key}: CUDA {self.expected}, port {self.got}{tol}"


@dataclass(frozen=True)
class Comparison:
    baseline: str  # file it was compared with
    checked: int
    mismatches: tuple[Mismatch, ...]
    machine: str = ""
    total_mismatches: int = 0

    @property
    def matches(self) -> bool:
        return self.checked > 0 and not self.mismatches

    def lines(self) -> list[str]:
        where = f" (recorded on {self.machine})" if self.machine else ""
        if self.matches:
            return [f"matches the CUDA baseline: {self.checked} values{where}"]
        if self.checked == 0 and not self.mismatches:
            return [f"nothing to compare: the CUDA baseline{where} and this run printed no comparable value"]
        out = [f"DIFFERS from the CUDA baseline{where}: {self.total_mismatches} of {self.checked} values; first:"]
        out += ["  " + m.line() for m in self.mismatches]
        return out

    def to_dict(self) -> dict[str, object]:
        return {"baseline": self.baseline, "machine": self.machine, "matches": self.matches, "checked": self.checked,
                "mismatches": self.total_mismatches,
                "first_mismatches": [asdict(m) for m in self.mismatches]}


def tolerances(config: Mapping[str, Any]) -> dict[str, float]:
    tol = dict(DEFAULT_RTOL)
    given = config.get("tolerance")
    if isinstance(given, Mapping):
        for k, v in given.items():
            if isinstance(v, int | float) and not isinstance(v, bool) and v >= 0:
                tol[str(k).lower()] = float(v)
    return tol


def _close(a: Value, b: Value, tol: Mapping[str, float], default_dtype: str) -> tuple[bool, float | None, float]:
    if a.number is None or b.number is None:
        return a.text == b.text, None, 0.0
    if a.integer and b.integer:
        return a.number == b.number, None, 0.0
    x, y = a.number, b.number
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y), None, 0.0
    if math.isinf(x) or math.isinf(y):
        return x == y, None, 0.0
    rtol = tol.get(a.dtype or default_dtype, tol.get(default_dtype, DEFAULT_RTOL["fp32"]))
    diff = abs(x - y)
    scale = max(abs(x), abs(y))
    rel = diff / scale if scale else 0.0
    return diff <= rtol * ATOL_FACTOR + rtol * scale, rel, rtol


def _echo_value(key: str, prefixes: tuple[str, ...]) -> bool:
    return any(key.startswith(p) and key[len(p):len(p) + 1] in ("#", "[", " ") for p in prefixes)


def compare(baseline: Baseline, values: Sequence[Value], config: Mapping[str, Any], path: str = "",
            commands: Sequence[str] = ()) -> Comparison:
    """`commands`: what this run echoed. A baseline recorded before echoes were known (no `commands` in
    its file) may hold values of the same echo lines: those are not compared either."""
    tol = tolerances(config)
    default_dtype = str(config.get("dtype", "fp32")).lower()
    got = {v.key: v for v in values}
    echo_keys = tuple(repr(line_template(c)) for c in commands if c.strip()) if not baseline.commands else ()
    expected = [e for e in baseline.values if not _echo_value(e.key, echo_keys)]
    expected_keys = {v.key for v in expected}
    bad: list[Mismatch] = []
    checked = 0
    for e in expected:
        g = got.get(e.key)
        checked += 1
        if g is None:
            bad.append(Mismatch(e.key, e.text, None))
            continue
        ok, rel, rtol = _close(e, g, tol, default_dtype)
        if not ok:
            bad.append(Mismatch(e.key, e.text, g.text, rel, rtol or None))
    for v in values:
        if v.key not in expected_keys:
            bad.append(Mismatch(v.key, None, v.text))
    return Comparison(path, checked, tuple(bad[:SHOWN_MISMATCHES]), baseline.machine, len(bad))


def run_values(lines: Iterable[str], config: Mapping[str, Any], root: Path,
               commands: Sequence[str] = ()) -> tuple[list[Value], list[str]]:
    """Values of a run: its output lines (less the `commands` it echoed), then each output file named
    in the config; and notes (files that were not written)."""
    given = config.get("baseline_ignore") or []
    ignore = [given] if isinstance(given, str) else [str(p) for p in given]  # checked by config.check_run
    dtype = str(config["dtype"]).lower() if config.get("dtype") else None  # else the comparer's default
    values = extract(lines, ignore, dtype, commands=commands)
    notes = []
    outputs = config.get("outputs") or []
    for rel in [outputs] if isinstance(outputs, str) else list(outputs):
        p = Path(root) / str(rel)
        if not p.is_file():
            notes.append(f"output file {rel} was not written")
            values.append(Value(f"{rel}: (file)", "missing", None))
            continue
        values.append(Value(f"{rel}: (file)", "present", None))
        values += file_values(p, str(rel), ignore, dtype, str(config.get("output_dtype", "fp32")).lower())
    return values, notes
