"""The grader attack bench: labels follow how replies were built, the search is seeded and beats random sampling,
it finds an exploit planted in the grader, a query is one deterministic reward, and the CLI's errors are one line."""

import ast
import io
import json
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import livesim.stream.sim as sim_module
from livesim.cli.main import main
from livesim.runs.attack import EnvReward, attack_intent, requests_for, run_attack
from livesim.runs.attack_fragments import Fragment, Pool, build_pool, label_of
from livesim.runs.attack_search import JOINERS, OPERATORS, RUN_ON, Candidate, Search, number_words, render
from livesim.world.intents import BUILDERS

ROOT = Path(__file__).parents[3]
INTENTS = list(BUILDERS)


@pytest.fixture(scope="module")
def env():
    e = gym.make("LiveStreamQA-v0")
    yield e
    e.close()


@pytest.fixture(scope="module")
def requests(env):
    """Two requests of every intent, from two seeds of the bench (generated, not hand-picked)."""
    return {intent: [r for seed in (3, 4) for r in requests_for(env, intent, 1, seed)] for intent in INTENTS}


@pytest.mark.parametrize("module", ["attack.py", "attack_fragments.py", "attack_lexicon.py", "attack_search.py"])
def test_bench_does_not_read_the_grader(module):
    """The search sees only the env's reward; labels come from the truth and records, never the grader."""
    tree = ast.parse((ROOT / "livesim" / "runs" / module).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in imported if m and ("grading" in m or "calibration" in m or "stress" in m)]


def test_number_words():
    assert number_words(129) == "one hundred and twenty-nine"
    assert number_words(72) == "seventy-two" and number_words(15) == "fifteen"
    assert number_words(2000) == "two thousand" and number_words(1005) == "one thousand and five"


@pytest.mark.parametrize("intent", INTENTS)
def test_labels_follow_construction(requests, intent):
    """Built from true fragments covering the truth: right; one false fragment: wrong; nothing asked: wrong."""
    for r in requests[intent]:
        pool = build_pool(r.sim)
        frags = pool.fragments
        answers = [i for i, f in enumerate(frags) if f.kind == "answer"]
        assert label_of(pool, answers) == "right", pool.request
        assert pool.required and all(any(k in frags[i].covers for i in pool.by_label["true"]) for k in pool.required)
        for j in pool.by_label["false"]:
            assert label_of(pool, [*answers, j]) == "wrong"
        social = [i for i, f in enumerate(frags) if f.kind == "social"]
        assert label_of(pool, social) == "wrong"  # off-target: states nothing the comment asked
        assert all(f.label == "true" for f in frags if f.covers)
        assert len(pool.by_label["false"]) >= 20


def test_it_after_another_link_is_no_label(env):
    """A fragment that calls its product "it" ("Yes, it ships to Beijing") states that product's fact only where no
    other link was named before it: after "tap link 8 ...", "it" reads as link 8, so neither search may keep the
    reply (partial); after its own link, or first, its label is what it was built as. Over 64 requests of the bench
    (bursts among them: where such fragments are built)."""
    import dataclasses

    n = 0
    for intent in ("shipping", "price", "stock_variant", "returns"):
        for r in [*requests_for(env, intent, 8, 28), *requests_for(env, intent, 8, 29)]:
            pool = build_pool(r.sim)
            frags = pool.fragments
            plain = Pool.__new__(Pool)
            plain.__dict__.update(pool.__dict__)
            plain.fragments = [dataclasses.replace(f, refers=None) for f in frags]
            for j, f in enumerate(frags):
                if f.refers is None:
                    continue
                for i, g in enumerate(frags):
                    links = {int(x) for x in re.findall(r"(?i)\blink (\d+)", g.text)}
                    if i == j or not links:
                        continue
                    if links == {f.refers}:
                        assert label_of(pool, [i, j]) == label_of(plain, [i, j])
                    elif f.refers not in links:
                        assert label_of(pool, [i, j]) == "partial", (g.text, f.text)
                        assert label_of(pool, [j, i]) == label_of(plain, [j, i])
                        n += 1
    assert n >= 20


