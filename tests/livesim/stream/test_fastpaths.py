"""The fast paths: exact replacements of numpy/Faker draws, the shared harness, observation copies, the v1 world."""

import hashlib
import json
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from faker import Faker

import livesim  # noqa: F401
from livesim.agents import make_agent
from livesim.harness import default_harness
from livesim.harness.fastcopy import fresh
from livesim.harness.shared import shared_default_harness
from livesim.stream.sim import StreamSim
from livesim.world.draws import FakerLastName, WeightedIndex, pick, sample_without_replacement, seeded_rng
from livesim.world.v1 import BlockRNG, LazyViewers
from tests.conftest import play

# sha256 of the catalogue, strategy and viewers of StreamSim(seed) for seeds 0..5, computed with the tree before
# the fast paths (commit 163b50a): v0 worlds must stay byte for byte.
V0_WORLD_DIGEST = "b117897f0e434c4c"


def _world_digest(world: int) -> str:
    h = hashlib.sha256()
    for seed in range(6):
        sim = StreamSim(seed, world=world)
        h.update(sim.catalog.model_dump_json().encode())
        h.update(json.dumps([e.model_dump(mode="json") for e in sim.strategy]).encode())
        h.update(json.dumps([v.model_dump(mode="json") for v in sim.viewers]).encode())
    return h.hexdigest()[:16]


def test_v0_worlds_are_the_bytes_they_were():
    assert _world_digest(0) == V0_WORLD_DIGEST


def test_v1_world_is_a_pure_function_of_the_seed_in_any_process():
    here = _world_digest(1)
    assert here == _world_digest(1) != V0_WORLD_DIGEST
    code = "from tests.livesim.stream.test_fastpaths import _world_digest; print(_world_digest(1))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "7", "PATH": ""}, cwd=".")
    assert out.stdout.strip() == here


@pytest.mark.parametrize("seed", range(40))
def test_exact_sampling_without_replacement_matches_numpy(seed):
    for n in range(1, 10):
        for k in range(n + 1):
            a, b = np.random.default_rng([seed, n, k]), np.random.default_rng([seed, n, k])
            a.integers(5), b.integers(5)  # a half-used 32-bit buffer must carry over too
            assert [int(i) for i in a.choice(n, size=k, replace=False)] == sample_without_replacement(b, n, k)
            assert a.random() == b.random() and a.integers(1000) == b.integers(1000)


@pytest.mark.parametrize("key", [(0, 7, 0), (5, 11), (12345, 7, 3, 1), (2**32, 0, 1), (2**32 - 1, 8, 2**32),
                                 (2**40 + 5, 7, 3), (3 * 2**64 + 9, 0), (np.int64(17), 7, np.uint32(4))])
def test_seeded_rng_is_default_rng_of_the_list(key):
    a, b = np.random.default_rng(list(key)), seeded_rng(*key)
    assert a.bit_generator.state == b.bit_generator.state
    assert a.random() == b.random() and a.integers(1000) == b.integers(1000)


def test_pick_is_numpys_choice_of_a_list():
    for seed in range(500):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        a.integers(7), b.integers(7)  # a half-used 32-bit buffer must carry over too
        for items in ([10, 20, 30], [99, 149, 199], [50, 80], ["x"], list(range(17))):
            assert a.choice(items) == pick(b, items)
        assert a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize(("key", "error"), [((-1, 7), ValueError), ((1.5, 7), TypeError)])
def test_seeded_rng_rejects_what_numpy_rejects(key, error):
    for make in (lambda: np.random.default_rng(list(key)), lambda: seeded_rng(*key)):
        with pytest.raises(error):
            make()


def test_exact_weighted_index_and_faker_names():
    p = np.array([0.26, 0.2, 0.18, 0.14, 0.07, 0.15])
    pick = WeightedIndex(p)
    for seed in range(300):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        assert [int(a.choice(6, p=p)) for _ in range(5)] == [pick(b) for _ in range(5)]
    f1, f2, last = Faker("en_US"), Faker("en_US"), FakerLastName()
    for seed in range(50):
        f1.seed_instance(seed)
        f2.seed_instance(seed)
        assert [f1.last_name() for _ in range(5)] == [last(f2) for _ in range(5)]


def test_block_rng_draws_are_in_range():
    rng = BlockRNG(np.random.default_rng(0), block=16)  # small blocks: refills happen
    ints = [rng.integers(3, 7) for _ in range(500)]
    assert set(ints) == {3, 4, 5, 6}
    assert all(0 <= rng.random() < 1 for _ in range(100))
    assert sorted(rng.permutation(6)) == list(range(6))
    picks = rng.choice(5, size=3, replace=False)
    assert len(set(picks)) == 3 and all(0 <= x < 5 for x in picks)
    with pytest.raises(ValueError, match="high <= low"):
        rng.integers(3, 3)


def test_lazy_viewers_build_on_demand_and_count_the_active():
    sim = StreamSim(4, world=1)
    viewers = sim.viewers
    assert isinstance(viewers, LazyViewers) and len(viewers) == sim.config.n_viewers
    assert sum(v is not None for v in viewers._built) == 0
    v = viewers[7]
    assert viewers[7] is v and v.viewer_id == "v0007" and len(set(v.interests)) == 2
    v.active = False
    assert viewers.active_count() == len(viewers) - 1
    assert viewers[-1].viewer_id == f"v{len(viewers) - 1:04d}"
    with pytest.raises(IndexError):
        viewers[len(viewers)]


