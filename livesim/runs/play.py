"""Playing an agent over many episodes of any livesim env, batched, with optional records of every episode.

`play` is what `livesim eval` runs: a privileged agent (bound to one env) plays the episodes one after
another; any other agent acts on a batch of episodes at once through `act_batch`, for `LiveStreamQA-v0` and
`LiveStream-v0` alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from livesim.envs.rollout import mark_unmeasured
from livesim.runs.episode import EpisodeRecorder, agent_calls, reset_from_header
from livesim.stream.paths import PathProblem
from livesim.stream.records import RecordWriter


def play(make: Callable[[], Any], agent: Any, seeds: list[int], batch_size: int, privileged: bool,
         header: Callable[[int], Any] | None = None, record_dir: Path | None = None,
         on_request: Callable[[dict[str, Any]], None] | None = None,
         on_episode: Callable[[int], None] | None = None, first_env: Any = None) -> Iterator[dict[str, Any]]:
    """Play one episode per seed; yield each dispatched request's info (with `reward` and `episode_seed`).

    A privileged agent (bound to one env) plays the episodes one after another; any other agent acts on
    `batch_size` episodes at once through `act_batch`. With `record_dir`, every episode's record lines are
    written to `record_dir/seed-NNNNN.jsonl` as they happen (`header(seed)` gives each header). A request
    during which the agent's model call failed is yielded marked `unmeasured` (with the cause).
    """
    width = 1 if privileged else max(1, min(batch_size, len(seeds)))
    envs = [first_env if first_env is not None else make()] + [make() for _ in range(width - 1)]
    queue = list(seeds)
    live: dict[int, dict[str, Any]] = {}

    def start(i: int) -> None:
        s = queue.pop(0)
        slot: dict[str, Any] = {"seed": s, "writer": None, "rec": None}
        if header is not None:
            obs, first = reset_from_header(envs[i], header(s))
        else:
            obs, _ = envs[i].reset(seed=s)
        if record_dir is not None:
            slot["writer"] = RecordWriter(record_dir / f"seed-{s:05d}.jsonl")
            slot["writer"].write(first)
            slot["rec"] = EpisodeRecorder(envs[i], s)
        slot["obs"] = obs
        live[i] = slot
        if privileged:
            agent.reset()

    for i in range(width):
        if queue:
            start(i)
    try:
        while live:
            idx = sorted(live)
            for i in idx:
                if live[i]["rec"] is not None:
                    live[i]["rec"].before(live[i]["obs"])
            observations = [live[i]["obs"] for i in idx]
            actions = [agent.act(observations[0])] if privileged else agent.act_batch(observations)
            calls = agent_calls(agent, len(idx))
            for i, action, call in zip(idx, actions, calls, strict=True):
                slot = live[i]
                if call is not None and call.outcome == "failed":
                    slot["failed"] = slot.get("failed") or call.error or "failed call"
                obs, reward, terminated, truncated, info = envs[i].step(action)
                if slot["rec"] is not None:
                    slot["writer"].write(slot["rec"].after(action, reward, terminated, truncated, info, call))
                if info.get("dispatched"):
                    out = mark_unmeasured({**info, "reward": reward, "episode_seed": slot["seed"]},
                                          slot.pop("failed", None))
                    if on_request is not None:
                        on_request(out)
                    yield out
                slot["obs"] = obs
                if terminated or truncated:
                    if slot["writer"] is not None:  # the record is whole before the episode counts as done
                        slot["writer"].write(slot["rec"].end())
                        slot["writer"].close()
                    if on_episode is not None:
                        on_episode(slot["seed"])
                    del live[i]
                    if queue:
                        start(i)
    except PathProblem:  # one record the disk refused: the others stop short too, and none is left partial
        for slot in live.values():
            if slot["writer"] is not None:
                slot["writer"].discard()
        raise
    finally:
        for slot in live.values():
            if slot["writer"] is not None:
                slot["writer"].close()


def agent_failures(agent: Any) -> tuple[int, int, str | None]:
    """(failed calls, calls, first reason) from an agent's `stats['errors']` and `error_log`."""
    stats = getattr(agent, "stats", None) or {}
    errors, calls = int(stats.get("errors", 0) or 0), int(stats.get("observations", 0) or 0)
    log = getattr(agent, "error_log", None) or []
    return errors, calls, (log[0] if log else None)


def failure_verdict(agent: Any, tolerated: int = 0, summary: dict[str, Any] | None = None,
                    aborted: str | None = None) -> tuple[int, str | None]:
    """The exit status and the stderr line of a run, from its agent's failed calls: any failed call is an error
    (status 1) unless at most `tolerated` failed (`--max-agent-failures`, then a warning); `aborted` (the run
    stopped on `AgentUnavailable`) is always an error.
    """
    errors, calls, reason = agent_failures(agent)
    unmeasured = int((summary or {}).get("unmeasured_requests", 0) or 0)
    apart = (f"; {unmeasured} request{'' if unmeasured == 1 else 's'} not measured (left out of the means)"
             if unmeasured else "")
    if aborted:
        return 1, f"error: {aborted} (the run stopped; {errors} of {calls} calls failed{apart})"
    if not errors:
        return 0, None
    line = f"the agent failed on {errors} of {calls} calls{apart}" + (f"; first: {reason}" if reason else "")
    if errors > tolerated:
        return 1, f"error: {line}" + (f" (--max-agent-failures {tolerated})" if tolerated else "")
    return 0, f"warning: {line}"
