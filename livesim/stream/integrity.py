"""Record integrity: a hash chain over the lines of a record, so an edit after the run is found and located.

`livesim run --record` ends every line with `"h":"<16 hex>"`, the first 16 hex digits of
sha256(previous line's h + the line's text without its h). The header's chain starts from the empty string.
`verify_chain` reads the raw lines back and lists every line whose hash does not match: a changed byte, a
line removed, inserted or moved all break the chain at that line. The chain detects edits, not forgery:
there is no key, so someone who recomputes every hash after editing is not caught (a replay still is; see
`livesim replay`). Records written before the chain existed have no `h` at all and are read as unverified.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

HASH_KEY = "h"
_HEX = 16
_TAIL_RE = re.compile(r',"h":"([0-9a-f]{16})"\}$')


def link(prev: str, text: str) -> str:
    """The hash of a line whose text (without `h`) is `text`, after a line whose hash is `prev`."""
    return hashlib.sha256(f"{prev}\n{text}".encode("utf-8", "replace")).hexdigest()[:_HEX]


class HashChain:
    """Seals record lines in order: `seal(text)` returns the line with its `h` appended."""

    def __init__(self) -> None:
        self.prev = ""

    def seal(self, text: str) -> str:
        """`text` is one JSON object on one line; returns it with `,"h":"..."` before the closing brace."""
        if not (text.startswith("{") and text.endswith("}")):
            raise ValueError("a record line is a JSON object")
        self.prev = link(self.prev, text)
        sep = "" if text == "{}" else ","
        return f'{text[:-1]}{sep}"{HASH_KEY}":"{self.prev}"}}'


def split_hash(raw: str) -> tuple[str, str | None]:
    """(the line's text without its hash, the hash) or (raw, None) when the line carries none."""
    m = _TAIL_RE.search(raw)
    if m is None:
        return raw, None
    return raw[: m.start()] + "}", m.group(1)


@dataclass(frozen=True)
class ChainBreak:
    """A line (1-based) whose hash does not match what was written before it; `why` in words."""

    line: int
    why: str


def verify_chain(lines: list[str]) -> tuple[bool, list[ChainBreak]]:
    """Check the hash chain of a record's raw lines: (whether the record carries a chain, the lines that break it).

    A record with no hash on any line carries no chain (written before it existed): (False, []). One with hashes
    on some lines only is broken where they are missing. After a break the chain restarts from the line's own
    hash, so each edited line is listed once, not every line after it.
    """
    parts = [split_hash(raw) for raw in lines]
    if all(h is None for _, h in parts):
        return False, []
    breaks: list[ChainBreak] = []
    prev = ""
    for n, (text, h) in enumerate(parts, start=1):
        if h is None:
            breaks.append(ChainBreak(n, "the line has no integrity hash (added or rewritten after the run)"))
            continue
        if link(prev, text) != h:
            breaks.append(ChainBreak(n, "the line is not what the run wrote (edited, moved, or a line before it "
                                        "was removed)"))
        prev = h
    return True, breaks
