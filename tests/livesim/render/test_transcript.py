"""The whole conversation of a request: every model turn's text, tool results, hook messages, the reply and its
terms; `livesim view` on a record, one request, a transcript and a folder of eval records."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

import livesim
from livesim.cli import main
from livesim.render.dashboard import DashboardState, render
from livesim.render.transcript import conversations, markdown
from livesim.runs.episode import make_stream_env, run_episode, write_lines
from livesim.stream.config import StreamConfig
from livesim.stream.records import RecordHeader, read_record

BLOCKED = "Great question!!! It is 42 yuan and the best in the world, guaranteed."
LONG_REPLY = ("Thanks for asking, everyone! " * 6).strip()


class Scripted:
    """Says a reply before loading a skill (a hook blocks it), then loads one, then replies at length."""

    name = "scripted"

    def __init__(self) -> None:
        self.turn = 0

    def reset(self) -> None:
        self.turn = 0

    def act(self, observation):
        self.turn += 1
        if self.turn == 1:
            return BLOCKED
        if self.turn == 2:
            return '<tool_call>{"name": "load_skill", "arguments": {"name": "small-talk"}}</tool_call>'
        return LONG_REPLY


@pytest.fixture
def qa_record(tmp_path):
    env = make_stream_env(env_id="LiveStreamQA-v0")
    header = RecordHeader(livesim_version=livesim.__version__, env_id="LiveStreamQA-v0", seed=4,
                          config=StreamConfig(), agent="scripted")
    path = tmp_path / "runs" / "seed-00004.jsonl"
    write_lines(run_episode(env, Scripted(), header), path)
    return path


def test_conversation_holds_every_turn_the_hook_message_and_the_graded_reply(qa_record):
    record = read_record(qa_record)
    (req,) = conversations(record)
    assert [t.text for t in req.turns][0] == BLOCKED
    assert req.turns[0].hooks, "the blocked reply's hook is on its turn"
    assert any(who == "env" for who, _ in req.turns[1].inputs), "the hook's retry message comes back to the model"
    assert any(who == "tool load_skill" for who, _ in req.turns[2].inputs)
    assert req.reply == LONG_REPLY and req.grade is not None and req.viewers
    text = markdown(record)
    assert BLOCKED in text and LONG_REPLY in text and "blocked by hooks:" in text
    assert f"### Reply to {', '.join(req.viewers)}" in text and "terms (weighted" in text
    assert "load_skill(name='small-talk')" in text and "### System prompt" not in text
    assert "### System prompt" in markdown(record, system=True)


def test_dashboard_shows_the_model_text_and_the_whole_reply_linked_to_its_viewers(qa_record):
    state = DashboardState()
    for line in read_record(qa_record).lines():
        state.apply(line)
    host = "\n".join(state.host)
    assert f"said    {BLOCKED}" in host and "BLOCKED" in host
    assert f"-> {', '.join(state.viewers)}: {LONG_REPLY}" in host and "terms   acc" in host
    console = Console(file=io.StringIO(), width=100)
    console.print(render(state))
    frame = console.file.getvalue()
    left = " ".join(row.split("│")[1].strip() for row in frame.splitlines() if row.startswith("│"))
    assert "said Great question!!! It is 42 yuan" in " ".join(left.split())
    assert LONG_REPLY in " ".join(left.split()), "the reply is wrapped, not cut"
    assert "#0" in frame


def test_view_prints_a_request_and_writes_a_transcript(qa_record, tmp_path, capsys):
    assert main(["view", str(qa_record), "--request", "0"]) == 0
    out = capsys.readouterr().out
    assert BLOCKED in out and LONG_REPLY in out
    target = tmp_path / "t.md"
    assert main(["view", str(qa_record), "--transcript", "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8").startswith("# LiveStreamQA-v0 · agent scripted · seed 4")
    assert main(["view", str(qa_record), "--no-live"]) == 0  # one request: the frame, then its conversation
    out = capsys.readouterr().out
    assert "╭─ chat" in out and "### Turn 3" in out
    assert main(["view", str(qa_record), "--request", "5"]) == 2
    assert "has no request 5" in capsys.readouterr().err


def test_view_of_a_folder_lists_rewards_and_picks_one(tmp_path, capsys):
    out_dir = tmp_path / "ev"
    assert main(["eval", "--agent", "oracle", "--episodes", "3", "--record", str(out_dir), "--quiet", "--json"]) == 0
    capsys.readouterr()
    assert main(["view", str(out_dir)]) == 0
    captured = capsys.readouterr()
    assert "3 record(s)" in captured.out and "seed-00002.jsonl" in captured.out and "1.000" in captured.out
    assert "--request N" in captured.err
    assert main(["view", str(out_dir), "--request", "1", "--transcript"]) == 0
    assert "seed 1" in capsys.readouterr().out.splitlines()[0]
    assert main(["view", str(out_dir), "--request", "3"]) == 2
    assert main(["view", str(out_dir / "summary.json")]) == 2
    err = capsys.readouterr().err
    assert "is the summary of an eval run (valid JSON), not a record" in err and "invalid" not in err
    assert err.count("\n") == 2
