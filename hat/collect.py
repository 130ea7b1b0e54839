"""Stage 0, collect: teacher trajectories in the envs -> a Hugging Face dataset in TRL's tool format.

A teacher (by default the non-privileged ``reader`` under HSA, which acts only on what the model will see, and the
privileged ``oracle`` on the canonical harness only; any agent, e.g. ``openai`` against ``vllm serve``) plays
``LiveStreamQA-v0`` (one request per episode) or ``LiveStream-v0`` (whole streams) under HSA with the
*train* vocabulary (a ``canonical_fraction`` of episodes on the canonical harness), or on the canonical
harness only (``fixed_harness``). Every dispatched request is one candidate conversation; the judge filter
keeps those the grader passes; hook-retry conversations are mostly cut to their final correct turns, a
``keep_retries`` fraction kept whole; duplicates are dropped; the rest is split train/validation.

Arrow-safe schema (the trap: ``Dataset.from_list`` on raw OpenAI messages merges every tool schema into one
struct and fills the gaps with nulls). Here every message has exactly ``role``, ``content`` (str) and
``tool_calls`` (a list, empty when none; arguments as a JSON string, which chat templates print verbatim),
and ``tools`` is a JSON *string* column. TRL's ``SFTTrainer`` decodes a string ``tools`` itself
(``json.loads`` in its tokenize step); other consumers call :func:`decode_tools`.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

import livesim.envs  # noqa: F401  (registers the envs)
from livesim.agents import AGENT_VERSIONS, make_agent
from livesim.envs.hsa import ToolFaults, make_wrappers
from livesim.envs.hsa.vocab import VOCAB_VERSION
from livesim.envs.rollout import PRIVILEGED_AGENTS
from livesim.harness.core import PromptStyleName
from livesim.harness.prompt import PROMPT_RENDER_VERSION
from livesim.hat.collect_stats import conversation_stats
from livesim.hat.common import atomic_dir, claim_out, progress, quiet_unless_progress
from livesim.models.zoo import resolve_model
from livesim.stream.harness_file import harness_with_style
from livesim.stream.paths import read_text, shown, write_text
from livesim.stream.procs import worker_pool
from livesim.world.truth import TRUTH_VERSION

SCHEMA_VERSION = "livesim-sft-v1"
DEFAULT_HSA_TEACHER = "reader"  # the teacher of HSA data unless CollectConfig.teacher names another
ERROR_RATE_TEACHERS = frozenset({"oracle", "memorizer", "reader"})  # take error_rate and seed

OUT_MARKER = "stats.json"
OUT_KIND = "dataset written by `livesim hat collect`"


class CollectConfig(BaseModel):
    """Everything that defines a collected dataset (its content key is a hash of these fields)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    teacher: str | None = Field(None, description="Agent name from AGENT_REGISTRY. None: 'reader' under HSA (it acts "
                                "only on the observation, so every choice it makes can be learnt from the "
                                "conversation), 'oracle' with fixed_harness (it reads the ground truth).")
    teacher_args: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments for make_agent.")
    oracle_error_rate: float = Field(0.15, ge=0, le=1, description="Error rate of the oracle, memorizer and reader "
                                     "teachers: they err once in this share of requests and recover (hook retries).")
    env_id: Literal["LiveStreamQA-v0", "LiveStream-v0"] = Field("LiveStreamQA-v0", description="Environment.")
    episodes: int = Field(300, ge=1, description="Episodes played (QA: one request each; stream: many).")
    seed: int = Field(0, ge=0, description="Seeds episodes, harness draws, retry keeping and the split.")
    fixed_harness: bool = Field(False, description="Canonical harness only (the paper's fixed-harness baseline).")
    wrappers: str = Field("hsa", description="HSA wrapper spec (livesim.envs.hsa.make_wrappers) when not fixed.")
    hsa_split: Literal["train", "heldout"] = Field("train", description="HSA vocabulary; keep heldout for eval.")
    hsa_p: float = Field(2 / 3, ge=0, le=1, description="Probability of each HSA transform (paper: 2/3).")
    hsa_synonym_p: float | None = Field(None, ge=0, le=1, description="Probability that a renamed tool, parameter "
                                        "or skill takes one of HSA's synonyms rather than a generated name (None: "
                                        "the vocabulary's 0.5; 0: generated names only, which a model can get right "
                                        "only by copying them from the prompt). In the content key only when set.")
    canonical_fraction: float = Field(0.25, ge=0, le=1, description="Share of HSA-mode episodes kept canonical.")
    tool_faults: bool = Field(False, description="Wrap in ToolFaults (timeouts, malformed, denied results).")
    min_reward: float = Field(0.9, ge=0, le=1, description="Judge filter: keep requests with reward >= this.")
    min_accuracy: float = Field(1.0, ge=0, le=1, description="Judge filter: keep requests with accuracy >= this.")
    keep_retries: float = Field(0.15, ge=0, le=1, description="Share of hook-retry conversations kept whole.")
    val_fraction: float = Field(0.1, ge=0, lt=1, description="Share of conversations in the validation split.")
    prompt_style: Literal["full", PromptStyleName] = Field(
        "full", description="System-prompt style of the presented canonical harness: 'full' keeps the harness's own "
        "(markdown); 'compact' is the token-budgeted style of the model loop (SmolLM2 ~1,100 prompt tokens instead of "
        "~2,800). HSA may still re-present it (prompt style is one of its dimensions).")
    tokenizer: str | None = Field(None, description="Model dir/zoo name whose tokenizer counts tokens in stats.")
    batch_size: int = Field(8, ge=1, description="Episodes played in lockstep (act_batch for model teachers).")
    workers: int = Field(1, ge=1, description="Processes playing the episodes (chunks of episodes, merged in episode "
                         "order): the same data for any number. Use with scripted teachers; a model teacher would be "
                         "loaded by every worker.")

    @property
    def teacher_name(self) -> str:
        """The teacher that plays: `teacher`, or the default for the harness mode."""
        return self.teacher or ("oracle" if self.fixed_harness else DEFAULT_HSA_TEACHER)

    def key(self) -> str:
        """Content key: a hash of every field but the batch size and workers (which cannot change the data); the
        teacher as resolved, so the default teacher's data and an explicit one's share a key.
        """
        data = self.model_dump(exclude={"batch_size", "workers"}
                               | ({"hsa_synonym_p"} if self.hsa_synonym_p is None else set()))
        data["teacher"] = self.teacher_name
        if self.teacher_name in AGENT_VERSIONS:  # a scripted teacher that changes: new behaviour, new data
            data["teacher_version"] = AGENT_VERSIONS[self.teacher_name]
        data["schema"] = SCHEMA_VERSION
        data["truth"] = TRUTH_VERSION  # the oracle's replies are the truth's gold replies
        data["teacher_seeding"] = "episode"  # a privileged teacher is seeded per episode (not per lockstep slot)
        data["render"] = PROMPT_RENDER_VERSION  # the conversations hold rendered prompts
        if not self.fixed_harness:
            data["hsa_vocab"] = VOCAB_VERSION  # what the split names present
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def features() -> Any:
    """The dataset's explicit Arrow schema (no inference, so nothing can be merged or nulled)."""
    from datasets import Features, Sequence, Value

    call = {"type": Value("string"), "function": {"name": Value("string"), "arguments": Value("string")}}
    message = {"role": Value("string"), "content": Value("string"), "tool_calls": [call]}
    return Features({
        "id": Value("string"),
        "messages": [message],
        "tools": Value("string"),
        "episode_seed": Value("int64"),
        "request_index": Value("int64"),
        "variant": Value("string"),
        "harness_fingerprint": Value("string"),
        "intents": Sequence(Value("string")),
        "reward": Value("float64"),
        "retries": Value("string"),
        "turns": Value("int64"),
        "n_tool_calls": Value("int64"),
    })


