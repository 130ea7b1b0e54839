"""Records: golden transcripts, replay and regrade, crash safety, and refusal of malformed files."""

from __future__ import annotations

import json

import pytest

import livesim
from livesim.cli import main
from livesim.runs.episode import make_stream_env, run_episode, write_lines
from livesim.runs.replay import (
    GOLDEN_DIR,
    ReplayMismatch,
    golden_diff,
    golden_path,
    regrade,
    replay,
    scenario_lines,
)
from livesim.stream.records import (
    RecordError,
    RecordHeader,
    StepRecord,
    dump_line,
    observations,
    parse_record,
    read_record,
)
from livesim.stream.scenario import bundled_scenarios, load_scenario


@pytest.mark.parametrize("name", bundled_scenarios())
def test_golden_record_matches_a_fresh_oracle_run_and_replays(name):
    assert golden_diff(name) is None, "regenerate deliberately with: livesim golden --regenerate"
    record = read_record(golden_path(name))
    assert record.end is not None and record.header.scenario == name
    assert record.end.summary["requests"] >= 8
    assert replay(record) == len(record.steps)


def test_golden_files_are_checked_in_small():
    sizes = [golden_path(n).stat().st_size for n in bundled_scenarios()]
    assert max(sizes) < 120_000 and sum(sizes) < 600_000
    assert (GOLDEN_DIR / "dashboard_frame.txt").is_file()


def test_record_header_and_steps_carry_what_the_issue_asks_for(tmp_path):
    path = tmp_path / "rec.jsonl"
    assert main(["run", "--scenario", "tool-rename-skill-rewrite", "--agent", "oracle", "--record", str(path),
                 "--json"]) == 0
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    head, steps, end = lines[0], lines[1:-1], lines[-1]
    assert head["kind"] == "header" and head["format_version"] == 1 and head["livesim_version"] == livesim.__version__
    assert head["scenario"] == "tool-rename-skill-rewrite" and head["agent"] == "oracle" and head["seed"] == 3
    assert head["config"]["patches"] and head["harness_fingerprint"]
    assert end["kind"] == "end" and end["steps"] == len(steps)
    first = StepRecord.model_validate(steps[0])
    assert first.request is not None and first.messages[0]["role"] == "system" and first.tools
    dispatched = [StepRecord.model_validate(s) for s in steps if s.get("dispatched")]
    assert all(s.grade and s.metrics and s.latency_s is not None for s in dispatched)
    assert sum(dispatched[0].grade.terms.values()) == pytest.approx(dispatched[0].reward)
    assert len({s.harness_fingerprint for s in dispatched}) == 2  # before and after the patch
    assert any(s.get("last_patch") for s in steps)
    assert any(c["name"] == "lookup_live_price" for s in steps for c in s.get("tool_calls", []))


def test_observations_rebuild_exactly_what_the_agent_saw():
    from livesim.agents import make_agent

    sc = load_scenario("flash-sale-rush")
    env = make_stream_env()
    agent = make_agent("oracle", env=env)
    header = RecordHeader(livesim_version="test", seed=sc.seed, config=sc.to_config(), agent="oracle")
    seen = []

    class Spy:
        def reset(self):
            agent.reset()

        def act(self, obs):
            seen.append(obs)
            return agent.act(obs)

    text = "".join(dump_line(x) + "\n" for x in run_episode(env, Spy(), header))
    assert list(observations(parse_record(text))) == seen


class _Crash:
    def __init__(self, inner, after):
        self.inner, self.after, self.n = inner, after, 0

    def reset(self):
        self.inner.reset()

    def act(self, obs):
        self.n += 1
        if self.n > self.after:
            raise RuntimeError("the agent died")
        return self.inner.act(obs)


def test_a_crash_keeps_every_line_written_before_it(tmp_path):
    from livesim.agents import make_agent

    sc = load_scenario("flash-sale-rush")
    env = make_stream_env()
    header = RecordHeader(livesim_version="test", seed=sc.seed, config=sc.to_config(), agent="oracle")
    path = tmp_path / "crash.jsonl"
    with pytest.raises(RuntimeError, match="died"):
        write_lines(run_episode(env, _Crash(make_agent("oracle", env=env), 7), header), path)
    record = read_record(path)  # readable: every finished line was flushed
    assert len(record.steps) == 7 and record.end is None
    assert replay(record) == 7


def _golden_lines(name="tool-rename-skill-rewrite"):
    return golden_path(name).read_text().splitlines()


