"""Hypothesis strategies for CUDA-like text, shared by the adversarial property tests.

Generated text is a list of segments whose kind we know (code, comment, string, directive), so a
test can check what the translator did to each kind without re-lexing with the engine's own lexer.
Segments are always separated by whitespace, so two segments never fuse into one token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from hipport.engine.mapping import load
from hipport.engine.translate.tables import UNKNOWN_PATTERN

REPO = Path(__file__).resolve().parents[2]

# CUDA names from several families (runtime, driver, libraries, device builtins, types, macros)
CUDA_NAMES = [
    "cudaMalloc", "cudaFree", "cudaMemcpy", "cudaMemcpyHostToDevice", "cudaDeviceSynchronize",
    "cudaStream_t", "cudaStreamCreate", "cudaEvent_t", "cudaEventCreate", "cudaError_t", "cudaSuccess",
    "cudaGetLastError", "cudaGetErrorString", "cudaMallocHost", "cudaLaunchKernel", "cudaMemcpyAsync",
    "cuInit", "cuMemAlloc", "CUdeviceptr", "CUresult", "cublasSgemm", "cublasHandle_t", "cublasCreate",
    "CUBLAS_OP_N", "curandState", "curand_init", "cufftExecC2C", "cudnnCreate", "cusparseCreate",
    "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__activemask", "__syncwarp", "warpSize",
    "threadIdx", "blockIdx", "blockDim", "__syncthreads", "__global__", "__device__", "__half",
    "__CUDA_ARCH__", "CUDART_VERSION", "cudaFuncSetAttribute", "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaNotARealFunction", "cuFakeThing", "cublasImaginaryCall",
]
CUDA_HEADERS = ["cuda_runtime.h", "cuda.h", "cublas_v2.h", "cuda_fp16.h", "curand_kernel.h", "cooperative_groups.h"]

KEYWORDS = ["int", "float", "void", "unsigned", "const", "return", "if", "else", "for", "while", "struct",
            "template", "typename", "auto", "static", "namespace", "using", "sizeof", "extern", "inline"]
PUNCT = ["(", ")", "{", "}", "[", "]", ";", ",", "=", "+", "-", "*", "/", "%", "<", ">", "<<", ">>", "&&",
         "||", "!", "?", ":", "::", "->", ".", "&", "|", "^", "~", "==", "!=", "<=", ">=", "+=", "++", "--",
         "<<<", ">>>"]  # no "#": a '#' at a line start would make a directive
NUMBERS = ["0", "1", "32", "31", "16", "64", "0xffffffff", "0xFFFFFFFFu", "1'000", "3.5f", "1e-3", ".5", "0x1p3",
           "1024u", "7ull"]
PLAIN_WORDS = ["alpha", "beta", "buf", "count", "value", "n", "i", "j", "k", "tile", "acc", "out", "lhs",
               "rhs", "Matrix", "kernel", "lane_id", "row", "col", "stride", "my_cuda", "hipish", "cub",
               "CUDAish_not", "acuda", "x_cudaMalloc", "sum", "grid", "block", "size_t", "std", "vector"]
ODD_CHARS = ["é", "Ω", "中", "\u00a0", "\t", "\f", "\v", "\u2028", "😀", "$", "@", "`", "\\"]

_unknown = re.compile(UNKNOWN_PATTERN)


def is_plain(name: str) -> bool:
    """A name the translator has no reason to touch: in no mapping table, not CUDA-looking."""
    m = load()
    return (m.lookup(name) is None and not _unknown.match(name) and not name.startswith("__")
            and name not in ("asm", "_Pragma", "defined"))


PLAIN_IDENTS = st.one_of(
    st.sampled_from([w for w in PLAIN_WORDS if is_plain(w)]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True).filter(is_plain),
)


@dataclass(frozen=True)
class Seg:
    kind: str  # "code" | "comment" | "string" | "directive" | "ws"
    text: str


def _comment_body(alphabet: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # no backslash (a trailing one would continue a // comment) and no "*/" (would end a block comment)
    return st.lists(alphabet, max_size=6).map(" ".join).map(lambda s: s.replace("\\", "").replace("*/", "* /"))


def _string_body(alphabet: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(alphabet, max_size=5).map(" ".join).map(
        lambda s: s.replace("\\", "\\\\").replace('"', "").replace("'", "").replace("\n", " ").replace("\r", " ")
        .replace("\u2028", " "))


def segments(with_cuda: bool = True) -> st.SearchStrategy[list[Seg]]:
    names = st.sampled_from(CUDA_NAMES) if with_cuda else PLAIN_IDENTS
    idents = st.one_of(PLAIN_IDENTS, names) if with_cuda else PLAIN_IDENTS
    words = st.one_of(idents, st.sampled_from(KEYWORDS), st.sampled_from(NUMBERS))
    body_words = st.one_of(words, st.sampled_from(CUDA_NAMES), st.sampled_from(ODD_CHARS))
    headers = st.sampled_from(CUDA_HEADERS) if with_cuda else st.sampled_from(["vector", "cstdio", "my/own.h"])
    punct = PUNCT if with_cuda else [p for p in PUNCT if p not in ("<<<", ">>>")]  # a launch is CUDA
    code = st.one_of(idents, st.sampled_from(KEYWORDS), st.sampled_from(punct), st.sampled_from(NUMBERS)).map(
        lambda t: Seg("code", t))
    comment = st.one_of(
        _comment_body(body_words).map(lambda b: Seg("comment", "// " + b)),
        _comment_body(st.one_of(body_words, st.just("\n"))).map(lambda b: Seg("comment", "/* " + b + " */")),
    )
    string = st.one_of(
        _string_body(body_words).map(lambda b: Seg("string", '"' + b + '"')),
        st.sampled_from(CUDA_NAMES).map(lambda n: Seg("string", f'u8"{n}"')),
        st.sampled_from(CUDA_NAMES).map(lambda n: Seg("string", f'R"x({n} "quoted" \\ {n})x"')),
        st.sampled_from(["'a'", "'\\''", "'\\n'"]).map(lambda c: Seg("string", c)),
    )
    directive = st.one_of(
        headers.map(lambda h: Seg("directive", f"#include <{h}>")),
        headers.map(lambda h: Seg("directive", f'#include "{h}"')),
        st.tuples(idents, idents).map(lambda t: Seg("directive", f"#define {t[0].upper()}_M {t[1]}(x)")),
        st.sampled_from(NUMBERS[:6]).map(lambda v: Seg("directive", f"#if __CUDA_ARCH__ >= {v}" if with_cuda
                                                       else f"#if FOO >= {v}")),
        st.just(Seg("directive", "#endif")),
        st.just(Seg("directive", "#pragma once")),
    )
    launch = st.tuples(idents, st.sampled_from(NUMBERS), idents).map(
        lambda t: Seg("code", f"{t[0]}<<<{t[1]}, 256>>>({t[2]});" if with_cuda else f"{t[0]}({t[1]}, {t[2]});"))
    ws = st.sampled_from([" ", "\n", "\r\n", "\t", "  ", "\n\n", "\r", " \\\n "]).map(lambda w: Seg("ws", w))
    item = st.one_of(code, code, code, comment, string, launch, directive)
    return st.lists(st.tuples(item, ws), max_size=40).map(_join)


def _join(pairs: list[tuple[Seg, Seg]]) -> list[Seg]:
    out: list[Seg] = []
    for seg, sep in pairs:
        if seg.kind == "directive":
            # a directive needs a line of its own
            out += [Seg("ws", "\n"), seg, Seg("ws", "\n")]
        elif seg.kind == "comment" and seg.text.startswith("//"):
            out += [seg, Seg("ws", "\n")]
        else:
            out += [seg, sep if sep.text.strip() != "\\" else Seg("ws", " ")]
    return out


def render(segs: list[Seg]) -> str:
    return "".join(s.text for s in segs)


def spans(segs: list[Seg], kinds: set[str]) -> list[tuple[int, int]]:
    """[start, end) of every segment of the given kinds in render(segs)."""
    res: list[tuple[int, int]] = []
    pos = 0
    for s in segs:
        if s.kind in kinds:
            res.append((pos, pos + len(s.text)))
        pos += len(s.text)
    return res


def real_samples() -> list[tuple[str, str]]:
    """(name, text) of the project's own CUDA/C++/Python samples: examples, translation data, warp corpus."""
    files = sorted([*(REPO / "examples" / "gemm").glob("*.cu"), *(REPO / "examples" / "gemm").glob("*.py"),
                    *(REPO / "tests" / "data" / "translate").glob("*.c*"),
                    *(REPO / "tests" / "corpus" / "warp").glob("*")])
    return [(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in files if p.is_file()]
