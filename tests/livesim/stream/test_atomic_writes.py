"""The path layer's whole-file writer (`atomic_output`, `write_text`, `write_bytes`, `save_figure`) and log appends:
what it refuses, what a kill or a full disk leaves (the old file, never a partial one), and the temporary files a
killed writer left, removed by the next write to the folder.
"""

from __future__ import annotations

import errno
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from livesim.stream import paths
from livesim.stream.paths import PathProblem, append_text, atomic_output, remove_stale_temps, write_bytes, write_text


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name)


def _targets(tmp_path: Path, rng: random.Random) -> list[tuple[str, Path, list[Path], str]]:
    """(case, target, inputs, what the refusal says) for generated names: the input itself (by name, by a
    relative path, by a hard link), a symbolic link to a file and a dangling one, an existing file without
    force, a folder."""
    out = []
    for i in range(6):
        name = "".join(rng.choice("abcxyz_-. é") for _ in range(rng.randint(1, 12))).strip() or "f"
        d = tmp_path / f"case{i}"
        d.mkdir()
        src = d / f"{name}.jsonl"
        src.write_text("input\n")
        (d / "hard").hardlink_to(src)
        (d / "link").symlink_to(src.name)
        (d / "dangling").symlink_to("nowhere")
        (d / "old").write_text("old\n")
        (d / "dir").mkdir()
        out += [("input", src, [src], "is the input file"),
                ("input, relative", Path(os.path.relpath(src)), [src], "is the input file"),
                ("input, hard link", d / "hard", [src], "is the input file"),
                ("link", d / "link", [], "symbolic link"), ("dangling link", d / "dangling", [], "symbolic link"),
                ("existing", d / "old", [], "already exists; pass --force"), ("folder", d / "dir", [], "directory")]
    return out


def test_the_writer_refuses_inputs_links_and_existing_files(tmp_path: Path) -> None:
    rng = random.Random(50)
    for case, target, inputs, why in _targets(tmp_path, rng):
        before = {p: p.read_bytes() for p in target.parent.iterdir() if p.is_file()}
        for force in (False, True):
            if case in ("existing",) and force:
                continue
            with pytest.raises(PathProblem, match=why) as e:
                write_text(target, "new\n", inputs=inputs, force=force)
            assert "\n" not in str(e.value), case
        assert {p: p.read_bytes() for p in target.parent.iterdir() if p.is_file()} == before, case
        assert _temps(target.parent) == [], case
    target = tmp_path / "case0" / "old"
    write_text(target, "new\n", force=True)  # with force an existing regular file is replaced
    assert target.read_text() == "new\n"


@pytest.mark.parametrize("room", [0, 1, 4096, 1 << 20])
def test_a_full_disk_leaves_the_old_file_and_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      room: int, full_disk) -> None:
    target = tmp_path / "out.json"
    target.write_text("old\n")
    full_disk(room)
    with pytest.raises(PathProblem) as e:
        write_bytes(target, b"x" * (2 << 20))
    assert str(e.value) == f"--out {target}: cannot write it (No space left on device); the old file is unchanged"
    assert target.read_text() == "old\n" and _temps(tmp_path) == []
    with pytest.raises(PathProblem, match="nothing was written"):
        write_text(tmp_path / "new.json", "y" * (2 << 20))
    assert not (tmp_path / "new.json").exists() and _temps(tmp_path) == []


def test_a_full_disk_at_the_rename_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "t.md"
    target.write_text("old\n")
    monkeypatch.setattr(paths.os, "replace", lambda a, b: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space")))
    with pytest.raises(PathProblem, match="cannot write it"):
        write_text(target, "new\n")
    assert target.read_text() == "old\n" and _temps(tmp_path) == []


_WRITER = textwrap.dedent("""
    import sys
    from livesim.stream.paths import atomic_output
    target, n = sys.argv[1], int(sys.argv[2])
    with atomic_output(target, binary=True) as f:
        print("writing", flush=True)
        for i in range(n):
            f.write(bytes([65 + i % 26]) * 4096)
            f.flush()
""")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_kill_mid_write_leaves_the_old_file_and_the_next_write_cleans_up(tmp_path: Path, sig: int) -> None:
    target = tmp_path / "r.md"
    old = b"the old transcript\n"
    target.write_bytes(old)
    rng = random.Random(sig)
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(target), "10000000"], stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.readline() == b"writing\n"
        time.sleep(rng.uniform(0.0, 0.3))  # somewhere in the middle of the write
        proc.send_signal(sig)
        proc.wait(30)
        assert target.read_bytes() == old  # never empty, never partial
    if sig == signal.SIGKILL:  # nothing ran after the last kill: its temporary file waits for the next write
        assert len(_temps(tmp_path)) == 1  # each new writer removed the one before it had left
    write_text(target, "new\n")
    assert target.read_text() == "new\n" and _temps(tmp_path) == []


def test_only_dead_writers_temporary_files_are_removed(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    rng = random.Random(9)
    names = {}
    for i in range(20):
        pid = rng.choice([dead.pid, os.getpid(), os.getppid()])
        name = f".{rng.choice(['r.md', 'x', 'data.json', 'a.b.c'])}.tmp-{pid}-{rng.getrandbits(32):08x}"
        (tmp_path / name).write_text(str(i))
        names[name] = pid == dead.pid
    (tmp_path / ".keep.tmp-notapid-1234abcd").write_text("x")  # not a name the layer makes
    (tmp_path / f".dir.tmp-{dead.pid}-0000abcd").mkdir()  # a folder: publish_dir's own, reclaimed under its lock
    removed = {p.name for p in remove_stale_temps(tmp_path)}
    assert removed == {n for n, is_dead in names.items() if is_dead}
    assert all((tmp_path / n).exists() for n, is_dead in names.items() if not is_dead)


def test_append_refuses_links_and_non_files(tmp_path: Path) -> None:
    log = tmp_path / "metrics.jsonl"
    append_text(log, "a\n")
    append_text(log, "b\n")
    assert log.read_text() == "a\nb\n"
    (tmp_path / "l").symlink_to(log.name)
    with pytest.raises(PathProblem, match="cannot write it"):
        append_text(tmp_path / "l", "c\n")
    with pytest.raises(PathProblem, match="cannot write it"):
        append_text(tmp_path, "c\n")
    assert log.read_text() == "a\nb\n"


def test_an_error_inside_the_block_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "t"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_output(target) as f:
            f.write("half")
            raise RuntimeError("stage failed")
    assert target.read_text() == "old" and _temps(tmp_path) == []


def test_figures_are_written_whole(tmp_path: Path) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    paths.save_figure(fig, tmp_path / "c.png", dpi=50)
    plt.close(fig)
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
