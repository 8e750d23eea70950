"""Earlier ports among the files of a tree conversion, so `convert --suffix` or `-o` inside the tree does
not port its own outputs again (gemm.hip -> gemm_hip.hip, out/k.cu -> out2/out/k.cu).

A file found in a folder walk is an earlier port when both its name and its content say so:
- by name, it is the sibling output of another file of the walk (outputs.sibling_name: gemm.hip beside
  gemm.cu, util_hip.h beside util.h, matmul_hip.py beside matmul_cuda.py), or a mirror of one (its path
  ends with another file's whole path: hip1/gemm.cu beside gemm.cu);
- by content, the translation changes nothing in it, and a mirror also holds HIP (a hip/ include or a
  hip* call): a plain C++ file is not taken for a port because a folder of the tree repeats its name.
A file named on the command line is never one: naming it asks for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .outputs import sibling_name
from .walk import WalkItem

HIP_MARK = re.compile(rb'#\s*include\s*[<"]hip/|\bhip[A-Z]\w*\s*\(|\bhipLaunchKernelGGL\b')


@dataclass(frozen=True)
class EarlierPort:
    item: WalkItem
    of: str  # the walked file (relative to the same folder) it is the port of


def candidates(items: Sequence[WalkItem]) -> list[EarlierPort]:
    """Files of folder walks named as the port of another file of the same walk."""
    by_root: dict[Any, dict[str, WalkItem]] = {}
    for it in items:
        if it.root is not None:
            by_root.setdefault(it.root, {})[it.rel] = it
    out: list[EarlierPort] = []
    for rels in by_root.values():
        found: dict[str, str] = {}
        for rel in rels:
            head, _, name = rel.rpartition("/")
            sib = (head + "/" if head else "") + sibling_name(name)
            if sib != rel and sib in rels:
                found.setdefault(sib, rel)
        for rel in rels:
            parts = rel.split("/")
            for i in range(1, len(parts)):
                tail = "/".join(parts[i:])
                if tail in rels:
                    found.setdefault(rel, "=" + tail)  # "=": a mirror, which must hold HIP too
                    break
        out += [EarlierPort(rels[rel], of) for rel, of in sorted(found.items())]
    return out


def earlier_ports(items: Sequence[WalkItem], options: Any) -> list[EarlierPort]:
    """The candidates whose content says they are ports (each is translated once to tell)."""
    from .pipeline.files import Job, port_file

    out: list[EarlierPort] = []
    for c in candidates(items):
        mirror = c.of.startswith("=")
        try:
            data = c.item.path.read_bytes()
        except OSError:
            continue
        if mirror and not HIP_MARK.search(data):
            continue
        res = port_file(Job(str(c.item.path), c.item.rel, options, render=False))
        if res.error is None and res.edits == 0:
            out.append(EarlierPort(c.item, c.of.removeprefix("=")))
    return out
