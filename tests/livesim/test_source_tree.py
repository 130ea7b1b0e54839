"""`python -m livesim.cli` in the repository root with livesim installed as a wheel: the source folder shadows the
installed package, and `livesim.envs` / `.agents` / `.hat` must still resolve (to the folders beside it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium

ROOT = Path(__file__).resolve().parents[2]


def test_source_tree_resolves_the_mapped_packages_without_an_editable_finder():
    # -S: no site processing, so no editable-install finder; only the dependencies' folder and the source root
    deps = str(Path(gymnasium.__file__).resolve().parents[1])
    code = ("import livesim, livesim.envs, livesim.agents, livesim.hat.collect, livesim.cli.main as m; "
            "print(livesim.envs.__file__); print(livesim.hat.collect.__file__)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": deps}
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.split()
    assert lines[0] == str(ROOT / "envs" / "__init__.py") and lines[1] == str(ROOT / "hat" / "collect.py")
