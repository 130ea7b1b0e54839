"""Children die with their parent: a worker pool (`livesim.stream.procs.worker_pool`, used by `hat collect --workers`,
evaluation workers and `hat reproduce --eval-workers`), `hat collect --workers N` itself and a `scripts/gpu_run.py`
part leave no process behind when the parent is ended by SIGTERM, SIGKILL or Ctrl-C.

Each parent runs in a session of its own, so every process it started (workers, the resource tracker) can be
found by session id after it is killed; the test then waits for them to go and fails if one is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def _wait_gone(pids: Callable[[], list[int]], limit: float = 30.0) -> list[int]:
    end = time.monotonic() + limit
    while (left := pids()) and time.monotonic() < end:
        time.sleep(0.2)
    return left


def _kill(proc: subprocess.Popen[bytes], how: str) -> None:
    if how == "ctrl-c":  # the terminal sends SIGINT to the whole foreground group
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal({"sigterm": signal.SIGTERM, "sigkill": signal.SIGKILL}[how])
    proc.wait(60)


KILLS = ["sigterm", "sigkill", "ctrl-c"]

_POOL = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from livesim.stream.procs import worker_pool

    def work(folder):
        Path(folder, str(os.getpid())).write_text("")
        time.sleep(120)

    if __name__ == "__main__":
        folder = sys.argv[1]
        with worker_pool(2, "test worker") as pool:
            futures = [pool.submit(work, folder) for _ in range(4)]
            while len(os.listdir(folder)) < 2:
                time.sleep(0.05)
            print("ready", flush=True)
            for f in futures:
                f.result()
""")


@pytest.mark.parametrize("how", KILLS)
def test_a_worker_pool_dies_with_its_parent(tmp_path: Path, how: str, session) -> None:
    script = tmp_path / "parent.py"
    script.write_text(_POOL)
    started = tmp_path / "started"
    started.mkdir()
    proc = subprocess.Popen([sys.executable, str(script), str(started)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, cwd=ROOT)
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    workers = [int(p) for p in os.listdir(started)]
    assert len(session(proc.pid)) >= 3  # the parent, two workers (and the resource tracker)
    _kill(proc, how)
    assert _wait_gone(lambda: session(proc.pid)) == []
    assert not any(_alive(p) for p in workers)


@pytest.mark.parametrize("how", [pytest.param(k, marks=[] if k == "sigkill" else [pytest.mark.slow]) for k in KILLS])
def test_hat_collect_workers_die_with_it_and_say_what_was_left(tmp_path: Path, how: str, session) -> None:
    out = tmp_path / "exp"
    cmd = ["hat", "collect", "--out", str(out), "--episodes", "4000", "--workers", "2", "--teacher", "oracle",
           "--quiet"]
    proc = subprocess.Popen([sys.executable, "-m", "livesim.cli", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, cwd=tmp_path)
    end = time.monotonic() + 120
    while len(session(proc.pid)) < 3 and time.monotonic() < end and proc.poll() is None:  # the workers are up
        time.sleep(0.2)
    assert proc.poll() is None and len(session(proc.pid)) >= 3
    _kill(proc, how)
    assert _wait_gone(lambda: session(proc.pid)) == []
    assert not out.exists() and not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]
    if how != "sigkill":  # what it left and where (a SIGKILL leaves no chance to say anything)
        assert proc.stderr is not None
        assert f"interrupted: --out {out} was not created" in proc.stderr.read().decode()


_PART = textwrap.dedent("""
    import os, subprocess, sys, time
    from pathlib import Path
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    Path(sys.argv[1]).write_text(f"{os.getpid()} {child.pid}")
    time.sleep(120)
""")

_GPU_RUN = textwrap.dedent("""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(sys.argv[1]) / "scripts"))
    import gpu_run
    from livesim.stream.procs import sigterm_as_exit
    with sigterm_as_exit():
        gpu_run.run_part("part", 600, [sys.executable, "-c", sys.argv[2], sys.argv[3]], Path(sys.argv[4]))
""")


@pytest.mark.parametrize("how", KILLS)
def test_a_gpu_run_part_and_its_children_die_with_the_script(tmp_path: Path, how: str, session) -> None:
    pids = tmp_path / "pids"
    proc = subprocess.Popen([sys.executable, "-c", _GPU_RUN, str(ROOT), _PART, str(pids), str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, cwd=ROOT)
    end = time.monotonic() + 60
    while not (pids.exists() and pids.read_text()) and time.monotonic() < end:
        time.sleep(0.1)
    part, child = map(int, pids.read_text().split())
    assert _alive(part) and _alive(child)
    _kill(proc, how)
    assert _wait_gone(lambda: [p for p in (part, child) if _alive(p)]) == []
    assert _wait_gone(lambda: session(proc.pid)) == []
    if how != "sigkill":
        assert proc.stderr is not None and "interrupted during part" in proc.stderr.read().decode()
