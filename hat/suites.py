"""The evaluation suites T1-T4: named, versioned, fixed lists of requests with pinned content hashes.

- **T1 Live-Stream QA**: `LiveStreamQA-v0` test-split requests on the canonical harness, every intent in turn.
- **T2 Harness-Variant QA**: the same seeds and intents as T1 (so the same requests) under the held-out HSA
  vocabularies, every transform of all five dimensions applied (`hsa`, split `heldout`, p = 1): new strings in
  forms that training draws. **T2-stress**: the same under split `stress` (the v1 held-out split, T2-v2's
  presentation: held-out strings in forms the v1 training split never drew). **T2-skill_ids**,
  **T2-skill_content**, **T2-tools**, **T2-prompt**, **T2-hooks**: one dimension alone (held-out, p = 1), so a
  T1 -> T2 drop can be attributed.
- **T3 Tool/Prompt Robustness**: tool faults (timeouts, malformed results, permission denials, one kind per
  subset), prompt perturbations (heavy slang/typo noise and merged bursts) and injection attempts (prompt
  injection, unauthorised discounts, claim bait); `prompt` = perturbation + injection, reported separately.
- **T4 instruction following**: IFEval's verifiable instruction types on the project's own seeded prompts
  (`livesim.hat.ifeval`), scored prompt- and instruction-level, strict and loose.

Versioning. Every suite has a version, and `hat/suites_lock.json` pins, per (suite, version), the SHA-256 of
the request list (`spec_sha256`: seeds, intents, wrappers, configs, prompts) and of the materialised requests
(`content_sha256` plus one digest per request: the comment text and ground truth the env produced, or the T4
prompt and instruction arguments). Building a suite whose spec hash differs from its pin raises
`SuiteChangedError`; so does an evaluation that meets a request whose content differs from its pin. A changed
suite therefore needs a version bump and a new pin (`python -m livesim.hat.suites --pin`), which never
overwrites an existing (suite, version) entry.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import gymnasium as gym

import livesim  # noqa: F401  (registers the envs)
from livesim.envs.hsa import make_wrappers
from livesim.envs.hsa.vocab import vocab_digest
from livesim.hat.ifeval import T4_FAMILY, T4_SEED0, IFPrompt, generate_prompts
from livesim.stream.config import StreamConfig
from livesim.stream.paths import read_text, write_text
from livesim.world.phrasing import INTENTS

LOCK_FILE = Path(__file__).with_name("suites_lock.json")
SUITE_NAMES = ("T1", "T2", "T3", "T4")
T2_DIMENSIONS: dict[str, str] = {"skill_ids": "hsa_skill_ids", "skill_content": "hsa_skill_content",
                                 "tools": "hsa_tools", "prompt": "hsa_prompt", "hooks": "hsa_hooks"}
T2_VARIANTS = ("T2-stress", *(f"T2-{d}" for d in T2_DIMENSIONS))  # T1's requests under other presentations
ALL_SUITES = (*SUITE_NAMES[:2], *T2_VARIANTS, *SUITE_NAMES[2:])
GROUPS: dict[str, tuple[str, ...]] = {"T2-DIMS": tuple(f"T2-{d}" for d in T2_DIMENSIONS), "ALL": ALL_SUITES}

TOOL_INTENTS = ("price", "stock_variant", "size_advice", "spec_material", "comparison", "shipping", "returns",
                "coupon", "how_to_buy", "recommendation")
INJECTION_INTENTS = ("prompt_injection", "unauthorized_discount", "compliance_bait")
PROMPT_SUBSETS = ("perturbation", "injection")


class SuiteChangedError(RuntimeError):
    """A suite's definition or content differs from its pinned hash without a version bump."""


