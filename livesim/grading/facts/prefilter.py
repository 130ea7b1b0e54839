"""Exact literal prefilters for the grader's regular expressions.

Most of the grader's patterns look for phrases a reply rarely contains ("money back", "hypoallergenic", "ships to
Tibet"), yet Python's regex engine tries every position of every text, which costs microseconds per pattern and
text. `literals(pattern)` reads the pattern's parse tree and returns strings of which every match must contain
at least one (the literal runs that every path through the pattern consumes); when a text contains none of them,
the pattern cannot match it and is not run. `Prefiltered` wraps a compiled pattern with that check and gives the
same results as the pattern for `search`, `finditer`, `findall` and `sub` (and runs `match` and `fullmatch`, which are
anchored, as they are). `found` (whether it matches) reads an ASCII text's lower case with the pattern's
case-sensitive twin where it has one (`lowercase_twin`), which the engine runs 2-3x faster than folding case.

Case-insensitive patterns are checked on the lower-cased text, and only when the text is ASCII: with `re.I`, a
few non-ASCII letters match ASCII ones (the Kelvin sign matches "k", the long s matches "s"), so a non-ASCII text
is always scanned. A pattern whose requirement cannot be read (lookarounds are ignored, since they consume
nothing; conditionals, back-references and the like give no requirement) is always run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

try:  # the parser behind `re.compile` (private, stable since 3.11); without it no pattern is prefiltered
    from re import _constants as _C  # type: ignore[attr-defined]
    from re import _parser as _P  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other interpreters
    _P = _C = None

_Lits = frozenset[str]


def _score(lits: _Lits) -> tuple[int, int]:
    """Longer required strings are rarer, so a set whose shortest string is longest filters best."""
    return min(len(s) for s in lits), -len(lits)


def _required(seq: Any, ascii_only: bool) -> _Lits | None:
    """Strings one of which every match of the node sequence `seq` contains, or None if none can be named
    (`ascii_only`: only ASCII literals count, for case-insensitive patterns).
    """
    cands: list[_Lits] = []
    run: list[str] = []
    for op, av in seq:
        if op is _C.LITERAL and (av < 128 or not ascii_only):
            run.append(chr(av))
            continue
        if run:
            cands.append(frozenset(["".join(run)]))
            run = []
        req: _Lits | None = None
        if op is _C.SUBPATTERN:
            req = _required(av[-1], ascii_only)
        elif op is _C.ATOMIC_GROUP:
            req = _required(av, ascii_only)
        elif op is _C.BRANCH:
            alts = [_required(alt, ascii_only) for alt in av[1]]
            req = None if any(a is None for a in alts) else frozenset().union(*alts)  # type: ignore[arg-type]
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT) and av[0] >= 1:
            req = _required(av[2], ascii_only)
        if req:
            cands.append(req)
    if run:
        cands.append(frozenset(["".join(run)]))
    return max(cands, key=_score) if cands else None


def _folds(seq: Any) -> bool:
    """Whether any scoped group of the sequence turns case-insensitive matching on."""
    for op, av in seq:
        if op is _C.SUBPATTERN and (av[1] & re.IGNORECASE or _folds(av[-1])):
            return True
        if op is _C.BRANCH and any(_folds(alt) for alt in av[1]):
            return True
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT) and _folds(av[2]):
            return True
        if op is _C.ATOMIC_GROUP and _folds(av):
            return True
    return False


def _anchored(tree: list[Any], flags: int) -> bool:
    r"""Does every match start at the text's start (a leading `^` or `\A`, without re.M)? Then `search` tries one
    position, which costs less than looking for the literals.
    """
    if not tree:
        return False
    op, av = tree[0]
    if op is _C.AT:
        return av is _C.AT_BEGINNING_STRING or (av is _C.AT_BEGINNING and not flags & re.MULTILINE)
    if op is _C.SUBPATTERN:
        return _anchored(list(av[-1]), flags)
    if op is _C.BRANCH:
        return all(_anchored(list(alt), flags) for alt in av[1])
    return False


def literals(pattern: re.Pattern[str]) -> tuple[tuple[str, ...] | None, bool]:
    """(required strings or None, whether to compare case-insensitively) for a compiled str pattern."""
    if _P is None or not isinstance(pattern.pattern, str):
        return None, False
    try:
        tree = list(_P.parse(pattern.pattern, pattern.flags & ~re.UNICODE))
        fold = bool(pattern.flags & re.IGNORECASE) or _folds(tree)
        req = _required(tree, ascii_only=fold)  # with re.I a non-ASCII literal may match an ASCII letter
    except Exception:  # noqa: BLE001 - an unreadable tree only means no prefilter
        return None, False
    if not req or _anchored(tree, pattern.flags):
        return None, False
    lits = {s.lower() for s in req} if fold else set(req)
    # a string that contains another one adds nothing: the shorter one is found wherever it is
    return tuple(sorted(s for s in lits if not any(t != s and t in s for t in lits))), fold


def lowercase_twin(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    r"""The pattern without re.IGNORECASE, which finds a match in the lower case of an ASCII text exactly where the
    pattern finds one in the text (and runs 2-3x faster: the engine folds no case); None where that cannot be
    assured: the pattern must fold case as a whole (the flag, or one leading `(?i)`), name no upper-case letter
    outside an escape (`\W`, `\S`, `\B` keep their meaning on lower-case text), and set no other inline flag.
    """
    src = pattern.pattern
    if not isinstance(src, str) or not pattern.flags & re.IGNORECASE:
        return None
    body = src.removeprefix("(?i)")
    rest = body
    for construct in ("(?:", "(?=", "(?!", "(?<=", "(?<!", "(?P<", "(?P="):
        rest = rest.replace(construct, "")
    if "(?" in rest:
        return None  # a scoped or inline flag
    i = 0
    while i < len(body):
        if body[i] == "\\":
            i += 2
            continue
        if "A" <= body[i] <= "Z":
            return None
        i += 1
    return re.compile(body, pattern.flags & ~re.IGNORECASE)


_LAST: tuple[str, str] = ("", "")  # the last text and its lower case (the grader runs many patterns on one text)


def _lower(text: str) -> str:
    global _LAST
    last = _LAST  # one read of one tuple: a consistent pair even when threads share the module
    if last[0] is text:
        return last[1]
    low = text.lower()
    _LAST = (text, low)
    return low


class Prefiltered:
    """A compiled pattern that is not run on a text containing none of its required literals (same results)."""

    __slots__ = ("_fold", "_needs", "_twin", "flags", "pattern", "rx")

    def __init__(self, rx: re.Pattern[str]) -> None:
        self.rx = rx
        self.pattern = rx.pattern
        self.flags = rx.flags
        self._needs, self._fold = literals(rx)
        self._twin: re.Pattern[str] | None | bool = False  # compiled on first use

    def found(self, text: str) -> bool:
        """`search(text) is not None`, read on an ASCII text's lower case where the pattern has a lower-case twin."""
        if not self.possible(text):
            return False
        twin = self._twin
        if twin is False:
            twin = self._twin = lowercase_twin(self.rx)
        if twin is not None and text.isascii():
            return twin.search(_lower(text)) is not None  # type: ignore[union-attr]
        return self.rx.search(text) is not None

    def possible(self, text: str) -> bool:
        """False only if the pattern cannot match anywhere in `text`."""
        needs = self._needs
        if needs is None:
            return True
        if self._fold:
            if not text.isascii():
                return True
            text = _lower(text)
        for s in needs:
            if s in text:
                return True
        return False

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        needs = self._needs  # `possible`, inlined: the grader calls this a hundred times a reply
        if needs is not None and not (self._fold and not text.isascii()):
            low = _lower(text) if self._fold else text
            for s in needs:
                if s in low:
                    break
            else:
                return None
        return self.rx.search(text, *args)

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        return self.rx.sub(repl, text, count) if self.possible(text) else text

    def match(self, text: str, *args: int) -> re.Match[str] | None:  # anchored: cheap already, not prefiltered
        return self.rx.match(text, *args)

    def fullmatch(self, text: str, *args: int) -> re.Match[str] | None:
        return self.rx.fullmatch(text, *args)

    def finditer(self, text: str, *args: int) -> Iterator[re.Match[str]]:
        return self.rx.finditer(text, *args) if self.possible(text) else iter(())

    def findall(self, text: str, *args: int) -> list[Any]:
        return self.rx.findall(text, *args) if self.possible(text) else []

    def __repr__(self) -> str:
        return f"Prefiltered({self.rx!r}, needs={self._needs!r})"


class AnyOf:
    """Several prefiltered patterns read as one alternation by `found`: each runs only on a text that holds one of
    its own literals, where one long alternation would run wherever any branch's literal is (the branch whose literal
    is most common decides for all).
    """

    __slots__ = ("parts",)

    def __init__(self, *parts: Prefiltered) -> None:
        self.parts = parts

    def found(self, text: str) -> bool:
        return any(p.found(text) for p in self.parts)

    def __repr__(self) -> str:
        return f"AnyOf({len(self.parts)} patterns)"
