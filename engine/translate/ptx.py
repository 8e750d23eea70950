"""Inline PTX that has an exact HIP counterpart (data: mapping/ptx.tsv).

An `asm [volatile] ("template" : outputs : inputs : clobbers)` statement whose template is one
instruction of the table becomes the table's C++ statement, each `%N` replaced by the operand
expression of the statement (outputs first, then inputs, as GCC numbers them). An empty template
(`asm volatile("" ::: "memory")`, a compiler barrier) means the same to hip-clang and is left alone.
Anything else stays reported (`why_not` says what), with file:line.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..cxx.lexer import LITERAL, Tokens

ASM_KEYWORDS = frozenset({"asm", "__asm__", "__asm"})  # the words that start an asm statement
_QUALIFIERS = frozenset({"volatile", "__volatile__", "goto", "inline"})

# the words of an opcode that the expressions name: {type}, {order}, {scope}
VOCABULARY = {
    "type": {"u8": "unsigned char", "s8": "signed char", "b8": "unsigned char", "u16": "unsigned short",
             "s16": "short", "b16": "unsigned short", "u32": "unsigned int", "s32": "int", "b32": "unsigned int",
             "u64": "unsigned long long", "s64": "long long", "b64": "unsigned long long"},
    "order": {"acquire": "__ATOMIC_ACQUIRE", "release": "__ATOMIC_RELEASE", "relaxed": "__ATOMIC_RELAXED"},
    "scope": {"sys": "__HIP_MEMORY_SCOPE_SYSTEM", "gpu": "__HIP_MEMORY_SCOPE_AGENT",
              "cta": "__HIP_MEMORY_SCOPE_WORKGROUP"},
}


@dataclass(frozen=True, slots=True)
class Instruction:
    opcode: re.Pattern[str]
    operands: str
    expr: str
    helper: str
    note: str


@functools.cache
def table() -> tuple[Instruction, ...]:
    from ..mapping import _read_tsv

    return tuple(Instruction(re.compile(r["opcode"] + r"$"), r["operands"], r["expr"], r["helper"], r["note"])
                 for r in _read_tsv("ptx.tsv"))


@dataclass(frozen=True, slots=True)
class Rewrite:
    start: int         # str offset of `asm`
    end: int           # just after the statement's `)`
    text: str          # the C++ that replaces it
    helper: str        # "" or the shim the text calls ("ptx")
    instruction: str   # the PTX instruction, for the report


EMPTY = "empty"  # a compiler barrier: nothing to do


def _literal_text(spelling: str) -> str | None:
    """The characters of a plain string literal (escapes \\n \\t \\" \\\\ read), None for others."""
    if not (spelling.startswith('"') and spelling.endswith('"')):
        return None
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), spelling[1:-1])


def rewrite(toks: Tokens, i: int) -> Rewrite | str:
    """For the asm statement at token `i`: its rewrite, EMPTY, or why there is none (one line)."""
    sp = toks.spelling
    n = len(toks)
    j = i + 1
    while j < n and sp(j) in _QUALIFIERS:
        j += 1
    if j >= n or sp(j) != "(":
        return "not an asm statement"
    body = _sections(toks, j)
    if body is None:
        return "unbalanced asm statement"
    sections, close = body
    template = _template(toks, sections[0])
    if template is None:
        return "the template is not a plain string literal"
    if not template:
        return EMPTY
    instructions = [x.strip() for x in template.split(";") if x.strip()]
    if len(instructions) != 1 or template.startswith("{"):
        return "a block of PTX instructions (hipport translates single instructions)"
    ins = instructions[0]
    opcode, _, operand_text = ins.partition(" ")
    if "%laneid" in ins or "%lanemask" in ins:
        return "lane registers (%laneid, %lanemask_*) are the logical-warp fixes' (hipport convert --fixes)"
    row = next((r for r in table() if r.opcode.match(opcode)), None)
    if row is None:
        return f"`{opcode}` has no exact HIP builtin"
    operands = _operands(toks, sections[1:3])
    if operands is None:
        return "an operand hipport cannot read"
    binding = _bind(row.operands, operand_text.strip(), operands)
    if binding is None:
        return f"`{ins}`: operands of another form than `{row.operands}`"
    expr, missing = _expression(row, opcode, binding)
    if missing:
        return f"`{opcode}`: no {missing} in the opcode"
    return Rewrite(toks.starts[i], toks.ends[close], expr, row.helper, ins)


