"""`livesim eval`: records of every request, agent failures, agents and harnesses of one's own, CLI errors."""

from __future__ import annotations

import json
import re
import sys
import textwrap

import pytest

import livesim
from livesim.cli import main
from livesim.harness import default_harness
from livesim.runs.replay import regrade, replay
from livesim.stream.harness_file import HarnessFileError, dump_harness, load_harness_file, parse_harness
from livesim.stream.records import observations, read_record

AGENT_MODULE = '''
from livesim.agents.base import BaseAgent


class Echo(BaseAgent):
    """Replies with a fixed text; counts what it saw."""

    name = "echo"

    def __init__(self, text="Hi there, welcome to the stream!"):
        super().__init__()
        self.text = text
        self.stats = {"observations": 0}

    def act(self, observation):
        self.stats["observations"] += 1
        return self.text


class Peek:
    """A privileged agent of one's own: it takes the env, so eval plays it one episode at a time."""

    name = "peek"

    def __init__(self, env=None):
        self.env = env

    def reset(self):
        pass

    def act(self, observation):
        assert self.env.unwrapped.sim is not None
        return "Thanks for asking!"
'''


@pytest.fixture
def agent_module(tmp_path, monkeypatch):
    (tmp_path / "my_agents.py").write_text(AGENT_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_agents"
    sys.modules.pop("my_agents", None)


def _eval(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(["eval", "--quiet", "--json", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out.strip().splitlines()[-1]) if out.strip() else {}), err


@pytest.mark.parametrize("agent", ["oracle", "random"])
def test_eval_record_holds_every_request_and_replays(tmp_path, capsys, agent) -> None:
    out = tmp_path / "rec"
    code, summary, _ = _eval(capsys, "--agent", agent, "--episodes", "4", "--batch-size", "3", "--record", str(out))
    assert code == 0 and summary["requests"] == 4 and summary["record"] == str(out)
    files = sorted(out.glob("seed-*.jsonl"))
    assert [f.name for f in files] == [f"seed-{s:05d}.jsonl" for s in range(4)]
    rewards = []
    for f in files:
        record = read_record(f)
        assert record.header.env_id == "LiveStreamQA-v0" and record.header.agent == agent
        assert record.end is not None and record.steps[-1].dispatched and record.steps[-1].grade is not None
        assert record.steps[0].messages[0]["role"] == "system"  # the conversation the agent saw
        assert len(list(observations(record))) == len(record.steps)
        rewards.append(record.steps[-1].reward)
        assert replay(record) == len(record.steps)
        changed, totals = regrade(record)
        assert changed == [] and totals["replies"] == 1
    assert summary["mean_reward"] == pytest.approx(sum(rewards) / 4)
    assert json.loads((out / "summary.json").read_text())["requests"] == 4
    assert main(["view", str(files[0]), "--no-live"]) == 0
    # an existing, non-empty folder is refused unless --force
    with pytest.raises(SystemExit, match="not empty; choose another.*--resume.*--force"):
        _eval(capsys, "--agent", agent, "--episodes", "1", "--record", str(out))


def test_eval_record_of_a_v1_env_with_its_split_replays(tmp_path, capsys) -> None:
    """-v1 envs are recorded (the header once allowed only v0 ids) and `--split` reaches them."""
    import gymnasium as gym

    out = tmp_path / "rec"
    code, summary, _ = _eval(capsys, "--env", "LiveStreamQA-v1", "--split", "test", "--episodes", "2",
                             "--record", str(out))
    assert code == 0 and summary["requests"] == 2
    record = read_record(out / "seed-00001.jsonl")
    assert record.header.env_id == "LiveStreamQA-v1" and record.header.split == "test"
    assert replay(record) == len(record.steps) and regrade(record)[0] == []
    env = gym.make("LiveStreamQA-v1", split="test")
    obs, _ = env.reset(seed=1)
    assert obs["messages"] == record.steps[0].messages[:len(obs["messages"])]  # the test split's request
    train_obs, _ = gym.make("LiveStreamQA-v1", split="train").reset(seed=1)
    assert train_obs["messages"] != obs["messages"]


def test_eval_record_keeps_hook_messages_and_harness(tmp_path, capsys, agent_module) -> None:
    out = tmp_path / "rec"
    code, summary, _ = _eval(capsys, "--agent", "my_agents:Echo", "--episodes", "2", "--record", str(out),
                             "--prompt-style", "compact")
    assert code == 0 and summary["fallback_rate"] == 1.0  # no skill loaded: the hook blocks every reply
    record = read_record(out / "seed-00000.jsonl")
    assert record.header.harness is not None and record.header.harness.prompt.style == "compact"
    assert any(s.hooks for s in record.steps) and record.steps[-1].fallback
    assert any("Reply blocked" in m.get("content", "") for s in record.steps for m in s.messages)
    assert replay(record) == len(record.steps)


def test_unreachable_openai_server_is_an_error_and_a_nonzero_exit(capsys) -> None:
    agent = ["--agent", "openai", "--model", "m", "--episodes", "2", "--agent-arg", "base_url=http://127.0.0.1:9/v1",
             "--agent-arg", "max_retries=0", "--agent-arg", "timeout=2"]
    assert main(["eval", *agent, "--json", "--quiet"]) == 1  # the health check, before the first episode
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: the model server at http://127.0.0.1:9/v1 failed a health check")
    # without the health check, every call fails: each request is unmeasured, and the exit is an error
    code, summary, err = _eval(capsys, *agent, "--agent-arg", "health_check=false", "--agent-arg", "stop_after=0")
    assert code == 1 and len(err.strip().splitlines()) == 1
    m = re.match(r"error: the agent failed on (\d+) of \1 calls; 2 requests not measured .*; first: .*connection", err)
    assert m, err
    assert summary["agent_errors"] == int(m.group(1)) >= 2 and summary["requests"] == 0
    assert summary["unmeasured_requests"] == 2


def test_module_class_agents_in_the_cli_and_in_python(capsys, agent_module) -> None:
    from livesim.agents import make_agent

    assert make_agent("my_agents:Echo", text="hey").act({"messages": []}) == "hey"
    code, summary, _ = _eval(capsys, "--agent", "my_agents:Echo", "--episodes", "3",
                             "--agent-arg", 'text="Hello! Welcome in."')
    assert code == 0 and summary["requests"] == 3 and summary["agent"] == "my_agents:Echo"
    code, summary, _ = _eval(capsys, "--agent", "my_agents:Peek", "--episodes", "2")
    assert code == 0 and summary["requests"] == 2
    for bad, msg in [("nope_mod:X", "cannot import module 'nope_mod'"), ("my_agents:Nope", "has no class 'Nope'")]:
        with pytest.raises(SystemExit, match=msg):
            main(["eval", "--quiet", "--agent", bad, "--episodes", "1"])
    with pytest.raises(ValueError, match="cannot import module"):
        make_agent("nope_mod:X")


def test_harness_file_in_the_cli_and_in_python(tmp_path, capsys) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(textwrap.dedent("""\
        prompt:
          style: compact
          limits: {max_reply_chars: 400, turn_cap: 6, max_tool_calls: 4}
        fallback_reply: Back to you in a moment!
        """))
    h = load_harness_file(path)
    assert h.prompt.style == "compact" and h.prompt.limits.turn_cap == 6 and h.tools == default_harness().tools
    assert parse_harness(dump_harness(h)) == h
    assert parse_harness(json.dumps({"harness": json.loads(dump_harness(h))})) == h  # `harness show` output
    base, _, _ = _eval(capsys, "--episodes", "6")
    code, summary, _ = _eval(capsys, "--episodes", "6", "--harness", str(path))
    assert code == 0 and summary["harness_file"] == str(path) and summary["mean_reward"] > 0.95
    bad = tmp_path / "bad.yaml"
    bad.write_text("prompt:\n  limits:\n    turn_cap: 1\ntools:\n  - {key: get_price, name: gp, description: d, "
                   "params: [{key: sku, name: sku, description: d}]}\n")
    with pytest.raises(HarnessFileError) as err:
        load_harness_file(bad)
    assert [(p.line, p.field) for p in err.value.problems] == [(3, "prompt.limits.turn_cap")]
    bad.write_text("tools:\n  - {key: get_price, name: gp, description: d, params: [{key: sku, name: s, "
                   "description: d}]}\n")
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "--quiet", "--harness", str(bad)])
    assert str(exit_.value).startswith(f"error: invalid harness file {bad}:2: tools[0].params[0].key: get_price has "
                                       "no parameter 'sku'") and "\n" not in str(exit_.value)
    with pytest.raises(SystemExit, match="is a directory"):
        main(["eval", "--quiet", "--harness", str(tmp_path)])


