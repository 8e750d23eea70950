"""Python files (issue 2, item 5): CUDA in strings translated in place, the Python only reported on."""

from __future__ import annotations

from pathlib import Path

from hipport.engine.edits import apply_edits
from hipport.engine.model import ReportKind
from hipport.engine.source import Source, read_source
from hipport.engine.translate.driver import translate
from hipport.engine.translate.options import TranslateOptions


def run(src: str, **kw: object) -> tuple[str, object]:
    kw.setdefault("ast", "off")
    t = translate(Source.from_text(src, "m.py"), TranslateOptions(**kw))  # type: ignore[arg-type]
    return apply_edits(src, t.edits), t


def test_torch_cuda_api_untouched_and_plain_strings_untouched() -> None:
    src = ("import torch\n"
           "if torch.cuda.is_available() and torch.version.hip:\n"
           "    x = torch.ones(3, device='cuda')\n"
           "    torch.cuda.synchronize()\n"
           "    print('cudaMalloc is not called here')\n")
    out, t = run(src)
    assert out == src
    assert not t.edits and not t.reports


def test_load_inline_sources_translated_in_place_through_variables() -> None:
    src = ('from torch.utils.cpp_extension import load_inline\n'
           'cuda_src = r"""\n'
           '#include <cuda_runtime.h>\n'
           '__global__ void add(float* a) { a[threadIdx.x] += 1; }\n'
           'void run(float* a, cudaStream_t s) { add<<<1, 64, 0, s>>>(a); cudaStreamSynchronize(s); }\n'
           '"""\n'
           'cpp_src = "void run(float* a, cudaStream_t s); // cudaMalloc stays\\n#include <cuda_fp16.h>\\n"\n'
           'mod = load_inline("ext", [cpp_src], cuda_sources=[cuda_src], functions=["run"])\n'
           'other = "cudaStream_t is just text here"\n')
    out, t = run(src, launch_syntax="ggl")
    assert "#include <hip/hip_runtime.h>\n" in out
    assert "void run(float* a, hipStream_t s) { hipLaunchKernelGGL(add, dim3(1), dim3(64), 0, s, a); " \
           "hipStreamSynchronize(s); }" in out
    # escapes in a non-raw string: the `\n` ends the C++ comment, so the include after it is translated
    assert 'cpp_src = "void run(float* a, hipStream_t s); // cudaMalloc stays\\n#include <hip/hip_fp16.h>\\n"' in out
    assert 'other = "cudaStream_t is just text here"' in out
    assert t.stats["embedded_sources"] == 2
    # in-place: nothing outside the literals moved
    assert out.count("\n") == src.count("\n")


def test_cupy_rawkernel_and_rawmodule() -> None:
    src = ("import cupy as cp\n"
           "k = cp.RawKernel('extern \"C\" __global__ void f(float* x) { x[0] = __ldg(x + 1); }', 'f')\n"
           "m = cp.RawModule(code='''\n#include <cuda_fp16.h>\nextern \"C\" __global__ void g(__half* h) {}\n''')\n")
    out, _ = run(src)
    assert "#include <hip/hip_fp16.h>" in out
    assert "__ldg(x + 1)" in out  # same name in HIP


def test_reports_flags_visibility_and_ordinals() -> None:
    src = ("import os, torch\n"
           "from torch.utils.cpp_extension import load\n"
           "os.environ['CUDA_VISIBLE_DEVICES'] = '0,1'\n"
           "ext = load('e', ['e.cu'], extra_cuda_cflags=['-O3', '--use_fast_math', '-arch=sm_90', "
           "'--expt-relaxed-constexpr', '-Xptxas', '-v'])\n"
           "x = torch.zeros(2, device='cuda:1')\n"
           "torch.cuda.set_device(2)\n"
           "y = x.cuda(3)\n"
           "z = x.to('cuda')\n")
    out, t = run(src)
    assert out == src
    got = {(r.kind, r.name, r.line) for r in t.reports}
    assert (ReportKind.PYTHON, "CUDA_VISIBLE_DEVICES", 3) in got
    assert (ReportKind.PYTHON, "--use_fast_math", 4) in got
    assert (ReportKind.PYTHON, "-arch=sm_90", 4) in got
    assert (ReportKind.PYTHON, "--expt-relaxed-constexpr", 4) in got
    assert (ReportKind.PYTHON, "-Xptxas", 4) in got
    assert (ReportKind.PYTHON, "cuda:1", 5) in got
    assert (ReportKind.PYTHON, "set_device(2)", 6) in got
    assert (ReportKind.PYTHON, "cuda(3)", 7) in got
    assert not any(r.name in ("-O3", "-v", "cuda") for r in t.reports)
    msg = {r.name: r.message for r in t.reports}
    assert "-ffast-math" in msg["--use_fast_math"]
    assert "--offload-arch" in msg["-arch=sm_90"]
    assert "HIP_VISIBLE_DEVICES" in msg["CUDA_VISIBLE_DEVICES"]