def _sections(toks: Tokens, j: int) -> tuple[list[list[int]], int] | None:
    """The parenthesised body opening at token j, split at top-level colons (`::` is two) into token
    lists (template, outputs, inputs, clobbers), and the token of its `)`; None when unbalanced."""
    sp = toks.spelling
    n = len(toks)
    depth, k = 0, j
    sections: list[list[int]] = [[]]
    while k < n:
        s = sp(k)
        if s in ("(", "[", "{"):
            depth += 1
            if depth == 1:
                k += 1
                continue
        elif s in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and s in (":", "::"):
            sections += [[] for _ in s]
        else:
            sections[-1].append(k)
        k += 1
    return (sections, k) if k < n else None


def _template(toks: Tokens, tokens: list[int]) -> str | None:
    """The instruction template (its string literals joined, stripped); None when it is not plain literals."""
    parts = [_literal_text(toks.spelling(t)) if toks.kinds[t] == LITERAL else None for t in tokens]
    if not parts or any(p is None for p in parts):
        return None
    return "".join(p for p in parts if p is not None).strip()


def _expression(row: Instruction, opcode: str, binding: dict[str, str]) -> tuple[str, str]:
    """(the row's C++ expression for this opcode and operands, ""), or ("", the VOCABULARY key the
    expression names and the opcode lacks)."""
    m = row.opcode.match(opcode)
    assert m is not None
    expr = row.expr
    for key, words in VOCABULARY.items():
        if "{" + key + "}" in expr:
            word = next((g for g in m.groups() if g in words), None)
            if word is None:
                return "", key
            expr = expr.replace("{" + key + "}", words[word])
    return re.sub(r"\$([a-e])", lambda mm: binding[mm.group(1)], expr), ""


def _operands(toks: Tokens, sections: list[list[int]]) -> list[str] | None:
    """The C++ expressions of the output and input operands, in %N order (`"=r"(x)` -> `x`)."""
    out: list[str] = []
    sp = toks.spelling
    for sec in sections:
        k = 0
        while k < len(sec):
            t = sec[k]
            if sp(t) == ",":
                k += 1
                continue
            if toks.kinds[t] != LITERAL or k + 1 >= len(sec) or sp(sec[k + 1]) != "(":
                return None
            # the expression runs to the matching ')'
            depth, m = 0, k + 1
            while m < len(sec):
                s = sp(sec[m])
                depth += {"(": 1, ")": -1}.get(s, 0)
                if depth == 0:
                    break
                m += 1
            if m >= len(sec):
                return None
            out.append(toks.text[toks.ends[sec[k + 1]]:toks.starts[sec[m]]].strip())
            k = m + 1
    return out


def _bind(pattern: str, text: str, operands: list[str]) -> dict[str, str] | None:
    """Match the instruction's operand text against the row's pattern; each $x binds to an operand
    expression (from %N) or an immediate, parenthesised."""
    rx = re.escape(pattern)
    names = re.findall(r"\\\$([a-e])", rx)
    rx = re.sub(r"\\\$([a-e])", r"(%\\d+|-?(?:0[xX][0-9a-fA-F]+|\\d+))", rx).replace(r"\ ", r"\s*")
    rx = rx.replace(",", r"\s*,\s*")
    m = re.fullmatch(rx, text)
    if m is None:
        return None
    out: dict[str, str] = {}
    for name, val in zip(names, m.groups(), strict=True):
        if val.startswith("%"):
            k = int(val[1:])
            if k >= len(operands):
                return None
            out[name] = f"({operands[k]})"
        else:
            out[name] = val
    return out
