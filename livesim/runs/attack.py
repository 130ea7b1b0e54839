"""`livesim grader attack`: search for wrong replies the reward pays and right replies it zeroes, as RL would.

Per intent, `requests` `LiveStreamQA-v0` requests are reset from seeds, the look-ups a good answer needs are
played (the oracle's: reply skills and gold tool calls, through the presented harness), and the sim is
snapshotted; each query restores the snapshot and dispatches one reply, and the env's reward is all the search
sees. Replies are composed from labelled fragments (`attack_fragments`) by the evolutionary search of
`attack_search`: half the budget maximises the reward among wrong replies, half minimises it among right ones.
"""

from __future__ import annotations

import io
import pickle
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

from livesim.parsing import format_tool_call
from livesim.runs.attack_fragments import Pool, build_pool
from livesim.runs.attack_search import RIGHT_KEPT, WRONG_PAID, Search
from livesim.stream.procs import worker_pool
from livesim.world.intents import BUILDERS

ENV_ID = "LiveStreamQA-v0"
SEED_BASE = 5_000_000  # request seeds of the bench: SEED_BASE + 100_000 * seed + k, away from other benches' seeds


_SHARED = ("faker", "harness", "canonical", "config", "_events", "strategy", "_schemas", "_harness_blocks")


class _Pickler(pickle.Pickler):
    def __init__(self, buf: io.BytesIO, shared: dict[int, Any]) -> None:
        super().__init__(buf, protocol=pickle.HIGHEST_PROTOCOL)
        self.shared = shared

    def persistent_id(self, obj: Any) -> int | None:
        return id(obj) if id(obj) in self.shared else None


class _Unpickler(pickle.Unpickler):
    def __init__(self, buf: io.BytesIO, shared: dict[int, Any]) -> None:
        super().__init__(buf)
        self.shared = shared

    def persistent_load(self, pid: Any) -> Any:
        return self.shared[pid]


class EnvReward:
    """The env's reward for replies to one request: reset once, play the look-ups, snapshot; each query restores
    the snapshot and dispatches the reply (sent again while a hook holds it, until the env dispatches).
    """

    def __init__(self, env: Any, seed: int, intent: str) -> None:
        self.env, self.seed = env, seed
        env.reset(seed=seed, options={"intent": intent})
        sim = env.unwrapped.sim
        self.intent = sim.request.truth.intents[0]
        self._lookups(env.unwrapped)
        self.sim = sim
        # what a reply's step never changes (the presented and canonical harness, the config, the name generator)
        # is shared by every restored copy instead of copied: a third of the restore's cost
        self._shared = {id(v): v for k in _SHARED if (v := getattr(sim, k, None)) is not None}
        buf = io.BytesIO()
        _Pickler(buf, self._shared).dump(sim)
        self.snapshot = buf.getvalue()

    @staticmethod
    def _lookups(env: Any) -> None:
        """The reply skills and gold calls, in the presented harness's names, as the oracle plays them."""
        sim = env.sim
        h, truth = sim.harness, sim.request.truth
        calls = []
        for role in truth.skills:
            skill = h.reply_skill_for(role)
            calls.append(format_tool_call("load_skill", {"name": skill.name if skill else role}))
        for c in truth.calls:
            tool = h.tool_by_key(c.key)
            calls.append(format_tool_call(tool.name, h.to_presented_args(tool, c.arguments)) if tool
                         else format_tool_call(c.key, c.arguments))
        per_turn = h.prompt.limits.max_tool_calls
        for i in range(0, len(calls), per_turn):
            env.step("\n".join(calls[i:i + per_turn]))

    def __call__(self, text: str) -> float:
        env = self.env.unwrapped  # the step counter of gym.make's TimeLimit would span queries
        env.sim = _Unpickler(io.BytesIO(self.snapshot), self._shared).load()
        for _ in range(64):
            _, reward, terminated, _, _ = env.step(text)
            if terminated:
                return float(reward)
        raise RuntimeError(f"the reply was not dispatched after 64 tries (seed {self.seed})")


def requests_for(env: Any, intent: str, n: int, seed: int) -> list[EnvReward]:
    """`n` requests of `intent` (seeds whose request really has that intent), look-ups played."""
    out: list[EnvReward] = []
    s = SEED_BASE + 100_000 * seed
    while len(out) < n and s < SEED_BASE + 100_000 * seed + 50 * n + 100:
        r = EnvReward(env, s, intent)
        if r.intent == intent:
            out.append(r)
        s += 1
    if not out:
        raise ValueError(f"no request of intent {intent!r} found")
    return out


