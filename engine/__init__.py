"""hipport engine: everything that knows CUDA, HIP, git and toolchains. Imports no Textual."""

__all__ = ["__version__"]
__version__ = "0.1.0"