def test_hsa_p_reaches_the_wrappers_and_the_record(tmp_path, capsys) -> None:
    _, none, _ = _eval(capsys, "--episodes", "3", "--agent", "memorizer")
    _, off, _ = _eval(capsys, "--episodes", "3", "--agent", "memorizer", "--wrappers", "hsa", "--hsa-p", "0")
    _, on, _ = _eval(capsys, "--episodes", "3", "--agent", "memorizer", "--wrappers", "hsa", "--hsa-p", "1")
    assert off["mean_reward"] == none["mean_reward"] > on["mean_reward"]
    assert main(["run", "--quiet", "--json", "--wrappers", "hsa", "--hsa-p", "1", "--record",
                 str(tmp_path / "r.jsonl")]) == 0
    capsys.readouterr()
    assert read_record(tmp_path / "r.jsonl").header.hsa_p == 1.0


def test_version_help_and_one_line_errors(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"livesim {livesim.__version__}"
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    help_text = capsys.readouterr().out
    assert re.search(r"\(default:\s+50\)", help_text) and "example: livesim eval" in help_text
    for cmd in ("run", "replay", "regrade", "view", "harness", "models"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "example: livesim" in capsys.readouterr().out
    for target in (tmp_path, tmp_path / "scenario.yaml"):
        if target != tmp_path:
            target.write_text("name: x\nseed: 1\n")
        assert main(["view", str(target), "--no-live"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(target) in err, err
    with pytest.raises(SystemExit, match="expects KEY=VALUE"):
        main(["eval", "--agent-arg", "oops"])
    with pytest.raises(SystemExit, match=r"error_rate must be a number in \[0, 1\], got 'high'") as exit_:
        main(["eval", "--quiet", "--agent-arg", "error_rate=high"])
    assert "\n" not in str(exit_.value)


def test_help_states_each_default_once_and_no_unset_defaults(capsys) -> None:
    for argv in (["hat", "reproduce", "--help"], ["hat", "train", "--help"], ["eval", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
        assert "(default: None)" not in text and "(default: False)" not in text, (argv, text)
        assert not re.search(r"\(default: [^)]*\) \(default:", text), (argv, text)
    with pytest.raises(SystemExit):
        main(["hat", "reproduce", "--help"])
    assert " ".join(capsys.readouterr().out.split()).count("(default: runs/reproduce") == 1


def test_summary_labels_terms_apart_from_scores_and_hides_stream_metrics_for_one_request(capsys) -> None:
    assert main(["eval", "--quiet", "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "reward terms (weighted, sum = reward)" in out and "raw scores (0-1), before the gates" in out
    assert "GMV" not in out and "viewers lost" not in out
    assert "│" not in out  # piped: plain text, no box drawing
