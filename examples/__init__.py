"""Bundled example projects (the GEMM sample that `hipport demo` opens)."""
