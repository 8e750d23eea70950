"""What every check reads about one file, built once before any check runs (analyzer.py): its tokens and
functions, its warp-size and mask constants, the device helpers and macros that yield a lane id, which
device functions are virtual warps, and what the file's own headers say (`ProjectFacts`, project.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from .constants import collect_constants
from .functions import ballot_params, classify_functions
from .tokens import Tokens
from .values import FunctionValues, KnownNames, known_names

# A header's includers are read up to this many files (project.includer_scope); the role rules say so past it
MAX_INCLUDERS = 2000
# (path, text, constant names, ROCm version, wave32) -> ((name, file, line, role) per use, all files read)
IncluderUses = Callable[[Path | None, str, frozenset[str], tuple[int, int], bool],
                        tuple[tuple[tuple[str, str, int, str], ...], bool]]


@dataclass(frozen=True)
class ProjectFacts:
    """What the translation unit's own headers tell the analysis (filled by project.py)."""

    w32: frozenset[str] = frozenset()            # warp-size constants (value 32) defined in the headers
    warp_kernels: frozenset[str] = frozenset()   # __global__ functions of the headers that use warpSize
    headers: tuple[str, ...] = field(default=())  # the headers read, for messages and tests
    # per header kernel that uses warpSize: (name, why threadIdx.x/blockDim.x, why threadIdx.y is not all
    # through warpSize; "" when it is): see hostflow.py
    kernel_widths: tuple[tuple[str, str, str], ...] = field(default=())
    # device functions of the headers that use the whole wavefront (ballots, votes, lane masks, warpSize, warp
    # PTX; not shuffles alone), themselves or through what they call: a function here calling one is in a
    # hardware context
    wave_funcs: frozenset[str] = frozenset()
    # the analysed file itself: a warp-size constant it defines is also looked up in the files that include
    # it (project.includer_uses); "" when unknown or not to be followed
    path: str = ""
    # project.includer_uses, handed in by project_facts: the role rules call it without importing project.py
    # (project.py analyses other files with the checks, so that import would be a cycle)
    includer_uses: IncluderUses | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class FileFacts:
    tokens: Tokens
    rocm: tuple[int, int]
    wave32: bool                      # the fat binary includes a wave32 architecture
    project: ProjectFacts
    warp_size_constants: Mapping[str, int]   # name -> token index of its literal 32 (constants.py)
    mask_constants: Mapping[str, int]        # name -> token index of its 0xffffffff literal
    host_warp_size_vars: Mapping[str, int]   # host `warp_size = 32` variables: name -> literal index
    known: KnownNames                     # lane/thread-id helpers and macros (values.py)
    virtual_functions: frozenset[int]     # device functions that are virtual 32-lane warps (functions.py)
    wave_functions: frozenset[str]        # whole-wavefront functions other than by shuffles
    ballot_params: Mapping[int, frozenset[str]]  # device function -> parameters that receive a ballot
    links: tuple[tuple[str, str], ...]    # fix groups joined by the call graph and by ballots passed

    def function_values(self) -> FunctionValues:
        """Empty value sets for one device function (the device scan fills them)."""
        return FunctionValues(self.tokens, self.known)


def build_facts(text: str, rocm: tuple[int, int], wave32: bool, project: ProjectFacts | None = None) -> FileFacts:
    project = project or ProjectFacts()
    tokens = Tokens.read(text)
    constants = collect_constants(tokens)
    known = known_names(tokens, constants.warp_size.keys() | project.w32)
    kinds = classify_functions(tokens, constants.warp_size.keys(), project.w32, project.wave_funcs)
    params, ballot_links = ballot_params(tokens)
    return FileFacts(tokens, rocm, wave32, project, MappingProxyType(constants.warp_size),
                     MappingProxyType(constants.full_masks), MappingProxyType(constants.host_warp_size_vars), known,
                     kinds.virtual, kinds.wave, MappingProxyType({fi: frozenset(names) for fi, names in params.items()}),
                     kinds.call_links + tuple(ballot_links))
