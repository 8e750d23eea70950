"""Warp-size constants by the roles of their uses (W64-08, roles.py): a constant of this file whose uses are
all the lane width is raised; one with other roles too is split (a new `<NAME>_LANES` constant takes the lane
uses); one with no lane use is left alone. A constant of one of the file's headers has its lane uses here
replaced by the lane width. The uses in the files that include this one count too (project.includer_uses)."""

from __future__ import annotations

from pathlib import Path

from ...edits import Edit
from ..facts import MAX_INCLUDERS, FileFacts
from ..hits import Hit, HitLog
from ..lex import ID
from ..roles import LANE, ROLE_TEXT, UNDERSTOOD, UseRoles
from ..tokens import Tokens
from .interface import CheckOutput, Upstream

IncluderRole = tuple[str, int, str]  # (file, line, role) of a use in a file that includes this one


def check_warp_size_constants(facts: FileFacts, upstream: Upstream) -> CheckOutput:
    log = HitLog(upstream.claimed)
    roles = UseRoles(facts, upstream.function_values)
    _header_constants(facts, log, roles)
    includers = _IncluderRoles(facts)
    for name, lit in facts.warp_size_constants.items():
        if not _host_definition(facts.tokens, lit):  # host definitions are host variables (host_variables.py)
            _file_constant(facts, log, roles, includers, name, lit)
    return CheckOutput(log)


def _host_definition(tokens: Tokens, lit: int) -> bool:
    fi = tokens.function_of[lit]
    return fi >= 0 and not tokens.functions[fi].device


def _uses(tokens: Tokens, name: str, skip_before: tuple[str, ...]) -> list[int]:
    return [k for k in tokens.positions((name,)) if tokens.kinds[k] == ID and tokens.texts[k - 1] not in skip_before]


class _IncluderRoles:
    """Uses of this file's warp-size constants in the project files that include this file, read once when
    first needed, and whether every file that may include it was read (project.includer_uses)."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.found: tuple[tuple[tuple[str, str, int, str], ...], bool] | None = None

    def of(self, name: str) -> tuple[list[IncluderRole], bool]:
        """The uses of `name` other than the lane width (those files change their own lane uses)."""
        facts = self.facts
        project = facts.project
        if not project.path or project.includer_uses is None:
            return [], True
        if self.found is None:
            names = frozenset(n for n, lit in facts.warp_size_constants.items()
                              if not _host_definition(facts.tokens, lit))
            self.found = project.includer_uses(Path(project.path), facts.tokens.text, names, facts.rocm, facts.wave32)
        uses, complete = self.found
        return [(f, ln, r) for n, f, ln, r in uses if n == name and r != LANE], complete


def _file_constant(facts: FileFacts, log: HitLog, roles: UseRoles, includers: _IncluderRoles,
                   name: str, lit: int) -> None:
    """W64-08 for the warp-size constant `name` of this file (its literal at lit): raise, split or leave alone."""
    tokens = facts.tokens
    def_tok = def_token(tokens, name, lit)
    roles_of = [(k, roles.role(k)) for k in _uses(tokens, name, (".", "->", "define")) if k != def_tok]
    lane = [k for k, r in roles_of if r == LANE]
    other = [(k, r) for k, r in roles_of if r != LANE]
    if not lane:
        return
    key = f"w32:{name}"
    for k in lane:
        if tokens.function_of[k] >= 0:
            log.links.append((key, f"fn:{tokens.function_of[k]}"))
        elif tokens.directive[k] >= 0:
            log.links.append((key, f"macro:{tokens.macro_name(k)}"))
    ext, complete = includers.of(name)
    log.needs.ws = True
    if not other and not ext and complete:
        log.add(Hit("W64-08", lit, [tokens.edit(lit, "64", "W64-08")], [tokens.edit(lit, "HIPPORT_WS", "W64-08")],
                    f"{name} = 64", f"{name} = HIPPORT_WS (64 on gfx8/gfx9, 32 elsewhere)",
                    f"Warp-size constant {name} is 32 and every use ({len(lane)}) is the hardware lane width "
                    "(lane ids, warp ids, shuffle loops, per-lane slots): all of them are wrong on a "
                    "64-lane wavefront.", key, uses=lane, use_roles=dict.fromkeys(lane, LANE)))
        return
    # split: a new lane constant takes the lane uses, the original keeps its other roles
    new = f"{name}_LANES"
    while new in tokens.spellings:
        new += "_"
    w64 = [Edit(*def_insert(tokens, lit, new, "64"), "W64-08")] + [tokens.edit(k, new, "W64-08") for k in lane]
    port = [Edit(*def_insert(tokens, lit, new, "HIPPORT_WS"), "W64-08")] + [tokens.edit(k, new, "W64-08") for k in lane]
    first_bad = next(((k, r) for k, r in other if r not in UNDERSTOOD), None)
    ext_bad = next(((f, ln, r) for f, ln, r in ext if r not in UNDERSTOOD), None)
    log.add(Hit("W64-08", lit, w64, port, f"split: {new} = 64 for the {len(lane)} lane uses",
                f"split: {new} = HIPPORT_WS for the {len(lane)} lane uses",
                f"Warp-size constant {name} is 32 and plays more than one role: {len(lane)} of its uses "
                f"are the hardware lane width, {' and '.join(_other_roles(tokens, other, ext, complete, first_bad, ext_bad))}. "
                f"Raising it would break the latter: the fix adds {new} for the lane uses.",
                key, review=_split_review(tokens, name, complete, first_bad, ext_bad),
                uses=lane + [k for k, _ in other], use_roles={**dict.fromkeys(lane, LANE), **dict(other)}),
            claim=[lit, *lane])


def _split_review(tokens: Tokens, name: str, complete: bool, first_bad: tuple[int, str] | None,
                  ext_bad: IncluderRole | None) -> str:
    """Why a split is REVIEW: a use here or in an includer that is not understood, or includers not all read."""
    if first_bad:
        return f"{name} also {ROLE_TEXT[first_bad[1]]} at line {tokens.line(first_bad[0])}"
    if ext_bad:
        return f"{name} also {ROLE_TEXT[ext_bad[2]]} at {ext_bad[0]}:{ext_bad[1]}"
    if not complete:
        return (f"{name} is defined beside more than {MAX_INCLUDERS} project files: its uses in the "
                "files that include it were not all read")
    return ""


def _other_roles(tokens: Tokens, other: list[tuple[int, str]], ext: list[IncluderRole], complete: bool,
                 first_bad: tuple[int, str] | None, ext_bad: IncluderRole | None) -> list[str]:
    """The split message's account of the uses that are not the lane width."""
    parts = []
    if other:
        k0, _r0 = first_bad or other[0]
        parts.append(f"{len(other)} other here ({', '.join(sorted({r for _, r in other}))}, e.g. line "
                     f"{tokens.line(k0)})")
    if ext:
        f0, ln0, _r = ext_bad or ext[0]
        parts.append(f"{len(ext)} in files that include it ({', '.join(sorted({r for _, _, r in ext}))}, "
                     f"e.g. {f0}:{ln0})")
    if not complete:
        parts.append("its uses in files that include it not all read")
    return parts


