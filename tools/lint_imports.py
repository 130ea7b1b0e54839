"""Run import-linter over the `livesim` namespace as it is installed.

`envs/`, `agents/` and `hat/` are mapped into `livesim` by `[tool.setuptools.package-dir]`; import-linter
(grimp) finds a package's modules by walking its one directory, so it would not see them. This script stages
the namespace as the install maps it (a copy of the `.py` files in a temporary folder), puts that folder
first on `PYTHONPATH` and runs `lint-imports` with the contracts of `pyproject.toml`. Extra arguments are
passed on (e.g. `--verbose`). `--src DIR` stages another source tree (the contract-failure test uses it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def stage(src: Path, dest: Path) -> Path:
    """Copy the packages of `src` under `dest` as the install maps them; return `dest`."""
    config = tomllib.loads((src / "pyproject.toml").read_text(encoding="utf-8"))
    package_dir: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    for name, folder in sorted(package_dir.items(), key=lambda kv: kv[0].count(".")):
        target = dest.joinpath(*name.split("."))
        shutil.copytree(src / folder, target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=ROOT, help="source tree with a pyproject.toml (default: this one)")
    args, rest = parser.parse_known_args(argv)
    lint = Path(sys.executable).with_name("lint-imports")
    with tempfile.TemporaryDirectory(prefix="livesim-lint-") as tmp:
        stage(args.src.resolve(), Path(tmp))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([tmp, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
        cmd = [str(lint) if lint.exists() else "lint-imports", str(args.src.resolve() / "pyproject.toml"),
               "--no-cache", *rest]
        return subprocess.run(cmd, cwd=tmp, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