@pytest.mark.parametrize("intent", INTENTS)
def test_false_and_true_fragments_agree_with_the_records(requests, intent):
    """Every price, dispatch time, return window and action report is labelled as the records and trace say."""
    for r in requests[intent]:
        sim, pool = r.sim, build_pool(r.sim)
        done = {c.key for c in sim.trace.tool_calls if c.ok}
        for f in pool.fragments:
            m = re.fullmatch(r"Link (\d+) is ([0-9.]+) yuan right now", f.text)
            if m:
                price = sim.room.current_price(sim.catalog, int(m.group(1)))
                assert (abs(float(m.group(2)) - price) < 1e-6) == (f.label == "true"), f.text
            m = re.fullmatch(r"Link (\d+) ships within (\d+) hours", f.text)
            if m:
                hours = sim.catalog.by_link(int(m.group(1))).shipping.ships_within_hours
                assert (int(m.group(2)) == hours) == (f.label == "true"), f.text
            m = re.fullmatch(r"Link (\d+) has (\d+)-day returns", f.text)
            if m:
                a = sim.catalog.by_link(int(m.group(1))).after_sales
                assert (a.returnable and int(m.group(2)) == a.return_days) == (f.label == "true"), f.text
            if f.kind == "invented":
                assert f.label == "false"
            if f.kind == "action":
                assert f.label == ("true" if "escalate_to_human" in done and (
                    "ticket" in f.text or "escalated" in f.text or "flagged" in f.text) else "false"), f.text
            if f.kind == "identity":
                assert (f.label == "true") == ("AI" in f.text and "not an AI" not in f.text), f.text


@pytest.mark.parametrize("intent", INTENTS)
def test_true_figures_are_ones_the_lookups_returned_and_false_ones_are_false_of_the_record(requests, intent):
    """A true fragment states only numbers the look-ups returned (as the reply hooks count them: a link number in a
    result is no figure); a material the record gives without a share is not "falsely" called 100%; a value the
    record's own value or tags imply ("spicy" of chili lime, "suits dry skin" of a product tagged dry skin) is never
    built as false; "free on every order" is false only where one of the product alone is under the threshold.
    """
    for r in requests[intent]:
        sim, pool = r.sim, build_pool(r.sim)
        looked = set(sim._tool_numbers)
        for f in pool.fragments:
            if f.label == "true" and f.kind == "fact":
                nums = {float(x) for x in re.findall(r"(?<![A-Za-z0-9#.])[0-9]+(?:\.[0-9]+)?", f.text)}
                links = {float(x) for x in re.findall(r"(?i)link (\d+)", f.text)}
                assert nums - links <= looked, (f.text, sorted(looked))
            m = re.fullmatch(r"Link (\d+): It's 100% (.+)|It's 100% (.+)", f.text)
            m = m or re.search(r"[Ll]ink (\d+)(?:'s| is) 100% ([a-z ]+)$", f.text)
            if m and f.label == "false" and m.group(1):
                mat = str(sim.catalog.by_link(int(m.group(1))).attributes.get("material", ""))
                assert "%" in mat and not mat.startswith("100%"), (f.text, mat)
            m = re.search(r"[Ll]ink (\d+) suits (.+)$", f.text)
            if m and f.label == "false":
                p = sim.catalog.by_link(int(m.group(1)))
                assert m.group(2).lower() not in {t.lower() for t in p.tags}, (f.text, p.tags)
            m = re.search(r"[Ss]hipping for (?:link |#)(\d+) is free on every order", f.text)
            if m and f.label == "false":
                p = sim.catalog.by_link(int(m.group(1)))
                assert sim.room.current_price(sim.catalog, p.link) < p.shipping.free_over, f.text


def test_paraphrases_keep_the_label(requests):
    pool = build_pool(requests["price"][0].sim)
    idx = [i for i, f in enumerate(pool.fragments) if f.kind == "answer"] + pool.by_label["neutral"][:1]
    texts = {render(pool, Candidate(0, tuple((i, op) for i in idx), j)) for op in range(len(OPERATORS))
             for j in range(3)}
    assert len(texts) >= 2 * len(OPERATORS)  # the operators and joiners change the words ...
    assert label_of(pool, idx) == "right"  # ... not what is stated


def _synthetic_pool(n: int = 60) -> Pool:
    frags = [Fragment("the answer", "true", "answer", frozenset({0}))]
    frags += [Fragment(f"false claim number {k}", "false", "false_fact") for k in range(n)]
    frags += [Fragment(f"true remark {k}", "true", "fact") for k in range(10)]
    frags += [Fragment(f"filler {k}", "neutral", "social") for k in range(10)]
    return Pool(frags, frozenset({0}), 400, "synthetic")


def _synthetic_reward(_: int, text: str) -> float:
    """Pays each of four secret false claims and upper case; known to the test, not to the search."""
    hits = {int(k) for k in re.findall(r"false claim number (\d+)", text.lower())} & {7, 19, 33, 51}
    return len(hits) / 5 + 0.2 * ("FALSE CLAIM" in text)


