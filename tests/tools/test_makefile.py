"""The install targets: `make train` installs the training stack with the pinned CPU torch and runs no tests."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = (ROOT / "Makefile").read_text()


def recipe(target: str) -> list[str]:
    """The recipe lines of a target or a stamp file (`$(VENV)/.train`), with the targets it depends on expanded."""
    m = re.search(rf"^{re.escape(target)}:([^\n]*)\n((?:\t[^\n]*\n)*)", MAKEFILE, re.M)
    assert m, f"no target {target}"
    lines = [x.strip() for x in m.group(2).splitlines()]
    for dep in m.group(1).split():
        if dep.startswith("$(VENV)/.") or dep in ("lint-imports", "typecheck"):
            lines += recipe(dep)
    return lines


def torch_pin() -> str:
    return re.search(r"^TORCH \?= (\S+)$", MAKEFILE, re.M).group(1)


def test_make_train_installs_torch_pinned_with_the_train_extra_and_runs_no_tests():
    lines = recipe("train")
    installs = [x for x in lines if "pip install" in x.replace("$(PIP)", "pip install") and "-e" in x]
    assert len(installs) == 1 and '"$(TORCH)"' in installs[0] and '".[train]"' in installs[0]  # one pip command
    assert not any("pytest" in x or "typecheck" in x or "lint" in x for x in lines)


def test_the_train_extra_pins_torch_as_the_makefile_does():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["train"]
    torch = [r for r in extra if re.match(r"torch\b", r)]
    assert torch == [torch_pin()], "a bare or open-ended torch requirement resolves to the newest (CUDA) build"


def test_make_test_uses_the_same_pinned_install():
    install = [x for x in recipe("test") if '".[train,dev]"' in x]
    assert install and '"$(TORCH)"' in install[0]
