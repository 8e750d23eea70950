"""CUDA -> HIP name tables: AMD's HIPIFY tables, generated into apis.json by scripts/gen_mapping.py.

`load()` reads the data once per process (cached). `Mapping.lookup(name)` answers in O(1); the
`ApiEntry` objects are built on first use only, so loading stays at a few milliseconds.

Fields:
- `hip` is the HIP name ("" when HIPIFY marks the name unsupported: nothing is ever invented);
  `roc` is the rocBLAS/rocRAND/rocSPARSE/rocSOLVER name for blas/blaslt/rand/sparse/solver and
  the MIOpen name for dnn (also available as `ApiEntry.miopen`).
- `status` describes the HIP name: "unsupported" (no HIP name), "removed" / "deprecated" (the HIP
  name was removed / deprecated in `hip_removed` / `hip_deprecated`), else "supported". Some rows
  have only a ROC/MIOpen name (status "unsupported", `roc` set): use `target(roc=True)` for --roc.
- Versions are strings such as "1.6.0" ("" when none); `*_changed` may list several, comma-joined.
  CUDA versions are CUDA toolkit releases (cuDNN rows: cuDNN releases). HIP/ROC/MIOpen versions are
  HIPIFY's HIP_xyyz constants, i.e. HIP releases, and HIP's version is ROCm's: HIP 6.2 ships in
  ROCm 6.2, and through 5.x likewise (Debian's hipcc is HIP 5.2 = ROCm 5.2). Older numbers (1.x-4.x)
  predate every ROCm target hipport accepts, so comparing them with a ROCm (major, minor) is safe.
  Assumption used by `needs_newer_rocm` / `version_at_least`: available in ROCm X.Y iff version <= X.Y.
- `experimental`: HIP version since which the replacement is experimental ("" when it is not).
- `opt_in` (hand-kept rows): releases that have the HIP name behind a flag before `hip_added`, as
  "6.2-6.4 -DHIP_ENABLE_WARP_SYNC_BUILTINS" ("" when none).
- `kind`: "function", "type" (types, enums, enumerators and defines: HIPIFY's type sections) or
  "namespace" (`cub` -> `hipcub`; qualified names such as `cub::BlockReduce` resolve through it).
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass

# Order = lookup priority when a CUDA name is listed by more than one family (first wins); the
# generator (scripts/gen_mapping.py) writes apis.json in this order.
FAMILIES = ("runtime", "driver", "device", "complex", "rtc", "blas", "blaslt", "rand", "fft",
            "sparse", "solver", "dnn", "cub")
_HERE = os.path.dirname(os.path.abspath(__file__))  # plain os.path: importlib.resources costs ~12 ms
ROC_FAMILIES = frozenset({"blas", "blaslt", "rand", "sparse", "solver"})
# families whose names go to the ROC library / MIOpen with --roc or --miopen (hipify-clang's
# Statistics::isToRoc: API_BLAS, DNN, SPARSE, SOLVER, RUNTIME, COMPLEX, RAND)
ROC_TARGET_FAMILIES = ROC_FAMILIES | {"dnn", "runtime", "complex", "device"}  # device: __half (roc_names.tsv)


@dataclass(frozen=True, slots=True)
class ApiEntry:
    cuda: str
    hip: str
    roc: str
    family: str
    kind: str
    status: str
    hip_added: str
    hip_deprecated: str
    hip_removed: str
    experimental: str
    section: str = ""
    cuda_added: str = ""
    cuda_deprecated: str = ""
    cuda_changed: str = ""
    cuda_removed: str = ""
    hip_changed: str = ""
    roc_added: str = ""
    roc_deprecated: str = ""
    roc_changed: str = ""
    roc_removed: str = ""
    roc_experimental: str = ""
    roc_miopen_only: bool = False  # the ROC name is used with --miopen only (hipify's ROC_MIOPEN_ONLY)
    opt_in: str = ""  # overrides.tsv: the releases that have the HIP name behind a flag ("6.2-6.4 -DFLAG")

    @property
    def supported(self) -> bool:
        return bool(self.hip)

    @property
    def miopen(self) -> str:
        """The MIOpen name of a cuDNN entry ("" for other families or when unmapped)."""
        return self.roc if self.family == "dnn" else ""

    def target(self, roc: bool = False, miopen: bool = False) -> str:
        """The replacement name: the ROC library's (or MIOpen's) with `roc` (or `miopen`) when one exists."""
        to_roc = (roc and not self.roc_miopen_only) or miopen
        if to_roc and self.roc and self.family in ROC_TARGET_FAMILIES:
            return self.roc
        return self.hip

    def needs_newer_rocm(self, rocm: tuple[int, int]) -> bool:
        """True when the HIP name appeared after the target ROCm release."""
        return bool(self.hip_added) and not version_at_least(rocm, self.hip_added)


@dataclass(frozen=True, slots=True)
class HeaderEntry:
    cuda: str
    hip: str  # "" = HIPIFY drops the include
    roc: str
    kind: str  # HIPIFY's CONV_INCLUDE / CONV_INCLUDE_CUDA_MAIN_H / CONV_INCLUDE_CUDA_MAIN_V2_H
    api: str  # HIPIFY's API_RUNTIME, API_BLAS, ...
    status: str  # "supported" / "unsupported"


@dataclass(frozen=True, slots=True)
class MacroEntry:
    cuda: str
    hip: str  # "" = no HIP equivalent: report, never rewrite
    kind: str  # compiler / device-pass / version / include-guard
    note: str


def parse_version(v: str) -> tuple[int, ...]:
    """'6.2.0' -> (6, 2, 0). Raises ValueError on anything else."""
    return tuple(int(p) for p in v.split("."))


def version_at_least(target: tuple[int, ...], v: str) -> bool:
    """True when version string `v` is not newer than `target` (ROCm (major, minor[, patch])).

    An empty `v` (no version recorded) counts as available everywhere.
    """
    if not v:
        return True
    need = parse_version(v)
    have = tuple(target) + (0,) * max(0, len(need) - len(target))
    return have >= need


class Mapping:
    """The loaded tables. Use `load()`; do not construct directly."""

    def __init__(self, doc: dict[str, object], macros: tuple[MacroEntry, ...] | None = None) -> None:
        if doc.get("format") != 3:
            raise ValueError(f"apis.json: unknown format {doc.get('format')!r}; re-run scripts/gen_mapping.py")
        self._raw: dict[str, str] = doc["columns"]  # type: ignore[assignment]
        self._sep = str(doc["sep"])
        self._values: dict[str, list[str]] = doc["values"]  # type: ignore[assignment]
        self.source_commit: str = str(doc["source_commit"])
        self.generator: str = str(doc["generator"])
        self._split: dict[str, list[str]] = {}
        names = self._col("cuda")
        self._n = n = len(names)
        # A name listed by two families maps to its first row (FAMILIES order): build the dict from
        # the end so earlier rows overwrite later ones (twice as fast as a setdefault loop).
        self._index: dict[str, int] = dict(zip(reversed(names), range(n - 1, -1, -1), strict=True))
        self._cache: dict[int, ApiEntry] = {}
        self._header_rows: list[list[str]] = doc["headers"]  # type: ignore[assignment]
        self._headers: dict[str, HeaderEntry] | None = None
        self._macros: dict[str, MacroEntry] | None = None if macros is None else {m.cuda: m for m in macros}
        self._namespaces: dict[str, int] = doc["namespaces"]  # type: ignore[assignment]
        self._overrides: dict[str, ApiEntry] = {e.cuda: e for e in (*_read_caffe2(), *_read_overrides())}
        self._roc_names: dict[str, tuple[str, bool]] = {
            r["cuda"]: (r["roc"], r["when"] == "miopen") for r in _read_tsv("roc_names.tsv")}

    def _col(self, name: str) -> list[str]:
        """One column's cells, split from the stored newline-joined string on first use."""
        col = self._split.get(name)
        if col is None:
            col = self._split[name] = self._raw[name].split(self._sep)
        return col

    def _value(self, column: str, i: int) -> str:
        return self._values[column][int(self._col(column)[i])]

    def _entry(self, i: int) -> ApiEntry:
        e = self._cache.get(i)
        if e is None:
            c = self._col
            cuda = c("cuda")[i]
            roc, miopen_only = (c("roc")[i], False) if c("roc")[i] else self._roc_names.get(cuda, ("", False))
            e = ApiEntry(
                cuda=cuda, hip=c("hip")[i], roc=roc, roc_miopen_only=miopen_only,
                family=self._value("family", i), kind=self._value("kind", i),
                status=self._value("status", i),
                hip_added=c("hip_added")[i], hip_deprecated=c("hip_deprecated")[i],
                hip_removed=c("hip_removed")[i], experimental=c("experimental")[i],
                section=self._value("section", i),
                cuda_added=c("cuda_added")[i], cuda_deprecated=c("cuda_deprecated")[i],
                cuda_changed=c("cuda_changed")[i], cuda_removed=c("cuda_removed")[i],
                hip_changed=c("hip_changed")[i],
                roc_added=c("roc_added")[i], roc_deprecated=c("roc_deprecated")[i],
                roc_changed=c("roc_changed")[i], roc_removed=c("roc_removed")[i],
                roc_experimental=c("roc_experimental")[i],
            )
            self._cache[i] = e
        return e

    def lookup(self, name: str) -> ApiEntry | None:
        """The entry for a CUDA name, or None. `ns::Name` resolves through a renamed namespace.

        Hand-kept corrections (overrides.tsv: warp-sync builtins newer than the table snapshot) win;
        caffe2.tsv adds the CAFFE2 names hipify-clang's source has and its tables lack."""
        o = self._overrides.get(name)
        if o is not None:
            return o
        i = self._index.get(name)
        if i is not None:
            return self._entry(i)
        ns, sep, rest = name.partition("::")
        if sep and rest and ns in self._namespaces:
            e = self._entry(self._namespaces[ns])
            return ApiEntry(cuda=name, hip=f"{e.hip}::{rest}", roc="", family=e.family, kind="namespace",
                            status=e.status, hip_added="", hip_deprecated="", hip_removed="",
                            experimental="", section=e.section)
        return None

    def lookup_all(self, name: str) -> tuple[ApiEntry, ...]:
        """Every family's entry for a name listed by several tables (lookup() gives the first)."""
        if name not in self._index:
            return ()
        names = self._col("cuda")
        return tuple(self._entry(i) for i in range(self._index[name], self._n) if names[i] == name)

    def names(self) -> frozenset[str]:
        """All CUDA names in the tables (for a fast prefilter)."""
        return self._names

    @functools.cached_property
    def _names(self) -> frozenset[str]:
        return frozenset(self._index) | frozenset(self._overrides)

    def __contains__(self, name: object) -> bool:
        return name in self._index or name in self._overrides

    def __len__(self) -> int:
        return len(self._names)

    def header(self, cuda_header: str) -> HeaderEntry | None:
        """The HIP header for a CUDA header name as written in #include (e.g. "cuda_runtime.h")."""
        return self.header_table().get(cuda_header)

    def header_table(self) -> dict[str, HeaderEntry]:
        if self._headers is None:
            self._headers = {r[0]: HeaderEntry(*r) for r in self._header_rows}
            for r in _read_tsv("header_overrides.tsv"):  # hand-kept rows the generated table lacks
                self._headers[r["cuda"]] = HeaderEntry(r["cuda"], r["hip"], "", "CONV_INCLUDE", "API_RUNTIME",
                                                       r["status"])
        return self._headers

    @functools.cached_property
    def blas_v2_only(self) -> frozenset[str]:
        """cuBLAS names translated only in files that include cublas_v2.h (blas_v2_only.tsv)."""
        return frozenset(r["cuda"] for r in _read_tsv("blas_v2_only.tsv"))

    def macro(self, name: str) -> MacroEntry | None:
        return self.macro_table().get(name)

    def macro_table(self) -> dict[str, MacroEntry]:
        """All macro entries by CUDA name (read on first use from macros.tsv)."""
        if self._macros is None:
            self._macros = {m.cuda: m for m in _read_macros()}
        return self._macros

    def coverage(self) -> dict[str, tuple[int, int]]:
        """Per family: (names with a HIP or ROC/MIOpen mapping, names in the tables)."""
        out = {f: [0, 0] for f in FAMILIES}
        fam, kind, hip, roc = self._col("family"), self._col("kind"), self._col("hip"), self._col("roc")
        families, kinds = self._values["family"], self._values["kind"]
        for i in range(self._n):
            if kinds[int(kind[i])] == "namespace":
                continue
            counts = out[families[int(fam[i])]]
            counts[1] += 1
            if hip[i] or roc[i]:
                counts[0] += 1
        return {f: (m, t) for f, (m, t) in out.items()}

    @staticmethod
    def version_at_least(v: str, target: tuple[int, ...]) -> bool:
        """True when a HIP version string `v` is available in ROCm `target` (see module doc)."""
        return version_at_least(target, v)


