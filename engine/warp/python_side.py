"""Python files: CUDA source inside string literals (load_inline, RawKernel, ...) and launch math.

CUDA strings are analysed in place: every character outside them is blanked (newlines kept), so the
C++ analyzer's offsets are offsets into the Python file and need no mapping back.
"""

from __future__ import annotations

import re
import tokenize

from .. import pyscan
from .analyzer import analyze_text
from .hits import Hit, Result
from .lex import ID, NUM, PUNCT, Tok
from .prelude import Needs

CUDA_HINT = re.compile(r"__global__|__device__|threadIdx|__shfl|__ballot")
LAUNCH_NAMES = re.compile(r"(?i)^(block_?size|block|threads|num_threads|nthreads|threads_per_block|tpb|bs)$")
WARP_NAMES = re.compile(r"(?i)^(num_)?warps(_per_block)?$|^n_?warps$")


def analyze_python(text: str, rocm: tuple[int, int], wave32: bool) -> list[Result]:
    ptoks, complete = pyscan.tokens(text)
    if not complete:
        return []
    masked = [" " if c not in "\r\n" else c for c in text]
    cuda_found = False
    first_content = None
    toks: list[Tok] = []
    for pt in ptoks:
        if pt.type not in (tokenize.STRING, tokenize.NAME, tokenize.NUMBER, tokenize.OP):
            continue
        s, e = pt.start, pt.end
        if pt.type == tokenize.STRING and CUDA_HINT.search(pt.string):
            lit = pyscan.string_literal(pt)
            if lit and "f" not in lit.prefix.lower():
                inner_s, inner_e = lit.body_start, lit.body_end
                masked[inner_s:inner_e] = list(text[inner_s:inner_e])
                cuda_found = True
                if first_content is None:
                    first_content = inner_s
        kind = {tokenize.NAME: ID, tokenize.NUMBER: NUM, tokenize.OP: PUNCT}.get(pt.type)
        if kind is not None:
            toks.append(Tok(kind, pt.string, s, e, -1))
    results: list[Result] = []
    if cuda_found:
        res = analyze_text("".join(masked), rocm, wave32)
        if res.prelude_at == 0 and first_content is not None:
            nl = text.find("\n", first_content)
            res.prelude_at = first_content if nl < 0 else nl + 1
        results.append(res)
    results.append(_launch_math(text, toks))
    return results


def _launch_math(text: str, toks: list[Tok]) -> Result:
    hits: list[Hit] = []
    torch = re.search(r"^\s*(import torch|from torch)", text, re.M) is not None
    cupy = re.search(r"^\s*(import cupy|from cupy)", text, re.M) is not None
    query = ("torch.cuda.get_device_properties(torch.cuda.current_device()).warp_size" if torch else
             "cupy.cuda.Device().attributes['WarpSize']" if cupy else None)
    from ..edits import Edit

    for i, t in enumerate(toks):
        if t.kind != NUM or t.text != "32":
            continue
        prev = toks[i - 1].text if i else ""
        prev2 = toks[i - 2].text if i > 1 else ""
        nxt = toks[i + 1].text if i + 1 < len(toks) else ""
        nxt2 = toks[i + 2].text if i + 2 < len(toks) else ""
        why = None
        if prev == "=" and LAUNCH_NAMES.match(prev2) and nxt not in ("*", "/", "+", "-"):
            why = f"`{prev2} = 32` launches one 32-thread warp per block"
        elif prev == "*" and WARP_NAMES.match(prev2):
            why = f"`{prev2} * 32` counts 32 threads per warp"
        elif nxt == "*" and WARP_NAMES.match(nxt2):
            why = f"`32 * {nxt2}` counts 32 threads per warp"
        if why is None:
            continue
        w = [Edit(t.start, t.end, "64", "W64-11")]
        p = [Edit(t.start, t.end, query, "W64-11")] if query else None
        hits.append(Hit("W64-11", i, w, p, "64 threads per wavefront",
                        "query the device's warp size" if query else "",
                        why + ": on MI-series GPUs a wavefront has 64 lanes, so blocks run half empty (and "
                        "kernels that expect whole warps get half the threads).", f"py:{i}", "medium"))
    return Result([t.start for t in toks], [t.end for t in toks], [], hits, Needs(), prelude_at=-1)
