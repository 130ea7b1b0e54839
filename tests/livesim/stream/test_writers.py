"""Every file the project writes goes through the path layer (`livesim.stream.paths`): an AST scan of the source
finds each write primitive (open for writing, Path.write_text/write_bytes, json/yaml dumps to a file, savefig,
shutil copies and moves, renames) and fails on one outside the layer that is not in the commented allow-list.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("livesim", "hat", "scripts", "bench", "agents", "envs", "examples", "tools")

LAYER = {"livesim/stream/paths.py"}  # the layer itself: its temporary files, renames and folder swaps
ALLOWED = {
    # (file, primitive): why it is not a user-visible output
    ("tools/lint_imports.py", "shutil.copytree"): "stages the package into a TemporaryDirectory for import-linter",
}

_WRITE_MODES = set("wax+")
_SHUTIL = {"copy", "copy2", "copyfile", "copytree", "move"}  # copyfileobj writes to a file opened elsewhere
_OS = {"rename", "replace", "renames", "link", "symlink"}


def _mode(call: ast.Call, pos: int) -> str | None:
    for kw in call.keywords:
        if kw.arg == "mode" and isinstance(kw.value, ast.Constant):
            return str(kw.value.value)
    if len(call.args) > pos and isinstance(call.args[pos], ast.Constant):
        return str(call.args[pos].value)
    return None


def primitives(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of every write primitive in a module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = None
        if isinstance(f, ast.Name) and f.id == "open":
            mode = _mode(node, 1)
            name = "open" if mode and _WRITE_MODES & set(mode) else None
        elif isinstance(f, ast.Attribute):
            base = f.value.id if isinstance(f.value, ast.Name) else None
            if f.attr == "open" and base not in ("os", "zipfile", "tarfile", "gzip") and base != "zf":
                mode = _mode(node, 0)
                name = "Path.open" if mode and _WRITE_MODES & set(mode) else None
            elif f.attr in ("write_text", "write_bytes") and base != "paths":
                name = f"Path.{f.attr}"
            elif f.attr == "savefig":
                name = "savefig"
            elif base == "json" and f.attr == "dump":
                name = "json.dump"
            elif base == "yaml" and f.attr in ("dump", "safe_dump") and len(node.args) > 1:
                name = f"yaml.{f.attr}"
            elif base == "shutil" and f.attr in _SHUTIL:
                name = f"shutil.{f.attr}"
            elif base == "os" and f.attr in _OS:
                name = f"os.{f.attr}"
            elif base != "os" and f.attr in ("rename", "replace", "symlink_to", "hardlink_to") \
                    and len(node.args) == 1 and not node.keywords:  # Path.replace(target); str.replace takes two
                name = f"Path.{f.attr}"
        if name is not None:
            found.append((node.lineno, name))
    return found


def sources() -> list[Path]:
    return sorted(p for d in SCANNED for p in (ROOT / d).rglob("*.py"))


def bypasses() -> list[str]:
    out = []
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel in LAYER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        out += [f"{rel}:{line}: {name}" for line, name in primitives(tree) if (rel, name) not in ALLOWED]
    return out


def test_every_writer_goes_through_the_path_layer() -> None:
    assert bypasses() == []


def test_the_allow_list_names_writes_that_exist() -> None:
    present = set()
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        present |= {(rel, name) for _, name in primitives(ast.parse(path.read_text(encoding="utf-8")))}
    assert set(ALLOWED) <= present


@pytest.mark.parametrize("code, name", [
    ("open(p, 'w')", "open"), ("open(p, mode='ab')", "open"), ("open(p, 'x', encoding='utf-8')", "open"),
    ("open(p, 'r+')", "open"), ("p.open('w')", "Path.open"), ("Path(p).write_text(s)", "Path.write_text"),
    ("(d / 'x').write_bytes(b)", "Path.write_bytes"), ("fig.savefig(p)", "savefig"),
    ("json.dump(obj, fh)", "json.dump"), ("yaml.safe_dump(obj, fh)", "yaml.safe_dump"),
    ("shutil.move(a, b)", "shutil.move"), ("shutil.copytree(a, b)", "shutil.copytree"),
    ("os.replace(a, b)", "os.replace"), ("os.rename(a, b)", "os.rename"), ("tmp.replace(target)", "Path.replace"),
    ("tmp.rename(target)", "Path.rename"),
])
def test_the_scan_finds_each_kind_of_write(code: str, name: str) -> None:
    assert [n for _, n in primitives(ast.parse(code))] == [name]


@pytest.mark.parametrize("code", ["open(p)", "open(p, 'r')", "open(p, 'rb')", "s.replace('a', 'b')",
                                  "p.read_text()", "json.dumps(x)", "yaml.safe_dump(x)", "os.open(p, flags)",
                                  "write_text(p, s)"])
def test_the_scan_leaves_reads_and_layer_calls_alone(code: str) -> None:
    assert primitives(ast.parse(code)) == []