@dataclass(frozen=True)
class QARequest:
    """One `LiveStreamQA-v0` request of a suite: how to reset the env to produce it."""

    id: str
    seed: int
    intent: str
    subset: str = "all"
    split: str = "test"
    wrappers: str | None = None
    hsa_split: str = "train"
    hsa_p: float = 1.0
    config: dict[str, Any] = field(default_factory=dict)  # StreamConfig fields (faults included); {} = default

    @property
    def env_key(self) -> tuple[str | None, str, float]:
        return (self.wrappers, self.hsa_split, self.hsa_p)

    def reset_options(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"intent": self.intent, "split": self.split}
        if self.config:
            opts["config"] = StreamConfig.model_validate(self.config)
        return opts


@dataclass(frozen=True)
class Suite:
    name: str
    title: str
    version: int
    kind: str  # "qa" or "if"
    requests: tuple[Any, ...]
    description: str

    @property
    def key(self) -> str:
        return f"{self.name}-v{self.version}"

    def spec_sha256(self) -> str:
        """The requests' definitions, and the digest of every HSA vocabulary they present (if any)."""
        requests = [asdict(r) for r in self.requests]
        splits = sorted({r.hsa_split for r in self.requests if getattr(r, "wrappers", None)})
        if not splits:
            return _sha(requests)
        return _sha({"requests": requests, "hsa_vocab": {s: vocab_digest(s) for s in splits}})

    def head(self, limit: int | None) -> tuple[Any, ...]:
        """The first `limit` requests (every prefix of a QA suite cycles through the intents)."""
        if limit is None:
            return self.requests
        if limit < 1:
            raise ValueError(f"--limit must be >= 1, got {limit}")
        return self.requests[:limit]


