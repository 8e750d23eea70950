"""The build-script rules (rules.toml) as typed, cached tables. Data lives in the TOML, not here."""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any


@dataclass(frozen=True, slots=True)
class FlagRule:
    names: tuple[str, ...]
    value: str      # "none" | "joined" | "either"
    action: str     # "replace" | "unwrap" | "arch" | "report"
    hip: str
    note: str
    source: str
    quiet: bool = False  # the usual spelling works with hipcc as is: not worth a note in Python builds


@dataclass(frozen=True, slots=True)
class LibraryRule:
    cuda: str                       # -l<cuda>
    cuda_targets: tuple[str, ...]   # CMake CUDA::<x> targets
    hip: str                        # -l<hip>; "" = nothing to link (hipcc links the runtime)
    roc: str
    package: str                    # find_package(<package>); "" = none
    roc_package: str
    hip_target: str                 # CMake target; "" = none
    roc_target: str
    note: str
    source: str
    link: str = ""                  # for a non-hipcc linker: the library hipcc would have added

    def lib(self, roc: bool) -> str:
        return (self.roc or self.hip) if roc else self.hip

    def target(self, roc: bool) -> str:
        return (self.roc_target or self.hip_target) if roc else self.hip_target

    def find_package(self, roc: bool) -> str:
        return (self.roc_package or self.package) if roc else self.package


@dataclass(frozen=True)
class Rules:
    flags: dict[str, FlagRule]          # every name -> its rule
    passthrough: re.Pattern[str]        # flags hipcc takes unchanged
    separate_value: frozenset[str]
    libraries: dict[str, LibraryRule]   # cuda lib name -> rule
    targets: dict[str, LibraryRule]     # CUDA::x -> rule
    path_variables: tuple[str, ...]
    hip_variable: str
    cuda_prefix: re.Pattern[str]
    hip_prefix: str
    cuda_libdir: str
    hip_libdir: str
    compilers: dict[str, str]
    report_compilers: frozenset[str]
    report_compiler_note: str
    c_source_flag: str
    tools: dict[str, str]
    cmake: dict[str, Any]


def _text() -> str:
    return resources.files(__package__).joinpath("rules.toml").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def rules() -> Rules:
    data = tomllib.loads(_text())
    flags: dict[str, FlagRule] = {}
    for row in data["flag"]:
        rule = FlagRule(tuple(row["names"]), row["value"], row["action"], row.get("hip", ""), row["note"],
                        row["source"], bool(row.get("quiet", False)))
        for n in rule.names:
            flags[n] = rule
    libs: dict[str, LibraryRule] = {}
    targets: dict[str, LibraryRule] = {}
    for row in data["library"]:
        lib = LibraryRule(row["cuda"], tuple(row.get("cuda_targets", ())), row["hip"], row.get("roc", ""),
                          row.get("package", ""), row.get("roc_package", ""), row.get("hip_target", ""),
                          row.get("roc_target", ""), row.get("note", ""), row["source"],
                          row.get("link", ""))
        libs[lib.cuda] = lib
        for t in lib.cuda_targets:
            targets[t] = lib
    pt = data["passthrough"]
    paths = data["paths"]
    comp = data["compilers"]
    return Rules(
        flags=flags,
        passthrough=re.compile("|".join(f"(?:{p})" for p in pt["patterns"])),
        separate_value=frozenset(pt["separate_value"]),
        libraries=libs,
        targets=targets,
        path_variables=tuple(paths["variables"]),
        hip_variable=paths["hip_variable"],
        cuda_prefix=re.compile(paths["cuda_prefix"]),
        hip_prefix=paths["hip_prefix"],
        cuda_libdir=paths["cuda_libdir"],
        hip_libdir=paths["hip_libdir"],
        compilers={k: v for k, v in comp.items() if isinstance(v, str) and k not in ("report_note", "c_source_flag")},
        report_compilers=frozenset(comp["report"]),
        report_compiler_note=comp["report_note"],
        c_source_flag=comp["c_source_flag"],
        tools=dict(data["tools"]),
        cmake=dict(data["cmake"]),
    )


def flag_notes() -> dict[str, str]:
    """nvcc flag name -> the one-line meaning for people (python_host's extra_cuda_cflags notes)."""
    return {name: rule.note for name, rule in rules().flags.items() if not rule.quiet}
