"""Write the malformed-file and hostile-action corpora of tests/livesim/test_robustness.py (deterministic).

    .venv/bin/python tests/corpora/make_corpora.py      # rewrites tests/corpora/{scenarios,records,actions.jsonl}

Every scenario file here must be refused by `livesim run --scenario FILE` and `livesim scenarios --check FILE`
with status 2, and every record by `replay`, `regrade` and `view` with status 2: one `error:` line naming the
file, no traceback, nothing written. The valid bases are `BASE_SCENARIO` below and the golden record of the
bundled `tool-rename-skill-rewrite` scenario.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden" / "tool-rename-skill-rewrite.oracle.jsonl"

BASE_SCENARIO = """\
name: corpus-base
purpose: a small valid scenario the malformed ones are made from
seed: 1
duration_s: 60
catalog:
  n_products: 4
traffic:
  n_viewers: 20
  comments_per_min: 6
script:
  - {at_s: 5, intent: price, links: [1]}
strategy:
  - {at_s: 0, kind: pin, params: {link: 1}}
  - {at_s: 0, kind: add_coupon, params: {code: LIVE10, discount: 10, threshold: 99, expires_at_s: 120, remaining: 50}}
latency:
  target_s: 5
"""


def _bomb(levels: int, fanout: int) -> str:
    lines = ["name: bomb", "purpose: billion laughs", "duration_s: 60", 'a0: &a0 ["lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join(f'*a{i - 1}' for _ in range(fanout))}]")
    lines.append(f"traffic: {{intents: *a{levels - 1}}}")
    return "\n".join(lines) + "\n"


def _merge_bomb(levels: int) -> str:
    lines = ["name: merge-bomb", "purpose: merge keys", "duration_s: 60", "m0: &m0 {k: v}"]
    for i in range(1, levels):
        lines.append(f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}, *m{i - 1}, *m{i - 1}], k{i}: v}}")
    return "\n".join(lines) + "\n"


def _sub(old: str, new: str) -> str:
    assert old in BASE_SCENARIO, old
    return BASE_SCENARIO.replace(old, new, 1)


def scenarios() -> dict[str, str | bytes]:
    return {
        "alias-bomb-9x10.yaml": _bomb(9, 10),
        "alias-bomb-30x2.yaml": _bomb(30, 2),
        "alias-bomb-merge-keys.yaml": _merge_bomb(25),
        "alias-bomb-long-string.yaml": "name: s\npurpose: p\nduration_s: 60\nx: &x " + "a" * 60_000 + "\n"
                                       + "y: [" + ", ".join(["*x"] * 400) + "]\n",
        "recursive-anchor-sequence.yaml": "name: r\npurpose: p\nduration_s: 60\nx: &a [1, *a]\n",
        "recursive-anchor-mapping.yaml": "name: r\npurpose: p\nduration_s: 60\nx: &a {k: *a}\n",
        "undefined-alias.yaml": "name: r\npurpose: p\nduration_s: 60\nx: *nowhere\n",
        "deep-flow-sequences-10000.yaml": "name: d\npurpose: p\nduration_s: 60\nx: " + "[" * 10_000 + "]" * 10_000
                                          + "\n",
        "deep-flow-mappings-3000.yaml": "name: d\npurpose: p\nduration_s: 60\nx: " + "{a: " * 3000 + "1"
                                        + "}" * 3000 + "\n",
        "deep-block-mappings-200.yaml": "name: d\npurpose: p\nduration_s: 60\n" + "".join(
            " " * i + f"k{i}:\n" for i in range(200)) + " " * 200 + "v\n",
        "nul-byte.yaml": _sub("seed: 1", "seed: 1\x00"),
        "bell-control-char.yaml": _sub("purpose: a", "purpose: \x07a"),
        "latin1-not-utf8.yaml": _sub("purpose: a small", "purpose: caf\xe9 small").encode("latin-1"),
        "utf16-with-bom.yaml": BASE_SCENARIO.encode("utf-16"),
        "binary-png.yaml": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
        "empty.yaml": "",
        "only-comments.yaml": "# nothing here\n# at all\n",
        "top-level-list.yaml": "- name: x\n- purpose: y\n",
        "top-level-scalar.yaml": "just a string\n",
        "two-documents.yaml": BASE_SCENARIO + "---\n" + BASE_SCENARIO,
        "python-object-tag.yaml": _sub("seed: 1", "seed: !!python/object/apply:os.system ['echo hi']"),
        "tab-indentation.yaml": _sub("  n_viewers: 20", "\tn_viewers: 20"),
        "unclosed-quote.yaml": _sub("purpose: a small", 'purpose: "a small'),
        "unhashable-key.yaml": BASE_SCENARIO + "? [a, b]\n: 1\n",
        "duplicate-key.yaml": BASE_SCENARIO + "seed: 2\n",
        "unknown-field.yaml": BASE_SCENARIO + "colour: red\n",
        "bad-name-slug.yaml": _sub("name: corpus-base", "name: Corpus Base!"),
        "purpose-multiline.yaml": _sub("purpose: a small valid", 'purpose: "a small\\nvalid'),
        "seed-negative.yaml": _sub("seed: 1", "seed: -1"),
        "seed-huge.yaml": _sub("seed: 1", "seed: 100000000000000000000000000000"),
        "seed-float-overflow.yaml": _sub("seed: 1", "seed: 1e400"),
        "duration-nan.yaml": _sub("duration_s: 60", "duration_s: .nan"),
        "duration-inf.yaml": _sub("duration_s: 60", "duration_s: .inf"),
        "duration-negative.yaml": _sub("duration_s: 60", "duration_s: -5"),
        "duration-1e9.yaml": _sub("duration_s: 60", "duration_s: 1e9"),
        "duration-timestamp.yaml": _sub("duration_s: 60", "duration_s: 2020-01-01"),
        "comments-per-min-1e9.yaml": _sub("comments_per_min: 6", "comments_per_min: 1e9"),
        "comments-per-min-nan.yaml": _sub("comments_per_min: 6", "comments_per_min: .nan"),
        "comments-per-min-inf.yaml": _sub("comments_per_min: 6", "comments_per_min: .inf"),
        "comments-total-unbounded.yaml": _sub("duration_s: 60", "duration_s: 7200").replace(
            "comments_per_min: 6", "comments_per_min: 600"),
        "n-viewers-1e9.yaml": _sub("n_viewers: 20", "n_viewers: 1000000000"),
        "audience-per-viewer-1e12.yaml": _sub("n_viewers: 20", "n_viewers: 20\n  audience_per_viewer: 1000000000000"),
        "merge-window-1e12.yaml": _sub("n_viewers: 20", "n_viewers: 20\n  merge_window_s: 1e12"),
        "max-merge-1000.yaml": _sub("n_viewers: 20", "n_viewers: 20\n  max_merge: 1000"),
        "latency-overhead-1e300.yaml": _sub("target_s: 5", "target_s: 5\n  turn_overhead_s: 1e300"),
        "latency-prefill-tiny.yaml": _sub("target_s: 5", "target_s: 5\n  prefill_tokens_per_s: 1e-300"),
        "latency-tool-nan.yaml": _sub("target_s: 5", "target_s: 5\n  tool_s: {get_price: .nan}"),
        "latency-budget-inf.yaml": _sub("target_s: 5", "target_s: 5\n  budget_s: .inf"),
        "latency-mode-unknown.yaml": _sub("target_s: 5", "target_s: 5\n  mode: wallclock"),
        "script-at-nan.yaml": _sub("{at_s: 5, intent", "{at_s: .nan, intent"),
        "script-too-long.yaml": BASE_SCENARIO.replace("script:\n  - {at_s: 5, intent: price, links: [1]}\n",
                                                      "c: &c {at_s: 5, intent: greeting}\nscript: ["
                                                      + ", ".join(["*c"] * 6000) + "]\n"),
        "script-text-10k.yaml": _sub("links: [1]}", "links: [1], text: " + "w" * 10_000 + "}"),
        "script-unknown-intent.yaml": _sub("intent: price", "intent: teleport"),
        "script-lone-surrogate.yaml": _sub("links: [1]}", 'links: [1], text: "hi \\ud800"}'),
        "script-viewer-negative.yaml": _sub("links: [1]}", "links: [1], viewer: -1}"),
        "script-link-missing.yaml": _sub("links: [1]}", "links: [99]}"),
        "strategy-unknown-kind.yaml": _sub("kind: pin", "kind: teleport"),
        "strategy-pin-missing-link.yaml": _sub("params: {link: 1}", "params: {link: 99}"),
        "strategy-coupon-discount-inf.yaml": _sub("discount: 10", "discount: .inf"),
        "strategy-coupon-remaining-negative.yaml": _sub("remaining: 50", "remaining: -1"),
        "strategy-max-extra-discount-5.yaml": BASE_SCENARIO.replace("latency:", "  - {at_s: 1, kind: permissions, "
                                                                    "params: {change_prices: true, "
                                                                    "max_extra_discount: 5}}\nlatency:"),
        "strategy-flash-price-nan.yaml": BASE_SCENARIO.replace("latency:", "  - {at_s: 1, kind: flash_sale, params: "
                                                           "{link: 1, price: .nan, end_s: 30, quantity: 5}}\nlatency:"),
        "patch-unknown-op.yaml": BASE_SCENARIO + "patches:\n  - {at_s: 10, op: explode}\n",
        "patch-after-end.yaml": BASE_SCENARIO + "patches:\n  - {at_s: 1000, op: rename_tool, name: get_price, "
                                                "new_name: price_now}\n",
        "faults-rate-2.yaml": BASE_SCENARIO + "faults:\n  timeout: 2\n",
        "faults-unknown-tool.yaml": BASE_SCENARIO + "faults:\n  timeout: 0.1\n  tools: [teleport]\n",
        "catalog-both-kinds.yaml": _sub("n_products: 4", "n_products: 4\n  products: []"),
        "catalog-1000-products.yaml": _sub("n_products: 4", "n_products: 1000"),
        "long-single-line.yaml": "name: " + "a" * 10_000 + "\n",
    }


def _golden() -> list[str]:
    """A small valid record: the golden record's header and first steps, with an end line, sealed again.

    The first step's system prompt and tool schemas are shortened to keep the corpus small, so the base parses
    (and its hash chain verifies) but does not replay; every malformed file must be refused before a replay.
    """
    from livesim.stream.integrity import HASH_KEY, HashChain

    lines = [json.loads(x) for x in GOLDEN.read_text(encoding="utf-8").splitlines()[:4]]
    first = lines[1]
    first["messages"][0]["content"] = "(the system prompt, shortened for the corpus)"
    first["tools"] = first["tools"][:1]
    lines.append({"kind": "end", "steps": 3, "summary": {}})
    chain = HashChain()
    out = []
    for d in lines:
        d.pop(HASH_KEY, None)
        out.append(chain.seal(json.dumps(d, ensure_ascii=False, separators=(",", ":"))))
    return out


def _edit(lines: list[str], i: int, **changes: object) -> list[str]:
    d = json.loads(lines[i])
    d.update(changes)
    return [*lines[:i], json.dumps(d, ensure_ascii=False), *lines[i + 1:]]


def records() -> dict[str, str | bytes]:
    g = _golden()
    head = json.loads(g[0])

    def text(lines: list[str]) -> str:
        return "\n".join(lines) + "\n"

    def deep_action(n: int) -> dict[str, object]:
        d: dict[str, object] = {"content": "x"}
        root = d
        for _ in range(n):
            d["x"] = {}
            d = d["x"]  # type: ignore[assignment]
        return root

    return {
        "empty.jsonl": "",
        "blank-line.jsonl": "\n",
        "not-json.jsonl": text([*g[:3], "{not json", *g[4:]]),
        "truncated-last-line.jsonl": text(g[:3]) + g[3][:40],
        "no-header-first.jsonl": text(g[1:]),
        "second-header.jsonl": text([g[0], g[0], *g[1:]]),
        "missing-step.jsonl": text([*g[:2], *g[3:]]),
        "repeated-step.jsonl": text([*g[:3], g[2], *g[3:]]),
        "unknown-kind.jsonl": text(_edit(g, 2, kind="stp")),
        "wrong-field-type.jsonl": text(_edit(g, 2, reward="high")),
        "unknown-field.jsonl": text(_edit(g, 2, colour="red")),
        "newer-format.jsonl": text(_edit(g, 0, format_version=99)),
        "header-config-invalid.jsonl": text(_edit(g, 0, config={**head["config"], "duration_s": -1})),
        "header-config-unbounded.jsonl": text(_edit(g, 0, config={**head["config"], "comments_per_min": 1e9})),
        "header-seed-negative.jsonl": text(_edit(g, 0, seed=-1)),
        "header-seed-huge.jsonl": text(_edit(g, 0, seed=2**70)),
        "header-unknown-wrapper.jsonl": text(_edit(g, 0, wrappers="no_such_wrapper")),
        "header-bad-hsa-split.jsonl": text(_edit(g, 0, hsa_split="sideways")),
        "header-env-id.jsonl": text(_edit(g, 0, env_id="CartPole-v1")),
        "line-after-end.jsonl": text([*g, g[1]]),
        "end-counts-wrong.jsonl": text(_edit(g, len(g) - 1, steps=7)),
        "step-negative.jsonl": text(_edit(g, 1, step=-1)),
        "deep-json-5000.jsonl": text([*g[:2], "[" * 5_000 + "]" * 5_000, *g[2:]]),
        "deep-json-500-in-action.jsonl": text(_edit(g, 2, action=deep_action(500))),
        "deep-action-40.jsonl": text(_edit(g, 2, action=deep_action(40))),
        "action-a-list.jsonl": text(_edit(g, 2, action=[1, 2, 3])),
        "action-lone-surrogate.jsonl": text([*g[:2], g[2].replace('"action":"', '"action":"\\ud800', 1)
                                             if '"action":"' in g[2] else
                                             json.dumps({**json.loads(g[2]), "action": "\ud800"}), *g[3:]]),
        "reward-nan.jsonl": text([*g[:2], g[2].replace('"request_index":', '"reward":NaN,"request_index":', 1),
                                  *g[3:]]),
        "clock-infinity.jsonl": text([*g[:1], g[1].replace('"clock_s":', '"clock_s":Infinity,"x":', 1), *g[2:]]),
        "int-5000-digits.jsonl": text([*g[:1], g[1].replace('"step":0', '"step":' + "9" * 5000, 1), *g[2:]]),
        "nul-byte.jsonl": text(g[:2]) + g[2][:30] + "\x00" + g[2][30:] + "\n" + text(g[3:]),
        "utf8-bom.jsonl": "\ufeff" + text(g),
        "latin1-not-utf8.jsonl": (text(g[:2]) + '{"kind":"step","caf\xe9":1}\n').encode("latin-1"),
        "binary-gzip.jsonl": b"\x1f\x8b\x08\x00" + bytes(range(256)),
        "a-json-array-line.jsonl": text([g[0], "[1, 2, 3]", *g[1:]]),
        "header-only-garbage-after.jsonl": text([g[0], "null"]),
    }


def actions() -> list[object]:
    from livesim.runs.hostile import json_attacks

    tools = ["get_price", "check_stock", "issue_coupon", "set_price", "load_skill", "search_products",
             "list_promotions", "escalate_to_human", "no_such_tool"]
    return [a for a in json_attacks(np.random.default_rng(12), 300, tools)
            if len(json.dumps(a)) < 4_000][:200]  # keep the checked-in file small


def write() -> None:
    for sub, files in (("scenarios", scenarios()), ("records", records())):
        d = HERE / sub
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        for name, content in files.items():
            path = d / name
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_bytes(content.encode("utf-8", "surrogatepass"))
    with (HERE / "actions.jsonl").open("w", encoding="utf-8") as f:
        for a in actions():
            f.write(json.dumps(a, ensure_ascii=True) + "\n")


if __name__ == "__main__":
    write()
    print(f"wrote {len(scenarios())} scenarios, {len(records())} records, {len(actions())} actions under {HERE}")
