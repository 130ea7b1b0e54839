"""HSA splits: train and heldout share every form and no string; generated names fall in disjoint parts of a keyed
partition; stress presents what the v1 held-out split presented, byte for byte."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import numpy as np
import pytest

import livesim  # noqa: F401
from livesim.envs.hsa import Augment
from livesim.envs.hsa.core import Draws, reserved_names
from livesim.envs.hsa.names import CASES, PARTS, generated_name, normal, partition, render, words
from livesim.envs.hsa.vocab import FORMS, HELDOUT, STRESS, TRAIN, Vocab, synonym_forms
from livesim.envs.hsa.wrappers import ORDER
from livesim.harness.core import SKILL_NAME_PATTERN, Harness, default_harness
from livesim.hat.suites import make_qa_env
from livesim.runs.hsa_splits import census, orthography

KINDS = ("tool", "param", "skill")


# --- the vocabularies ------------------------------------------------------------------------------------------
def test_train_and_heldout_share_every_form() -> None:
    for name in FORMS:
        if name != "synonym_p":
            assert getattr(TRAIN, name) == getattr(HELDOUT, name), name
    assert TRAIN.styles == ["markdown", "xml", "json", "compact"] and set(TRAIN.cases) == set(CASES)
    assert TRAIN.persona_first is None and TRAIN.permutation_parity is None  # both families, any permutation
    assert TRAIN.limit_bands["turn_cap"] == list(range(4, 13)) and TRAIN.retry_limits == [1, 2, 3, 4]
    assert TRAIN.synonym_p <= 0.5 and HELDOUT.synonym_p <= 0.5


def _strings(v: Vocab) -> set[str]:
    """Every wording a split can write into a harness (names apart)."""
    out = set(v.masks) | set(v.tool_frames) | set(v.notices) | set(v.notice_senders)
    out |= {x for d in v.distractors for x in d}
    out |= {x for xs in v.paraphrases.values() for x in xs}
    for table in (v.titles, v.hook_verbs, v.hook_labels, v.hook_fixes):
        out |= {x for xs in table.values() for x in xs}
    return out


def _name_normals(v: Vocab) -> set[str]:
    return {normal(n) for k in KINDS for n in synonym_forms(v, k)}


@pytest.mark.parametrize("other", [HELDOUT, STRESS], ids=["heldout", "stress"])
def test_no_string_is_shared_with_train(other: Vocab) -> None:
    assert not _strings(TRAIN) & _strings(other), _strings(TRAIN) & _strings(other)
    # names: not even in another orthography ('searchText' and 'search_text' are one name)
    assert not _name_normals(TRAIN) & _name_normals(other), _name_normals(TRAIN) & _name_normals(other)
    canonical = default_harness()
    canon = {normal(n) for n in [t.name for t in canonical.tools] + [s.name for s in canonical.skills]
             + [p.name for t in canonical.tools for p in t.params]}
    # a synonym rendered in any orthography is never a canonical name (stress renders none: v1 names as listed)
    assert not _name_normals(TRAIN) & canon and not _name_normals(HELDOUT) & canon


def test_synonyms_render_in_every_orthography() -> None:
    assert words("getSkillRules") == words("get_skill_rules") == words("Get-Skill-Rules") == ["get", "skill", "rules"]
    assert {render(["open", "skill"], c) for c in CASES} == {"open_skill", "open-skill", "openSkill", "OpenSkill"}
    assert "openSkill" in synonym_forms(TRAIN, "tool") and "open-skill" in synonym_forms(TRAIN, "tool")
    assert all(re.fullmatch(SKILL_NAME_PATTERN, n) for v in (TRAIN, HELDOUT) for n in synonym_forms(v, "skill"))
    assert synonym_forms(STRESS, "tool") == {n for xs in STRESS.tool_synonyms.values() for n in xs}  # as listed


def _generated(part: int, case: str, length: tuple[int, int], n: int) -> list[str]:
    d = Draws(np.random.default_rng(part))
    return [generated_name(d.rng("g", case, i), case, length, part, reserved_names(), []) for i in range(n)]


@pytest.mark.parametrize("case", CASES)
def test_generated_names_keep_to_their_part(case: str) -> None:
    train = _generated(PARTS["train"], case, (5, 15), 600)
    heldout = _generated(PARTS["heldout"], case, (5, 15), 600)
    # by construction: a name's part is a function of its normal form, so no held-out name is ever generated in
    # train, in any orthography; the samples only check the generator keeps to it
    assert {partition(x) for x in train} == {0} and {partition(x) for x in heldout} == {1}
    assert not {normal(x) for x in train} & {normal(x) for x in heldout}
    assert not {normal(x) for x in train + heldout} & reserved_names()
    assert all(5 <= len(x) <= 15 for x in train + heldout)
    assert {orthography(x) for x in train} >= {"token", {"snake": "snake", "kebab": "kebab", "camel": "camel",
                                                         "mixed": "mixed"}[case]}
    if case == "kebab":
        assert all(re.fullmatch(SKILL_NAME_PATTERN, x) for x in train + heldout)


# --- what the splits present ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def censuses() -> dict[str, dict[str, Any]]:
    return {s: census(s, 400) for s in ("train", "heldout")}


def test_train_draws_every_form_the_heldout_split_draws(censuses: dict[str, dict[str, Any]]) -> None:
    train, heldout = censuses["train"]["forms"], censuses["heldout"]["forms"]
    for k in train:
        assert set(heldout[k]) <= set(train[k]), (k, set(heldout[k]) - set(train[k]))
    assert set(train["style"]) == {"markdown", "xml", "json", "compact"}
    assert set(train["turn_cap"]) == set(range(4, 13)) and set(train["max_tool_calls"]) == set(range(4, 11))
    assert set(train["retry_limit"]) == {1, 2, 3, 4}
    assert set(train["hook_message"]) == {"bracket", "pipe", "json", "xml"}
    assert set(train["notice"]) >= {"bracket", "json", "xml"}
    assert set(train["block_family"]) == {"persona first", "persona later"}
    assert set(train["tool_case"]) >= {"snake", "kebab", "camel", "mixed", "token"}
    assert set(train["param_case"]) >= {"snake", "kebab", "camel", "mixed", "token"}


def test_generated_names_are_most_renamed_slots(censuses: dict[str, dict[str, Any]]) -> None:
    for c in censuses.values():
        assert c["renamed_slots"] > 5000
        assert c["generated_share"] >= 0.5, c["generated_share"]
        assert all(o.get("synonym") for o in c["origins"].values())  # synonyms are drawn too


def _surface(h: Harness) -> tuple[set[str], str]:
    """The presented names, and every presented wording joined (prompt-side text the agent can read)."""
    names = {t.name for t in h.tools} | {p.name for t in h.tools for p in t.params} | {s.name for s in h.skills}
    text = [s.description for s in h.skills] + [s.content for s in h.skills] + list(h.prompt.titles.values())
    text += [t.description for t in h.tools] + [p.description for t in h.tools for p in t.params]
    text += [k.retry_template for k in h.hooks] + [str(k.params.get("message", "")) for k in h.hooks]
    return names, "\n".join(text)


def _atoms(v: Vocab) -> tuple[set[str], list[str], set[str]]:
    """A split's name normals, its phrases searched in text (several words, or a compound such as 'InputGuard':
    a single common word such as 'blocked' may sit inside another split's wording) and its masks (whole fields).
    """
    strings = _strings(v) - set(v.masks) - set(v.tool_frames)
    strings |= {f.replace("{d}", "").replace("{lc}", "").strip() for f in v.tool_frames}
    phrases = [x for x in strings if re.search(r"\s|[a-z][A-Z]|[-_]", x.strip())]
    return _name_normals(v), phrases, set(v.masks)


_ALL_SYNONYMS = {normal(n) for v in (TRAIN, HELDOUT, STRESS) for k in KINDS for n in synonym_forms(v, k)}
_CANONICAL_NAMES = {n for n in [t.name for t in default_harness().tools] + [s.name for s in default_harness().skills]
                    + [p.name for t in default_harness().tools for p in t.params]}
_CANONICAL = {normal(n) for n in [t.name for t in default_harness().tools] + [s.name for s in default_harness().skills]
              + [p.name for t in default_harness().tools for p in t.params]}


def _found(h: Harness, v: Vocab) -> set[str]:
    """The strings of `v` that `h` presents (generated names: those in v's part of the partition)."""
    names, text = _surface(h)
    names -= _CANONICAL_NAMES  # a name left canonical is no split's string
    normals, phrases, masks = _atoms(v)
    hits = {n for n in names if normal(n) in normals}
    if v.name_part is not None:
        hits |= {n for n in names if normal(n) not in _ALL_SYNONYMS | _CANONICAL and partition(n) == v.name_part}
    hits |= {p for p in phrases if re.search(r"(?<![A-Za-z])" + re.escape(p) + r"(?![A-Za-z])", text)}
    hits |= {s.description for s in h.skills if s.description in masks}
    return hits


def test_no_heldout_string_can_be_drawn_in_train() -> None:
    held_in_train: set[str] = set()
    held_in_heldout: set[str] = set()
    for seed in range(150):
        train = Augment(ORDER, "train", 0.8)(default_harness(), np.random.default_rng(seed))
        held = Augment(ORDER, "heldout", 0.8)(default_harness(), np.random.default_rng(seed))
        held_in_train |= _found(train, HELDOUT) | _found(train, STRESS)
        held_in_heldout |= _found(held, HELDOUT)
    assert not held_in_train, sorted(held_in_train)[:10]
    assert len(held_in_heldout) > 100  # the same search finds held-out strings where they are presented


# --- stress: the v1 held-out split, unchanged ----------------------------------------------------------------------
# Presented-harness fingerprints and T2-v2 observation digests written by the v1 `heldout` split (seeds 0-11 of the
# full composite at p = 1 and p = 2/3; the first 16 T2-v2 requests).
V1_HELDOUT = {
    "augment_p1": ["2a23d5586944", "32030427ce21", "e167e6955be4", "4d6b88279ba8", "61cc8770e41a", "cc0bc378d1d8",
                   "3d6073f1b3d0", "35b1e5e2d9e4", "d011bc694b46", "e6cddb60626a", "0db1a634c26c", "fbd3a7e9850b"],
    "augment_p23": ["e7c9fd266759", "db7692a3fdbe", "3a6c49e1e593", "37b790f1f6ed", "ecfa536d82ea", "da8ffccfce78",
                    "d739c164301d", "a1065082c512", "4318b1be3cb3", "831e936ecf99", "eae262046e46", "cf06c30139fb"],
    "t2_obs": ["bb2a107134641747", "022c230c2405ffda", "a6af49c29b0b326c", "f0002416fd587879", "fb158c51c7dc4813",
               "dff070444c5ed7a2", "3061908c4189a6af", "185f380e0d912eab", "e5441be878cbaf8e", "2569449d4a31dad6",
               "fca47465bff1f68b", "8846a25a14ce0c7b", "e3651d323dc8879b", "184c18391e2d6f35", "09d94d7e3a8395c3",
               "fa27a08192dbe03a"],
}


def test_stress_presents_what_the_v1_heldout_split_presented() -> None:
    from livesim.hat.suites import get_suite

    for key, p in (("augment_p1", 1.0), ("augment_p23", 2 / 3)):
        got = [Augment(ORDER, "stress", p)(default_harness(), np.random.default_rng(s)).fingerprint for s in range(12)]
        assert got == V1_HELDOUT[key], key
    env = make_qa_env("hsa", "stress", 1.0)
    digests = []
    for r in get_suite("T2-stress").requests[:16]:
        obs, _ = env.reset(seed=r.seed, options=r.reset_options())
        digests.append(hashlib.sha256(json.dumps(obs, sort_keys=True).encode()).hexdigest()[:16])
    assert digests == V1_HELDOUT["t2_obs"]


def test_census_cli(capsys: Any) -> None:
    from livesim.runs.hsa_splits import main

    assert main(["--harnesses", "20", "--splits", "train,stress"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("| form | train | stress |") and "generated names / renamed slots" in table
    with pytest.raises(SystemExit) as e:
        main(["--splits", "nope"])
    assert e.value.code == 2 and "expected splits from" in capsys.readouterr().err
