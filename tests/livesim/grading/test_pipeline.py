"""Grading is one pipeline: each stage entered once per grade, and the same bytes in any process."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STAGES = ("world.py", "reading.py", "acts.py", "answers.py", "accuracy.py", "closed.py", "properties.py",
          "act_checks.py")
ONCE_AT_MOST = ("topics.py",)  # the general rule runs only where no named check found an error


def _walk_module():
    spec = importlib.util.spec_from_file_location("grading_walk", ROOT / "bench" / "grading_walk.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("which", ["gold", "wrong"])
def test_each_stage_is_entered_once_per_grade(which):
    """Over every intent, gold replies and wrong ones (another request's gold reply): the world, the reading (and its
    speech acts), the answers, accuracy and each of its checks are entered once a grade (the general topic rule at
    most once), and no stage calls back into an earlier one (a callback would show as an extra entry from a later
    stage)."""
    walk = _walk_module()
    items = walk.gold_items(1)
    if which == "wrong":
        items = [(sim, items[(i + 5) % len(items)][1]) for i, (sim, _) in enumerate(items)]
    stage = walk.walk(items)["stage"]
    per: dict[str, int] = {}
    for (callee, _), c in stage.items():
        per[callee] = per.get(callee, 0) + c
    for mod in STAGES:
        assert per.get(mod, 0) == len(items), (mod, per.get(mod, 0), len(items))
    for mod in ONCE_AT_MOST:
        assert 0 < per.get(mod, 0) <= len(items), (mod, per.get(mod, 0), len(items))
    callers = {(callee, caller) for (callee, caller) in stage if callee in STAGES + ONCE_AT_MOST}
    assert {c for c, who in callers if who == "terms.py"} == {"world.py", "reading.py", "answers.py", "accuracy.py"}
    assert {c for c, who in callers if who == "accuracy.py"} == {"closed.py", "properties.py", "topics.py",
                                                                 "act_checks.py"}
    assert {c for c, who in callers if who == "reading.py"} == {"acts.py"}


_SCRIPT = r"""
import json, sys
from livesim.runs.calibration import build_request, grade_text
out = []
for intent, seed in json.loads(sys.argv[1]):
    sim = build_request(seed, intent)
    own = {p.link for p in sim.catalog.products if p.link in sim.request.truth.targets}
    words = sorted({w for p in sim.catalog.products for x in p.skus for w in (x.colour, x.option, x.size) if w})
    pairs = [(a, b) for a in words for b in words if a < b and len(a) == len(b)][:40]
    for link in sorted(own) or [1]:
        for a, b in pairs:
            for text in (f"{a} of link {link} is sold out", f"Only 3 left in {a} and {b} of link {link}!",
                         f"Yes, {b} or {a} is in stock. Tap link {link}."):
                g = grade_text(sim, text)
                out.append([text, g.reward, g.errors, g.missing])
print(json.dumps(out))
"""


def test_grades_are_the_same_bytes_under_any_hash_seed():
    """Variant words of the catalogue's products, two of the same length at a time, stated of the asked link (the
    replies whose errors name one variant picked out of a set): the grades, error texts included, do not depend on
    the process's string hashing.
    """
    intents = ("stock_variant", "comparison", "size_advice", "spec_material")
    cases = json.dumps([[intent, 9100 + k] for k, intent in enumerate(intents)])
    runs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        res = subprocess.run([sys.executable, "-c", _SCRIPT, cases], env=env, capture_output=True, text=True,
                             check=True, cwd=ROOT)
        runs.append(res.stdout)
    assert len(json.loads(runs[0])) > 50
    assert runs[0] == runs[1]



def test_catalogue_index_is_rebuilt_when_the_catalogue_changes():
    """The link and name index is kept from one request to the next while the catalogue and its product list are
    the same; another catalogue, a new product list or one grown in place gets a fresh index. Grades of two streams'
    requests, interleaved, equal their grades one stream at a time."""
    from livesim.grading.world import World, _catalog_index
    from livesim.runs.calibration import build_request, grade_text

    sims = [build_request(9300 + k, intent) for k, intent in enumerate(("price", "stock_variant", "comparison"))]
    texts = [" ".join(s.request.truth.say) for s in sims]
    alone = [grade_text(s, t).model_dump_json() for s, t in zip(sims, texts, strict=True)]
    # the QA env reuses its sim: rebuild each request before grading it, alternating with the others
    for k in (0, 1, 2, 1, 0, 2):
        sim = build_request(9300 + k, ("price", "stock_variant", "comparison")[k])
        assert grade_text(sim, texts[k]).model_dump_json() == alone[k]
    cat = sims[-1].catalog
    by_link, names, name_link = _catalog_index(cat)
    assert by_link == {p.link: p for p in cat.products}
    assert names == tuple(sorted(name_link, key=len, reverse=True))  # longest first: a short name before its head
    assert all(name_link[p.short_name.lower()] == p.link for p in cat.products)
    extra = cat.products[0].model_copy(update={"link": 99, "short_name": "Zebra Lamp"})
    cat.products.append(extra)  # grown in place
    assert _catalog_index(cat)[0][99] is extra
    cat.products = [p for p in cat.products if p.link != 99]  # a new list
    assert 99 not in _catalog_index(cat)[0]
    world = World(cat, sims[-1].room, "[ann] is link 2 in stock?", [2], set(), set(), ["ann"])
    assert world.by_link == {p.link: p for p in cat.products}


def test_variant_names_follow_the_catalogue():
    """The variant names the run-on cuts read are kept per catalogue like the index: a request of another catalogue,
    or a product list grown in place, gets its own."""
    from livesim.grading.world import World
    from livesim.runs.calibration import build_request

    sims = [build_request(9310 + k, "stock_variant") for k in range(3)]
    worlds = [World(s.catalog, s.room, "[ann] is link 2 in stock?", [2], set(), set(), ["ann"]) for s in sims]
    for k in (0, 1, 2, 1, 0):
        assert worlds[k].variant_names() == frozenset(worlds[k].variant_vocab())
    cat = sims[0].catalog
    sku = cat.products[0].skus[0].model_copy(update={"colour": "zebra stripe"})
    cat.products.append(cat.products[0].model_copy(update={"link": 99, "skus": [sku]}))  # grown in place
    assert "zebra stripe" in World(cat, sims[0].room, "hi", [2], set(), set(), ["ann"]).variant_names()