def normalize_message(message: dict[str, Any]) -> dict[str, Any]:
    """One env message in the fixed schema: role, str content, tool_calls with JSON-string arguments."""
    calls = []
    for call in message.get("tool_calls") or []:
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        calls.append({"type": "function", "function": {
            "name": str(fn.get("name", "")),
            "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)}})
    return {"role": str(message["role"]), "content": str(message.get("content") or ""), "tool_calls": calls}


def decode_tools(example: dict[str, Any]) -> dict[str, Any]:
    """Formatting step for consumers other than SFTTrainer: the ``tools`` JSON string back to a list."""
    tools = example.get("tools")
    return {**example, "tools": json.loads(tools) if isinstance(tools, str) else tools}


def _is_retry_turn(env_reply: list[dict[str, Any]]) -> bool:
    """An assistant turn failed when the env answered it with a user message (a hook retry or parser error)."""
    return any(m["role"] == "user" for m in env_reply)


def cut_retries(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop every failed assistant turn together with the env's answer to it (hook retry, parser error).

    The messages before the first assistant turn (system, comments, request-time notices) are kept.
    """
    first = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    out = messages[:first]
    i = first
    while i < len(messages):
        j = i + 1
        while j < len(messages) and messages[j]["role"] != "assistant":
            j += 1
        turn, reply = messages[i], messages[i + 1:j]
        if not (_is_retry_turn(reply) and j < len(messages)):
            out.append(turn)
            out.extend(reply)
        i = j
    return out


def _make_envs(cfg: CollectConfig, n: int, split: str = "train") -> tuple[list[Any], list[Any]]:
    """``n`` canonical envs and ``n`` augmented ones (empty when fixed_harness)."""
    harness = harness_with_style(None, cfg.prompt_style)

    def base() -> Any:
        kwargs: dict[str, Any] = {"split": split} if cfg.env_id == "LiveStreamQA-v0" else {}
        if harness is not None:
            kwargs["harness"] = harness
        env = gym.make(cfg.env_id, **kwargs)
        return ToolFaults(env) if cfg.tool_faults else env

    canon = [base() for _ in range(n)]
    aug = [] if cfg.fixed_harness else [make_wrappers(base(), cfg.wrappers, split=cfg.hsa_split, p=cfg.hsa_p,
                                                      synonym_p=cfg.hsa_synonym_p)
                                        for _ in range(n)]
    return canon, aug


def play(cfg: CollectConfig, show_progress: bool = True) -> list[dict[str, Any]]:
    """Play the teacher; return one raw candidate per dispatched request (messages, tools, grade, trace), in episode
    order. With ``workers`` > 1 the episodes are played in chunks by that many processes; the result is the same.
    """
    plan = episode_plan(cfg)
    if cfg.workers <= 1 or len(plan) <= 1:
        bar = progress(total=cfg.episodes, desc="collect", disable=not show_progress)
        out = _play_chunk(cfg, plan, bar.update)
        bar.close()
        return out
    size = max(1, -(-len(plan) // (cfg.workers * 4)))  # ~4 chunks a worker: balanced, few env builds
    chunks = [plan[i:i + size] for i in range(0, len(plan), size)]
    bar = progress(total=cfg.episodes, desc=f"collect x{cfg.workers}", disable=not show_progress)
    out = []
    # spawned workers that die with this process (a dev evaluation may hold CUDA before collect)
    with worker_pool(cfg.workers, "collect worker") as pool:
        for chunk, raw in zip(chunks, pool.map(_play_chunk, [cfg] * len(chunks), chunks), strict=True):
            out.extend(raw)
            bar.update(len(chunk))
    bar.close()
    return out


def episode_plan(cfg: CollectConfig) -> list[tuple[int, int, bool]]:
    """(episode index, env seed, augmented) of every episode, drawn from ``cfg.seed`` alone."""
    rng = np.random.default_rng([cfg.seed, 1])
    augmented = not cfg.fixed_harness
    return [(i, cfg.seed * 1_000_003 + i, augmented and bool(rng.random() >= cfg.canonical_fraction))
            for i in range(cfg.episodes)]


def _play_chunk(cfg: CollectConfig, plan: list[tuple[int, int, bool]], tick: Any = None) -> list[dict[str, Any]]:
    """Play ``plan``'s episodes, ``cfg.batch_size`` in lockstep; candidates sorted by episode (then as dispatched).

    A privileged teacher is made afresh for each episode, seeded from (seed, episode index): what it does in an
    episode never depends on which slot, chunk or process played the episodes before it.
    """
    n = min(cfg.batch_size, len(plan))
    canon, aug = _make_envs(cfg, n)
    teacher = cfg.teacher_name
    privileged = teacher in PRIVILEGED_AGENTS
    agents: dict[int, Any] = {}
    shared: Any = None
    if teacher in ERROR_RATE_TEACHERS and not privileged:  # stateless: one agent, its errors drawn per request
        shared = make_agent(teacher, **{"error_rate": cfg.oracle_error_rate, "seed": cfg.seed, **cfg.teacher_args})
    elif not privileged:
        shared = make_agent(teacher, **cfg.teacher_args)
    out: list[dict[str, Any]] = []
    queue = list(plan)
    slots: dict[int, dict[str, Any]] = {}

    def start(k: int) -> None:
        index, seed, augmented = queue.pop(0)
        env = (aug if augmented else canon)[k]
        obs, _ = env.reset(seed=seed)
        if privileged:
            agents[k] = make_agent(teacher, error_rate=cfg.oracle_error_rate,
                                   seed=cfg.seed * 7919 + index * 104_729 + 1, **cfg.teacher_args)
            agents[k].bind(env)
            agents[k].reset()
        slots[k] = {"env": env, "obs": obs, "seed": seed, "index": index,
                    "variant": "hsa" if augmented else "canonical"}

    for k in range(n):
        if queue:
            start(k)
    while slots:
        ks = sorted(slots)
        if privileged:
            actions = [agents[k].act(slots[k]["obs"]) for k in ks]
        else:
            actions = shared.act_batch([slots[k]["obs"] for k in ks])
        for k, action in zip(ks, actions, strict=True):
            s = slots[k]
            sim = s["env"].unwrapped.sim
            transcript, tools = sim.messages, s["obs"]["tools"]  # begin() replaces the list, this one stays
            obs, reward, term, trunc, info = s["env"].step(action)
            if info.get("dispatched"):
                out.append({"messages": copy.deepcopy(transcript), "tools": tools, "reward": float(reward),
                            "grade": info["grade"], "trace": info["trace"], "truth": info["truth"],
                            "episode_seed": s["seed"], "episode_index": s["index"],
                            "request_index": int(info.get("request_index", 0)),
                            "variant": s["variant"], "harness_fingerprint": info["harness_fingerprint"],
                            "canonical": info["harness_fingerprint"] == info["harness_canonical_fingerprint"]})
            if term or trunc:
                if tick is not None:
                    tick(1)
                del slots[k]
                if queue:
                    start(k)
            else:
                s["obs"] = obs
    out.sort(key=lambda c: c["episode_index"])  # stable: an episode's requests keep their order
    return out


def build_records(cfg: CollectConfig, raw: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Judge filter, retry cutting, dedup; returns the records and the filter counts."""
    rng = np.random.default_rng([cfg.seed, 2])
    counts: Counter[str] = Counter()
    seen: set[str] = set()
    records = []
    for cand in raw:
        counts["candidates"] += 1
        scores = cand["grade"]["scores"]
        if cand["trace"]["fallback"] or cand["reward"] < cfg.min_reward or scores["accuracy"] < cfg.min_accuracy:
            counts["rejected_by_judge"] += 1
            continue
        messages = [normalize_message(m) for m in cand["messages"]]
        had_retry = bool(cand["trace"]["hook_failures"]) or cand["trace"]["parse_errors"] > 0
        retries = "none"
        if had_retry:
            if rng.random() < cfg.keep_retries:
                retries = "kept"
            else:
                messages, retries = cut_retries(messages), "cut"
        if not any(m["role"] == "assistant" for m in messages):
            counts["rejected_no_assistant"] += 1
            continue
        tools = json.dumps(cand["tools"], ensure_ascii=False, sort_keys=True)
        digest = hashlib.sha256(json.dumps([messages, tools], sort_keys=True).encode()).hexdigest()
        if digest in seen:
            counts["duplicates"] += 1
            continue
        seen.add(digest)
        counts[f"retries_{retries}"] += 1
        records.append({
            "id": digest[:16], "messages": messages, "tools": tools, "episode_seed": cand["episode_seed"],
            "request_index": cand["request_index"], "variant": "canonical" if cand["canonical"] else "augmented",
            "harness_fingerprint": cand["harness_fingerprint"], "intents": list(cand["truth"]["intents"]),
            "reward": cand["reward"], "retries": retries,
            "turns": sum(m["role"] == "assistant" for m in messages),
            "n_tool_calls": sum(len(m["tool_calls"]) for m in messages),
        })
    counts["kept"] = len(records)
    return records, dict(counts)


def token_lengths(records: list[dict[str, Any]], tokenizer: Any, chat_template: str | None = None) -> list[int]:
    """Tokens of each conversation rendered with the tokenizer's chat template (tools included).

    The same counts as `apply_chat_template(..., tokenize=True)` a conversation at a time (which encodes without
    special tokens), but the rendered texts are encoded in one batch, across the fast tokenizer's threads: this
    runs serially after the workers have played, and one at a time it was 2.6 ms a SmolLM2 conversation.
    """
    texts = [tokenizer.apply_chat_template(r["messages"], tools=json.loads(r["tools"]), chat_template=chat_template,
                                           tokenize=False) for r in records]
    if not texts:
        return []
    return [len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]


def _stats(cfg: CollectConfig, records: list[dict[str, Any]], counts: dict[str, Any], split_sizes: dict[str, int],
           lengths: list[int] | None) -> dict[str, Any]:
    intents = Counter(i for r in records for i in r["intents"])
    stats: dict[str, Any] = {
        # how it was played (batch size, workers) is left out: the same data gives the same bytes
        "key": cfg.key(), "schema": SCHEMA_VERSION, "config": cfg.model_dump(exclude={"batch_size", "workers"}),
        "teacher": cfg.teacher_name,
        "filter": counts,
        "splits": split_sizes, "intents": dict(sorted(intents.items())),
        "variants": dict(Counter(r["variant"] for r in records)),
        "harness_variants": len({r["harness_fingerprint"] for r in records}),
        "retries": dict(Counter(r["retries"] for r in records)),
        "turns_mean": float(np.mean([r["turns"] for r in records])) if records else 0.0,
        "tool_calls_mean": float(np.mean([r["n_tool_calls"] for r in records])) if records else 0.0,
        "messages_mean": float(np.mean([len(r["messages"]) for r in records])) if records else 0.0,
    }
    if lengths:
        arr = np.array(lengths)
        stats["tokens"] = {"tokenizer": cfg.tokenizer, "mean": float(arr.mean()), "p50": float(np.percentile(arr, 50)),
                           "p95": float(np.percentile(arr, 95)), "max": int(arr.max()), "total": int(arr.sum())}
    return stats


def _card(stats: dict[str, Any]) -> str:
    cfg = stats["config"]
    harness = "canonical harness only" if cfg["fixed_harness"] else (
        f"HSA `{cfg['wrappers']}` ({cfg['hsa_split']} vocabulary, p={cfg['hsa_p']:.3f}), "
        f"{cfg['canonical_fraction']:.0%} of episodes canonical")
    lines = [
        "---", "license: apache-2.0", "task_categories: [text-generation]", "tags: [livesim, tool-calling, trl]",
        "---", "", f"# livesim SFT data `{stats['key']}`", "",
        f"Teacher `{stats['teacher']}` in `{cfg['env_id']}`, {cfg['episodes']} episodes from seed {cfg['seed']}, "
        f"{harness}{', with ToolFaults' if cfg['tool_faults'] else ''}.",
        f"Judge filter: reward >= {cfg['min_reward']}, accuracy >= {cfg['min_accuracy']}, no fallback. "
        f"Hook-retry conversations cut to their final correct turns, {cfg['keep_retries']:.0%} kept whole.", "",
        "Format: TRL conversational with tools. `messages`: role, content, tool_calls (arguments as JSON "
        "strings); `tools`: the tool schemas presented in that conversation, as a JSON string "
        "(SFTTrainer decodes it; elsewhere use `livesim.hat.collect.decode_tools`).", "",
        "| | |", "|---|---|",
        *(f"| {k} | {v} |" for k, v in stats["splits"].items()),
        *(f"| filter: {k} | {v} |" for k, v in stats["filter"].items()),
        f"| harness variants | {stats['harness_variants']} |",
        f"| variants | {stats['variants']} |", f"| retries | {stats['retries']} |",
        f"| assistant turns (mean) | {stats['turns_mean']:.2f} |",
        f"| tool calls (mean) | {stats['tool_calls_mean']:.2f} |",
    ]
    if "tokens" in stats:
        t = stats["tokens"]
        lines.append(f"| tokens ({t['tokenizer']}) | mean {t['mean']:.0f}, p95 {t['p95']:.0f}, max {t['max']} |")
    if "teaching" in stats:
        t = stats["teaching"]
        lines.append(f"| skill loads with evidence in the conversation | {t['skill_loads_evidenced']} "
                     f"({t['skill_loads_without_evidence']} without) |")
        lines.append(f"| copy targets per 1,000 conversations | {t['copy_targets_per_1000']} |")
    lines += ["", "Intents: " + ", ".join(f"{k} {v}" for k, v in stats["intents"].items()), ""]
    return "\n".join(lines)


@quiet_unless_progress
def run(cfg: CollectConfig, out_dir: str | Path, show_progress: bool = True) -> Path:
    """Collect into ``out_dir`` (a ``DatasetDict`` on disk with stats.json and README.md); returns it.

    An existing complete output (``stats.json`` with the same key) is returned as is.
    """
    out = Path(out_dir)
    with claim_out(out, OUT_KIND):  # before collecting, and held until published: a second run is refused
        return _run(cfg, out, show_progress)


def _run(cfg: CollectConfig, out: Path, show_progress: bool) -> Path:
    import datasets
    from datasets import Dataset, DatasetDict

    if not show_progress:
        datasets.disable_progress_bars()
    if is_complete(out) and read_stats(out).get("key") == cfg.key():
        return out
    raw = play(cfg, show_progress=show_progress)
    records, counts = build_records(cfg, raw)
    if not records:
        raise RuntimeError(f"collect kept no conversations ({counts}); lower min_reward/min_accuracy or check "
                           "the teacher")
    order = np.random.default_rng([cfg.seed, 3]).permutation(len(records))
    n_val = int(round(len(records) * cfg.val_fraction)) if len(records) > 1 else 0
    if cfg.val_fraction > 0 and len(records) > 1:
        n_val = max(1, n_val)
    val = [records[i] for i in sorted(order[:n_val])]
    train = [records[i] for i in sorted(order[n_val:])]
    lengths = None
    if cfg.tokenizer:
        from transformers import AutoTokenizer

        lengths = token_lengths(records, AutoTokenizer.from_pretrained(resolve_model(cfg.tokenizer)))
    feats = features()
    splits = {"train": train, "validation": val}
    dd = DatasetDict({name: Dataset.from_list(rows, features=feats) for name, rows in splits.items()})
    for name, ds in dd.items():  # a content fingerprint instead of a random one: same seed, same bytes
        ds._fingerprint = hashlib.sha256(f"{cfg.key()}:{name}".encode()).hexdigest()[:16]
    stats = _stats(cfg, records, counts, {k: len(v) for k, v in splits.items()}, lengths)
    stats["teaching"] = conversation_stats(records)  # what the data teaches (livesim hat collect-stats)
    with atomic_dir(out, OUT_KIND) as tmp:
        dd.save_to_disk(str(tmp / "data"))
        write_text(tmp / "README.md", _card(stats))
        write_text(tmp / OUT_MARKER, json.dumps(stats, indent=2, sort_keys=True) + "\n")
    return out


def is_complete(path: str | Path) -> bool:
    """Whether ``path`` holds a whole collected dataset (its stats and the saved ``DatasetDict``)."""
    path = Path(path)
    return (path / OUT_MARKER).is_file() and (path / "data" / "dataset_dict.json").is_file()


def load(path: str | Path) -> Any:
    """Load a collected dataset (``DatasetDict`` with ``train`` and ``validation``)."""
    from datasets import load_from_disk

    path = Path(path)
    if not is_complete(path):
        raise FileNotFoundError(f"{shown(path)} is not a collected livesim dataset (no stats.json and data/)")
    return load_from_disk(str(path / "data"))


def read_stats(path: str | Path) -> dict[str, Any]:
    """The ``stats.json`` of a collected dataset (`PathProblem` or ValueError, one line, if it cannot be read or is
    not a JSON object).
    """
    data = json.loads(read_text(Path(path) / OUT_MARKER))
    if not isinstance(data, dict):
        raise ValueError(f"{shown(Path(path) / OUT_MARKER)} is not a collect stats file (a JSON object expected, "
                         f"found a {type(data).__name__})")
    return data


stats = read_stats  # the name callers know (`collect.stats(path)`)

