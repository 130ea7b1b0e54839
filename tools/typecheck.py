"""Run mypy over the `livesim` namespace as it is installed (the packages only, not tests or bench).

mypy maps module names to folders, so it cannot see `envs/`, `agents/` and `hat/` as `livesim.envs` and so
on; like `tools/lint_imports.py`, this stages the namespace in a temporary folder, runs mypy there with the
`[tool.mypy]` config of `pyproject.toml`, and rewrites the reported paths back to the source tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from lint_imports import ROOT, stage


def main(argv: list[str] | None = None) -> int:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_dir: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    with tempfile.TemporaryDirectory(prefix="livesim-mypy-") as tmp:
        stage(ROOT, Path(tmp))
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",
               str(ROOT / ".mypy_cache"), "-p", "livesim",
               *(argv if argv is not None else sys.argv[1:])]
        out = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True,
                             env={**os.environ, "MYPYPATH": tmp, "PYTHONPATH": tmp})
        text = out.stdout + out.stderr
        # staged path -> source path, longest (most nested) first: livesim/envs/ -> envs/
        for name, folder in sorted(package_dir.items(), key=lambda kv: -kv[0].count(".")):
            staged = "/".join(name.split(".")) + "/"
            text = text.replace(staged, folder.rstrip("/") + "/" if folder != name else staged)
        print(text, end="")
        return out.returncode


if __name__ == "__main__":
    sys.exit(main())