def _header_constants(facts: FileFacts, log: HitLog, roles: UseRoles) -> None:
    """A warp-size constant defined in one of the file's own headers: its lane uses here take the lane
    width directly (64 / HIPPORT_WS), which agrees with whatever the header's own fix does (raise or
    split); its other uses keep the header's value."""
    tokens = facts.tokens
    for name in sorted(facts.project.w32 - facts.warp_size_constants.keys()):
        roles_of = [(k, roles.role(k)) for k in _uses(tokens, name, (".", "->", "define", "ifdef", "ifndef", "defined"))]
        lane = [k for k, r in roles_of if r == LANE]
        if not lane:
            continue
        other = [(k, r) for k, r in roles_of if r != LANE]
        first_bad = next(((k, r) for k, r in other if r not in UNDERSTOOD), None)
        review = f"{name} also {ROLE_TEXT[first_bad[1]]} at line {tokens.line(first_bad[0])}" if first_bad else ""
        log.needs.ws = True
        key = f"w32:{name}"
        for k in lane:
            if tokens.function_of[k] >= 0:
                log.links.append((key, f"fn:{tokens.function_of[k]}"))
        log.add(Hit("W64-08", lane[0], [tokens.edit(k, "64", "W64-08") for k in lane],
                    [tokens.edit(k, "HIPPORT_WS", "W64-08") for k in lane],
                    f"{name} -> 64 where it is the lane width", f"{name} -> HIPPORT_WS where it is the lane width",
                    f"Warp-size constant {name} (32, from a header of this file) is the hardware lane width in "
                    f"{len(lane)} uses here: on a 64-lane wavefront they need 64.", key, review=review,
                    uses=lane[1:] + [k for k, _ in other],
                    use_roles={**dict.fromkeys(lane, LANE), **dict(other)}), claim=lane)


def def_token(tokens: Tokens, name: str, lit: int) -> int:
    q = lit
    while q > 0 and tokens.texts[q] != name:
        q -= 1
    return q


def def_insert(tokens: Tokens, lit: int, new: str, value: str) -> tuple[int, int, str]:
    """(start, end, text) inserting a definition of `new` = value right after the definition holding lit."""
    text = tokens.text
    if tokens.directive[lit] >= 0:
        end = text.find("\n", tokens.ends[lit])
        end = len(text) if end < 0 else end
        while end > 0 and text[end - 1] == "\\":  # continued directive
            nxt = text.find("\n", end + 1)
            end = len(text) if nxt < 0 else nxt
        return end, end, f"\n#define {new} {value}"
    e = tokens.scan_to(lit, tokens.count, (";",))
    s = tokens.stmt_start(lit, 0)
    words = [tokens.texts[q] for q in range(s, lit)
             if tokens.texts[q] in ("static", "constexpr", "const", "__device__", "__constant__", "inline")]
    quals = " ".join(w for w in words if w != "__constant__") or "const"
    if "constexpr" not in quals and "const" not in quals.split():
        quals = "const " + quals
    if e >= tokens.count or tokens.texts[e] != ";" or tokens.texts[s] == "enum" or "{" in tokens.texts[s:lit]:
        return tokens.ends[lit], tokens.ends[lit], ""
    return tokens.ends[e], tokens.ends[e], f" {quals} int {new} = {value};"