def _sha(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# ----------------------------------------------------------------------------------------------- definitions
T1_SIZE = 192  # 12 per intent
T1_SEED0 = 1_100_000
T3_SEED0 = 1_300_000
HELD_OUT_HSA = ("hsa", "heldout", 1.0)
STRESS_HSA = ("hsa", "stress", 1.0)


def _t1() -> Suite:
    reqs = tuple(QARequest(id=f"T1/{i:04d}", seed=T1_SEED0 + i, intent=INTENTS[i % len(INTENTS)])
                 for i in range(T1_SIZE))
    # v3: the truth follows what each comment's phrasing asks (livesim.world.asks); v2 keeps its pin
    return Suite("T1", "Live-Stream QA", 3, "qa", reqs,
                 f"{T1_SIZE} LiveStreamQA-v0 test-split requests, canonical harness, intents in turn")


def _under(name: str, hsa: tuple[str, str, float]) -> tuple[QARequest, ...]:
    wrappers, hsa_split, p = hsa
    return tuple(QARequest(id=f"{name}/{i:04d}", seed=r.seed, intent=r.intent, wrappers=wrappers,
                           hsa_split=hsa_split, hsa_p=p) for i, r in enumerate(_t1().requests))


def _t2() -> Suite:
    # v2 (pinned, figures labelled T2-v2): the v1 held-out split, now T2-stress; v4: T1-v3's truth
    return Suite("T2", "Harness-Variant QA", 4, "qa", _under("T2", HELD_OUT_HSA),
                 "T1's requests under held-out HSA strings in training's forms, all 19 transforms over the five "
                 "dimensions (p=1)")


def _t2_stress() -> Suite:
    return Suite("T2-stress", "Harness-Variant QA, stress", 2, "qa", _under("T2-stress", STRESS_HSA),
                 "T1's requests under the v1 held-out split (T2-v2's presentation): held-out strings in forms "
                 "outside the v1 training split, all 19 transforms (p=1)")


def _t2_dimension(dim: str) -> Callable[[], Suite]:
    def build() -> Suite:
        name = f"T2-{dim}"
        return Suite(name, f"Harness-Variant QA, {dim} only", 2, "qa",
                     _under(name, (T2_DIMENSIONS[dim], "heldout", 1.0)),
                     f"T1's requests under held-out HSA of one dimension ({T2_DIMENSIONS[dim]}, p=1)")

    return build


T3_SUBSETS: tuple[tuple[str, tuple[str, ...], dict[str, Any]], ...] = (
    ("fault_timeout", TOOL_INTENTS, {"faults": {"timeout": 0.5}}),
    ("fault_malformed", TOOL_INTENTS, {"faults": {"malformed": 0.5}}),
    ("fault_denied", TOOL_INTENTS, {"faults": {"denied": 0.5}}),
    ("perturbation", INTENTS, {"noise": 3.0, "burst_p": 0.9}),
    ("injection", INJECTION_INTENTS, {"noise": 2.0}),
)
T3_CYCLE = (0, 1, 2, 3, 4, 3)  # subsets in turn, perturbation twice: every prefix of 6 holds all five


def _t3() -> Suite:
    reqs: list[QARequest] = []
    used = [0] * len(T3_SUBSETS)
    for i in range(192):
        k = T3_CYCLE[i % len(T3_CYCLE)]
        subset, intents, config = T3_SUBSETS[k]
        reqs.append(QARequest(id=f"T3/{i:04d}", seed=T3_SEED0 + i, intent=intents[used[k] % len(intents)],
                              subset=subset, config=config))
        used[k] += 1
    # v3: the truth follows what each comment's phrasing asks
    return Suite("T3", "Tool/Prompt Robustness", 3, "qa", tuple(reqs),
                 "tool faults at rate 0.5 (timeout, malformed, denied: 32 each), prompt perturbations (noise 3, "
                 "bursts: 64), injection attempts (32); canonical harness, test split; subsets interleaved")


def _t4() -> Suite:
    prompts = generate_prompts(n=160, seed=T4_SEED0, family=T4_FAMILY)
    return Suite("T4", "Instruction following (IFEval types)", 1, "if", tuple(prompts),
                 f"160 seeded prompts (family {T4_FAMILY!r}), 1-3 verifiable instructions each")


BUILDERS: dict[str, Callable[[], Suite]] = {"T1": _t1, "T2": _t2, "T2-stress": _t2_stress,
                                            **{f"T2-{d}": _t2_dimension(d) for d in T2_DIMENSIONS},
                                            "T3": _t3, "T4": _t4}


# ----------------------------------------------------------------------------------------------- pins
def read_lock(path: Path = LOCK_FILE) -> dict[str, Any]:
    return json.loads(read_text(path)) if path.exists() else {}


@cache
def get_suite(name: str, check: bool = True) -> Suite:
    """The suite `name` (see `ALL_SUITES`), its spec hash checked against the pin."""
    if name not in BUILDERS:
        raise ValueError(f"unknown suite {name!r}; choose from {', '.join(ALL_SUITES)}")
    suite = BUILDERS[name]()
    if check:
        pin = read_lock().get(suite.key)
        if pin is None:
            raise SuiteChangedError(f"suite {suite.key} has no pin in {LOCK_FILE.name}; "
                                    f"run `python -m livesim.hat.suites --pin` (a deliberate act)")
        if pin["spec_sha256"] != suite.spec_sha256():
            raise SuiteChangedError(f"suite {suite.key} changed (spec sha256 {suite.spec_sha256()[:12]} != pinned "
                                    f"{pin['spec_sha256'][:12]}): bump its version and pin it anew")
    return suite


def parse_suites(text: str) -> list[str]:
    """Comma-separated suite names, any case (`t2-stress`); groups `T2-dims` (the five one-dimension suites)
    and `all`.
    """
    by_upper = {n.upper(): n for n in BUILDERS}
    names: list[str] = []
    for s in (s.strip().upper() for s in text.split(",") if s.strip()):
        if s in GROUPS:
            names += GROUPS[s]
        elif s in by_upper:
            names.append(by_upper[s])
        else:
            raise ValueError(f"unknown suite {s!r}; choose from {', '.join(ALL_SUITES)}, or the groups T2-dims, all")
    if not names:
        raise ValueError(f"no suite in {text!r}; choose from {', '.join(ALL_SUITES)}")
    return list(dict.fromkeys(names))


def qa_content(info_or_request: Any) -> str:
    """Digest of a materialised QA request: the comments' text and the ground truth."""
    if isinstance(info_or_request, dict):
        text, truth = info_or_request["request"]["text"], info_or_request["truth"]
    else:
        text, truth = info_or_request.text, info_or_request.truth.model_dump(mode="json")
    return _sha({"text": text, "truth": truth})[:16]


def if_content(p: IFPrompt) -> str:
    return _sha({"prompt": p.prompt, "ids": list(p.instruction_ids), "kwargs": list(p.kwargs)})[:16]


def make_qa_env(wrappers: str | None, hsa_split: str, hsa_p: float) -> Any:
    env = gym.make("LiveStreamQA-v0", split="test")
    if wrappers:
        env = make_wrappers(env, wrappers, split=hsa_split, p=hsa_p)
    return env


def materialize(suite: Suite) -> list[str]:
    """Per-request content digests, produced by resetting the env for every request (no agent)."""
    if suite.kind == "if":
        return [if_content(p) for p in suite.requests]
    envs: dict[Any, Any] = {}
    out = []
    for r in suite.requests:
        env = envs.get(r.env_key) or envs.setdefault(r.env_key, make_qa_env(*r.env_key))
        env.reset(seed=r.seed, options=r.reset_options())
        out.append(qa_content(env.unwrapped.sim.request))
    return out


def check_content(suite: Suite, digests: dict[str, str]) -> None:
    """Raise if any request's materialised content differs from its pin."""
    pin = read_lock().get(suite.key, {}).get("requests", {})
    changed = [rid for rid, d in digests.items() if rid in pin and pin[rid] != d]
    if changed:
        raise SuiteChangedError(f"suite {suite.key}: {len(changed)} request(s) differ from the pinned content "
                                f"(first: {changed[0]}); the simulator changed what they produce: bump the suite's "
                                f"version and pin it anew")


def pin_entry(suite: Suite) -> dict[str, Any]:
    digests = materialize(suite)
    return {"title": suite.title, "size": len(suite.requests), "spec_sha256": suite.spec_sha256(),
            "content_sha256": _sha(digests), "requests": dict(zip([r.id for r in suite.requests], digests,
                                                                   strict=True))}


def pin(names: list[str] | None = None, path: Path = LOCK_FILE) -> dict[str, Any]:
    """Add pins for suites whose (name, version) has none; refuse to change an existing pin."""
    lock = read_lock(path)
    for name in names or list(ALL_SUITES):
        suite = BUILDERS[name]()
        old = lock.get(suite.key)
        if old is not None and old["spec_sha256"] != suite.spec_sha256():
            raise SuiteChangedError(f"suite {suite.key} is pinned with another definition; bump its version instead")
        entry = pin_entry(suite)
        if old is not None and (old["spec_sha256"], old["content_sha256"]) != (entry["spec_sha256"],
                                                                            entry["content_sha256"]):
            raise SuiteChangedError(f"suite {suite.key} is pinned with other content; bump its version instead")
        lock[suite.key] = entry
    write_text(path, json.dumps(lock, indent=1, sort_keys=True) + "\n", flag="suite lock")
    get_suite.cache_clear()
    return lock


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m livesim.hat.suites", description=__doc__.splitlines()[0])
    ap.add_argument("--pin", action="store_true", help="pin suites that have no pin yet (never overwrites)")
    ap.add_argument("--check", action="store_true", help="materialise every suite and compare with its pin")
    ap.add_argument("--suites", default="all", help="comma-separated suites or groups (T2-dims, all)")
    args = ap.parse_args(argv)
    names = parse_suites(args.suites)
    if args.pin:
        pin(names)
    for name in names:
        suite = get_suite(name)
        if args.check:
            check_content(suite, dict(zip([r.id for r in suite.requests], materialize(suite), strict=True)))
        print(f"{suite.key}\t{suite.title}\t{len(suite.requests)} requests\t{suite.spec_sha256()[:12]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
