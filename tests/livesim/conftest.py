"""Fixtures shared by the livesim tests."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


class _FullDisk:
    """A file whose disk takes `room` bytes, then answers ENOSPC (what `write` does on a full disk)."""

    def __init__(self, f: Any, room: int) -> None:
        self.f, self.room = f, room

    def write(self, data: Any) -> Any:
        if len(data) > self.room:
            self.f.write(data[: self.room])
            self.room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return self.f.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.f, name)


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """`full_disk(room)`: from then on, every file the path layer writes whole is on a disk with `room` bytes free."""
    from livesim.stream import paths

    def fill(room: int) -> None:
        real = os.fdopen
        monkeypatch.setattr(paths.os, "fdopen", lambda fd, *a, **kw: _FullDisk(real(fd, *a, **kw), room))

    return fill


def session_pids(sid: int) -> list[int]:
    """Live (not zombie) processes of session `sid` (Linux /proc)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z" and int(fields[3]) == sid:
            out.append(int(d))
    return out


@pytest.fixture
def session() -> Callable[[int], list[int]]:
    """`session(sid)`: the live processes of a session, to find what a killed parent left."""
    return session_pids
