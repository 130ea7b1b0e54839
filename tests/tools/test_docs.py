"""The user docs hold: README's Python blocks run as pasted, every relative link resolves, guide pages are no log."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
GUIDE = [README, *sorted((ROOT / "docs").glob("*.md"))]  # docs/notes/ are dated logs, not the guide
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
SLOW_SECTIONS = {"Train"}  # the CI-sized training run takes about a minute


def readme_blocks() -> list[tuple[str, str]]:
    """(section heading, code) of every ```python block in README.md."""
    out, section = [], ""
    for m in re.finditer(r"^## ([^\n]+)$|^```python\n(.*?)^```", README.read_text(), re.M | re.S):
        if m.group(1):
            section = m.group(1).strip()
        else:
            out.append((section, m.group(2)))
    return out


def _params() -> list:
    return [pytest.param(code, id=section, marks=[pytest.mark.slow] if section in SLOW_SECTIONS else [])
            for section, code in readme_blocks()]


@pytest.mark.parametrize("code", _params())
def test_readme_python_block_runs_as_pasted(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # blocks write runs/... relative to the working directory
    monkeypatch.setenv("LIVESIM_CACHE", str(tmp_path / "cache"))
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(code, str(README), "exec"), {"__name__": "__readme__"})  # noqa: S102 - our own README
    assert out.getvalue().strip(), "every README block prints what it shows"


def test_readme_has_a_block_for_each_use() -> None:
    sections = {s for s, _ in readme_blocks()}
    assert {"The environment", "Play a scenario, record it, replay it", "The dashboard",
            "Evaluate an agent on the suites", "Train"} <= sections


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in PAGES:
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_guide_pages_are_not_a_log() -> None:
    """History lives in docs/notes/ as dated notes; a guide page names no sessions, stops or issue numbers."""
    pattern = re.compile(r"\bsessions?\b|\bstop \d+|\bissues? \d+|\bissue-\d+", re.I)
    hits = [f"{p.relative_to(ROOT)}:{n}: {line.strip()[:80]}" for p in GUIDE
            for n, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert not hits, "\n".join(hits)


# ---------------------------------------------------------------------------------------------- docs hold the code
def table_keys(page: Path) -> list[str]:
    """What a page's tables are about: the first cell of every row and every cell of a header row (outside code)."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
    lines = [line.strip() for line in text.splitlines()]
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("|") or re.fullmatch(r"[|\-: ]+", line):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        header = i + 1 < len(lines) and re.fullmatch(r"\|[|\-: ]+", lines[i + 1]) is not None
        out.extend(cells if header else cells[:1])
    return out


def _registries() -> list[tuple[str, list[str], str]]:
    """(what, every name the code registers, the page whose tables list them)."""
    from livesim.agents import AGENT_REGISTRY
    from livesim.hat.reproduce import EVAL_PRESETS
    from livesim.hat.suites import ALL_SUITES, GROUPS
    from livesim.hat.train import PRESETS
    from livesim.models.zoo import MODEL_ZOO

    return [("agent", list(AGENT_REGISTRY), "docs/agents.md"),
            ("zoo model", list(MODEL_ZOO), "docs/agents.md"),
            ("training preset", list(PRESETS), "docs/training.md"),
            ("reproduce preset", list(EVAL_PRESETS), "docs/training.md"),
            ("suite", list(ALL_SUITES), "docs/results.md"),
            ("suite group", [g.lower() if g == "ALL" else g.replace("DIMS", "dims") for g in GROUPS], "docs/hsa.md")]


@pytest.mark.parametrize("what,names,page", _registries(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_registered_name_is_in_its_pages_tables(what: str, names: list[str], page: str) -> None:
    keys = table_keys(ROOT / page)
    missing = [n for n in names if not any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", k) for k in keys)]
    assert not missing, f"{what}(s) registered in the code but in no table of {page}: {missing}"


def _parsers() -> list[tuple[str, object]]:
    import argparse

    from livesim.cli.main import build_parser

    out = []

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        out.append((path, p))
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, child in a.choices.items():
                    walk(child, f"{path} {name}")

    walk(build_parser(), "livesim")
    return out


def test_every_help_shows_each_options_default() -> None:
    """Each option that takes a value and is not required shows its default in `--help` (a flag's is "off")."""
    import argparse

    missing = []
    for path, parser in _parsers():
        text = " ".join(parser.format_help().split())  # type: ignore[attr-defined]
        for a in parser._actions:  # type: ignore[attr-defined]
            if not a.option_strings or a.nargs == 0 or a.required or \
                    isinstance(a, (argparse._HelpAction, argparse._VersionAction)):
                continue
            formatter = parser.formatter_class(prog=path)  # type: ignore[attr-defined]
            help_ = formatter._get_help_string(a) or ""
            if "default" not in help_:
                missing.append(f"{path} {a.option_strings[-1]}")
            elif a.default not in (None, "") and "%(default" in help_ and f"(default: {a.default}" not in text:
                missing.append(f"{path} {a.option_strings[-1]} (default {a.default!r} not shown)")
    assert not missing, "\n".join(missing)


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), re.M | re.S)


def unbound_names(code: str) -> list[str]:
    """Names a code block reads but neither imports, assigns, defines nor gets from builtins."""
    import ast
    import builtins

    bound, used = set(dir(builtins)), set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else used).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return sorted(used - bound)


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: p.name)
def test_every_python_block_imports_what_it_uses(page: Path) -> None:
    """A snippet pasted alone runs: every name it uses is imported or defined in it."""
    bad = [f"block {i + 1}: {names}" for i, code in enumerate(python_blocks(page)) if (names := unbound_names(code))]
    assert not bad, f"{page.relative_to(ROOT)}: " + "; ".join(bad)
