"""CUDA -> HIP name tables (generated data; see scripts/gen_mapping.py)."""
