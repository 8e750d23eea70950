"""The CUDA->HIP tables: real rows of every family, headers, macros, versions, regeneration."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hipport.engine.mapping import FAMILIES, ApiEntry, load, version_at_least

REPO = Path(__file__).resolve().parents[2]
TABLES = REPO / "data" / "hipify-tables"  # vendored: a fresh clone regenerates apis.json
DATA = REPO / "engine" / "mapping" / "apis.json"


def gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_mapping", REPO / "scripts" / "gen_mapping.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def entry(name: str) -> ApiEntry:
    e = load().lookup(name)
    assert e is not None, name
    return e


# One real row per family, as the HIPIFY tables at SOURCE-COMMIT list them.
@pytest.mark.parametrize(("cuda", "family", "hip", "roc", "kind"), [
    ("cudaMalloc", "runtime", "hipMalloc", "", "function"),
    ("cudaMemcpyHostToDevice", "runtime", "hipMemcpyHostToDevice", "", "type"),
    ("cuMemAlloc", "driver", "hipMalloc", "", "function"),
    ("cuMemAlloc_v2", "driver", "hipMalloc", "", "function"),
    ("cuDeviceGet", "driver", "hipDeviceGet", "", "function"),
    ("__syncthreads", "device", "__syncthreads", "", "function"),
    ("make_cuComplex", "complex", "make_hipComplex", "", "function"),
    ("cuCaddf", "complex", "hipCaddf", "", "function"),
    ("nvrtcCompileProgram", "rtc", "hiprtcCompileProgram", "", "function"),
    ("cublasSgemm", "blas", "hipblasSgemm", "rocblas_sgemm", "function"),
    ("cublasSgemm_v2", "blas", "hipblasSgemm", "rocblas_sgemm", "function"),
    ("cublasLtCreate", "blaslt", "hipblasLtCreate", "", "function"),
    ("curandCreateGenerator", "rand", "hiprandCreateGenerator", "rocrand_create_generator", "function"),
    ("cufftPlan1d", "fft", "hipfftPlan1d", "", "function"),
    ("cusparseCreate", "sparse", "hipsparseCreate", "rocsparse_create_handle", "function"),
    ("cusolverDnCreate", "solver", "hipsolverDnCreate", "rocblas_create_handle", "function"),
    ("cudnnCreate", "dnn", "hipdnnCreate", "miopenCreate", "function"),
    ("CubDebug", "cub", "HipcubDebug", "", "type"),
])
def test_family_rows(cuda: str, family: str, hip: str, roc: str, kind: str) -> None:
    e = entry(cuda)
    assert (e.family, e.hip, e.roc, e.kind) == (family, hip, roc, kind)
    assert e.status == "supported"
    assert e.target() == hip
    assert e.target(roc=True) == (roc or hip)


def test_versions_and_sections() -> None:
    e = entry("cudaMalloc")
    assert (e.hip_added, e.hip_deprecated, e.hip_removed, e.experimental) == ("1.5.0", "", "", "")
    assert e.section == "Memory Management"
    r = entry("curandCreateGenerator")
    assert (r.hip_added, r.roc_added) == ("1.5.0", "1.5.0")
    lt = entry("cublasLtCreate")
    assert (lt.cuda_added, lt.hip_added) == ("10.1", "5.5.0")
    assert entry("cudaDeviceGetDefaultMemPool").hip_added == "5.2.0"


def test_dnn_roc_is_miopen() -> None:
    e = entry("cudnnCreate")
    assert e.miopen == "miopenCreate" and e.roc_added == "2.1.0"
    assert entry("cublasSgemm").miopen == ""


def test_deprecated_and_cuda_removed() -> None:
    e = entry("cudaBindTexture")  # CUDA removed it in 12.0; HIP deprecated hipBindTexture in 3.8.0
    assert (e.hip, e.status, e.hip_deprecated) == ("hipBindTexture", "deprecated", "3.8.0")
    assert (e.cuda_deprecated, e.cuda_removed) == ("11.0", "12.0")
    t = entry("cudaThreadSynchronize")  # deprecated in CUDA only: the HIP name is fine
    assert (t.hip, t.status, t.cuda_deprecated) == ("hipDeviceSynchronize", "supported", "10.0")


@pytest.mark.parametrize("name", ["cudaInitDevice",
                                  "cudaDeviceFlushGPUDirectRDMAWrites", "cudaProfilerInitialize"])
def test_unsupported_stay_unsupported(name: str) -> None:
    e = entry(name)
    assert e.status == "unsupported" and e.hip == "" and not e.supported
    assert (e.hip_added, e.hip_deprecated, e.hip_removed) == ("", "", "")
    assert e.target() == "" and e.target(roc=True) == ""


def test_shfl_sync_is_a_device_function() -> None:
    # The table snapshot row (unsupported there); lookup() answers from overrides.tsv instead.
    [e] = load().lookup_all("__shfl_sync")
    assert (e.family, e.kind, e.section, e.status) == ("device", "function", "Device Functions", "unsupported")


def test_unsupported_rows_have_no_versions_anywhere() -> None:
    m = load()
    for name in m.names():
        for e in m.lookup_all(name):
            if e.status == "unsupported":
                assert e.hip == "" and e.hip_added == "" and e.experimental == "", name
            else:
                assert e.hip, name


def test_roc_only_mapping_counts_as_mapped_but_not_supported() -> None:
    m = load()
    roc_only = [e for n in m.names() for e in m.lookup_all(n) if not e.hip and e.roc]
    assert roc_only, "the tables have ROC-only rows (rocBLAS/rocSPARSE names without hip*)"
    for e in roc_only[:50]:
        assert e.status == "unsupported"
        assert e.target() == "" and e.target(roc=True) == e.roc


def test_namespace_cub() -> None:
    e = entry("cub::BlockReduce")
    assert (e.hip, e.family, e.kind, e.status) == ("hipcub::BlockReduce", "cub", "namespace", "supported")
    assert entry("cub::DeviceReduce::Sum").hip == "hipcub::DeviceReduce::Sum"
    assert entry("cub").hip == "hipcub"
    assert load().lookup("thrust::device_vector") is None


def test_unknown_names() -> None:
    m = load()
    assert m.lookup("hipMalloc") is None
    assert m.lookup("") is None
    assert m.lookup("cudaMallocc") is None
    assert "cudaMalloc" in m and "cudaMallocc" not in m


def test_names_is_the_prefilter_set() -> None:
    m = load()
    names = m.names()
    assert isinstance(names, frozenset)
    assert len(names) == len(m) > 8000
    assert {"cudaMalloc", "cuMemAlloc", "cublasSgemm", "__shfl_sync", "cub"} <= names
    assert all(m.lookup(n) is not None for n in list(names)[:500])


def test_duplicate_names_resolve_to_first_family() -> None:
    m = load()
    dups = [n for n in m.names() if len(m.lookup_all(n)) > 1]
    assert dups
    for n in dups:
        entries = m.lookup_all(n)
        assert m.lookup(n) == entries[0]
        assert FAMILIES.index(entries[0].family) < FAMILIES.index(entries[1].family)


def test_load_is_cached() -> None:
    assert load() is load()
    assert load().lookup("cudaMalloc") is load().lookup("cudaMalloc")


@pytest.mark.parametrize(("cuda", "hip", "roc"), [
    ("cuda_runtime.h", "hip/hip_runtime.h", ""),
    ("cuda.h", "hip/hip_runtime.h", ""),
    ("cublas_v2.h", "hipblas.h", "rocblas.h"),
    ("curand.h", "hiprand/hiprand.h", "rocrand/rocrand.h"),
    ("cuda_fp16.h", "hip/hip_fp16.h", ""),
    ("device_launch_parameters.h", "", ""),  # HIPIFY drops the include
])
def test_headers(cuda: str, hip: str, roc: str) -> None:
    h = load().header(cuda)
    assert h is not None
    assert (h.hip, h.roc, h.status) == (hip, roc, "supported")
    assert load().header("no_such_header.h") is None


def test_header_kinds() -> None:
    h = load().header("cublas_v2.h")
    assert h is not None and (h.kind, h.api) == ("CONV_INCLUDE_CUDA_MAIN_V2_H", "API_BLAS")


@pytest.mark.parametrize(("cuda", "hip", "kind"), [
    ("__CUDACC__", "__HIPCC__", "compiler"),
    ("__CUDACC_RTC__", "__HIPCC_RTC__", "compiler"),
    ("__NVCC__", "", "compiler"),
    ("__CUDA_ARCH__", "__HIP_DEVICE_COMPILE__", "device-pass"),
    ("CUDA_VERSION", "", "version"),
    ("CUDART_VERSION", "", "version"),
    ("__CUDA_RUNTIME_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H", "include-guard"),
    ("__cuda_cuda_h__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H", "include-guard"),
    ("__DRIVER_TYPES_H__", "HIP_INCLUDE_HIP_DRIVER_TYPES_H", "include-guard"),
    ("CUBLAS_V2_H_", "HIPBLAS_H", "include-guard"),
    ("__CUDA_FP16_H__", "HIP_INCLUDE_HIP_HIP_FP16_H", "include-guard"),
])
def test_macros(cuda: str, hip: str, kind: str) -> None:
    mac = load().macro(cuda)
    assert mac is not None
    assert (mac.hip, mac.kind) == (hip, kind)
    assert mac.note
    assert load().macro("NOT_A_MACRO") is None


def test_macro_agrees_with_tables() -> None:
    mac = load().macro("__CUDACC__")
    assert mac is not None and mac.hip == entry("__CUDACC__").hip


CUDA_INCLUDE = Path("/usr/local/cuda/include")
HIP_INCLUDE = Path("/usr/include/hip")


@pytest.mark.skipif(not CUDA_INCLUDE.is_dir() or not HIP_INCLUDE.is_dir(),
                    reason="needs CUDA headers in /usr/local/cuda/include and HIP headers in /usr/include/hip")
def test_include_guards_exist_in_installed_headers() -> None:
    """Each guard pair whose two headers are installed here is really #defined by them."""
    m = load()
    checked = 0
    for mac in m.macro_table().values():
        if mac.kind != "include-guard":
            continue
        cuda_hdrs = [h for h in CUDA_INCLUDE.glob("*.h") if _defines(h, mac.cuda)]
        hip_hdrs = [h for h in HIP_INCLUDE.glob("*.h") if _defines(h, mac.hip)]
        if cuda_hdrs:
            assert hip_hdrs, f"{mac.cuda} -> {mac.hip}: no HIP header defines it"
            checked += 1
    assert checked >= 10


