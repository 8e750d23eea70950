from buildsys_helpers import cmake_build, rocm_shim

__all__ = ["cmake_build", "rocm_shim"]