def test_fresh_copies_are_independent():
    data = {"messages": [{"role": "user", "content": "x", "tool_calls": [{"id": "1"}]}], "tools": [{"a": (1, 2)}]}
    copy = fresh(data)
    assert copy == data
    copy["messages"][0]["tool_calls"][0]["id"] = "2"
    copy["messages"].append({})
    assert data["messages"][0]["tool_calls"][0]["id"] == "1" and len(data["messages"]) == 1


def test_the_shared_default_harness_is_never_changed_by_episodes():
    from livesim.envs.hsa import make_wrappers

    expected = default_harness().fingerprint
    env = make_wrappers(gym.make("LiveStreamQA-v1"), "hsa", split="train")
    oracle = make_agent("oracle", env=env)
    for seed in range(5):
        play(env, oracle, seed)
    sim = StreamSim(0)
    assert sim.canonical is shared_default_harness()[0]
    assert sim.canonical.fingerprint == shared_default_harness()[1] == expected


def test_observations_do_not_share_mutable_parts():
    env = gym.make("LiveStreamQA-v1")
    obs, _ = env.reset(seed=1)
    obs["tools"][0]["function"]["name"] = "tampered"
    obs["messages"][0]["content"] = "tampered"
    again, *_ = env.step("hello")
    assert again["tools"][0]["function"]["name"] != "tampered"
    assert again["messages"][0]["content"] != "tampered"


def test_oracle_scores_full_marks_in_v1():
    env = gym.make("LiveStreamQA-v1")
    oracle = make_agent("oracle", env=env)
    rewards = [play(env, oracle, seed=2000 + s)[-1][1] for s in range(100)]
    assert np.mean(rewards) >= 0.99
    stream = gym.make("LiveStream-v1")
    steps = play(stream, make_agent("oracle", env=stream), seed=3)
    dispatched = [r for _, r, i in steps if i["dispatched"]]
    assert len(dispatched) > 20 and np.mean(dispatched) >= 0.99


def test_percentiles_are_numpys_to_the_bit():
    from livesim.stream.config import percentiles

    rng = np.random.default_rng(4)
    cases = [[0.0], [1.5, 1.5], [3.0, 1.0], [0.1, 0.2, 0.30000000000000004]]
    for n in list(range(1, 60)) + [97, 200, 1001]:
        cases.append(rng.exponential(3.0, n).tolist())
        cases.append(np.round(rng.uniform(0, 12, n), 1).tolist())  # ties
        cases.append(rng.integers(0, 5, n).astype(float).tolist())
    for values in cases:
        got = percentiles(values, (50, 95))
        want = [float(x) for x in np.percentile(values, [50, 95])]
        assert [x.hex() for x in got] == [x.hex() for x in want], (values, got, want)
        assert all(type(x) is float for x in got)
    assert percentiles([5.0, 1.0, 9.0], (0, 100)) == [1.0, 9.0]


def test_metrics_summary_percentiles_follow_the_latencies_as_they_come():
    from livesim.stream.config import Metrics

    rng = np.random.default_rng(5)
    m = Metrics()
    for _ in range(120):
        m.latencies.append(float(np.round(rng.exponential(2.0), 1)))  # ties too
        s = m.summary(0)
        want = [float(x) for x in np.percentile(m.latencies, [50, 95])]
        assert [s["latency_p50"], s["latency_p95"]] == want
    m.latencies = [9.0, 1.0, 5.0]  # a replaced list is sorted afresh
    assert (m.summary(0)["latency_p50"], m.summary(0)["latency_p95"]) == (5.0, 8.6)
    m.latencies = [2.0]
    assert m.summary(0)["latency_p50"] == 2.0


def test_draw_intent_is_numpys_weighted_choice():
    from livesim.world.comments import draw_intent
    from livesim.world.viewers import PERSONA_INTENTS, PERSONAS

    for persona in PERSONAS:
        weights = PERSONA_INTENTS[persona]
        names = sorted(weights)
        p = np.array([weights[n] for n in names], dtype=float)
        viewer = type("V", (), {"persona": persona})()
        for seed in range(100):
            a, b = np.random.default_rng([seed, 3]), np.random.default_rng([seed, 3])
            want = [names[int(a.choice(len(names), p=p / p.sum()))] for _ in range(4)]
            assert [draw_intent(b, viewer) for _ in range(4)] == want
            assert a.random() == b.random()  # the same draws consumed


def test_prefix_viewers_are_generate_viewers_drawn_on_demand():
    from livesim.world.viewers import PrefixViewers, generate_viewers

    for seed in range(5):
        eager = generate_viewers(np.random.default_rng(seed), 30)
        lazy = PrefixViewers(np.random.default_rng(seed), 30)
        assert lazy[12] == eager[12] and lazy.drawn_count() == 13  # drew 0..12, in order, nothing more
        assert list(lazy._built) == [12]  # and built only the one looked up
        assert lazy[5] == eager[5] and lazy.drawn_count() == 13  # an earlier one: built from its drawn fields
        assert lazy[-1] == eager[-1] and list(lazy) == eager and lazy[3:6] == eager[3:6]
        lazy[4].active = False
        assert lazy.active_count() == 29
    sim = StreamSim(3)
    assert sim.viewers.drawn_count() == 0 or sim.viewers.active_count() == len(sim.viewers)
    with pytest.raises(IndexError):
        PrefixViewers(np.random.default_rng(0), 3)[3]
