"""The dashboard: a fixed state renders to the golden text; record lines fold into the state; play modes."""

from __future__ import annotations

import io

import gymnasium as gym
from rich.console import Console

import livesim  # noqa: F401
from livesim.cli import main
from livesim.render.dashboard import DashboardState, example_state, frame_text, render
from livesim.runs.live import play
from livesim.runs.replay import GOLDEN_DIR, GOLDEN_FRAME, golden_path
from livesim.stream.records import read_record


def _text(state: DashboardState) -> str:
    console = Console(file=io.StringIO(), width=100)
    console.print(render(state))
    return console.file.getvalue()


def test_render_of_a_fixed_state_is_the_golden_frame():
    expected = (GOLDEN_DIR / GOLDEN_FRAME).read_text(encoding="utf-8")
    assert _text(example_state()) == expected, "regenerate deliberately with: livesim golden --regenerate"
    assert frame_text(example_state()) == expected
    for needle in ("chat", "host: said, skills, tools, replies", "harness", "room & promotions", "metrics",
                   "flash   link 1: 599 until 01:20", "tool    lookup_live_price(link=1)", "FAILED  check_stock",
                   "BLOCKED numbers_traceable", "said    Link 1 is 599 yuan, 42 left", "#11 00:45 Eric",
                   "-> Jimmy, Eric, phyllis19: Link", "for 20 off over 199!", "terms   acc 0.30",
                   "latency P50/95 2.31 / 3.48 s", "GMV            1797", "version 2"):
        assert needle in expected, needle
    assert all(len(line) <= 100 for line in expected.splitlines())


def test_render_is_pure():
    state = example_state()
    assert _text(state) == _text(state)
    assert state == example_state()


def test_record_lines_fold_into_the_state():
    record = read_record(golden_path("tool-rename-skill-rewrite"))
    state = DashboardState()
    for line in record.lines():
        state.apply(line)
    assert state.title == "tool-rename-skill-rewrite" and state.agent == "oracle" and state.seed == 3
    assert state.harness_version > 1 and "item-knowledge" in (state.last_patch or "")
    assert state.summary is not None and state.metrics["requests"] == record.end.summary["requests"]
    assert any("lookup_live_price" in h for h in state.host)
    assert len(state.chat) == 8 and state.room is not None
    assert "done" in frame_text(state).splitlines()[0]


def test_frames_mode_prints_evenly_spaced_frames_and_the_summary():
    console = Console(file=io.StringIO(), width=100)
    record = read_record(golden_path("flash-sale-rush"))
    play(record.lines(), console, frames=3)
    out = console.file.getvalue()
    assert out.count("╭─ chat") == 3
    assert f"step {len(record.steps)}" in out and "step 1 " in out
    assert "mean reward" in out and "latency P95 (s)" in out


def test_step_mode_waits_for_enter_and_q_runs_to_the_end():
    console = Console(file=io.StringIO(), width=100)
    answers = iter(["", "", "q"])
    state = play(read_record(golden_path("flash-sale-rush")).lines(), console, step=True, read=lambda: next(answers))
    out = console.file.getvalue()
    assert out.count("╭─ chat") == 4  # three steps shown, then the final frame
    assert state.summary is not None


def test_live_mode_paces_by_the_stream_clock():
    console = Console(file=io.StringIO(), width=100, force_terminal=True)
    waits: list[float] = []
    record = read_record(golden_path("prompt-injection-raid"))
    play(record.lines(), console, speed=20.0, live=True, sleep=waits.append)
    assert len(waits) == len(record.steps)
    assert 0 < sum(waits) <= record.header.config.duration_s / 20.0 + 0.5


def test_no_live_view_and_dashboard_run_print_the_final_frame(capsys):
    assert main(["view", str(golden_path("flash-sale-rush")), "--no-live"]) == 0
    out = capsys.readouterr().out
    assert out.count("╭─ chat") == 1 and "done" in out and "mean reward" in out
    assert main(["run", "--scenario", "flash-sale-rush", "--agent", "oracle", "--dashboard", "--speed", "20"]) == 0
    out = capsys.readouterr().out  # no terminal under pytest: final frame and summary, no animation
    assert out.count("╭─ chat") == 1 and "flash-sale-rush" in out and "GMV" in out


def test_env_render_uses_the_dashboard(capsys):
    env = gym.make("LiveStream-v0", render_mode="ansi")
    env.reset(seed=1)
    env.step('<tool_call>{"name": "get_price", "arguments": {"link": 1}}</tool_call>')
    text = env.render()
    assert isinstance(text, str) and "╭─ chat" in text and "tool    get_price(link=1)" in text
    human = gym.make("LiveStream-v0", render_mode="human")
    human.reset(seed=1)
    human.step("hello")
    assert "╭─ chat" in capsys.readouterr().out
