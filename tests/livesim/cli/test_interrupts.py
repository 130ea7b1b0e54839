"""Ctrl-C (SIGINT sent to a real `livesim` process): one line, no traceback, exit 130; an interrupted
`eval --record` leaves a summary of what finished, and `--resume` completes it to what an uninterrupted run gives."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

AGENT = '''
import time
from pathlib import Path


class SlowAgent:
    """Greets after `delay` seconds (slow enough to be interrupted mid-run; deterministic replies)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def act(self, observation):
        Path("acted").touch()  # the run is under way (an interrupt during start-up imports is another matter)
        time.sleep(self.delay)
        return "Hi, welcome to the stream! Have a look at the pinned link."
'''


def _livesim(*argv: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}
    return subprocess.Popen([sys.executable, "-m", "livesim.cli", *argv], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _interrupt_when(proc: subprocess.Popen, ready, timeout: float = 60.0) -> tuple[int, str, str]:
    """Send SIGINT once `ready()` holds (or the process ended); return (exit status, stdout, stderr)."""
    t0 = time.monotonic()
    while not ready() and proc.poll() is None and time.monotonic() - t0 < timeout:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.is_file() else 0


@pytest.fixture
def agent_file(tmp_path: Path) -> str:
    (tmp_path / "slow_agent.py").write_text(AGENT)
    return "slow_agent.py:SlowAgent"


@pytest.mark.parametrize("finished_before", [1, 4])
def test_interrupted_eval_record_summarises_what_finished_and_resumes(tmp_path, agent_file, finished_before):
    rec = tmp_path / "rec"
    base = ["eval", "--agent", agent_file, "--record", "rec", "--quiet", "--json"]
    proc = _livesim(*base, "--episodes", "400", "--agent-arg", "delay=0.05", cwd=tmp_path)
    code, out, err = _interrupt_when(proc, lambda: _lines(rec / "progress.ndjson") >= finished_before)
    assert code == 130 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("interrupted: ") and "--resume" in err and out == ""
    summary = json.loads((rec / "summary.json").read_text())
    done = summary["episodes_done"]
    assert summary["interrupted"] is True and done >= finished_before and summary["requests"] == done
    assert summary["episodes"] == 400
    # without --resume (or --force) the folder is still refused, and the message names the way on
    refused = subprocess.run([sys.executable, "-m", "livesim.cli", *base, "--episodes", "3"], cwd=tmp_path,
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "--resume" in refused.stderr and "Traceback" not in refused.stderr
    # the rerun plays only what is missing; its summary is the one an uninterrupted run gives
    total = done + 3
    resumed = subprocess.run([sys.executable, "-m", "livesim.cli", *base, "--episodes", str(total), "--resume"],
                             cwd=tmp_path, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    got = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert got["interrupted"] is False and got["resumed_after"] == done and got["requests"] == total
    assert sorted(p.name for p in rec.glob("seed-*.jsonl")) == [f"seed-{s:05d}.jsonl" for s in range(total)]
    fresh = subprocess.run([sys.executable, "-m", "livesim.cli", "eval", "--agent", agent_file, "--record", "fresh",
                            "--quiet", "--json", "--episodes", str(total)],
                           cwd=tmp_path, capture_output=True, text=True)
    want = json.loads(fresh.stdout.strip().splitlines()[-1])
    for key in ("mean_reward", "accuracy", "terms", "scores", "pass_rate", "by_intent", "turns_mean", "requests"):
        assert got[key] == want[key], key


def test_resume_refuses_a_folder_of_another_run(tmp_path, agent_file):
    base = ["eval", "--record", "rec", "--quiet", "--json", "--episodes", "2"]
    assert subprocess.run([sys.executable, "-m", "livesim.cli", *base, "--agent", agent_file], cwd=tmp_path,
                          capture_output=True).returncode == 0
    other = subprocess.run([sys.executable, "-m", "livesim.cli", *base, "--agent", "oracle", "--resume"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert other.returncode == 2 and "another run" in other.stderr and "agent" in other.stderr


def test_interrupted_eval_without_record_is_one_line(tmp_path, agent_file):
    proc = _livesim("eval", "--agent", agent_file, "--episodes", "400", "--agent-arg", "delay=0.05", cwd=tmp_path)
    code, out, err = _interrupt_when(proc, lambda: (tmp_path / "acted").exists())
    assert code == 130 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.strip().startswith("interrupted: ") and "of 400 episodes finished" in err


def test_interrupted_dashboard_is_one_line(tmp_path):
    proc = _livesim("run", "--scenario", "flash-sale-rush", "--agent", "oracle", "--dashboard", "--speed", "1",
                    "--record", "r.jsonl", cwd=tmp_path)
    code, out, err = _interrupt_when(proc, lambda: _lines(tmp_path / "r.jsonl") >= 2)  # the stream is playing
    assert code == 130 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "interrupted"
