"""One message, one line: what a printed message shows of text that holds control characters.

A file may be named `new\\nline.cu`; printed as it is, its one-line error became two lines, which split
`file: message` parsing (editors, CI) and the one-line refusals hipport promises. Every line the CLI
prints about a file goes through `one_line`; JSON and SARIF escape by themselves.
"""

from __future__ import annotations

import re

# C0 controls but the tab, DEL, and the code points str.splitlines() also breaks at
_BREAKING = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def one_line(text: str) -> str:
    """`text` with every character that would break the line escaped (`\\n`, `\\r`, `\\x1b`, `\\u2028`)."""
    return _BREAKING.sub(_escape, text)
