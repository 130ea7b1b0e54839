import hashlib
import json
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from livesim.agents import make_agent
from livesim.envs import ENV_IDS
from livesim.grading.terms import WEIGHTS
from tests.conftest import play


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env warnings are failures here
        # but not Gymnasium's note that a v1 exists: v0 stays supported (its worlds are the goldens')
        warnings.filterwarnings("ignore", message=".*is out of date", category=DeprecationWarning)
        check_env(gym.make(env_id, render_mode="ansi").unwrapped, skip_render_check=False)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_vector_envs_run(env_id):
    for vec in (SyncVectorEnv([lambda: gym.make(env_id) for _ in range(2)]),
                AsyncVectorEnv([lambda: gym.make(env_id) for _ in range(2)], shared_memory=False)):
        obs, _ = vec.reset(seed=3)
        assert len(obs) == 2 and all("messages" in o for o in obs)
        for _ in range(3):
            obs, rew, term, trunc, info = vec.step(("", "hello"))
            assert rew.shape == (2,)
        vec.close()


def test_vector_observations_are_deep_copies_equal_to_the_single_env():
    """The batch deep copy (a pickle round trip, livesim.envs.spaces.ConversationBatch) gives plain, equal and
    independent observations: editing one returned batch changes neither the env's next batch nor a single
    env's observation for the same seed."""
    vec = SyncVectorEnv([lambda: gym.make("LiveStreamQA-v1") for _ in range(2)])
    single = gym.make("LiveStreamQA-v1")
    obs, _ = vec.reset(seed=[5, 6])
    ref, _ = single.reset(seed=5)
    assert type(obs) is tuple and type(obs[0]) is dict and obs[0] == ref
    obs[0]["messages"][0]["content"] = "edited"
    obs[0]["tools"].clear()
    again = vec.step(("hello", "hello"))[0]
    ref_step = single.step("hello")[0]
    assert again[0] == ref_step and again[0]["tools"] and again[0]["messages"][0]["content"] != "edited"
    assert again[0] is not obs[0] and again[0]["messages"] is not again[1]["messages"]
    vec.close()


def test_oracle_scores_full_marks_over_200_requests(oracle_qa):
    env, oracle = oracle_qa
    rewards, accuracy = [], []
    for seed in range(200):
        steps = play(env, oracle, seed=1000 + seed * 7)
        _, reward, info = steps[-1]
        rewards.append(reward)
        accuracy.append(info["grade"]["scores"]["accuracy"])
    assert np.mean(rewards) >= 0.99
    assert np.mean(accuracy) == 1.0


def test_null_scores_zero_on_every_request(qa_env):
    null = make_agent("null")
    for seed in range(200):
        for _, reward, info in play(qa_env, null, seed):
            assert reward == 0.0
            if info["dispatched"]:
                assert all(v == 0.0 for v in info["reward_terms"].values())


def test_random_scores_near_zero(qa_env):
    agent = make_agent("random", seed=1)
    rewards = [play(qa_env, agent, seed)[-1][1] for seed in range(100)]
    assert np.mean(rewards) < 0.05


def test_null_scores_zero_on_a_whole_stream():
    env = gym.make("LiveStream-v0")
    steps = play(env, make_agent("null"), seed=1)
    dispatched = [i for _, _, i in steps if i["dispatched"]]
    assert len(dispatched) > 10 and all(r == 0.0 for _, r, _ in steps)


def test_oracle_whole_stream():
    env = gym.make("LiveStream-v0")
    steps = play(env, make_agent("oracle", env=env), seed=2)
    rewards = [r for _, r, i in steps if i["dispatched"]]
    assert len(rewards) > 20 and np.mean(rewards) >= 0.99
    last = steps[-1][2]
    assert last["metrics"]["requests"] == len(rewards)


@pytest.mark.parametrize("agent_name,kwargs", [("oracle", {"error_rate": 0.5}), ("random", {"seed": 0}),
                                               ("oracle", {})])