def _read_tsv(name: str) -> list[dict[str, str]]:
    """Rows of a small hand-kept TSV beside this file (# comments; first row is the header)."""
    with open(os.path.join(_HERE, name), encoding="utf-8") as f:
        text = f.read()
    rows: list[dict[str, str]] = []
    header: list[str] | None = None
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            continue
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def _read_overrides() -> tuple[ApiEntry, ...]:
    return tuple(
        ApiEntry(cuda=r["cuda"], hip=r["hip"], roc="", family=r["family"], kind="function",
                 status="supported" if r["hip"] else "unsupported",
                 hip_added=r["hip_added"], hip_deprecated="", hip_removed="", experimental="",
                 section=("Device Functions" if r["family"] == "device" else "Runtime API")
                 + " (overrides.tsv: " + r["note"] + ")", opt_in=r["opt_in"])
        for r in _read_tsv("overrides.tsv")
    )


def _read_caffe2() -> tuple[ApiEntry, ...]:
    return tuple(
        ApiEntry(cuda=r["cuda"], hip=r["hip"], roc="", family="caffe2", kind=r["kind"], status="supported",
                 hip_added="", hip_deprecated="", hip_removed="", experimental="",
                 section="CAFFE2 (caffe2.tsv, from hipify-clang's source)")
        for r in _read_tsv("caffe2.tsv")
    )


def _read_macros() -> tuple[MacroEntry, ...]:
    return tuple(MacroEntry(r["cuda"], r["hip"], r["kind"], r["note"]) for r in _read_tsv("macros.tsv"))


@functools.cache
def load() -> Mapping:
    """The mapping tables, read once per process."""
    with open(os.path.join(_HERE, "apis.json"), "rb") as f:
        data = f.read()
    return Mapping(json.loads(data))


__all__ = ["ApiEntry", "HeaderEntry", "MacroEntry", "Mapping", "load", "parse_version", "version_at_least"]
