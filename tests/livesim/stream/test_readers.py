"""Every file livesim reads goes through the bounded reader (`livesim.stream.paths.read_bytes`/`read_text`): a FIFO
or device is refused at once and a size is bounded. An AST scan of `livesim/` and `hat/` finds each raw read
(`Path.read_text/read_bytes`, `open` or `Path.open` for reading, `json.load`) and fails on one outside the layer
that is not in the commented allow-list.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("livesim", "hat")
LAYER = {"livesim/stream/paths.py"}
ALLOWED = {
    # (file, primitive): why the read is bounded or not of a path a user names
    ("hat/evaluate.py", "Path.read_bytes"): "hashes files checked with is_file() and a 4 MiB size test (larger ones "
                                            "are sampled), and the source file of a class",
    ("hat/evaluate.py", "Path.open"): "samples 3 MiB of a large model file that is_file() accepted",
    ("livesim/models/zoo.py", "Path.read_text"): "the chat template shipped inside the installed trl package",
    ("livesim/models/zoo.py", "open"): "hashes a file livesim downloaded into its cache, in 1 MiB blocks",
}


def reads(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = None
        mode = next((kw.value.value for kw in node.keywords if kw.arg == "mode" and isinstance(kw.value, ast.Constant)),
                    None)
        if isinstance(f, ast.Name) and f.id == "open":
            mode = mode or (node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
                            else "r")
            name = "open" if not set(str(mode)) & set("wax+") else None
        elif isinstance(f, ast.Attribute):
            base = f.value.id if isinstance(f.value, ast.Name) else None
            if f.attr in ("read_text", "read_bytes") and base != "paths":
                name = f"Path.{f.attr}"
            elif f.attr == "open" and base not in ("os", "zipfile", "tarfile", "gzip", "zf", "fs"):
                mode = mode or (node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else "r")
                name = "Path.open" if not set(str(mode)) & set("wax+") else None
            elif base == "json" and f.attr == "load":
                name = "json.load"
        if name is not None:
            found.append((node.lineno, name))
    return found


def _sources() -> list[Path]:
    return sorted(p for d in SCANNED for p in (ROOT / d).rglob("*.py"))


def test_every_read_goes_through_the_bounded_reader() -> None:
    raw = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel not in LAYER:
            raw += [f"{rel}:{line}: {name}" for line, name in reads(ast.parse(path.read_text(encoding="utf-8")))
                    if (rel, name) not in ALLOWED]
    assert raw == []


@pytest.mark.parametrize("code, name", [
    ("open(p)", "open"), ("open(p, 'rb')", "open"), ("p.read_text()", "Path.read_text"),
    ("Path(p).read_bytes()", "Path.read_bytes"), ("p.open()", "Path.open"), ("json.load(fh)", "json.load"),
])
def test_the_scan_finds_each_kind_of_read(code: str, name: str) -> None:
    assert [n for _, n in reads(ast.parse(code))] == [name]


@pytest.mark.parametrize("code", ["read_text(p)", "paths.read_bytes(p)", "json.loads(s)", "open(p, 'w')",
                                  "os.open(p, flags)"])
def test_the_scan_leaves_layer_calls_and_writes_alone(code: str) -> None:
    assert reads(ast.parse(code)) == []