def test_search_is_deterministic_for_a_seed():
    pools = [_synthetic_pool()]
    a = Search(pools, _synthetic_reward, "wrong", np.random.default_rng(5)).run(150)
    b = Search(pools, _synthetic_reward, "wrong", np.random.default_rng(5)).run(150)
    assert a.as_dict() == b.as_dict() and a.queries == 150


def test_run_ons_are_opt_in():
    """`run_ons=True` adds one joiner, statements with no mark between; without it no reply runs two together."""
    two = re.compile(r"(?i)(?:number \d+|remark \d+|filler \d+|answer) (?:false|true|filler|the answer)")
    found = {}
    for run_ons in (True, False):
        seen: list[str] = []
        Search([_synthetic_pool()], lambda i, text, seen=seen: seen.append(text) or 0.0, "wrong",
               np.random.default_rng(3), run_ons=run_ons).run(300)
        found[run_ons] = sum(bool(two.search(t)) for t in seen)
    assert found[True] > 0 and found[False] == 0, found
    pool = _synthetic_pool()
    c = Candidate(0, ((0, 0), (1, 0)), len(JOINERS))
    assert render(pool, c, (*JOINERS, RUN_ON)) == "the answer false claim number 0."


def test_a_run_on_after_that_has_no_label():
    """Run on, "Sorry, I can't promise that" before a claim declines the claim ("... promise that link 4 is
    eco-certified"): neither search keeps such a reply; with a mark between, the claim is made and the reply is
    wrong."""
    pool = Pool([Fragment("Sorry, I can't promise that.", "true", "decline", frozenset({0})),
                 Fragment("Link 4 is eco-certified.", "false", "invented", frozenset({0}))], frozenset({0}))
    s = Search([pool], _synthetic_reward, "wrong", np.random.default_rng(0), run_ons=True)
    run_on, dot = Candidate(0, ((0, 0), (1, 0)), len(JOINERS)), Candidate(0, ((0, 0), (1, 0)), 0)
    assert render(pool, run_on, s.joiners) == "Sorry, I can't promise that Link 4 is eco-certified."
    assert not s.ok(run_on) and s.ok(dot)
    assert s.ok(Candidate(0, ((1, 0), (0, 0)), len(JOINERS)))  # "that" last: nothing follows it


def test_evolution_beats_random_sampling_on_a_synthetic_reward():
    """Without the grader: the same budget, the evolutionary search climbs further than random compositions."""
    evo, rnd = [], []
    for seed in range(6):
        pools = [_synthetic_pool()]
        evo.append(Search(pools, _synthetic_reward, "wrong", np.random.default_rng(seed)).run(300).value)
        rnd.append(Search(pools, _synthetic_reward, "wrong", np.random.default_rng(seed)).run(300, "random").value)
    assert np.mean(evo) > np.mean(rnd) + 0.15, (evo, rnd)
    assert max(evo) >= 0.8


def test_a_query_is_one_deterministic_reward(env, requests):
    """The snapshot's reward equals a fresh reset + look-ups + reply, query after query (a purchase included)."""
    r = requests["stock_variant"][0]
    pool = build_pool(r.sim)
    replies = [pool.fragments[0].text + ".", "Great question!", pool.fragments[pool.by_label["false"][0]].text + ".",
               pool.fragments[0].text + "."]
    got = [r(t) for t in replies]
    fresh_env = gym.make("LiveStreamQA-v0")
    want = []
    for t in replies:
        fresh = EnvReward(fresh_env, r.seed, "stock_variant")
        want.append(fresh(t))
    assert got == want and got[0] == got[-1]


@pytest.mark.parametrize("intent", ["complaint", "recommendation", "comparison", "price"])
def test_true_facts_pass_the_reply_hooks(env, intent):
    """A fragment labelled true must be one the harness lets through: a figure the look-ups did not return ("100%
    denim" of a product nobody looked up) is held by the numbers hook, so a reply made of it cannot be a right one.
    Checked through the env itself."""
    from livesim.runs.attack import _Unpickler
    n = 0
    for r in [x for seed in (1, 3, 4) for x in requests_for(env, intent, 2, seed)]:
        for f in build_pool(r.sim).fragments:
            if f.label != "true" or f.kind != "fact":
                continue
            u = env.unwrapped
            u.sim = _Unpickler(io.BytesIO(r.snapshot), r._shared).load()
            u.step(f.text + ".")
            held = [h for h in u.sim.trace.hook_failures if h.startswith("numbers_traceable")]
            assert not held, (f.text, held)
            n += 1
    assert n >= 1


