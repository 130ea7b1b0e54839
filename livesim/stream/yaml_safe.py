"""Bounded YAML and bounded data files: nothing a file says can make loading it take unbounded time or memory.

`BoundedLoader` is PyYAML's `SafeLoader` (no tags that build objects) that counts, while it composes, how many
nodes the document has once every alias is expanded and how deeply it nests. A billion-laughs alias bomb is
refused at the first alias level that passes `MAX_NODES`, a recursive anchor (an alias inside the node it names)
and flow sequences nested thousands deep are refused with the line, all in milliseconds, before anything
walks the tree. `read_text_file` reads a regular file of bounded size as UTF-8 and says in one line what is
wrong otherwise (a directory, a device, too large, not UTF-8). `non_finite` finds NaN and infinities in
loaded data, which no field of a scenario or record may hold.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent

from livesim.parsing.safety import lone_surrogate
from livesim.stream.paths import MAX_FILE_BYTES, PathProblem, read_text

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_NODES", "BoundedLoader", "FileProblem", "compose_bounded",
           "lone_surrogate", "non_finite", "read_text_file"]

MAX_NODES = 200_000
"""Most nodes a document may have with its aliases expanded (the largest bundled scenario has about 2,000)."""
SCALAR_CHARS = 64
"""A scalar counts as one node per this many characters, so aliases of one long string are bounded too."""
MAX_DEPTH = 64
"""Deepest nesting of a document (a scenario needs about 8)."""


MAX_INT_DIGITS = 100
"""Most digits an integer scalar may have (a seed needs 19); more is refused, never converted."""

_INT = re.compile(r"""^(?:[-+]?0b[0-1_]+
                    |[-+]?0[0-7_]+
                    |[-+]?(?:0|[1-9][0-9_]*)
                    |[-+]?0x[0-9a-fA-F_]+)$""", re.X)  # YAML 1.1's ints without base 60 (`1:0:0` is a string)
_FLOAT = re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                    |[-+]?\.(?:inf|Inf|INF)
                    |\.(?:nan|NaN|NAN))$""", re.X)  # and floats without base 60
_INT_TAG, _FLOAT_TAG = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"


class _BoundedScalars:
    """Scalars resolved and built with bounded work: no base-60 numbers (quadratic to convert, and YAML 1.2 reads
    them as strings), integers of at most `MAX_INT_DIGITS` digits.
    """

    yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT_TAG, _FLOAT_TAG)]
        for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
    }
    for _first in "-+0123456789":
        yaml_implicit_resolvers[_first] = [*yaml_implicit_resolvers.get(_first, []), (_INT_TAG, _INT)]
    for _first in "-+0123456789.":
        yaml_implicit_resolvers[_first] = [*yaml_implicit_resolvers.get(_first, []), (_FLOAT_TAG, _FLOAT)]

    def construct_yaml_int(self, node: Any) -> int:
        value = str(node.value)
        if ":" in value:
            raise ConstructorError(None, None, f"the integer {value[:20]!r} is in base 60, which is not read",
                                   node.start_mark)
        digits = sum(c.isalnum() for c in value) - (2 if value.lstrip("+-")[:2].lower() in ("0x", "0b") else 0)
        if digits > MAX_INT_DIGITS:
            raise ConstructorError(None, None, f"an integer of {digits} digits; at most {MAX_INT_DIGITS} are read",
                                   node.start_mark)
        return yaml.constructor.SafeConstructor.construct_yaml_int(self, node)  # type: ignore[arg-type]

    def construct_yaml_float(self, node: Any) -> float:
        if ":" in str(node.value):
            raise ConstructorError(None, None, f"the number {str(node.value)[:20]!r} is in base 60, which is not "
                                               "read", node.start_mark)
        return yaml.constructor.SafeConstructor.construct_yaml_float(self, node)  # type: ignore[arg-type]


def _with_bounded_scalars(cls: Any) -> Any:
    cls.add_constructor(_INT_TAG, _BoundedScalars.construct_yaml_int)
    cls.add_constructor(_FLOAT_TAG, _BoundedScalars.construct_yaml_float)
    return cls