def test_extra_compile_args_dict_nvcc_entry() -> None:
    src = ("from setuptools import setup\n"
           "args = {'cxx': ['-O2'], 'nvcc': ['-O3', '-lineinfo']}\n"
           "setup(ext_modules=[CUDAExtension('e', ['e.cu'], extra_compile_args={'cxx': ['-O2'], "
           "'nvcc': ['-lineinfo']})])\n")
    _, t = run(src)
    assert [r.name for r in t.reports] == ["-lineinfo"]
    assert t.reports[0].line == 3


def test_invalid_python_left_unchanged_with_a_note() -> None:
    out, t = run("def broken(:\n    cudaMalloc\n")
    assert out == "def broken(:\n    cudaMalloc\n"
    assert [r.kind for r in t.reports] == [ReportKind.INFO]


def test_python_file_output_idempotent_and_bytes_kept(tmp_path: Path) -> None:
    p = tmp_path / "ext.py"
    data = ("# -*- coding: utf-8 -*-\r\n# héllo\r\nfrom torch.utils.cpp_extension import load_inline\r\n"
            "src = '''\r\n#include <cuda_runtime.h>\r\nvoid f() { cudaDeviceReset(); }\r\n'''\r\n"
            "load_inline('e', cuda_sources=src)\r\n").encode()
    p.write_bytes(data)
    s = read_source(p)
    out = apply_edits(s.text, translate(s, TranslateOptions(ast="off")).edits)
    assert s.encode(out) == data.replace(b"cuda_runtime.h", b"hip/hip_runtime.h").replace(
        b"cudaDeviceReset", b"hipDeviceReset")
    again = translate(Source.from_text(out, p), TranslateOptions(ast="off"))
    assert not again.edits


def test_cuda_source_built_at_run_time_is_reported() -> None:
    src = ("from torch.utils.cpp_extension import load_inline\n"
           "n = 4\n"
           "code = f'__global__ void k(float* a) {{ a[{n}] = 0; }} cudaStream_t s;'\n"
           "load_inline('e', cpp_sources='', cuda_sources=[code])\n")
    out, t = run(src)
    assert out == src
    (r,) = t.reports
    assert r.kind == ReportKind.MANUAL and r.line == 3


# Characters `str.splitlines` treats as line ends but Python does not: a form feed (often at the top
# of a section), a vertical tab, U+2028. Translation once counted lines with splitlines, so every
# string after one was looked up at a shifted offset and its CUDA silently left untranslated, while
# the warp analysis (which counted lines as Python does) still reported inside it.
_ODD_LINE_ENDS = ["\f", "\v", "\u2028", "\x1c", "\x85"]


def _module(odd: str) -> str:
    return (f"# section{odd} break\n"
            "from torch.utils.cpp_extension import load_inline\n"
            "cuda_src = '''\n"
            "__global__ void k(float* o) { float v = o[threadIdx.x];\n"
            "  v += __shfl_down_sync(0xffffffff, v, 16); o[threadIdx.x] = v; }\n"
            "void run(int* p) { cudaMalloc(&p, 4); k<<<1, 32>>>(p); cudaDeviceSynchronize(); }\n"
            "'''\n"
            "mod = load_inline('m', cpp_sources='', cuda_sources=cuda_src)\n")


def test_odd_line_ends_in_comments_do_not_hide_cuda_strings() -> None:
    for odd in _ODD_LINE_ENDS:
        src = _module(odd)
        out, t = run(src)
        assert "hipMalloc(&p, 4)" in out and "hipDeviceSynchronize()" in out, repr(odd)
        assert t.stats["embedded_sources"] == 2  # type: ignore[attr-defined]  # cpp_sources and cuda_sources


def test_translation_and_warp_analysis_agree_on_python_offsets() -> None:
    from hipport.engine.warp import analyze

    for odd in ["", *_ODD_LINE_ENDS]:
        src = _module(odd)
        source = Source.from_text(src, "m.py")
        t = translate(source, TranslateOptions(ast="off"))
        a = analyze(source)
        mask = src.index("0xffffffff")
        assert (mask, mask + 10) in [(f.start, f.end) for f in a.findings], repr(odd)  # the 32-bit mask
        malloc = src.index("cudaMalloc")
        assert [(e.start, e.replacement) for e in t.edits if e.start == malloc] == [(malloc, "hipMalloc")], repr(odd)


def test_lone_carriage_return_keeps_tokenize_offsets() -> None:
    # tokenize does not end a line at a lone \r (ast does): string offsets follow tokenize's lines
    from hipport.engine.pyscan import string_literals

    src = "a = 1\rb = 'x'\nc = \"cudaMalloc\"\n"
    assert [src[s.start : s.end] for s in string_literals(src)] == ["'x'", '"cudaMalloc"']