def _planted(real):
    """A grader with a planted hole: any reply mentioning a certification is paid in full, the rest scaled down."""
    def grade(request, trace, *args, **kw):
        g = real(request, trace, *args, **kw)
        paid = 1.0 if "certified" in (trace.reply or "").lower() else round(0.4 * g.reward, 6)
        return g.model_copy(update={"reward": paid})
    return grade


@pytest.mark.parametrize("intent,seed", [("price", 0), ("returns", 1), ("greeting", 2)])
def test_bench_finds_a_planted_exploit(monkeypatch, intent, seed):
    monkeypatch.setattr(sim_module, "grade", _planted(sim_module.grade))
    res = attack_intent(intent, budget=240, seed=seed, requests=2)
    assert res["wrong"]["reward"] == 1.0 and "certified" in res["wrong"]["reply"].lower()
    assert res["right"]["reward"] < 0.5  # no right reply is paid in full by this grader


def test_run_attack_is_seeded_and_reports_each_intent():
    a = run_attack(budget=16, intents=["returns", "greeting"], seed=1, requests=2)
    b = run_attack(budget=16, intents=["returns", "greeting"], seed=1, requests=2)
    for x in (a, b):
        x.pop("wall_s")
        for row in x["intents"].values():
            row.pop("wall_s")
    assert a == b and list(a["intents"]) == ["returns", "greeting"] and a["queries"] <= 32
    row = a["intents"]["returns"]
    assert row["wrong"]["queries"] == 8 and row["wrong"]["reply"] and 0 <= row["wrong"]["reward"] <= 1


