"""The path layer (`livesim.stream.paths`): bounded reads, outputs that replace only what was asked, atomic folders."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from livesim.stream import paths
from livesim.stream.paths import (
    PathProblem,
    check_output_dir,
    check_output_file,
    open_output,
    publish_dir,
    read_bytes,
    read_text,
    shown,
    write_text,
)


def _publish(out: Path, files: dict[str, str]) -> None:
    with publish_dir(out, kind="test output") as tmp:
        for name, text in files.items():
            (tmp / name).write_text(text)


# --- reads ---------------------------------------------------------------------------------------------------
def test_reads_refuse_devices_fifos_dirs_loops_and_oversize_files(tmp_path: Path) -> None:
    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop.name)
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:  # sparse: 9 MiB on paper, nothing on disk
        f.truncate(9 << 20)
    cases = {"/dev/zero": "not a regular file", str(fifo): "not a regular file", str(tmp_path): "is a directory",
             str(loop): "a loop of symbolic links", str(big): "at most 8388608 bytes"}
    for path, why in cases.items():
        with pytest.raises(PathProblem, match=why) as e:
            read_bytes(path)
        assert "\n" not in str(e.value)
    with pytest.raises(FileNotFoundError):
        read_bytes(tmp_path / "missing")
    (tmp_path / "latin1").write_bytes(b"caf\xe9")
    with pytest.raises(PathProblem, match="not UTF-8"):
        read_text(tmp_path / "latin1")
    (tmp_path / "ok").write_text("x" * 100)
    assert read_text(tmp_path / "ok", max_bytes=100) == "x" * 100
    with pytest.raises(PathProblem, match="at most 99 bytes"):
        read_text(tmp_path / "ok", max_bytes=99)


def test_shown_escapes_terminal_codes() -> None:
    assert shown("a\x1b[31mred\n.yaml") == "a\\x1b[31mred\\n.yaml"
    assert shown("x" * 500).endswith("...") and len(shown("x" * 500)) == 203
    assert shown(Path("plain/name.yaml")) == "plain/name.yaml"


# --- output files --------------------------------------------------------------------------------------------
def test_output_files_never_replace_inputs_links_or_unasked_files(tmp_path: Path) -> None:
    src = tmp_path / "h.yaml"
    src.write_text("fallback_reply: Hi\n")
    hard = tmp_path / "hard.yaml"
    os.link(src, hard)
    link = tmp_path / "link.jsonl"
    link.symlink_to(src)
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop.name)
    for target, why in [(src, "is the input file"), (hard, "is the input file"), (link, "is the input file"),
                        (loop, "is a symbolic link"), (tmp_path, "is a directory")]:
        with pytest.raises(PathProblem, match=why):
            check_output_file(target, inputs=[src], force=True, flag="--record")
    other = tmp_path / "other.jsonl"
    other.write_text("keep")
    other_link = tmp_path / "other-link.jsonl"
    other_link.symlink_to(other)
    with pytest.raises(PathProblem, match="is a symbolic link"):
        open_output(other_link, force=True)
    with pytest.raises(PathProblem, match="already exists; pass --force"):
        open_output(other)
    assert other.read_text() == "keep" and src.read_text() == "fallback_reply: Hi\n"
    with pytest.raises(PathProblem, match="is not a directory"):
        check_output_file(other / "x.jsonl")


def test_a_second_writer_of_one_file_is_refused_and_truncates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "r.jsonl"
    with open_output(target, force=True) as f:
        f.write("first\n")
        f.flush()
        with pytest.raises(PathProblem, match="being written by another process"):
            open_output(target, force=True)
        assert target.read_text() == "first\n"
    with open_output(target, force=True) as f:  # the lock ends with the first writer
        f.write("second\n")
    assert target.read_text() == "second\n"


def test_write_text_replaces_a_file_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    write_text(target, "new")
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    link = tmp_path / "l.json"
    link.symlink_to(target)
    with pytest.raises(PathProblem, match="symbolic link"):
        write_text(link, "through")
    assert target.read_text() == "new"


# --- output folders ------------------------------------------------------------------------------------------
def test_folders_that_are_not_ours_are_refused_before_anything_runs(tmp_path: Path, not_ours) -> None:
    mine = tmp_path / "mine"
    for name, why in not_ours:
        with pytest.raises(PathProblem, match=why):
            check_output_dir(tmp_path / name, kind="test output")
        with pytest.raises(PathProblem, match=why):
            _publish(tmp_path / name, {"stats.json": "{}"})
    assert (mine / "precious.txt").read_text() == "notes\n" and (tmp_path / "f.txt").read_text() == "x\n"
    assert not any(p.name.startswith(".") and "tmp" in p.name for p in tmp_path.iterdir())
    empty = tmp_path / "empty"
    empty.mkdir()
    _publish(empty, {"stats.json": "1"})  # an empty folder may be filled
    assert (empty / "stats.json").read_text() == "1"


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_publish_swaps_a_whole_folder_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exchange: bool) -> None:
    if not exchange:
        monkeypatch.setattr(paths, "_exchange", lambda a, b: False)
    out = tmp_path / "ds"
    _publish(out, {"stats.json": "1", "old-only": "x"})
    _publish(out, {"stats.json": "2"})
    assert sorted(p.name for p in out.iterdir()) == [paths.MARKER, "stats.json"]
    assert (out / "stats.json").read_text() == "2"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ds.lock", "ds"]
    with pytest.raises(RuntimeError):  # a failure while building leaves the old folder as it was
        with publish_dir(out, kind="test output") as tmp:
            (tmp / "stats.json").write_text("3")
            raise RuntimeError("stage failed")
    assert (out / "stats.json").read_text() == "2"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ds.lock", "ds"]


def test_a_kill_between_the_renames_is_repaired_by_the_next_publish(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "ds"
    _publish(out, {"stats.json": "old"})
    monkeypatch.setattr(paths, "_exchange", lambda a, b: False)
    real_rename = os.rename
    calls = []

    def rename(a: object, b: object) -> None:
        calls.append((a, b))
        if len(calls) == 2:  # the old folder is aside, the new one not yet in place: the process dies here
            raise KeyboardInterrupt
        real_rename(a, b)

    monkeypatch.setattr(paths.os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        _publish(out, {"stats.json": "new"})
    monkeypatch.setattr(paths.os, "rename", real_rename)
    assert not out.exists() and any(p.name.startswith(".ds.old-") for p in tmp_path.iterdir())
    paths.reclaim(out)  # what the next publish does first, under the lock
    assert (out / "stats.json").read_text() == "old"


def test_kill_9_while_publishing_leaves_the_old_folder_and_the_rerun_reclaims(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    _publish(out, {"stats.json": "old", "data": "complete"})
    code = textwrap.dedent(f"""
        import os, signal
        from pathlib import Path
        from livesim.stream.paths import publish_dir
        with publish_dir(Path({str(out)!r}), is_ours=lambda p: True, kind="t") as tmp:
            (tmp / "stats.json").write_text("new")
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert (out / "stats.json").read_text() == "old" and (out / "data").read_text() == "complete"
    assert any(p.name.startswith(".ds.tmp-") for p in tmp_path.iterdir())  # left by the killed process
    _publish(out, {"stats.json": "rerun"})
    assert (out / "stats.json").read_text() == "rerun"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ds.lock", "ds"]


def test_a_second_publisher_of_one_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    with publish_dir(out, kind="test output") as tmp:
        (tmp / "stats.json").write_text("first")
        with pytest.raises(PathProblem, match="being written by another process"):
            _publish(out, {"stats.json": "second"})
    assert (out / "stats.json").read_text() == "first"


def test_an_output_folder_is_never_an_input_or_a_folder_holding_one(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "stats.json").write_text("{}")  # an earlier output: replaceable, but not while it is the input
    for out in (model, tmp_path):
        with pytest.raises(PathProblem, match="holds the input"):
            check_output_dir(out, is_ours=lambda p: True, kind="test output", inputs=[model / "stats.json"])
    with pytest.raises(PathProblem, match="holds the input"):
        _publish_from(model, inputs=[model])
    assert (model / "stats.json").read_text() == "{}"


def _publish_from(out: Path, inputs: list[Path]) -> None:
    with publish_dir(out, kind="test output", inputs=inputs) as tmp:
        (tmp / "stats.json").write_text("new")