def _defines(path: Path, macro: str) -> bool:
    head = path.read_text(encoding="utf-8", errors="replace")[:20000]
    return re.search(rf"^\s*#\s*define\s+{re.escape(macro)}\b", head, re.M) is not None


@given(st.tuples(st.integers(0, 20), st.integers(0, 20)),
       st.lists(st.integers(0, 20), min_size=1, max_size=3))
def test_version_at_least_matches_tuple_order(target: tuple[int, int], parts: list[int]) -> None:
    v = ".".join(map(str, parts))
    padded = parts + [0] * (3 - len(parts))
    expected = (target[0], target[1], 0) >= tuple(padded)
    assert version_at_least(target, v) is expected
    assert load().version_at_least(v, target) is expected


def test_needs_newer_rocm() -> None:
    e = entry("cudaSetValidDevices")  # hipSetValidDevices appeared in HIP 6.2.0
    assert e.hip_added == "6.2.0"
    assert e.needs_newer_rocm((6, 1)) and not e.needs_newer_rocm((6, 2))
    assert not e.needs_newer_rocm((7, 0))
    assert not entry("cudnnCreate").needs_newer_rocm((5, 0))  # no version recorded: available
    assert version_at_least((7, 0), "")


def test_coverage() -> None:
    cov = load().coverage()
    assert list(cov) == list(FAMILIES)
    print("\nfamily    mapped / names")
    for fam, (mapped, total) in cov.items():
        print(f"{fam:8s} {mapped:6d} / {total:<6d}")
        assert 0 < mapped <= total, fam
    assert cov["complex"] == (26, 26)
    assert cov["runtime"][1] == 1436 and cov["driver"][1] == 2008
    assert sum(t for _, t in cov.values()) == len(json.loads(DATA.read_bytes())["columns"]["cuda"].split("|")) - 1