class BoundedLoader(_BoundedScalars, yaml.SafeLoader):
    """`yaml.SafeLoader` with alias expansion and depth bounded while composing (see the module doc)."""

    max_nodes = MAX_NODES
    max_depth = MAX_DEPTH

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._size: dict[int, int] = {}  # id(node) -> its size with aliases expanded, once composed

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        node: Any
        if self.check_event(AliasEvent):
            node = super().compose_node(parent, index)
            if id(node) not in self._size:  # the alias names a node that is still being composed: a cycle
                raise ComposerError(None, None, f"the alias *{event.anchor} refers to a node that contains it "
                                                "(a recursive anchor)", event.start_mark)
            return node
        self._depth += 1
        try:
            if self._depth > self.max_depth:
                raise ComposerError(None, None, f"nested more than {self.max_depth} levels deep", event.start_mark)
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, yaml.MappingNode):
            size = 1 + sum(self._size[id(k)] + self._size[id(v)] for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            size = 1 + sum(self._size[id(v)] for v in node.value)
        else:  # a long scalar weighs as much as the short ones its length would hold
            size = 1 + len(node.value) // SCALAR_CHARS
        if size > self.max_nodes:
            raise ComposerError(None, None, f"the document has more than {self.max_nodes} values once its aliases "
                                            "are expanded (an alias bomb?)", node.start_mark)
        self._size[id(node)] = size
        return node


_with_bounded_scalars(BoundedLoader)


if getattr(yaml, "__with_libyaml__", False):
    class _CLoader(_BoundedScalars, yaml.CSafeLoader):  # type: ignore[misc,name-defined]
        """libyaml's `CSafeLoader` with the scalars of `_BoundedScalars`."""

    _with_bounded_scalars(_CLoader)


def _error(message: str, mark: Any) -> ComposerError:
    return ComposerError(None, None, message, mark)


def _check_events(text: str) -> None:
    """The bounds of `BoundedLoader`, checked over libyaml's parse events (C speed, no node tree built)."""
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = [[0, None]]  # [size so far, anchor] of each open collection; the root frame
    for ev in yaml.parse(text, Loader=yaml.CSafeLoader):  # type: ignore[attr-defined]
        if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            if len(stack) > MAX_DEPTH:
                raise _error(f"nested more than {MAX_DEPTH} levels deep", ev.start_mark)
            stack.append([1, ev.anchor])
            continue
        if isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            size, anchor = stack.pop()
        elif isinstance(ev, yaml.ScalarEvent):
            size, anchor = 1 + len(ev.value) // SCALAR_CHARS, ev.anchor
        elif isinstance(ev, yaml.AliasEvent):
            if ev.anchor not in sizes:
                open_anchors = {a for _, a in stack}
                why = ("refers to a node that contains it (a recursive anchor)" if ev.anchor in open_anchors
                       else "is not defined")
                raise _error(f"the alias *{ev.anchor} {why}", ev.start_mark)
            size, anchor = sizes[ev.anchor], None
        elif isinstance(ev, yaml.DocumentStartEvent):
            sizes.clear()  # anchors do not cross documents
            continue
        else:
            continue
        if size > MAX_NODES or stack[-1][0] + size > MAX_NODES:
            raise _error(f"the document has more than {MAX_NODES} values once its aliases are expanded "
                         "(an alias bomb?)", ev.start_mark)
        if anchor is not None:
            sizes[anchor] = size
        stack[-1][0] += size


def compose_bounded(text: str) -> tuple[yaml.Node | None, Any]:
    """Compose and construct one YAML document within the bounds: (node tree, data). Raises yaml.YAMLError.

    With libyaml (PyYAML's C extension) the bounds are checked over its parse events and the document composed
    by `CSafeLoader`, both at C speed; without it, by `BoundedLoader` in Python.
    """
    if getattr(yaml, "__with_libyaml__", False):
        _check_events(text)
        loader: Any = _CLoader(text)
    else:  # pragma: no cover - PyYAML without libyaml
        loader = BoundedLoader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
        return node, data
    finally:
        loader.dispose()


def non_finite(data: Any, path: tuple[str | int, ...] = ()) -> tuple[tuple[str | int, ...], float] | None:
    """The first NaN or infinite float in `data` (dicts and lists of bounded depth), with its path, or None."""
    if isinstance(data, float):
        return None if math.isfinite(data) else (path, data)
    if isinstance(data, dict):
        for k, v in data.items():
            if (hit := non_finite(v, (*path, str(k)))) is not None:
                return hit
    elif isinstance(data, list):
        for i, v in enumerate(data):
            if (hit := non_finite(v, (*path, i))) is not None:
                return hit
    return None


FileProblem = PathProblem
"""A file that cannot be read as a data file; the message is one line."""


def read_text_file(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> str:
    """Read a regular file of at most `max_bytes` as UTF-8 (`livesim.stream.paths.read_text`); `FileProblem`
    (one line) otherwise. `FileNotFoundError` is raised as is, so callers can say what they look for.
    """
    return read_text(path, max_bytes)