def attack_intent(intent: str, budget: int, seed: int = 0, requests: int = 8, run_ons: bool = False) -> dict[str, Any]:
    """Both searches on one intent: the best wrong reply (highest reward) and the worst right one (lowest);
    `run_ons`: replies may also run their statements together with no mark between.
    """
    t0 = time.perf_counter()
    env = gym.make(ENV_ID)
    reqs = requests_for(env, intent, requests, seed)
    pools: list[Pool] = [build_pool(r.sim) for r in reqs]
    ix = list(BUILDERS).index(intent) if intent in BUILDERS else 0
    out: dict[str, Any] = {"intent": intent, "seeds": [r.seed for r in reqs]}
    for k, target in enumerate(("wrong", "right")):
        s = Search(pools, lambda i, text: reqs[i](text), target, np.random.default_rng([seed, ix, k]), run_ons=run_ons)
        found = s.run(budget // 2 if target == "wrong" else budget - budget // 2)
        d = found.as_dict()
        if found.request >= 0:
            d["seed"] = reqs[found.request].seed
            d["comment"] = pools[found.request].request
        out[target] = d
    env.close()
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    return out


def run_attack(budget: int = 20_000, intents: list[str] | None = None, seed: int = 0, requests: int = 8,
               workers: int = 1, progress: bool = False, run_ons: bool = False) -> dict[str, Any]:
    """The bench over `intents` (default: all), `budget` env queries per intent, intents spread over `workers`."""
    names = intents or list(BUILDERS)
    unknown = [i for i in names if i not in BUILDERS]
    if unknown:
        raise ValueError(f"unknown intent(s) {unknown}; expected some of {list(BUILDERS)}")
    if budget < 2:
        raise ValueError(f"--budget must be >= 2 (queries per intent, half per search), got {budget}")
    if requests < 1:
        raise ValueError(f"--requests must be >= 1, got {requests}")
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    t0 = time.perf_counter()
    rows: dict[str, Any] = {}
    if workers == 1:
        for name in names:
            rows[name] = attack_intent(name, budget, seed, requests, run_ons)
            if progress:
                _progress(rows[name])
    else:
        with worker_pool(workers, "grader attack worker") as ex:  # the workers die with this process
            futures = {name: ex.submit(attack_intent, name, budget, seed, requests, run_ons) for name in names}
            for name in names:
                rows[name] = futures[name].result()
                if progress:
                    _progress(rows[name])
    queries = sum(r["wrong"]["queries"] + r["right"]["queries"] for r in rows.values())
    return {"env": ENV_ID, "budget": budget, "seed": seed, "requests": requests, "run_ons": run_ons, "queries": queries,
            "wall_s": round(time.perf_counter() - t0, 1), "intents": rows,
            "wrong_paid": sum((r["wrong"]["reward"] or 0) >= WRONG_PAID for r in rows.values()),
            "right_zeroed": sum(r["right"]["reward"] is not None and r["right"]["reward"] < RIGHT_KEPT
                                for r in rows.values())}


def _progress(row: dict[str, Any]) -> None:
    w, r = row["wrong"], row["right"]
    print(f"[attack] {row['intent']}: best wrong {w['reward']} ({w['queries']} queries), worst right {r['reward']} "
          f"({r['queries']} queries), {row['wall_s']} s", file=sys.stderr, flush=True)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " / ")


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def markdown(res: dict[str, Any]) -> str:
    """Per intent: the best wrong reply, its reward and the queries it took; the worst right reply and its reward."""
    run_ons = ", statements also run together" if res.get("run_ons") else ""
    lines = [f"{res['queries']} env queries ({res['budget']} per intent, {res['requests']} requests per intent, "
             f"seed {res['seed']}{run_ons}), {res['wall_s']} s. Intents with a wrong reply paid >= {WRONG_PAID}: "
             f"{res['wrong_paid']}/{len(res['intents'])}; with a right reply under {RIGHT_KEPT}: "
             f"{res['right_zeroed']}/{len(res['intents'])}.", "",
             "| intent | best wrong reply | reward | queries to find | wrong >= 0.5 | worst right reply | reward "
             "| queries to find | right < 0.9 |",
             "|---|---|---:|---:|---:|---|---:|---:|---:|"]
    for name, r in res["intents"].items():
        w, k = r["wrong"], r["right"]
        lines.append(f"| {name} | {_cell(w['reply'])} | {_num(w['reward'])} | {w['queries_to_find']} "
                     f"| {w['beyond_target']}/{w['queries']} | {_cell(k['reply'])} | {_num(k['reward'])} "
                     f"| {k['queries_to_find']} | {k['beyond_target']}/{k['queries']} |")
    return "\n".join(lines)