def test_data_records_source_and_generator() -> None:
    doc = json.loads(DATA.read_bytes())
    assert doc["generator"].startswith("gen_mapping ")
    assert len(load().source_commit) == 40
    assert load().source_commit == (TABLES / "SOURCE-COMMIT").read_text().split()[0]


def test_regeneration_is_byte_identical() -> None:
    assert gen().build(TABLES) == DATA.read_bytes()


def test_generator_check_cli(tmp_path: Path) -> None:
    out = tmp_path / "apis.json"
    script = str(REPO / "scripts" / "gen_mapping.py")
    r = subprocess.run([sys.executable, script, "--tables", str(TABLES), "--out", str(out), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "differs" in r.stdout
    r = subprocess.run([sys.executable, script, "--tables", str(TABLES), "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == DATA.read_bytes()
    r = subprocess.run([sys.executable, script, "--tables", str(TABLES), "--out", str(out), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "up to date" in r.stdout


def test_generator_refuses_bad_tables(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    shutil.copytree(TABLES, tables)
    fft = tables / "CUFFT_API_supported_by_HIP.md"
    fft.chmod(0o644)
    fft.write_text(fft.read_text().replace("|`hipfftPlan1d`|1.7.0|", "|`hipfftPlan1d`|one|", 1))
    out = tmp_path / "apis.json"
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_mapping.py"), "--tables", str(tables),
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 2
    assert "CUFFT_API_supported_by_HIP.md" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_generator_detects_disagreeing_single_library_table(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    shutil.copytree(TABLES, tables)
    roc = tables / "CURAND_API_supported_by_ROC.md"
    roc.chmod(0o644)
    roc.write_text(roc.read_text().replace("`rocrand_create_generator`", "`rocrand_create_generatorX`", 1))
    g = gen()
    with pytest.raises(g.TableError, match=r"CURAND_API_supported_by_ROC\.md"):
        g.build(tables)


def test_macro_file_is_well_formed() -> None:
    rows = list(load().macro_table().values())
    assert len(rows) >= 20
    for mac in rows:
        assert mac.kind in {"compiler", "device-pass", "version", "include-guard"}, mac
        assert re.fullmatch(r"\w+", mac.cuda) and (mac.hip == "" or re.fullmatch(r"\w+", mac.hip)), mac
        assert len(mac.note) > 20, mac
    guards = [m for m in rows if m.kind == "include-guard"]
    assert all(m.hip for m in guards)