def test_reward_terms_sum_to_reward(agent_name, kwargs):
    env = gym.make("LiveStream-v0")
    agent = make_agent(agent_name, **({"env": env} if agent_name == "oracle" else {}), **kwargs)
    for _, reward, info in play(env, agent, seed=5):
        assert set(info["reward_terms"]) == set(WEIGHTS)
        assert abs(sum(info["reward_terms"].values()) - reward) < 1e-9


def test_imperfect_oracle_produces_hook_retries_and_recovers():
    env = gym.make("LiveStreamQA-v0")
    oracle = make_agent("oracle", env=env, error_rate=1.0, seed=0)
    retried, rewards = 0, []
    for seed in range(40):
        _, reward, info = play(env, oracle, seed)[-1]
        retried += bool(info["trace"]["hook_failures"]) or info["trace"]["parse_errors"] > 0
        rewards.append(reward)
        assert info["grade"]["scores"]["accuracy"] == 1.0
    assert retried >= 30
    assert 0.85 < np.mean(rewards) < 1.0


def test_observation_is_fresh_and_grows_within_a_request(oracle_qa):
    env, oracle = oracle_qa
    obs, _ = env.reset(seed=0)
    obs["messages"].append({"role": "user", "content": "tampered"})
    obs2, *_ = env.step(oracle.act(env.reset(seed=0)[0]))
    assert all(m.get("content") != "tampered" for m in obs2["messages"])
    first, _ = env.reset(seed=0)
    second, *_ = env.step(oracle.act(first))
    assert second["messages"][: len(first["messages"])] == first["messages"]
    assert env.observation_space.contains(second)


def _trajectory_digest(seed: int) -> str:
    env = gym.make("LiveStream-v0")
    steps = play(env, make_agent("oracle", env=env, error_rate=0.3, seed=1), seed=seed)
    return hashlib.sha256(json.dumps([s[2] for s in steps], sort_keys=True).encode()).hexdigest()


def test_same_seed_same_trajectory_in_process_and_across_processes():
    here = _trajectory_digest(11)
    assert here == _trajectory_digest(11)
    assert here != _trajectory_digest(12)
    code = "from tests.envs.test_envs import _trajectory_digest; print(_trajectory_digest(11))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "12345", "PATH": ""}, cwd=".")
    assert out.stdout.strip() == here


ACTIONS = st.one_of(
    st.text(max_size=2000),
    st.binary(max_size=500).map(lambda b: b.decode("latin-1")),
    st.sampled_from(["", "<tool_call>", "<tool_call>{\"name\": \"nope\", \"arguments\": {}}</tool_call>",
                     "<tool_call>{\"name\": \"get_price\", \"arguments\": {\"link\": \"abc\"}}</tool_call>",
                     "<tool_call>{\"name\": \"get_price\", \"arguments\": {\"link\": 99999}}</tool_call>",
                     "<tool_call>{\"name\": \"check_stock\", \"arguments\": [1, 2]}</tool_call>",
                     "{\"name\": \"load_skill\", \"arguments\": {\"name\": 5}}", "get_price(link=None)",
                     "x" * 70000, "\x00\x01\x02", "🙂" * 300, "{" * 5000]),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": st.one_of(st.none(), st.text(max_size=50)),
                           "tool_calls": st.lists(st.fixed_dictionaries({
                               "id": st.text(max_size=5), "type": st.just("function"),
                               "function": st.fixed_dictionaries({"name": st.text(max_size=20),
                                                                  "arguments": st.text(max_size=40)})}),
                               max_size=3)}),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=st.lists(ACTIONS, min_size=1, max_size=6), seed=st.integers(0, 10_000))
def test_any_action_is_legal(actions, seed):
    for env_id in ENV_IDS:
        env = gym.make(env_id)
        obs, _ = env.reset(seed=seed)
        for a in actions:
            obs, reward, term, trunc, info = env.step(a)
            assert env.observation_space.contains(obs)
            assert np.isfinite(reward)
            if term:
                break
