r"""The one escaping point between untrusted text and the terminal: what a model replied, what a viewer wrote and
what a file is called reach Rich or stdout only through `visible`.

A terminal obeys escape sequences in what it prints: OSC 52 writes the clipboard, OSC 8 makes links that show one
address and open another, CSI sequences recolour, move the cursor or clear the screen, and bidirectional overrides
make text read differently from what it is. `visible` shows every such character as its Python escape (ESC as
`\x1b`), so the text is seen, not obeyed; with `markup=True` it also escapes Rich markup (`[bold]`, `[link=...]`)
for strings that Rich would otherwise parse (table cells, `Console.print` of a str).
"""

from __future__ import annotations

import re

__all__ = ["visible"]

_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")  # what Rich's markup parser reads as a tag, with the backslashes before
_ESCAPED_OPEN = re.compile(r"(\\+)\[")  # outside a tag Rich reads backslash-bracket as a bracket: one more backslash
_KEEP = frozenset("\n\t\u200c\u200d")  # line breaks and tabs lay text out; the joiners build emoji and scripts


def _char(c: str) -> str:
    return c if c in _KEEP or c.isprintable() else repr(c)[1:-1] if c != "\\" else c


def visible(text: object, *, markup: bool = False) -> str:
    """`text` (str() of it) with control and format characters shown as escapes (C0, DEL, C1 such as the one-byte
    CSI, bidi overrides, line and paragraph separators; newlines and tabs kept); with `markup=True`, Rich markup
    escaped too, for a whole string Rich parses (a table cell), shown to the letter. Idempotent without `markup`.
    """
    s = text if isinstance(text, str) else str(text)
    if not s.isprintable():
        s = "".join(map(_char, s))
    if markup:  # as `rich.markup.escape`, less its doubling of a final backslash (this is a whole string, shown as is)
        s = _markup_escaped(s)
    return s


def _markup_escaped(s: str) -> str:
    """`s` such that Rich's markup parser gives back `s` to the letter: a tag's backslashes doubled and the tag
    escaped; a bracket after backslashes outside a tag given one more (Rich turns backslash-bracket into a bracket).
    """
    def plain(t: str) -> str:
        return _ESCAPED_OPEN.sub(lambda e: e.group(1) + "\\[", t)

    out, pos = [], 0
    for m in _TAG.finditer(s):
        out += [plain(s[pos:m.start()]), f"{m.group(1)}{m.group(1)}\\{m.group(2)}"]
        pos = m.end()
    out.append(plain(s[pos:]))
    return "".join(out)
