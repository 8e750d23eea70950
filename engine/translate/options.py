"""What a translation is asked to do (TranslateOptions), and the error when it cannot run as asked."""

from __future__ import annotations

from dataclasses import dataclass


class TranslateError(Exception):
    """Translation cannot run as asked (e.g. ast="on" without a clang resource dir). One line."""


@dataclass(frozen=True)
class TranslateOptions:
    rocm: tuple[int, int] = (7, 0)
    launch_syntax: str = "chevron"  # "chevron" keeps <<<...>>>; "ggl" emits hipLaunchKernelGGL
    roc: bool = False               # rocBLAS/rocSPARSE/... and MIOpen names instead of hip*
    experimental: bool = False      # also translate names HIP marks experimental
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()   # "NAME" or "NAME=VALUE" (AST mode, and skip_inactive)
    skip_inactive: bool = False     # leave #if branches the preprocessor leaves inactive untouched
    amap: bool = False              # with skip_inactive: still rename CUDA names in the inactive branches
    miopen: bool = False            # cuDNN -> MIOpen names (what --roc also does for cuDNN)
    hip_data_types: bool = False    # cudaDataType -> hipDataType, not hipblasDatatype_t / rocblas_datatype
    translate_comments: bool = False
    translate_strings: bool = True  # hipify-clang's RewriteString: whole words of string literals
    ast: str = "auto"               # "auto" | "off" | "on"
    # absolute paths of the files of this conversion whose outputs get sibling names (--suffix):
    # quoted includes of them are pointed at their ports (engine/local_includes.py)
    sibling_outputs: frozenset[str] = frozenset()
    archs: tuple[str, ...] = ("gfx942",)  # build scripts: --offload-arch / CMAKE_HIP_ARCHITECTURES targets
    output_mode: str = "folder"     # build scripts: "sibling" renames gemm.cu -> gemm.hip in the script
    shims: bool = True              # insert the exact replacements of mapping/shims.tsv where the target lacks them
    # CUDA-looking names other files of the conversion define (engine/project/names.py): not "unknown"
    project_names: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.launch_syntax not in ("chevron", "ggl"):
            raise ValueError(f"launch_syntax must be 'chevron' or 'ggl', not {self.launch_syntax!r}")
        if self.ast not in ("auto", "off", "on"):
            raise ValueError(f"ast must be 'auto', 'off' or 'on', not {self.ast!r}")

    @property
    def rocm_text(self) -> str:
        """The target ROCm as people write it ("7.0"), for messages."""
        return ".".join(map(str, self.rocm))