def _edit(lines, i, **changes):
    d = json.loads(lines[i])
    d.update(changes)
    return lines[:i] + [json.dumps(d)] + lines[i + 1:]


def _bad_records():
    g = _golden_lines()
    head = json.loads(g[0])
    return {
        "empty file": ("", 1, ""),
        "not JSON": ("\n".join(g[:3] + ["{not json"] + g[4:]) + "\n", 4, ""),
        "truncated last line": ("\n".join(g[:5]) + "\n" + g[5][:40], 6, ""),
        "no header first": ("\n".join(g[1:]) + "\n", 1, "kind"),
        "missing step": ("\n".join(g[:3] + g[4:]) + "\n", 4, "step"),
        "unknown kind": ("\n".join(_edit(g, 2, kind="stp")) + "\n", 3, "kind"),
        "wrong field type": ("\n".join(_edit(g, 2, reward="high")) + "\n", 3, "reward"),
        "unknown field": ("\n".join(_edit(g, 2, colour="red")) + "\n", 3, "colour"),
        "newer format": ("\n".join([json.dumps({**head, "format_version": 99})] + g[1:]) + "\n", 1, "format_version"),
        "bad config in header": ("\n".join([json.dumps({**head, "config": {**head["config"], "duration_s": -1}})]
                                           + g[1:]) + "\n", 1, "config.duration_s"),
        "line after the end": ("\n".join(g + [g[1]]) + "\n", len(g) + 1, "kind"),
        "end counts wrong": ("\n".join(_edit(g, len(g) - 1, steps=3)) + "\n", len(g), "steps"),
    }


@pytest.mark.parametrize("kind", sorted(_bad_records()))
def test_malformed_records_are_refused_with_line_and_field(kind, tmp_path, capsys):
    text, line, field = _bad_records()[kind]
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(RecordError) as err:
        read_record(path)
    p = err.value.problems[0]
    assert (p.line, p.field) == (line, field), str(err.value)
    assert f"{path}:{line}: " in str(err.value)
    for cmd in ("replay", "regrade", "view"):
        assert main([cmd, str(path), *(["--no-live"] if cmd == "view" else [])]) == 2
        assert f"bad.jsonl:{line}" in capsys.readouterr().err


def test_replay_names_the_step_and_field_of_the_first_difference(tmp_path, capsys):
    g = _golden_lines()
    i = next(n for n, x in enumerate(g) if json.loads(x).get("dispatched"))
    path = tmp_path / "tampered.jsonl"
    path.write_text("\n".join(_edit(g, i, reward=0.25)) + "\n")
    with pytest.raises(ReplayMismatch) as err:
        replay(read_record(path))
    assert (err.value.step, err.value.field) == (i - 1, "reward")
    assert main(["replay", str(path)]) == 1
    assert f"step {i - 1} (record line {i + 1}): reward: recorded 0.25" in capsys.readouterr().err

    path.write_text("\n".join(_edit(g, 2, action="just a reply")) + "\n")
    with pytest.raises(ReplayMismatch) as err:
        replay(read_record(path))
    assert err.value.step == 1


def test_regrade_reports_replies_graded_differently(tmp_path, capsys):
    g = _golden_lines()
    i = next(n for n, x in enumerate(g) if json.loads(x).get("dispatched"))
    d = json.loads(g[i])
    d["grade"]["scores"]["accuracy"], d["grade"]["terms"]["accuracy"], d["reward"] = 0.0, 0.0, 0.65
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join(g[:i] + [json.dumps(d)] + g[i + 1:]) + "\n")
    changed, totals = regrade(read_record(path))
    assert [(c.step, c.old_reward) for c in changed] == [(i - 1, 0.65)]
    assert "scores.accuracy: 0.0 -> 1.0" in changed[0].changes
    assert totals["new_mean_reward"] > totals["old_mean_reward"]
    assert main(["regrade", str(path), "--fail-on-change"]) == 1
    assert main(["regrade", str(golden_path("tool-rename-skill-rewrite"))]) == 0
    assert "graded as recorded" in capsys.readouterr().out


def test_memorizer_record_replays_too(tmp_path):
    path = tmp_path / "mem.jsonl"
    write_lines(scenario_lines("tool-rename-skill-rewrite", "memorizer"), path)
    record = read_record(path)
    assert record.end.summary["mean_reward"] < 0.8
    assert replay(record) == len(record.steps)
