"""The layer contract can fail: an upward import in a copy of the tree breaks it; the real tree keeps it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "lint_imports.py"

pytestmark = pytest.mark.skipif(shutil.which("lint-imports", path=str(Path(sys.executable).parent)) is None,
                                reason="import-linter is not installed (dev extra)")


def _copy_tree(dest: Path) -> Path:
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    for folder in ("livesim", "envs", "agents", "hat"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _lint(src: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--src", str(src)], capture_output=True, text=True,
                          timeout=120)


def test_the_tree_keeps_the_contracts() -> None:
    out = _lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 kept, 0 broken" in out.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("livesim/world/catalog.py", "import livesim.envs.spaces  # upward: world -> envs", "livesim layers"),
    ("agents/simple.py", "import livesim.envs.rollout  # sideways: agents -> envs", "livesim layers"),
    ("livesim/harness/tools.py", "import gymnasium  # the core imports no gymnasium", "no gymnasium"),
    ("livesim/grading/world.py", "import livesim.grading.reading  # the world reads no reply", "grading pipeline"),
    ("livesim/grading/closed.py", "import livesim.grading.accuracy  # a check calls its caller", "grading pipeline"),
    ("livesim/grading/reading.py", "import livesim.grading.answers  # the reading asks no answer", "grading pipeline"),
])
def test_a_forbidden_import_breaks_a_contract(tmp_path: Path, module: str, line: str, contract: str) -> None:
    src = _copy_tree(tmp_path)
    path = src / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    out = _lint(src)
    assert out.returncode != 0
    broken = [x for x in out.stdout.splitlines() if x.endswith("BROKEN")]
    assert any(contract in x for x in broken), out.stdout
    importer = ".".join(Path(module).with_suffix("").parts).replace("agents.", "livesim.agents.", 1)
    assert importer in out.stdout, out.stdout  # the report names the offending module
