"""The suites: deterministic, versioned and pinned; T1 and T2 hold the same requests; T4's checkers."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from livesim.hat import suites as S
from livesim.hat.ifeval import check, generate_prompts, load_ifeval_jsonl
from livesim.hat.suites import IFPrompt, SuiteChangedError, get_suite, materialize, parse_suites


@pytest.fixture(autouse=True)
def _fresh_cache():
    get_suite.cache_clear()
    yield
    get_suite.cache_clear()


@pytest.mark.parametrize("name", S.ALL_SUITES)
def test_suites_are_deterministic_and_match_their_pin(name):
    a, b = S.BUILDERS[name](), S.BUILDERS[name]()
    assert a == b and a.spec_sha256() == b.spec_sha256()
    pin = S.read_lock()[a.key]
    assert pin["spec_sha256"] == get_suite(name).spec_sha256()
    assert pin["size"] == len(a.requests) and len({r.id for r in a.requests}) == len(a.requests)


def test_a_changed_definition_without_a_version_bump_fails(monkeypatch, tmp_path):
    t1 = S.BUILDERS["T1"]()
    changed = replace(t1, requests=t1.requests[:-1] + (replace(t1.requests[-1], seed=t1.requests[-1].seed + 1),))
    monkeypatch.setitem(S.BUILDERS, "T1", lambda: changed)
    with pytest.raises(SuiteChangedError, match="T1-v3 changed.*bump its version"):
        get_suite("T1")
    lock = tmp_path / "lock.json"
    lock.write_text(S.LOCK_FILE.read_text())
    with pytest.raises(SuiteChangedError, match="bump its version"):
        S.pin(["T1"], path=lock)  # a pin is never overwritten with other content
    bumped = replace(changed, version=changed.version + 1)
    monkeypatch.setitem(S.BUILDERS, "T1", lambda: bumped)
    with pytest.raises(SuiteChangedError, match="T1-v4 has no pin"):
        get_suite("T1")


def test_an_edited_vocabulary_is_a_changed_suite(monkeypatch):
    from livesim.envs.hsa import vocab as V

    before = get_suite("T2-tools").spec_sha256()
    edited = replace(V.HELDOUT, masks=[*V.HELDOUT.masks, "(gone)"])
    monkeypatch.setitem(V.VOCABS, "heldout", edited)
    V.vocab_digest.cache_clear()
    try:
        assert S.BUILDERS["T2-tools"]().spec_sha256() != before
        assert S.BUILDERS["T2-stress"]().spec_sha256() == get_suite("T2-stress").spec_sha256()  # other split
        with pytest.raises(SuiteChangedError, match="T2-tools-v2 changed"):
            get_suite.cache_clear() or get_suite("T2-tools")
    finally:
        monkeypatch.undo()
        V.vocab_digest.cache_clear()
    assert get_suite("T1").spec_sha256() == S.read_lock()["T1-v3"]["spec_sha256"]  # no HSA: no digest


def test_changed_content_is_caught_per_request():
    t1 = get_suite("T1")
    with pytest.raises(SuiteChangedError, match="T1/0003"):
        S.check_content(t1, {"T1/0003": "0" * 16})


def test_t1_and_t2_hold_the_same_requests_under_a_different_harness():
    t1, t2 = get_suite("T1"), get_suite("T2")
    assert [(r.seed, r.intent) for r in t1.requests] == [(r.seed, r.intent) for r in t2.requests]
    head1, head2 = replace(t1, requests=t1.head(12)), replace(t2, requests=t2.head(12))
    d1, d2 = materialize(head1), materialize(head2)
    assert d1 == d2  # the same comment text and ground truth, request for request
    pin = S.read_lock()
    assert d1 == [pin["T1-v3"]["requests"][r.id] for r in head1.requests]  # and what is pinned
    env = S.make_qa_env(*t2.requests[0].env_key)
    env.reset(seed=t2.requests[0].seed, options=t2.requests[0].reset_options())
    sim = env.unwrapped.sim
    assert sim.harness.fingerprint != sim.canonical_fingerprint  # T2 presents a held-out variant


def test_t2_variants_hold_t1s_requests_under_their_own_presentation():
    t1 = get_suite("T1")
    presented = {}
    for name in ("T2", *S.T2_VARIANTS):
        suite = get_suite(name)
        assert [(r.seed, r.intent) for r in suite.requests] == [(r.seed, r.intent) for r in t1.requests]
        assert all(r.id == f"{name}/{i:04d}" and r.hsa_p == 1.0 for i, r in enumerate(suite.requests))
        r = suite.requests[0]
        env = S.make_qa_env(*r.env_key)
        env.reset(seed=r.seed, options=r.reset_options())
        presented[name] = env.unwrapped.sim.harness.fingerprint
    assert len(set(presented.values())) == len(presented)  # each presents its own variant
    assert get_suite("T2").key == "T2-v4" and get_suite("T2").requests[0].hsa_split == "heldout"
    assert get_suite("T2-stress").requests[0].env_key == ("hsa", "stress", 1.0)
    assert get_suite("T2-tools").requests[0].env_key == ("hsa_tools", "heldout", 1.0)
    lock = S.read_lock()  # the superseded version keeps its pin (figures labelled T2-v2 stay checkable)
    assert lock["T2-v2"]["spec_sha256"] != lock["T2-v3"]["spec_sha256"]  # the vocabulary digest tells them apart
    assert lock["T2-v2"]["content_sha256"] == lock["T2-v3"]["content_sha256"]  # the same requests
    # T2-v4: T2-v3's requests with the truth that follows each phrasing (livesim.world.asks), as T1-v3 has
    assert lock["T2-v3"]["spec_sha256"] == lock["T2-v4"]["spec_sha256"]
    assert lock["T2-v4"]["content_sha256"] == lock["T1-v3"]["content_sha256"] != lock["T1-v2"]["content_sha256"]


def test_every_prefix_cycles_intents_and_t3_subsets():
    t1 = get_suite("T1")
    from livesim.world.phrasing import INTENTS

    assert [r.intent for r in t1.head(16)] == list(INTENTS)
    t3 = get_suite("T3")
    assert {r.subset for r in t3.head(6)} == {"fault_timeout", "fault_malformed", "fault_denied", "perturbation",
                                              "injection"}
    sizes = {s: sum(r.subset == s for r in t3.requests) for s in {r.subset for r in t3.requests}}
    assert sizes == {"fault_timeout": 32, "fault_malformed": 32, "fault_denied": 32, "perturbation": 64,
                     "injection": 32}
    assert all(r.intent in S.INJECTION_INTENTS for r in t3.requests if r.subset == "injection")


def test_t3_faults_reach_the_agent():
    from livesim.agents import make_agent

    t3 = get_suite("T3")
    seen = set()
    for r in [r for r in t3.requests if r.subset.startswith("fault_")][:30]:
        env = S.make_qa_env(*r.env_key)
        obs, _ = env.reset(seed=r.seed, options=r.reset_options())
        agent = make_agent("oracle", env=env)
        done = False
        while not done:
            obs, _, term, trunc, _ = env.step(agent.act(obs))
            done = term or trunc
        seen |= {c.error_kind for c in env.unwrapped.sim.trace.tool_calls if c.error_kind}
    assert {"fault_timeout", "fault_malformed", "fault_denied"} <= seen  # each kind reaches the host


def test_parse_suites():
    assert parse_suites("t1, T2,T1") == ["T1", "T2"]
    assert parse_suites("t2-stress,T2-TOOLS") == ["T2-stress", "T2-tools"]
    assert parse_suites("T2-dims") == ["T2-skill_ids", "T2-skill_content", "T2-tools", "T2-prompt", "T2-hooks"]
    assert parse_suites("all") == list(S.ALL_SUITES)
    with pytest.raises(ValueError, match="unknown suite 'T9'"):
        parse_suites("T1,T9")
    with pytest.raises(ValueError, match="no suite in ' , '"):
        parse_suites(" , ")


# ------------------------------------------------------------------------------------------------ T4
def _p(ids, kwargs, prompt="Write something."):
    return IFPrompt(id="x", prompt=prompt, instruction_ids=tuple(ids), kwargs=tuple(kwargs))


@pytest.mark.parametrize("ids,kwargs,response,strict,loose", [
    (["punctuation:no_comma"], [{}], "Hello world. No commas here.", [True], [True]),
    (["punctuation:no_comma"], [{}], "Hello, world.", [False], [False]),
    (["change_case:english_lowercase"], [{}], "all lower case text here", [True], [True]),
    (["change_case:english_lowercase"], [{}], "Sure! Here it is:\nall lower case text here", [False], [True]),
    (["startend:end_checker"], [{"end_phrase": "Any other questions?"}], "Done. Any other questions?", [True], [True]),
    (["startend:end_checker"], [{"end_phrase": "Any other questions?"}], "Any other questions? Done.", [False],
     [False]),
    (["detectable_content:postscript"], [{"postscript_marker": "P.S."}], "Hi there.\nP.S. see you", [True], [True]),
    (["detectable_format:json_format"], [{}], '{"price": 199}', [True], [True]),
    (["detectable_format:json_format"], [{}], "price is 199", [False], [False]),
    (["length_constraints:number_sentences"], [{"num_sentences": 3, "relation": "at least"}],
     "One here. Two here. Three here.", [True], [True]),
    (["length_constraints:number_sentences"], [{"num_sentences": 3, "relation": "less than"}],
     "One here. Two here. Three here.", [False], [False]),
    (["keywords:existence", "detectable_format:title"], [{"keywords": ["price", "gift"]}, {}],
     "<<Deal>> a gift at a good price", [True, True], [True, True]),
    (["keywords:existence", "detectable_format:title"], [{"keywords": ["price", "gift"]}, {}],
     "a gift at a good price", [True, False], [True, False]),
    (["change_case:capital_word_frequency"], [{"capital_frequency": 2, "capital_relation": "less than"}],
     "ONE capital word only.", [True], [True]),
])
def test_t4_checker_known_verdicts(ids, kwargs, response, strict, loose):
    v = check(_p(ids, kwargs), response)
    assert v["strict"] == strict and v["loose"] == loose
    assert v["prompt_strict"] == float(all(strict)) and v["prompt_loose"] == float(all(loose))


def test_t4_empty_response_fails_every_instruction():
    v = check(_p(["punctuation:no_comma", "change_case:english_lowercase"], [{}, {}]), "")
    assert v == {"strict": [False, False], "loose": [False, False], "prompt_strict": 0.0, "prompt_loose": 0.0}


def test_t4_prompts_are_seeded_and_family_tagged():
    a, b = generate_prompts(12, 5), generate_prompts(12, 5)
    assert a == b
    assert generate_prompts(12, 6) != a and generate_prompts(12, 5, family="distill") != a
    for p in a:
        assert 1 <= len(p.instruction_ids) <= 3 and p.prompt.startswith(p.prompt.split(".")[0])


def test_load_ifeval_jsonl(tmp_path):
    path = tmp_path / "ifeval.jsonl"
    rows = [{"key": 1000, "prompt": "Write a haiku. Do not use commas.", "instruction_id_list":
             ["punctuation:no_comma", "keywords:key_sentences"], "kwargs": [{"num_words": None}, {}]},
            {"key": 1001, "prompt": "Answer in lowercase.", "instruction_id_list": ["change_case:english_lowercase"],
             "kwargs": [{}]}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    prompts = load_ifeval_jsonl(path)
    assert [p.id for p in prompts] == ["IFEval/1000", "IFEval/1001"]
    assert prompts[0].instruction_ids == ("punctuation:no_comma",)  # types the checkers lack are dropped
    assert check(prompts[0], "no commas at all")["prompt_strict"] == 1.0
    (tmp_path / "bad.jsonl").write_text('{"prompt": "x"}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        load_ifeval_jsonl(tmp_path / "bad.jsonl")
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_ifeval_jsonl(tmp_path / "missing.jsonl")
