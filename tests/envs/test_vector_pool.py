"""PooledVectorEnv: several sub-envs per worker process, the same results as SyncVectorEnv."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv

import livesim  # noqa: F401
from livesim.envs.vector import PooledVectorEnv

ACTIONS = ("Hi there, thanks for watching! Let me check that for you.", "",
           '<tool_call>{"name": "load_skill", "arguments": {"name": "nope"}}</tool_call>', "hello")


def _same_infos(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], dict):
            _same_infos(a[k], b[k])
        else:
            assert np.array_equal(np.asarray(a[k]), np.asarray(b[k])), k
            assert np.asarray(a[k]).dtype == np.asarray(b[k]).dtype, k


@pytest.mark.parametrize("env_id", ["LiveStreamQA-v1", "LiveStream-v0"])
def test_pool_returns_what_sync_returns(env_id):
    n = 5  # an uneven split: workers of 2 and 3 envs
    pool = PooledVectorEnv([lambda: gym.make(env_id) for _ in range(n)], num_workers=2)
    sync = SyncVectorEnv([lambda: gym.make(env_id) for _ in range(n)])
    assert pool.observation_space == sync.observation_space and pool.action_space == sync.action_space
    (po, pi), (so, si) = pool.reset(seed=11), sync.reset(seed=11)
    assert po == so
    _same_infos(pi, si)
    ended = 0
    for t in range(40):  # enough steps for QA episodes to end and autoreset
        actions = tuple(ACTIONS[(t + i) % len(ACTIONS)] for i in range(n))
        p, s = pool.step(actions), sync.step(actions)
        assert p[0] == s[0]
        for a, b in zip(p[1:4], s[1:4], strict=True):
            assert np.array_equal(a, b) and a.dtype == b.dtype
        _same_infos(p[4], s[4])
        ended += int(p[2].sum() + p[3].sum())
    assert ended > 0 or env_id.startswith("LiveStream-")
    pool.close()
    sync.close()
    assert pool.closed


def test_pool_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="num_workers"):
        PooledVectorEnv([lambda: gym.make("LiveStreamQA-v1")], num_workers=2)
    with pytest.raises(ValueError, match="at least one"):
        PooledVectorEnv([], num_workers=1)
    pool = PooledVectorEnv([lambda: gym.make("LiveStreamQA-v1") for _ in range(2)], num_workers=2)
    pool.reset(seed=0)
    with pytest.raises(ValueError, match="expected 2 actions"):
        pool.step(("a", "b", "c"))
    with pytest.raises(ValueError, match="reset_mask"):
        pool.reset(seed=0, options={"reset_mask": np.array([True, False])})
    pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        pool.step(("a", "b"))


class _Boom(gym.Env):
    observation_space = gym.spaces.Discrete(2)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return 0, {}

    def step(self, action):
        if action == 1:
            raise ValueError("boom in the sub-env")
        return 0, 0.0, False, False, {}


def test_a_failing_sub_env_raises_in_the_main_process_and_closes_the_pool():
    pool = PooledVectorEnv([_Boom for _ in range(4)], num_workers=2)
    pool.reset(seed=0)
    obs, rew, *_ = pool.step(np.array([0, 0, 0, 0]))
    assert list(obs) == [0, 0, 0, 0] and list(rew) == [0.0] * 4
    with pytest.raises(RuntimeError, match="worker 1: ValueError: boom in the sub-env"):
        pool.step(np.array([0, 0, 0, 1]))
    assert pool.closed and not any(p.is_alive() for p in pool._procs)


def test_the_oracle_plays_inside_pool_workers_for_full_marks():
    from livesim.agents.oracle import with_oracle

    pool = PooledVectorEnv([lambda: with_oracle(gym.make("LiveStreamQA-v1")) for _ in range(4)], num_workers=2)
    pool.reset(seed=0)
    done = np.zeros(4, dtype=bool)
    finals = []
    for _ in range(20):
        _, rew, term, trunc, _ = pool.step(pool.call("oracle_action"))
        finals += [r for r, d, t in zip(rew, done, term | trunc, strict=True) if t and not d]
        done |= term | trunc
        if done.all():
            break
    assert done.all() and finals == [1.0] * 4
    assert pool.get_attr("spec")[0].id == "LiveStreamQA-v1"
    pool.close()


class _Infos(gym.Env):
    """Each sub-env reports different info keys, types and nesting (set by its reset seed)."""

    observation_space = gym.spaces.Discrete(3)
    action_space = gym.spaces.Discrete(3)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.k = int(seed or 0)
        return self.k % 3, self._info(0)

    def _info(self, t):
        info = {"arr": np.full(2, self.k + t, dtype=np.float32)}
        if self.k % 2:
            info["a"] = self.k + t
        else:
            info["nested"] = {"c": 1.5 * t, **({"deep": {"z": True}} if self.k % 4 == 0 else {})}
        if self.k == 3:
            info["o"] = f"text {t}"
        return info

    def step(self, action):
        return int(action), float(action), bool(action == 2), False, self._info(int(action))


def test_pool_infos_of_mixed_keys_equal_sync():
    pool = PooledVectorEnv([_Infos for _ in range(7)], num_workers=3)
    sync = SyncVectorEnv([_Infos for _ in range(7)])
    (po, pi), (so, si) = pool.reset(seed=0), sync.reset(seed=0)
    assert np.array_equal(po, so)
    _same_infos(pi, si)
    assert list(pi) == list(si)  # the same key order
    for t in range(5):
        actions = np.array([(t + i) % 3 for i in range(7)])
        p, s = pool.step(actions), sync.step(actions)
        for a, b in zip(p[:4], s[:4], strict=True):
            assert np.array_equal(a, b)
        _same_infos(p[4], s[4])
        assert list(p[4]) == list(s[4])
    pool.close()
