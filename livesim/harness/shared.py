"""The harness pieces a stream shares instead of rebuilding: the default harness and tool schemas.

A `LiveStreamQA` request builds a whole stream, so what does not change between streams is built once per
process: the canonical default harness and its fingerprint, its tool schemas and its prompt blocks. Shared objects are
read-only by contract: the simulator never edits a harness in place (patches return a new one, HSA transforms
edit a clone), and callers change a stream's harness with `StreamSim.set_harness`, never by editing
`sim.harness`.
"""

from __future__ import annotations

import pickle
from typing import Any

from livesim.harness.core import Harness, default_harness
from livesim.harness.prompt import harness_blocks

_DEFAULT: tuple[Harness, str] | None = None
_SCHEMAS: dict[int, tuple[Harness, bytes]] = {}
_BLOCKS: dict[int, tuple[Harness, dict[str, Any]]] = {}


def shared_default_harness() -> tuple[Harness, str]:
    """The canonical default harness and its fingerprint, built once per process. Never edit it in place."""
    global _DEFAULT
    if _DEFAULT is None:
        h = default_harness()
        _DEFAULT = (h, h.fingerprint)
    return _DEFAULT


def pickled_schemas(harness: Harness, shared: bool) -> bytes:
    """`harness.tool_schemas()`, pickled (an observation unpickles a fresh copy). A `shared` harness (one that
    is never edited, such as the shared default) keeps its schemas for the life of the process.
    """
    if shared:
        hit = _SCHEMAS.get(id(harness))
        if hit is not None and hit[0] is harness:
            return hit[1]
    data = pickle.dumps(harness.tool_schemas(), protocol=pickle.HIGHEST_PROTOCOL)
    if shared:
        _SCHEMAS[id(harness)] = (harness, data)  # holds the harness, so the id is never reused
    return data


def shared_blocks(harness: Harness, shared: bool) -> dict[str, Any]:
    """`harness_blocks(harness)`; a `shared` harness keeps them for the life of the process (read-only)."""
    if shared:
        hit = _BLOCKS.get(id(harness))
        if hit is not None and hit[0] is harness:
            return hit[1]
    blocks = harness_blocks(harness)
    if shared:
        _BLOCKS[id(harness)] = (harness, blocks)
    return blocks
