"""Fixtures shared by the livesim tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def not_ours(tmp_path: Path) -> list[tuple[str, str]]:
    """Three output paths under `tmp_path` no livesim command may fill: a folder with someone's file in it
    (`mine/precious.txt`, "notes\\n"), a file (`f.txt`, "x\\n") and a link to a folder (`lnk` -> `real`); returns
    (name, what the refusal says) for each.
    """
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "precious.txt").write_text("notes\n")
    (tmp_path / "f.txt").write_text("x\n")
    (tmp_path / "real").mkdir()
    (tmp_path / "lnk").symlink_to("real")
    return [("mine", "other files in it"), ("f.txt", "not a folder"), ("lnk", "symbolic link")]
