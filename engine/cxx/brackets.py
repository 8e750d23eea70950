"""Bracket, comma and statement helpers over token spellings: the one copy of each.

They take the list of token spellings (`Tokens.spellings()`, or the warp analysis's token texts).
Comparing spellings is exact without token kinds: a comment, literal or identifier can never be
spelled `(`, `,` or `;`, so only punctuation matches. Index ranges are half-open [a, b).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")": "(", "]": "[", "}": "{"}


def match_brackets(tx: Sequence[str]) -> dict[int, int]:
    """Index of the partner of every (), [], {} token (both directions); each kind is matched on
    its own stack. Unbalanced ones are left out."""
    pairs: dict[int, int] = {}
    stacks: dict[str, list[int]] = {"(": [], "[": [], "{": []}
    for i, x in enumerate(tx):
        if x in stacks:
            stacks[x].append(i)
        elif x in CLOSE:
            st = stacks[CLOSE[x]]
            if st:
                j = st.pop()
                pairs[i] = j
                pairs[j] = i
    return pairs


def _depths(tx: Sequence[str], lo: int, hi: int) -> Iterator[tuple[int, str, int]]:
    """(index, spelling, bracket depth after it) for each token of lo..hi, every kind of bracket counted."""
    depth = 0
    for j in range(lo, hi):
        x = tx[j]
        depth += 1 if x in OPEN else -1 if x in CLOSE else 0
        yield j, x, depth


def closing(tx: Sequence[str], i: int, limit: int, stops: tuple[str, ...] = (";",)) -> int:
    """Index (before `limit`) of the bracket closing the opening one at i, or -1 when a stop token
    comes first directly inside it (a `;` inside `f(` ... means the call was never closed)."""
    for j, x, depth in _depths(tx, i, limit):
        if x in CLOSE:
            if depth == 0:
                return j
        elif x not in OPEN and depth <= 1 and x in stops:
            return -1
    return -1


def matching(spell: Callable[[int], str], start: int, end: int, opener: str, closer: str, step: int = 1) -> int:
    """Index of the `closer` that balances the `opener` at `start`, walking by `step` (-1: backwards, with
    `)` as the opener) up to `end` (not included); `end` when there is none. Counts these two only."""
    depth = 0
    for j in range(start, end, step):
        x = spell(j)
        if x == opener:
            depth += 1
        elif x == closer:
            depth -= 1
            if depth == 0:
                return j
    return end


def split_commas(tx: Sequence[str], lo: int, hi: int) -> list[tuple[int, int]]:
    """Index ranges [a, b) of the comma-separated pieces of lo..hi (commas inside brackets do not
    split). Always at least one piece; empty pieces (a == b) are kept."""
    pieces: list[tuple[int, int]] = []
    a = lo
    for j, x, depth in _depths(tx, lo, hi):
        if depth == 0 and x == ",":
            pieces.append((a, j))
            a = j + 1
    pieces.append((a, hi))
    return pieces


def scan_to(tx: Sequence[str], b: int, hi: int, stops: tuple[str, ...]) -> int:
    """First index from b (before hi) of an unmatched closing bracket or a top-level stop token:
    the end of a statement (stops `;`) or of an assignment expression (stops `;` and `,`)."""
    depth = 0
    while b < hi:
        x = tx[b]
        if x in OPEN:
            depth += 1
        elif x in CLOSE:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and x in stops:
            break
        b += 1
    return b


def angle_open(spell: Callable[[int], str], j: int, lo: int, stops: frozenset[str]) -> int:
    """Index of the `<` opening the template argument list that the `>` (or `>>`) at j closes,
    walking back no further than lo; -1 when a stop token comes first or there is none. `spell(k)`
    is token k's spelling ("" for tokens that cannot be punctuation, e.g. in a comment)."""
    depth = 0
    for k in range(j, lo - 1, -1):
        t = spell(k)
        if t == ">":
            depth += 1
        elif t == ">>":
            depth += 2
        elif t == "<":
            depth -= 1
            if depth == 0:
                return k
        elif t in stops:
            return -1
    return -1


