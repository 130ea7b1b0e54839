"""`eval`, `run` and `grader calibrate --judge` against a misbehaving model server (the loopback stub).

What a user sees: a dead server is one line before the first episode; a failed call is an unmeasured request,
left out of the means and counted apart, and a non-zero exit unless tolerated; retries and HTTP requests are
counted in the summary, the records and the dashboard; a server that dies mid-run stops the run; the judge
shows its failed verdicts.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from livesim.cli import main
from livesim.runs.replay import replay
from livesim.stream.records import read_record

sys.path.insert(0, str(Path(__file__).parents[2] / "agents"))
from stub_server import StubChatServer  # noqa: E402

FAST = ["--agent-arg", "timeout=2", "--agent-arg", "backoff=0.001", "--agent-arg", "max_backoff=0.01"]


def closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def _run(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith("{") else {}), err


def _eval(capsys, url: str, *extra: str, episodes: int = 4) -> tuple[int, dict, str]:
    return _run(capsys, "eval", "--env", "LiveStreamQA-v1", "--agent", "openai", "--model", "stub",
                "--episodes", str(episodes), "--agent-arg", f"base_url={url}", *FAST, "--json", "--quiet", *extra)


@pytest.mark.parametrize("command", ["eval", "run", "run-record", "judge", "second-opinion"])
def test_a_closed_port_is_one_line_before_the_first_episode(capsys, tmp_path, command):
    url = closed_url()
    agent = ["--agent", "openai", "--model", "m", "--agent-arg", f"base_url={url}", *FAST]
    argv = {"eval": ["eval", "--episodes", "200", *agent],
            "run": ["run", *agent],
            "run-record": ["run", "--record", str(tmp_path / "r.jsonl"), *agent],
            "judge": ["grader", "calibrate", "--judge", f"openai:{url}:m"],
            "second-opinion": ["grader", "calibrate", "--judge", f"openai:{url}:m", "--second-opinion"]}[command]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == f"error: the model server at {url} failed a health check (GET /models): connection refused\n"


@pytest.mark.parametrize("failures", [1, 2, 3])
@pytest.mark.parametrize("tolerated", ["none", "exact", "short"])
def test_failed_calls_are_unmeasured_counted_apart_and_an_error_unless_tolerated(capsys, tmp_path, failures,
                                                                                 tolerated):
    allow = {"none": 0, "exact": failures, "short": failures - 1}[tolerated]
    with StubChatServer(lambda body: "Thanks for asking!") as srv:
        srv.fail_next(failures, "status", status=400, body='{"error": {"message": "context too long"}}')
        code, summary, err = _eval(capsys, srv.base_url, "--record", str(tmp_path / "rec"),
                                   "--max-agent-failures", str(allow), episodes=5)
        hits = srv.chat_hits
    records = [read_record(p) for p in sorted((tmp_path / "rec").glob("seed-*.jsonl"))]
    steps = [s for r in records for s in r.steps]
    failed = [s for s in steps if s.call is not None and s.call.outcome == "failed"]
    dispatched = [s for s in steps if s.dispatched]
    unmeasured = [s for s in dispatched if s.unmeasured]
    assert len(failed) == failures and all(s.call.error == "HTTP 400: context too long" for s in failed)
    assert summary["unmeasured_requests"] == len(unmeasured) >= 1
    assert summary["requests"] + summary["unmeasured_requests"] == len(dispatched) == 5
    measured = [s.reward for s in dispatched if not s.unmeasured]
    assert summary["mean_reward"] == pytest.approx(sum(measured) / len(measured))
    calls = summary["model_calls"]
    assert calls["http_requests"] == hits == len([s for s in steps if s.call]) and calls["failed"] == failures
    assert calls["retries"] == 0 and calls["probe_requests"] == 2
    assert len(err.strip().splitlines()) == 1 and "context too long" in err
    if failures > allow:
        assert code == 1 and err.startswith(f"error: the agent failed on {failures} of ")
    else:
        assert code == 0 and err.startswith(f"warning: the agent failed on {failures} of ")
    assert all(replay(r) == len(r.steps) for r in records)  # the calls replay with the actions
    summary_file = json.loads((tmp_path / "rec" / "summary.json").read_text())
    assert summary_file["model_calls"] == calls and summary_file["unmeasured_requests"] == len(unmeasured)


@pytest.mark.parametrize("faults", [1, 2, 4])
def test_retries_are_counted_and_recorded(capsys, tmp_path, faults):
    with StubChatServer(lambda body: "Thanks for asking!") as srv:
        srv.fail_next(faults, "500")
        code, summary, err = _eval(capsys, srv.base_url, "--record", str(tmp_path / "rec"), "--agent-arg",
                                   "max_retries=4", episodes=3)
        hits = srv.chat_hits
    steps = [s for p in sorted((tmp_path / "rec").glob("seed-*.jsonl")) for s in read_record(p).steps]
    retried = [s.call for s in steps if s.call is not None and s.call.outcome == "retried"]
    assert code == 0 and err == "" and summary["unmeasured_requests"] == 0
    assert sum(len(c.retries) for c in retried) == faults == summary["model_calls"]["retries"]
    assert all(why == "HTTP 500: boom" for c in retried for why in c.retries)
    assert summary["model_calls"]["http_requests"] == hits == len(steps) + faults
    assert summary["model_calls"]["retried_calls"] == len(retried) >= 1


@pytest.mark.parametrize("answers", [1, 3, 7])
def test_a_server_that_dies_mid_run_stops_it_and_the_summary_says_so(capsys, tmp_path, answers):
    with StubChatServer(lambda body: "Thanks for asking!") as srv:
        srv.die_after(answers)
        code, summary, err = _eval(capsys, srv.base_url, "--record", str(tmp_path / "rec"), "--agent-arg",
                                   "stop_after=2", "--agent-arg", "max_retries=1", episodes=50)
        hits = srv.chat_hits
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith(f"error: the model server at {srv.base_url} failed 2 calls in a row; last: gave up "
                          "after 2 attempts: connection refused (the run stopped; 2 of ")
    saved = json.loads((tmp_path / "rec" / "summary.json").read_text())
    assert summary == saved and saved["aborted"] in err and hits == answers
    assert saved["model_calls"]["http_requests"] == answers + 2 * 2 and saved["model_calls"]["failed"] == 2
    assert saved["requests"] + saved["unmeasured_requests"] <= answers + 1


def test_die_at_once_after_the_health_check(capsys):
    with StubChatServer() as srv:
        srv.die_after(0)
        srv.close()
        code, _, err = _eval(capsys, srv.base_url)
    assert code == 1 and "failed a health check" in err and srv.chat_hits == 0


@pytest.mark.parametrize("choice", ["auto", "required", "none", "omit"])
def test_tool_choice_flag(capsys, choice):
    with StubChatServer(lambda body: "Thanks!") as srv:
        code, _, _ = _eval(capsys, srv.base_url, "--tool-choice", choice, episodes=1)
        bodies = srv.requests
    assert code == 0 and bodies and all(b.get("tool_choice", "omit") == choice for b in bodies if b.get("tools"))


def test_tool_choice_for_an_agent_without_it_is_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--agent", "null", "--tool-choice", "required", "--episodes", "1"])
    assert "tool_choice" in capsys.readouterr().err


@pytest.mark.parametrize("record", [False, True])
def test_run_of_a_stream_exits_nonzero_on_a_failed_call(capsys, tmp_path, record):
    with StubChatServer(lambda body: "Thanks for asking!") as srv:
        srv.fail_next(1, "garbage")
        extra = ["--record", str(tmp_path / "s.jsonl")] if record else []
        code, summary, err = _run(capsys, "run", "--agent", "openai", "--model", "stub", "--agent-arg",
                                  f"base_url={srv.base_url}", *FAST, "--json", *extra)
    assert code == 1 and err.startswith("error: the agent failed on 1 of ") and "malformed response" in err
    assert summary["unmeasured_requests"] == 1
    if record:
        rec = read_record(tmp_path / "s.jsonl")
        assert rec.end is not None and rec.end.summary["unmeasured_requests"] == 1
        assert sum(1 for s in rec.steps if s.unmeasured) == 1


# --- the judge ------------------------------------------------------------------------------------------------
@pytest.fixture
def small_set(tmp_path):
    from livesim.runs.calibration import CALIBRATION_PATH

    lines = [json.loads(x) for x in CALIBRATION_PATH.read_text().splitlines() if x.strip()]
    chosen = [{**d, "split": "test"} for d in lines if d["kind"] in ("paraphrase", "partial")][:6]
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in chosen))
    return str(path)


VERDICT = json.dumps({"accuracy": 1, "effectiveness": 1, "reason": "ok"})


def _calibrate(capsys, srv, small_set, *extra):
    return _run(capsys, "grader", "calibrate", "--set", small_set, "--judge", f"openai:{srv.base_url}:stub",
                "--json", *extra)


@pytest.mark.parametrize("answer,usable", [
    (VERDICT, True),
    ({"role": "assistant", "content": [{"type": "text", "text": VERDICT}]}, True),
    ({"role": "assistant", "content": [{"type": "text", "text": VERDICT[:20]}, {"type": "text",
                                                                                "text": VERDICT[20:]}]}, True),
    ("I think it is fine.", False),
    ("", False),
    (json.dumps({"accuracy": 3, "effectiveness": 1}), False),
])
def test_judge_verdicts_are_counted_and_most_missing_is_an_error(capsys, small_set, answer, usable):
    with StubChatServer(lambda body: answer) as srv:
        srv.usage = {"prompt_tokens": "900", "completion_tokens": "20"}
        code, res, err = _calibrate(capsys, srv, small_set)
    j = res["judge_calls"]
    assert j["calls"] == 6 and j["http_requests"] == 6 and j["failed_calls"] == 0
    if usable:
        assert code == 0 and err == "" and j["verdicts"] == res["n"] == 6 and res["no_verdict"] == 0
    else:
        assert code == 1 and j["unusable_answers"] == res["no_verdict"] == 6 and res["n"] == 0
        assert err == "error: the judge gave no verdict on 6 of 6 replies\n"


@pytest.mark.parametrize("failing", [1, 2, 3, 4])
def test_failed_judge_calls_are_left_out_and_shown(capsys, small_set, failing):
    with StubChatServer(lambda body: VERDICT) as srv:
        srv.fail_next(failing, "status", status=400, body="prompt too long")
        code, res, err = _calibrate(capsys, srv, small_set)
        srv.fail_next(failing, "status", status=400, body="prompt too long")
        code_text = main(["grader", "calibrate", "--set", small_set, "--judge", f"openai:{srv.base_url}:s"])
        text = capsys.readouterr().out
    j = res["judge_calls"]
    assert j["failed_calls"] == failing == res["no_verdict"] and res["n"] == 6 - failing
    assert j["first_error"] == "HTTP 400: prompt too long"
    assert code == code_text == (1 if failing * 2 > 6 else 0)
    assert (err != "") == (code == 1)
    assert f"replies: {6 - failing} (+{failing} without a verdict, left out)" in text
    assert "judge calls: 6, verdicts " in text


def test_a_judge_whose_every_call_fails_stops_with_one_line(capsys, small_set):
    with StubChatServer(lambda body: VERDICT) as srv:
        srv.fail_next(50, "status", status=422, body='{"detail": "unknown field"}')  # not retried: no waits
        code, _, err = _calibrate(capsys, srv, small_set, "--judge-timeout", "1")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "last: HTTP 422: unknown field" in err
    assert "failed 5 calls in a row" in err and srv.chat_hits == 5


def test_judge_timeout_bounds_each_request(capsys, small_set):
    with StubChatServer(lambda body: VERDICT) as srv:
        srv.fail_next(2, "timeout", delay=1.5)
        code, res, _ = _calibrate(capsys, srv, small_set, "--judge-timeout", "0.3")
        hits = srv.chat_hits
    j = res["judge_calls"]  # each slow answer is cut at 0.3 s, then retried if the call's deadline allows
    assert j["timeouts"] == 2 and j["http_requests"] == hits == j["calls"] + j["retries"]
    assert j["verdicts"] + j["failed_calls"] == 6 and code == 0


def test_judge_timeout_must_be_positive(capsys, small_set):
    assert main(["grader", "calibrate", "--judge", "openai:http://127.0.0.1:1/v1:m", "--judge-timeout",
                      "0"]) == 2
    assert "--judge-timeout must be > 0" in capsys.readouterr().err


def test_second_opinion_reports_its_failures(capsys, tmp_path):
    from livesim.runs.calibration import build_request, grade_text, load_items
    from livesim.runs.judge import uncertain

    unsure = [i for i in load_items(split="all") if i.kind == "partial"
              and uncertain(grade_text(build_request(i.seed, i.intent), i.reply))][:3]
    path = tmp_path / "unsure.jsonl"
    path.write_text("".join(json.dumps({**i.__dict__, "split": "test"}) + "\n" for i in unsure))
    with StubChatServer(lambda body: "no idea") as srv:
        code, res, err = _calibrate(capsys, srv, str(path), "--second-opinion")
        main(["grader", "calibrate", "--set", str(path), "--judge", f"openai:{srv.base_url}:s", "--second-opinion"])
        text = capsys.readouterr().out
    consulted = res["consulted"]
    assert consulted >= 1 and res["no_verdict_kept_rules"] == consulted and res["overruled"] == 0
    assert res["judge_calls"]["unusable_answers"] == consulted and res["n"] == 3  # the rules' verdicts kept
    assert code == 1 and f"no verdict on {consulted} of {consulted}" in err
    assert f"consulted on {consulted} replies, no verdict on {consulted} (the rules' verdict kept)" in text


# --- the dashboard and the record format ---------------------------------------------------------------------
def test_the_dashboard_counts_calls_and_shows_failed_and_retried_ones(capsys, tmp_path):
    from livesim.render.dashboard import DashboardState, frame_text, summary_rows

    with StubChatServer(lambda body: "Thanks for asking!") as srv:
        srv.fail_next(1, "500")
        srv.fail_next(1, "status", status=400, body="bad \x1b[31mred\x1b[0m request", after=2)
        code, summary, _ = _eval(capsys, srv.base_url, "--record", str(tmp_path / "rec"), "--max-agent-failures",
                                 "5", episodes=3)
    assert code == 0
    state, seen = DashboardState(), []
    for path in sorted((tmp_path / "rec").glob("seed-*.jsonl")):
        for line in read_record(path).lines():
            seen += [x for x in state.apply(line).host if x not in seen]  # the feed keeps only its last lines
    calls = summary["model_calls"]
    assert state.calls["failed"] == calls["failed"] == 1 and state.calls["retried"] == calls["retried_calls"] == 1
    assert state.calls["unmeasured"] == summary["unmeasured_requests"] == 1
    frame = frame_text(state, 160)
    assert f"calls {calls['calls']} (1 retried, 1 failed)" in frame and "1 not measured" in frame
    host = "\n".join(seen)
    assert "answered after 1 retries (HTTP 500: boom)" in host
    assert "MODEL   call failed after 1 attempt(s): HTTP 400: bad \\x1b[31mred\\x1b[0m request" in host
    assert "\x1b" not in host
    rows = dict(summary_rows(summary))
    assert rows["  requests not measured (left out)"] == 1
    assert rows["  HTTP requests (+ probes)"] == f"{calls['http_requests']} (+2)"


@pytest.mark.parametrize("call", [
    {"outcome": "answered"},
    {"outcome": "retried", "attempts": 3, "retries": ["timeout: no complete answer within 2s", "HTTP 503: busy"]},
    {"outcome": "failed", "attempts": 1, "error": "HTTP 400: context length"},
])
def test_a_step_with_its_call_round_trips_and_old_steps_still_read(call):
    from livesim.stream.records import ModelCall, StepRecord, dump_line

    base = {"step": 0, "clock_s": 1.0, "request_index": 0, "action": "hi", "harness_fingerprint": "f",
            "harness_version": 1}
    old = StepRecord.model_validate(base)
    assert old.call is None and old.unmeasured is None and "call" not in dump_line(old)
    new = StepRecord(**base, call=ModelCall(**call), unmeasured=call.get("error"))
    again = StepRecord.model_validate_json(dump_line(new))
    assert again == new and again.call.model_dump(exclude_defaults=True) == {k: v for k, v in call.items()
                                                                            if k != "attempts" or v != 1}