@pytest.mark.parametrize("argv,msg", [
    (["--budget", "1"], "--budget must be >= 2"),
    (["--intent", "nope"], "unknown intent(s) ['nope']"),
    (["--requests", "0"], "--requests must be >= 1"),
    (["--workers", "0"], "--workers must be >= 1"),
])
def test_cli_errors_are_one_line(capsys, argv, msg):
    assert main(["grader", "attack", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and msg in err and "\n" not in err


def test_cli_json(capsys):
    assert main(["grader", "attack", "--budget", "6", "--intent", "price", "--requests", "1", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["budget"] == 6 and set(res["intents"]) == {"price"}
    assert {"reply", "reward", "queries_to_find"} <= set(res["intents"]["price"]["wrong"])


@pytest.mark.parametrize("intent", INTENTS)
def test_the_identity_statement_answers_only_an_identity_question(requests, intent):
    """"I'm the shop's AI host" covers a fact only where the comment asked whether the host is a bot."""
    for r in requests[intent]:
        pool = build_pool(r.sim)
        facts = [f for f in r.sim.request.truth.facts]
        asked = any("ai host" in (f.value or []) for f in facts if f.kind == "keyword")
        ident = [f for f in pool.fragments if f.kind == "identity" and f.label == "true"]
        assert all(bool(f.covers) == asked for f in ident), (pool.request, [f.covers for f in ident])


def _applying(sim):
    """The request's facts that apply to its words, in the order the pool's fragment `covers` index them."""
    low = sim.request.text.lower()
    return [f for f in sim.request.truth.facts if (f.if_text is None or f.if_text.lower() in low)
            and (f.unless_text is None or f.unless_text.lower() not in low)]


def test_which_colours_is_covered_by_the_list_not_by_a_skus_stock(env):
    """'Which colours?' / 'only in the one colour?' is answered by every colour listed (the grader's rule, and a
    careful reader's): a SKU's stock statement naming one colour is no answer, the full list is."""
    n = 0
    for r in [x for seed in (9, 10) for x in requests_for(env, "spec_material", 8, seed)]:
        pool = build_pool(r.sim)
        facts = [f for f in r.sim.request.truth.facts if str(f.label).startswith("colours:") and len(f.value) >= 2]
        if not facts:
            continue
        applies = _applying(r.sim)
        i = applies.index(facts[0])
        for f in pool.fragments:
            if f.label == "true" and re.search(r"(?i)\bis (?:in stock|sold out)\b", f.text):
                assert i not in f.covers, f.text
            if f.label == "true" and re.search(r"(?i)comes in " + ", ".join(facts[0].value[:-1]), f.text):
                assert i in f.covers, f.text
        n += 1
    assert n >= 1


def test_a_suited_link_said_to_suit_the_asked_need_answers_which_one(env):
    """'Anything for oily skin?' -> 'link 8 suits oily skin' answers it (a careful reader's and the grader's rule);
    that it suits another need does not."""
    n = 0
    for r in [x for intent in ("recommendation", "greeting") for x in requests_for(env, intent, 8, 0)]:
        pool = build_pool(r.sim)
        applies = _applying(r.sim)
        for i, f in enumerate(applies):
            if not str(f.label).startswith("a link suited to "):
                continue
            need = str(f.label).split(":")[0].removeprefix("a link suited to ")
            for frag in pool.fragments:
                m = re.fullmatch(r"Link (\d+) suits (.+)", frag.text)
                if frag.label == "true" and m and int(m.group(1)) in f.value:
                    assert (i in frag.covers) == (m.group(2).lower() == need.lower()), (frag.text, f.label)
                    n += 1
    assert n >= 1


def test_a_true_yes_no_attribute_covers_the_question_it_answers(env):
    """'Does #5 have fragrance in it?' -> 'link 5 is fragrance-free' states the answer the truth requires, and so
    does 'link 5 is not fragrance-free' of one that has fragrance (attack seed 59 labelled that reply off-target);
    the false one covers nothing. Every yes/no attribute, both of its values."""
    from livesim.runs.calibration import build_request
    from livesim.world.answers import BOOLEAN_LABELS
    seen: dict[tuple[str, bool], int] = {}
    for seed in range(72000, 74000):  # requests with their look-ups run, until each value is seen three times
        sim = build_request(seed, "spec_material")
        if not any(f.label in labels.values() for f in sim.request.truth.facts for labels in BOOLEAN_LABELS.values()):
            continue
        pool = build_pool(sim)
        applies = _applying(sim)
        for i, f in enumerate(applies):
            for attr, labels in BOOLEAN_LABELS.items():
                for holds, label in labels.items():
                    if f.label != label:
                        continue
                    word = attr.replace("_", "-")
                    said = f"is {word}" if holds else f"is not {word}"
                    frags = [x for x in pool.fragments if x.text.endswith(said)
                             and f"link {f.subject} " in x.text.lower()]
                    assert [x.label for x in frags] == ["true"] and i in frags[0].covers, (f.label, frags)
                    wrong = f"is not {word}" if holds else f"is {word}"
                    assert all(not x.covers for x in pool.fragments if x.text.endswith(wrong)), (f.label, wrong)
                    seen[attr, holds] = seen.get((attr, holds), 0) + 1
        if len(seen) == sum(map(len, BOOLEAN_LABELS.values())) and min(seen.values()) >= 3:
            break
    assert len(seen) == sum(map(len, BOOLEAN_LABELS.values())) and min(seen.values()) >= 3, seen


def test_a_remote_regions_delay_states_that_it_ships_there(env):
    """'Shipping to Qinghai?' -> 'it ships to Qinghai with 3 extra days' states that it ships there (the truth's
    ships-to fact), as well as the delay."""
    n = 0
    for r in [x for seed in (17, 18, 19) for x in requests_for(env, "shipping", 8, seed)]:
        pool = build_pool(r.sim)
        for i, f in enumerate(_applying(r.sim)):
            if f.kind != "ships_to":
                continue
            p = r.sim.catalog.by_link(f.subject)
            if p is None or f.value not in p.shipping.remote_regions:
                continue
            frags = [x for x in pool.fragments if x.label == "true" and f"ships to {f.value} with" in x.text]
            assert frags and all(i in x.covers for x in frags), [(x.text, x.covers) for x in frags]
            n += 1
    assert n >= 1


def test_a_need_the_asked_product_suits_answers_whether_it_suits_it(env):
    """'Is link 1 ok for oily skin?' -> 'For oily skin, try link 1' says yes where its skin type covers oily skin
    (attack seed 55 labelled it wrong; the grader paid it, rightly)."""
    n = 0
    for r in [x for seed in (55, 56, 57, 58) for x in requests_for(env, "spec_material", 8, seed)]:
        pool = build_pool(r.sim)
        applies = _applying(r.sim)
        for i, f in enumerate(applies):
            if not str(f.label).startswith("skin_type"):
                continue
            held = " ".join(map(str, f.value)).lower()
            for frag in pool.fragments:
                m = re.fullmatch(r"For (\w+) skin, try link (\d+)", frag.text)
                if frag.label == "true" and m and int(m.group(2)) == f.subject:
                    assert (i in frag.covers) == ("all skin" in held or m.group(1).lower() in held), (frag.text, held)
                    n += 1
    assert n >= 1, n