class StatementIndex:
    """The answers of `scan_to`, `split_commas` and the two backward statement walks, in bounded time
    for any token however long its statement.

    The walks above cost the length of the statement they cross; an analysis that asks them for every
    token of a statement (a sum of 8,000 shuffles, 4,000 nested calls) was quadratic in its length.
    Each question is first answered by walking, as before, up to WALK_LIMIT tokens: ordinary code
    stops there and builds nothing. A longer walk is answered from a table built once per token list
    (and per stop tuple), which gives exactly the walk's answer, unbalanced brackets included: the
    walks' depth counting does not look at a bracket's kind, so it is the matching of one stack that
    ignores the kind (`forward_partners`), which is what the tables follow.
    """

    WALK_LIMIT = 256  # tokens walked before the tables are used (and built, the first time)

    def __init__(self, tx: Sequence[str], walk_limit: int | None = None) -> None:
        self.tx = tx
        self.walk_limit = self.WALK_LIMIT if walk_limit is None else walk_limit
        self._forward: dict[int, int] | None = None    # opener -> closer, (), [] and {} alike
        self._back: list[int] | None = None            # stmt_bounds' backward walk from each index
        self._sep: list[int] | None = None             # stmt_start's backward walk from each index
        self._scan: dict[tuple[str, ...], list[int]] = {}  # scan_to's forward walk, per stop tuple

    def forward_partners(self) -> dict[int, int]:
        """Opener index -> the closer where a walk's depth first returns to its level (any kinds)."""
        if self._forward is None:
            partners: dict[int, int] = {}
            stack: list[int] = []
            for i, x in enumerate(self.tx):
                if x in OPEN:
                    stack.append(i)
                elif x in CLOSE and stack:
                    partners[stack.pop()] = i
            self._forward = partners
        return self._forward

    def split_commas(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """split_commas(tx, lo, hi); a long range jumps over each bracketed group at the top level."""
        if hi - lo <= self.walk_limit:
            return split_commas(self.tx, lo, hi)
        tx = self.tx
        partners = self.forward_partners()
        pieces: list[tuple[int, int]] = []
        depth = 0  # only ever below 0 (an unmatched closer), never above: groups are jumped over
        a = lo
        j = lo
        while j < hi:
            x = tx[j]
            if x in OPEN:
                if depth == 0:
                    c = partners.get(j)
                    if c is None or c >= hi:
                        break  # never closed inside the range: no top-level comma after it
                    j = c + 1
                    continue
                depth += 1
            elif x in CLOSE:
                depth -= 1
            elif depth == 0 and x == ",":
                pieces.append((a, j))
                a = j + 1
            j += 1
        pieces.append((a, hi))
        return pieces

    def scan_to(self, b: int, hi: int, stops: tuple[str, ...]) -> int:
        """scan_to(tx, b, hi, stops)."""
        if b >= hi:
            return b
        if hi - b <= self.walk_limit or b < 0 or any(s in OPEN or s in CLOSE for s in stops):
            return scan_to(self.tx, b, hi, stops)
        end = scan_to(self.tx, b, b + self.walk_limit, stops)
        if end < b + self.walk_limit:
            return end  # stopped within the walk
        table = self._scan.get(stops)
        if table is None:
            table = self._scan[stops] = self._scan_table(stops)
        end = table[b]
        return end if end < hi else hi

    def _scan_table(self, stops: tuple[str, ...]) -> list[int]:
        """Where scan_to stops from each index with no upper bound (len(tx) + 1: never)."""
        tx = self.tx
        m = len(tx)
        never = m + 1
        partners = self.forward_partners()
        stop_set = frozenset(stops)
        table = [m] * (m + 1)
        for b in range(m - 1, -1, -1):
            x = tx[b]
            if x in CLOSE or x in stop_set:
                table[b] = b
            elif x in OPEN:
                c = partners.get(b)
                table[b] = table[c + 1] if c is not None else never
            else:
                table[b] = table[b + 1]
        return table

    def stmt_start(self, k: int, lo: int) -> int:
        """Walking back from k (not below lo) to just after a `;`, `{` or `}`."""
        tx = self.tx
        if k - lo <= self.walk_limit or lo < 0 or k >= len(tx):
            s = k
            while s > lo and tx[s - 1] not in (";", "{", "}"):
                s -= 1
            return s
        floor = k - self.walk_limit
        s = k
        while s > floor and tx[s - 1] not in (";", "{", "}"):
            s -= 1
        if s > floor:
            return s  # a separator within the walk
        if self._sep is None:
            sep = [0] * (len(tx) + 1)
            last = 0
            for i, x in enumerate(tx):
                if x == ";" or x == "{" or x == "}":
                    last = i + 1
                sep[i + 1] = last
            self._sep = sep
        s = self._sep[k]
        return s if s > lo else lo

    def expression_start(self, k: int, lo: int) -> int:
        """The start of stmt_bounds: walking back from k (not below lo) over ()/[] groups, to just
        after a top-level `;`, `{`, `}` or an unclosed `(` / `[`."""
        if k <= lo:
            return k
        if k - lo <= self.walk_limit or lo < 0 or k >= len(self.tx):
            return _expression_start_walk(self.tx, k, lo)
        a = _expression_start_walk(self.tx, k, k - self.walk_limit)
        if a > k - self.walk_limit:
            return a  # stopped within the walk (the walk's answer does not depend on a lower bound then)
        if self._back is None:
            self._back = self._back_table()
        s = self._back[k]
        return s if s > lo else lo

    def _back_table(self) -> list[int]:
        """expression_start from each index with lo = 0 (-1: the walk reaches the start)."""
        tx = self.tx
        table = [0] * (len(tx) + 1)
        stack: list[int] = []
        for k in range(1, len(tx) + 1):
            x = tx[k - 1]
            if x == "(" or x == "[":
                stack.append(k - 1)
                table[k] = k
            elif x == ")" or x == "]":
                table[k] = table[stack.pop()] if stack else -1
            elif x == ";" or x == "{" or x == "}":
                table[k] = k
            else:
                table[k] = table[k - 1]
        return table


def _expression_start_walk(tx: Sequence[str], k: int, lo: int) -> int:
    """StatementIndex.expression_start by walking (a walk stopped before lo gives the same answer with
    any lower bound)."""
    a = k
    depth = 0
    while a > lo:
        x = tx[a - 1]
        if x in (")", "]"):
            depth += 1
        elif x in ("(", "["):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and x in (";", "{", "}"):
            break
        a -= 1
    return a
