"""What no path can make the CLI do: destroy data, hang or trace back. Each refusal is one `error:` line, exit 2,
and nothing is lost; plus the CLI edges around them (a stream with no comments, CRLF records, a closed pipe).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

from livesim.cli.main import main
from livesim.parsing.safety import MAX_CHARS, UNREADABLE_KEY, sanitize_action
from livesim.stream.paths import PathProblem
from livesim.stream.records import RecordWriter, read_record


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run `livesim ARGV`; assert exit status 2 and one `error:` line on stderr; return that line."""
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and "Traceback" not in err, err
    return err


def _listing(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def test_collect_never_empties_or_replaces_what_is_not_a_dataset(tmp_path, capsys, not_ours) -> None:
    mine = tmp_path / "mine"
    before = _listing(tmp_path)
    for out, why in not_ours:
        err = _refused(capsys, ["hat", "collect", "--out", str(tmp_path / out), "--episodes", "2", "--quiet"])
        assert why in err
    assert _listing(tmp_path) == before and _listing(mine) == ["precious.txt"]  # no temporary folder either
    assert (mine / "precious.txt").read_text() == "notes\n" and (tmp_path / "f.txt").read_text() == "x\n"


def test_record_never_writes_over_an_input_or_through_a_link(tmp_path, capsys) -> None:
    harness = tmp_path / "h.yaml"
    harness.write_text("fallback_reply: Hi\n")
    (tmp_path / "hl.yaml").symlink_to("h.yaml")
    target = tmp_path / "t.jsonl"
    target.write_text("keep\n")
    (tmp_path / "tl.jsonl").symlink_to("t.jsonl")
    (tmp_path / "loop.jsonl").symlink_to("loop.jsonl")
    run = ["run", "--scenario", "flash-sale-rush", "--quiet"]
    for record, extra, why in [("h.yaml", ["--harness", str(harness)], "is the input file"),
                               ("hl.yaml", ["--harness", str(harness)], "is the input file"),
                               ("tl.jsonl", [], "symbolic link"), ("loop.jsonl", [], "symbolic link")]:
        err = _refused(capsys, [*run, *extra, "--record", str(tmp_path / record), "--force"])
        assert why in err
    err = _refused(capsys, ["eval", "--episodes", "1", "--quiet", "--record", str(tmp_path / "loop.jsonl")])
    assert "symbolic link" in err
    assert harness.read_text() == "fallback_reply: Hi\n" and target.read_text() == "keep\n"


def test_concurrent_record_writers_the_second_is_refused(tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    with RecordWriter(path, overwrite=True) as first:
        first._f.write("{}\n")
        first._f.flush()
        with pytest.raises(PathProblem, match="being written by another process"):
            RecordWriter(path, overwrite=True)
        assert path.read_text() == "{}\n"


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "loop", "directory", "oversize"])
def test_harness_and_patch_files_are_bounded_regular_files(tmp_path, capsys, kind) -> None:
    path = tmp_path / "h.yaml"
    if kind == "dev-zero":
        path = Path("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "directory":
        path = tmp_path
    else:
        with path.open("wb") as f:
            f.truncate(9 << 20)
    for argv in (["run", "--harness", str(path), "--quiet"], ["eval", "--harness", str(path), "--quiet"],
                 ["run", "--scenario", "flash-sale-rush", "--harness", str(path), "--quiet"],
                 ["harness", "diff", "--patch", str(path)], ["harness", "diff", str(path), str(path)],
                 ["harness", "diff", "--patch", str(path), "--base", str(path)]):
        assert str(path) in _refused(capsys, argv)


def test_terminal_escapes_in_file_names_are_escaped(tmp_path, capsys) -> None:
    name = tmp_path / "evil\x1b[2J\x1b[31m.yaml"
    name.write_text("not: [valid\n")
    err = _refused(capsys, ["run", "--harness", str(name), "--quiet"])
    assert "\x1b" not in err and "\\x1b[2J" in err
    err = _refused(capsys, ["run", "--scenario", str(name), "--quiet"])
    assert "\x1b" not in err


def test_a_valid_scenario_without_comments_is_warned_by_check_and_refused_by_run(tmp_path, capsys) -> None:
    sc = tmp_path / "q.yaml"
    sc.write_text("name: q\npurpose: p\nduration_s: 30\ntraffic:\n  comments_per_min: 0.0001\n")
    assert main(["scenarios", "--check", str(sc)]) == 0
    out = capsys.readouterr()
    assert "ok (q)" in out.out and "warning:" in out.err and "no comments" in out.err
    record = tmp_path / "r.jsonl"
    err = _refused(capsys, ["run", "--scenario", str(sc), "--record", str(record), "--quiet"])
    assert "no comments" in err and not record.exists()


def test_bad_reset_options_raise_value_error_and_leave_no_episode() -> None:
    env = gym.make("LiveStreamQA-v0")
    env.reset(seed=0)
    for options in ("x", {"config": 5}, {"config": {"duration_s": -1}}, {"harness": {}}, {"split": "x"},
                    {"intent": "nope"}, {"intent": ["a"]}, {"bogus": 1}):
        with pytest.raises(ValueError):
            env.reset(seed=1, options=options)  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            env.step("hi")
    env.reset(seed=1)
    env.step("hi")
    stream = gym.make("LiveStream-v0")
    with pytest.raises(ValueError, match="no comments"):
        stream.reset(seed=0, options={"config": {"duration_s": 30, "comments_per_min": 0.0001}})
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        stream.step("hi")


def test_byte_actions_are_capped_as_text_and_sanitise_idempotently() -> None:
    for raw in (b"a" * 2_000_000, b"a" * (MAX_CHARS + 1), "\u4f60".encode() * (MAX_CHARS // 3 + 10),
                b"\xff" * 1000, bytearray(b"ok")):
        once = sanitize_action(raw).action
        assert sanitize_action(once).action == once
        if isinstance(once, str):
            assert len(once) <= MAX_CHARS
    assert UNREADABLE_KEY in sanitize_action(b"a" * 2_000_000).action  # type: ignore[operator]
    assert sanitize_action(b"a" * MAX_CHARS).action == "a" * MAX_CHARS


def test_crlf_records_keep_their_edit_detection(tmp_path, capsys) -> None:
    lf = tmp_path / "r.jsonl"
    assert main(["run", "--scenario", "flash-sale-rush", "--record", str(lf), "--quiet", "--json"]) == 0
    capsys.readouterr()
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(lf.read_bytes().replace(b"\n", b"\r\n"))
    record = read_record(crlf)
    assert record.chained and not record.breaks  # a CRLF copy is the same record
    lines = crlf.read_bytes().split(b"\r\n")
    lines[2] = lines[2].replace(b'"step":1', b'"step":1 ', 1)  # an edit a JSON reader does not see
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(b"\r\n".join(lines))
    assert [b.line for b in read_record(edited).breaks] == [3]
    assert main(["regrade", str(edited)]) == 0
    err = capsys.readouterr().err
    assert "carries no integrity hashes" not in err and ":3:" in err


def test_a_closed_stdout_ends_quietly() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "livesim.cli", "scenarios"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # `| head -0`: the reader is gone before the first line
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == 141
