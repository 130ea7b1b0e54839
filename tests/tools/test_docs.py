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
