"""Incremental generation for the `transformers` agent: a per-conversation KV cache and an end-of-turn rule.

Within a request the conversation only grows, so the tokens of turn k are a prefix of those of turn k+1
(up to how the chat template re-renders the model's own output). `PrefixCache` keeps the key/value states
of recent token sequences; a new prompt reuses the longest common prefix it finds there and only the rest
is prefilled (tool results, hook messages). The prefix common to a whole batch (the tool list and the
rules every request under one harness starts with) is prefilled once, as a shared entry that every row reads
(`_share_batch_prefix`). `generate_cached` runs one batch of such prompts through a
manual decode loop: per-row caches of different lengths are left-padded into one `DynamicCache`, the
new tokens are left-padded after them (the padding in between is masked out, and position ids count only
real tokens), and finished rows leave the batch. Greedy decoding gives the tokens a full prefill with
`model.generate` gives on the same prompts (`tests/agents/test_kv_cache.py`). On CUDA the decode steps run with
fixed shapes instead (`_decode_static`: every row stays, the whole turn buffer is attended through a mask) and are
replayed as one CUDA graph, with the same output.

`turn_end` is the end-of-turn rule both paths share: an end-of-sequence token, or a closed tool call that
is not followed by another `<tool_call>` within `TOOL_CALL_GRACE` tokens (several calls per turn stay
possible; trailing chatter after the last call is dropped).
"""

from __future__ import annotations

import os
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

TOOL_CALL_GRACE = 3  # tokens after `</tool_call>` in which another `<tool_call>` may start


@dataclass
class TurnEnd:
    """Token ids that end a turn: end-of-sequence ids and the tool-call tags (None when the tokenizer has none)."""

    eos: frozenset[int]
    call_start: int | None = None
    call_end: int | None = None
    after_tool_call: bool = True

    def end(self, ids: list[int]) -> int | None:
        """Length of the completion `ids` once the turn has ended (the cut point), else None."""
        return self.scanner().feed(ids)

    def scanner(self) -> _EndScan:
        """The rule read incrementally: `feed` each new piece of a completion; O(new tokens) a call."""
        return _EndScan(self)

    def cut(self, ids: list[int]) -> list[int]:
        end = self.end(ids)
        return ids if end is None else ids[:end]


class _EndScan:
    """`TurnEnd.end` over a completion given piece by piece (the decode loops call it every step for every row;
    rescanning the whole completion each time was quadratic in its length).
    """

    __slots__ = ("rule", "n", "last_close", "cut")

    def __init__(self, rule: TurnEnd) -> None:
        self.rule, self.n = rule, 0
        self.last_close: int | None = None
        self.cut: int | None = None

    def feed(self, tokens: list[int]) -> int | None:
        """The cut point (as `TurnEnd.end` of everything fed so far) once the turn has ended, else None."""
        if self.cut is not None:
            return self.cut
        rule = self.rule
        for k, tok in enumerate(tokens, self.n):
            if tok in rule.eos:
                self.cut = k + 1
                break
            if not rule.after_tool_call:
                continue
            if tok == rule.call_start:
                self.last_close = None
            elif tok == rule.call_end:
                self.last_close = k
            elif self.last_close is not None and k - self.last_close >= TOOL_CALL_GRACE:
                self.cut = self.last_close + 1
                break
        self.n += len(tokens)
        return self.cut


def stopping_criteria(rule: TurnEnd, prompt_width: int) -> Any:
    """The rule as a `transformers` `StoppingCriteria` (per row) for `model.generate` (the full-prefill path)."""
    import torch
    from transformers import StoppingCriteria

    class _Stop(StoppingCriteria):
        def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
            done = [rule.end(row[prompt_width:].tolist()) is not None for row in input_ids]
            return torch.tensor(done, dtype=torch.bool, device=input_ids.device)  # type: ignore[return-value]

    return _Stop()


@dataclass
class _Entry:
    ids: list[int]
    kv: list[tuple[Any, Any]]  # per layer (keys, values), each (1, heads, len(ids), head_dim)
    shared: bool = False  # a batch's common prefix: read by many rows, never consumed by one
    arr: Any = None  # `ids` as an int64 array, for `PrefixCache.match`

    def __post_init__(self) -> None:
        self.arr = np.asarray(self.ids, dtype=np.int64)


@dataclass
class PrefixCache:
    """Key/value states of recent token sequences, reused for any prompt that starts with (part of) them.

    `max_entries` bounds memory (least recently used first out); `min_prefix` is the shortest prefix worth
    reusing (shorter matches are prefilled from scratch).
    """

    max_entries: int = 16
    min_prefix: int = 16
    entries: OrderedDict[int, _Entry] = field(default_factory=OrderedDict)
    _next: int = 0

    def match(self, ids: list[int]) -> tuple[int | None, int]:
        """(entry key, common prefix length) of the entry sharing the longest prefix with `ids`.

        Every entry is compared as an array (one vectorised comparison each): with a batch of 128 conversations
        the cache holds ~2 x 128 entries of ~1,000-3,000 tokens, and comparing Python lists by bisection took
        ~7 ms a lookup, on the host, for every row of every turn.
        """
        if not self.entries:
            return None, 0
        query = np.asarray(ids, dtype=np.int64)
        best, best_n = None, 0
        for key, e in self.entries.items():
            n = _common_prefix(e.arr, query)
            if n > best_n:
                best, best_n = key, n
        if best_n < self.min_prefix:
            return None, 0
        return best, best_n

    def take(self, key: int, n: int, consume: bool) -> list[tuple[Any, Any]]:
        """The first `n` positions of an entry's states; `consume` drops the entry (its owner moved on)."""
        e = self.entries[key]
        kv = [(k[:, :, :n], v[:, :, :n]) for k, v in e.kv]
        if consume and not e.shared:
            del self.entries[key]
        else:
            self.entries.move_to_end(key)
        return kv

    def put(self, ids: list[int], kv: list[tuple[Any, Any]], shared: bool = False) -> None:
        self.entries[self._next] = _Entry(list(ids), kv, shared)
        self._next += 1
        while len(self.entries) > self.max_entries:
            self.entries.popitem(last=False)

    def clear(self) -> None:
        self.entries.clear()

    @property
    def tokens(self) -> int:
        return sum(len(e.ids) for e in self.entries.values())


def _common_prefix(a: Any, b: Any) -> int:
    """Length of the common prefix of two token sequences (lists or 1-D integer arrays), compared as arrays."""
    a, b = np.asarray(a), np.asarray(b)
    n = min(len(a), len(b))
    differ = a[:n] != b[:n]
    return int(differ.argmax()) if differ.any() else n


@dataclass
class GenStats:
    prefill_tokens: int = 0
    reused_tokens: int = 0
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    forward_calls: int = 0
    prefill_calls: int = 0  # ...of which prefill passes (a batch's shared prefix, row groups of its new tokens)
    prefill_slots: int = 0  # token positions the prefill passes computed, padding included (>= prefill_tokens)
    drafted_tokens: int = 0  # prompt-lookup draft tokens fed for verification
    accepted_tokens: int = 0  # ...of which the model predicted the same (tokens gained without a forward pass)
    graph_steps: int = 0  # decode steps replayed from a CUDA graph (of `forward_calls`)


def _turn_layer_class() -> type:
    """`TurnLayer`: a `DynamicLayer` whose keys/values live in buffers sized for the whole turn (built lazily, so
    importing this module needs no torch). Appending a token writes into the buffer instead of concatenating the
    whole cache, which on a CPU cost more than the model's matmuls (every decode step copied every layer's cache).
    """
    global _TURN_LAYER
    if _TURN_LAYER is not None:
        return _TURN_LAYER
    from transformers.cache_utils import DynamicLayer

    class TurnLayer(DynamicLayer):  # type: ignore[misc]
        def __init__(self, capacity: int, keys: Any = None, values: Any = None, length: int = 0) -> None:
            super().__init__()
            self.capacity, self.length = capacity, length
            self.kbuf, self.vbuf = keys, values
            if keys is not None:
                self.device, self.is_initialized = keys.device, True
                self.keys, self.values = keys[:, :, :length], values[:, :, :length]

        write_at: Any = None  # static mode (`_decode_static`): (B, 1, q, 1) columns each row's new states go to
        group: Any = None  # a prefill of some rows (`_prefill`): (their indices, first column written, all rows)

        def update(self, key_states: Any, value_states: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
            if self.write_at is not None:  # fixed shapes and addresses: the whole buffer is attended, masked
                b, h, q, d = key_states.shape
                self.kbuf.scatter_(2, self.write_at.expand(b, h, q, d), key_states)
                self.vbuf.scatter_(2, self.write_at.expand(b, h, q, value_states.shape[-1]), value_states)
                return self.kbuf, self.vbuf
            if self.group is not None:  # these rows' new states at [start, end); they attend to [0, end)
                rows, start, total = self.group
                if self.kbuf is None:
                    _, h, _, d = key_states.shape
                    self.kbuf = key_states.new_zeros((total, h, self.capacity, d))
                    self.vbuf = value_states.new_zeros((total, h, self.capacity, value_states.shape[-1]))
                    self.device, self.is_initialized = key_states.device, True
                end = start + key_states.shape[-2]
                self.kbuf[rows, :, start:end] = key_states
                self.vbuf[rows, :, start:end] = value_states
                return self.kbuf[rows, :, :end], self.vbuf[rows, :, :end]
            if self.kbuf is None:
                b, h, _, d = key_states.shape
                self.kbuf = key_states.new_zeros((b, h, self.capacity, d))
                self.vbuf = value_states.new_zeros((b, h, self.capacity, value_states.shape[-1]))
                self.device, self.is_initialized = key_states.device, True
            end = self.length + key_states.shape[-2]
            if end > self.capacity:  # rejected draft columns used the room up: grow once by half
                self.capacity = max(end, self.capacity * 3 // 2)
                grown = [buf.new_zeros((*buf.shape[:2], self.capacity, buf.shape[3])) for buf in (self.kbuf, self.vbuf)]
                for new_buf, buf in zip(grown, (self.kbuf, self.vbuf), strict=True):
                    new_buf[:, :, : self.length] = buf[:, :, : self.length]
                self.kbuf, self.vbuf = grown
            self.kbuf[:, :, self.length : end] = key_states
            self.vbuf[:, :, self.length : end] = value_states
            self.length = end
            self.keys, self.values = self.kbuf[:, :, :end], self.vbuf[:, :, :end]
            return self.keys, self.values

        def get_seq_length(self) -> int:
            return self.group[1] if self.group is not None else self.length

        def end_groups(self, length: int) -> None:
            """After a prefill by row groups: every row holds `length` columns."""
            self.group, self.length = None, length
            self.keys, self.values = self.kbuf[:, :, :length], self.vbuf[:, :, :length]

        def keep_rows(self, sel: Any) -> None:
            self.kbuf, self.vbuf = self.kbuf.index_select(0, sel), self.vbuf.index_select(0, sel)
            self.keys, self.values = self.kbuf[:, :, : self.length], self.vbuf[:, :, : self.length]

    _TURN_LAYER = TurnLayer
    return TurnLayer


_TURN_LAYER: type | None = None

_FOLDED_MASK: tuple[Any, Any, Any] | None = None  # (the model's mask object, (n_rep, dtype), folded additive mask)

GROUPED_SDPA = "livesim_grouped_sdpa"
"""Attention implementation used while `generate_cached` runs a model whose implementation is `sdpa`."""


def _grouped_sdpa(module: Any, query: Any, key: Any, value: Any, attention_mask: Any, dropout: float = 0.0,
                  scaling: float | None = None, **kwargs: Any) -> tuple[Any, None]:
    """SDPA for grouped-query attention with a mask, without copying the cache per query head.

    transformers' `sdpa` repeats every key/value head for its query heads (`repeat_kv`) whenever a mask is
    given and more than one token is fed: with a padded batch that copied the whole cache on every decode step
    (and every verification step of the drafts). Here the query heads that share a key/value head are folded
    into the query length instead (heads `g*r .. g*r+r-1` read head `g`), the mask repeated to match; the
    result equals `repeat_kv` + SDPA. The mask is made additive (and folded) once per forward pass, not per
    layer. Folding copies the mask `n_rep` times where `repeat_kv` copies the cache once a layer: a long query (a
    prefill) on a model with few layers and small heads, such as `tiny`, is cheaper unfolded, with the additive
    mask computed once; SmolLM2 (30 layers, 6 extra heads of 64) folds any query shorter than 11,520 tokens.
    Other cases go to transformers' `sdpa`.
    """
    import torch
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    n_rep = getattr(module, "num_key_value_groups", 1)
    if (n_rep == 1 or attention_mask is None or attention_mask.shape[1] != 1 or kwargs.get("position_bias") is not None
            or kwargs.get("softcap") is not None):
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      **kwargs)
    b, h, q, d = query.shape
    layers = getattr(getattr(module, "config", None), "num_hidden_layers", None)
    # bytes per row and forward: the mask's extra copies against repeat_kv's, over every layer (keys and values)
    fold = layers is None or (n_rep - 1) * q < layers * 2 * (h - key.shape[1]) * d
    global _FOLDED_MASK
    tag = (n_rep, query.dtype, fold)
    if _FOLDED_MASK is not None and _FOLDED_MASK[0] is attention_mask and _FOLDED_MASK[1] == tag:
        mask = _FOLDED_MASK[2]  # every layer of a forward pass gets the same mask object: prepare it once
    else:
        mask = attention_mask.expand(b, 1, q, attention_mask.shape[-1])
        if mask.dtype == torch.bool:  # as SDPA converts a boolean mask, once instead of once per layer (one pass)
            zero = torch.zeros((), dtype=query.dtype, device=mask.device)
            mask = torch.where(mask, zero, torch.full((), float("-inf"), dtype=query.dtype, device=mask.device))
        if fold:
            mask = mask.repeat(1, 1, n_rep, 1)
        _FOLDED_MASK = (attention_mask, tag, mask)
    if not fold:
        return sdpa_attention_forward(module, query, key, value, mask, dropout=dropout, scaling=scaling, **kwargs)
    folded = query.reshape(b, h // n_rep, n_rep * q, d)
    out = torch.nn.functional.scaled_dot_product_attention(folded, key, value, attn_mask=mask, dropout_p=dropout,
                                                           scale=scaling)
    return out.reshape(b, h, q, value.shape[-1]).transpose(1, 2).contiguous(), None


def _use_grouped_sdpa(model: Any) -> str | None:
    """Switch a model on `sdpa` to `_grouped_sdpa` (registered once); returns the implementation to restore."""
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    current = getattr(model.config, "_attn_implementation", None)
    if current != "sdpa":
        return None
    if GROUPED_SDPA not in ALL_ATTENTION_FUNCTIONS:
        ALL_ATTENTION_FUNCTIONS.register(GROUPED_SDPA, _grouped_sdpa)
        ALL_MASK_ATTENTION_FUNCTIONS.register(GROUPED_SDPA, sdpa_mask)
    model.config._attn_implementation = GROUPED_SDPA
    return current


class _Lookup:
    """Prompt-lookup drafts for one row: the tokens that followed the most recent earlier occurrence of the row's
    last `n` tokens (n = 3, else 2) in its own prompt and completion. Loops and copied spans (names, arguments,
    repeated sentences) are predicted many tokens at a time; greedy verification keeps the output unchanged.
    """

    def __init__(self, ids: list[int]) -> None:
        self.ids = list(ids)
        self.seen: list[dict[tuple[int, ...], int]] = [{}, {}]  # n-gram (n = 3, 2) -> end of its latest occurrence
        self.done = 0  # n-grams ending at positions <= done are registered

    def extend(self, tokens: list[int]) -> None:
        self.ids.extend(tokens)

    def draft(self, k: int) -> list[int]:
        ids, L = self.ids, len(self.ids)
        for end in range(self.done + 1, L):  # register n-grams ending before the current one
            for slot, n in enumerate((3, 2)):
                if end >= n:
                    self.seen[slot][tuple(ids[end - n : end])] = end
        self.done = max(self.done, L - 1)
        for slot, n in enumerate((3, 2)):
            if L >= n and (at := self.seen[slot].get(tuple(ids[L - n :]))) is not None:
                return ids[at : min(at + k, L)]
        return []


def generate_cached(model: Any, prompts: list[list[int]], cache: PrefixCache, rule: TurnEnd, *,
                    max_new_tokens: int, pad_id: int, temperature: float = 0.0, top_p: float = 1.0,
                    generator: Any = None, stats: GenStats | None = None, lookahead: int = 0,
                    cuda_graphs: bool | None = None) -> list[list[int]]:
    """Complete every prompt (one batch), reusing and refilling `cache`; returns each completion's token ids.

    Completions are cut by `rule` (the end-of-turn token is kept, as `model.generate` keeps its EOS). The batch's
    key/value states live in buffers sized for the whole turn: decoding writes columns, nothing is concatenated
    or re-prefilled. `lookahead > 0` (greedy only) adds prompt-lookup drafts (`_Lookup`) of up to that many
    tokens per row, verified in the same forward pass: each step feeds the row's last token and its draft,
    keeps the drafted tokens the model itself predicts, plus the model's next token; rejected columns stay in
    the buffer masked out. The output is what one token a step gives.

    `cuda_graphs` (None: on a CUDA device unless `LIVESIM_CUDA_GRAPHS=0`) decodes with fixed shapes instead
    (`_decode_static`), the decode step captured once a call as a CUDA graph and replayed: at this scale a
    step's time is the host launching a few thousand small kernels, not the GPU running them. `True` off CUDA
    runs the same fixed-shape steps eagerly (what the tests compare with the loop above).
    """
    import torch
    from transformers.cache_utils import Cache

    turn_layer = _turn_layer_class()
    stats = stats if stats is not None else GenStats()
    device = next(model.parameters()).device
    n_layers = model.config.get_text_config(decoder=True).num_hidden_layers
    lookahead = lookahead if temperature <= 0 else 0
    static = use_cuda_graphs(device) if cuda_graphs is None else cuda_graphs
    B = len(prompts)
    # 0. the batch's common prefix (a system prompt and tool list that every request shares), prefilled once
    _share_batch_prefix(model, prompts, cache, stats, n_layers, turn_layer, device)
    # 1. per row: reused states and the tokens still to prefill (at least one, whose logits start decoding)
    past: list[list[tuple[Any, Any]] | None] = []
    fresh: list[list[int]] = []
    for ids in prompts:
        key, n = cache.match(ids)
        n = min(n, len(ids) - 1)
        if key is None or n <= 0:
            past.append(None)
            fresh.append(list(ids))
            continue
        consume = n == len(cache.entries[key].ids)  # the whole entry is a prefix: this row supersedes it
        past.append(cache.take(key, n, consume))
        fresh.append(list(ids[n:]))
        stats.reused_tokens += n
    past_len = [0 if p is None else int(p[0][0].shape[2]) for p in past]
    new_len = [len(f) for f in fresh]
    C, N = max(past_len), max(new_len)
    # the static path writes each step's 1 + lookahead columns at the row's own next column (rejected drafts are
    # overwritten), so this bound is never passed; the loop's buffers grow if its rejected columns use it up
    capacity = C + N + max_new_tokens + (lookahead + 1 if static else 0)
    if static:  # the whole buffer is attended: a multiple of 16 keeps the mask's rows aligned for SDPA's kernels
        capacity = -(-capacity // 16) * 16
    stats.prefill_tokens += sum(new_len)

    # 2. one batch: [pad | cached_i] in the cache, [pad | new_i] as input; padding masked, positions real
    mask = torch.zeros((B, C + N), dtype=torch.long)
    input_ids = torch.full((B, N), pad_id, dtype=torch.long)
    for i in range(B):
        mask[i, C - past_len[i] : C] = 1
        mask[i, C + N - new_len[i] :] = 1
        input_ids[i, N - new_len[i] :] = torch.tensor(fresh[i], dtype=torch.long)
    if C > 0:
        ref = next(p for p in past if p is not None)
        layers = []
        for layer in range(n_layers):
            k0, v0 = ref[layer]
            ks = k0.new_zeros((B, k0.shape[1], capacity, k0.shape[3]))
            vs = v0.new_zeros((B, v0.shape[1], capacity, v0.shape[3]))
            for i, p in enumerate(past):
                if p is not None:
                    ks[i, :, C - past_len[i] : C] = p[layer][0][0]
                    vs[i, :, C - past_len[i] : C] = p[layer][1][0]
            layers.append(turn_layer(capacity, ks, vs, C))
    else:
        layers = [turn_layer(capacity) for _ in range(n_layers)]
    kv = Cache(layers=layers)
    positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, C:]

    spans = [[(C - past_len[i], C), (C + N - new_len[i], C + N)] for i in range(B)]
    t0 = time.perf_counter()
    restore = _use_grouped_sdpa(model)
    try:
        mask_d, pos_d = mask.to(device), positions.to(device)
        groups = prefill_groups(new_len, PREFILL_GROUP_TOKENS if device.type == "cpu" else None)
        logits = _prefill(model, kv, layers, groups, input_ids.to(device), mask_d, pos_d, new_len,
                          C + N, stats)
        stats.prefill_seconds += time.perf_counter() - t0
        return (_decode_static if static else _decode)(
            model, prompts, cache, rule, kv, layers, logits=logits, outputs=[[] for _ in range(B)], spans=spans,
            mask_d=mask_d, pos_d=pos_d, width=C + N, max_new_tokens=max_new_tokens, pad_id=pad_id,
            temperature=temperature, top_p=top_p, generator=generator, stats=stats, lookahead=lookahead,
            t0=time.perf_counter())
    finally:
        global _FOLDED_MASK
        _FOLDED_MASK = None
        if restore is not None:
            model.config._attn_implementation = restore


PREFILL_GROUP_TOKENS = 64
"""On a CPU, the padded token slots a separate prefill pass for some rows must save to be run (`prefill_groups`)."""


def prefill_groups(lengths: list[int], per_pass: int | None) -> list[list[int]]:
    """Rows (indices into `lengths`, each a row's uncached tokens) split into prefill passes.

    One left-padded pass computes every row at the longest row's length: a batch that mixes new requests (a whole
    prompt to prefill) with requests in their second turn (a tool result) computes mostly padding. Rows sorted by
    length are cut into runs that minimise the token slots computed (rows x the run's longest) plus `per_pass` for
    each pass (a pass's own cost, reading the weights, in tokens); `per_pass=None` keeps one pass.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    if per_pass is None or len(order) < 2:
        return [order]
    sorted_len = [lengths[i] for i in order]
    n = len(order)
    best, cut = [0] + [0] * n, [0] * (n + 1)
    for j in range(1, n + 1):  # best[j]: cheapest split of the j shortest rows
        best[j], cut[j] = min((best[i] + (j - i) * sorted_len[j - 1] + per_pass, i) for i in range(j))
    groups, j = [], n
    while j > 0:
        groups.append(order[cut[j] : j])
        j = cut[j]
    return groups[::-1]


def _prefill(model: Any, kv: Any, layers: list[Any], groups: list[list[int]], input_d: Any, mask_d: Any, pos_d: Any,
             lengths: list[int], width: int, stats: GenStats) -> Any:
    """Prefill every row's uncached tokens (right-aligned in `input_d`), one forward pass per group of rows; the
    next-token logits of every row, (B, 1, vocab). A group of shorter rows is fed only its own last columns: the
    padding columns before them stay zero in the cache and masked, as in one pass.
    """
    import torch

    with torch.inference_mode():
        if len(groups) == 1:
            stats.forward_calls += 1
            stats.prefill_calls += 1
            stats.prefill_slots += input_d.numel()
            return model(input_ids=input_d, attention_mask=mask_d, position_ids=pos_d, cache=kv, use_cache=True,
                         logits_to_keep=1).logits[:, -1:, :]
        B, N = input_d.shape
        logits = None
        for rows in groups:
            n = max(lengths[i] for i in rows)
            sel = torch.tensor(rows, device=input_d.device)
            for layer in layers:
                layer.group = (sel, width - n, B)
            out = model(input_ids=input_d[sel, N - n :], attention_mask=mask_d[sel], position_ids=pos_d[sel, N - n :],
                        cache=kv, use_cache=True, logits_to_keep=1).logits[:, -1:, :]
            if logits is None:
                logits = out.new_empty((B, 1, out.shape[-1]))
            logits[sel] = out
            stats.forward_calls += 1
            stats.prefill_calls += 1
            stats.prefill_slots += len(rows) * n
        for layer in layers:
            layer.end_groups(width)
        return logits


def _share_batch_prefix(model: Any, prompts: list[list[int]], cache: PrefixCache, stats: GenStats, n_layers: int,
                        turn_layer: type, device: Any) -> None:
    """Prefill the longest prefix common to every prompt of the batch once, as a shared cache entry.

    Requests presented under one harness start with the same tokens (the template's tool list, the persona and
    the rules); without this, each row of the first batch prefilled them anew. Done only when the cache does
    not already hold the prefix (a partial match is extended) and the prefix is at least `cache.min_prefix`.
    """
    import torch
    from transformers.cache_utils import Cache

    if len(prompts) < 2:
        return
    first = prompts[0]
    n = min(len(p) for p in prompts) - 1  # every row keeps at least one token of its own to prefill
    for ids in prompts[1:]:
        n = min(n, _common_prefix(first[:n], ids[:n]))
    if n < cache.min_prefix:
        return
    key, have = cache.match(first[:n])
    have = min(have, n)
    if have >= n:
        return
    t0 = time.perf_counter()
    if key is not None and have > 0:
        past = cache.take(key, have, consume=False)
        layers = []
        for k, v in past:
            kb, vb = k.new_zeros((1, k.shape[1], n, k.shape[3])), v.new_zeros((1, v.shape[1], n, v.shape[3]))
            kb[:, :, :have], vb[:, :, :have] = k, v
            layers.append(turn_layer(n, kb, vb, have))
    else:
        have, layers = 0, [turn_layer(n) for _ in range(n_layers)]
    with torch.inference_mode():
        model(input_ids=torch.tensor([first[have:n]], device=device),
              attention_mask=torch.ones((1, n), dtype=torch.long, device=device),
              position_ids=torch.arange(have, n, device=device).view(1, -1), cache=Cache(layers=layers),
              use_cache=True, logits_to_keep=1)
    stats.forward_calls += 1
    stats.prefill_calls += 1
    stats.prefill_slots += n - have
    stats.prefill_tokens += n - have
    stats.reused_tokens += have
    stats.prefill_seconds += time.perf_counter() - t0
    cache.put(first[:n], [(layer.kbuf[:, :, :n], layer.vbuf[:, :, :n]) for layer in layers], shared=True)


def share_group_prefixes(model: Any, groups: list[list[list[int]]], cache: PrefixCache,
                         stats: GenStats | None = None) -> None:
    """Prefill the prefix common to each group of prompts once, as a shared entry (`_share_batch_prefix` per
    group): for a batch whose rows start alike only group by group, e.g. the rollouts of several GRPO groups.
    `generate_cached` then finds each group's entry for its rows.
    """
    if not groups:
        return
    turn_layer = _turn_layer_class()
    device = next(model.parameters()).device
    n_layers = model.config.get_text_config(decoder=True).num_hidden_layers
    for group in groups:
        _share_batch_prefix(model, group, cache, stats if stats is not None else GenStats(), n_layers, turn_layer,
                            device)


def _decode(model: Any, prompts: list[list[int]], cache: PrefixCache, rule: TurnEnd, kv: Any, layers: list[Any], *,
            logits: Any, outputs: list[list[int]], spans: list[list[tuple[int, int]]], mask_d: Any, pos_d: Any,
            width: int, max_new_tokens: int, pad_id: int, temperature: float, top_p: float, generator: Any,
            stats: GenStats, lookahead: int, t0: float) -> list[list[int]]:
    """The decode loop of `generate_cached` (see there), from the prefill's `logits`."""
    import torch

    device = mask_d.device
    B = len(prompts)
    rows = list(range(B))  # batch row -> prompt index, for rows still decoding
    cols: list[list[int]] = [[] for _ in range(B)]  # cache columns holding each row's fed output tokens
    lookups = [_Lookup(prompts[i]) for i in range(B)] if lookahead else []
    ends = [rule.scanner() for _ in range(B)]
    with torch.inference_mode():
        next_pos = pos_d[:, -1:] + 1  # (B', 1): position of each row's next fed token
        drafts: list[list[int]] = [[] for _ in rows]
        fed_at: int | None = None  # first column of the last decode feed (None: the prefill)
        while True:
            # pick: the model's token after every fed column; keep the drafted tokens it agrees with, then one more
            if lookahead:
                preds = logits.argmax(dim=-1).tolist()  # (B', 1 + m)
                accepted = []
                for d, pr in zip(drafts, preds, strict=True):
                    n_ok = 0
                    while n_ok < len(d) and d[n_ok] == pr[n_ok]:
                        n_ok += 1
                    accepted.append(n_ok)
                stats.accepted_tokens += sum(accepted)
                new = [d[:n_ok] + [pr[n_ok]] for d, pr, n_ok in zip(drafts, preds, accepted, strict=True)]
            else:
                accepted = [0] * len(rows)
                new = [[t] for t in _pick(logits[:, -1, :], temperature, top_p, generator).tolist()]
            done_rows: list[int] = []
            for j, i in enumerate(rows):
                got = new[j][: max_new_tokens - len(outputs[i])]
                if fed_at is not None:  # the row's last token and its kept draft tokens are now cached
                    cols[i].extend(range(fed_at, fed_at + 1 + min(accepted[j], len(got))))
                    mask_d[j, fed_at + 1 + accepted[j] : width] = 0  # rejected draft columns
                outputs[i].extend(got)
                if lookups:
                    lookups[j].extend(got)
                if len(outputs[i]) >= max_new_tokens or ends[i].feed(got) is not None:
                    done_rows.append(j)
            if fed_at is not None:
                next_pos = next_pos + 1 + torch.tensor(accepted, device=device).view(-1, 1)
            for j in done_rows:
                i = rows[j]
                idx = torch.tensor([c for a, b in spans[i] for c in range(a, b)] + cols[i], device=device)
                row_kv = [(layer.kbuf[j : j + 1].index_select(2, idx), layer.vbuf[j : j + 1].index_select(2, idx))
                          for layer in layers]
                cache.put(prompts[i] + outputs[i][: len(cols[i])], row_kv)
            if len(done_rows) == len(rows):
                break
            if done_rows:
                keep = [j for j in range(len(rows)) if j not in done_rows]
                sel = torch.tensor(keep, device=device)
                for layer in layers:
                    layer.keep_rows(sel)
                rows = [rows[j] for j in keep]
                lookups = [lookups[j] for j in keep] if lookups else []
                mask_d, next_pos = mask_d.index_select(0, sel), next_pos.index_select(0, sel)
            # feed: each row's last token and its draft, one forward pass for the batch
            drafts = ([lk.draft(min(lookahead, max_new_tokens - len(outputs[i]) - 1))
                       for lk, i in zip(lookups, rows, strict=True)] if lookups else [[] for _ in rows])
            m = max(len(d) for d in drafts)
            stats.drafted_tokens += sum(len(d) for d in drafts)
            feed = torch.full((len(rows), 1 + m), pad_id, dtype=torch.long)
            step_mask = torch.zeros((len(rows), 1 + m), dtype=torch.long)
            for j, (i, d) in enumerate(zip(rows, drafts, strict=True)):
                feed[j, : 1 + len(d)] = torch.tensor([outputs[i][-1], *d], dtype=torch.long)
                step_mask[j, : 1 + len(d)] = 1
            mask_d = torch.cat([mask_d, step_mask.to(device)], dim=1)
            fed_at, width = width, width + 1 + m
            pos = next_pos + torch.arange(1 + m, device=device).view(1, -1)
            logits = model(input_ids=feed.to(device), attention_mask=mask_d, position_ids=pos, cache=kv,
                           use_cache=True, logits_to_keep=1 + m).logits
            stats.forward_calls += 1
        stats.decode_seconds += time.perf_counter() - t0
    return [rule.cut(out) for out in outputs]


CUDA_GRAPHS_ENV = "LIVESIM_CUDA_GRAPHS"


def use_cuda_graphs(device: Any) -> bool:
    """Whether `generate_cached` captures its decode step on `device` by default: on CUDA, unless
    ``LIVESIM_CUDA_GRAPHS=0`` (a switch to compare the two paths, or to step around a model that cannot be
    captured; a capture that fails falls back to eager fixed-shape steps by itself).
    """
    return getattr(device, "type", str(device)) == "cuda" and os.environ.get(CUDA_GRAPHS_ENV, "1") != "0"


_GRAPH_FAILURES: list[str] = []  # why a capture failed (reported once a process)


def _decode_static(model: Any, prompts: list[list[int]], cache: PrefixCache, rule: TurnEnd, kv: Any,
                   layers: list[Any], *, logits: Any, outputs: list[list[int]], spans: list[list[tuple[int, int]]],
                   mask_d: Any, pos_d: Any, width: int, max_new_tokens: int, pad_id: int, temperature: float,
                   top_p: float, generator: Any, stats: GenStats, lookahead: int, t0: float) -> list[list[int]]:
    """`_decode` with the same shapes and addresses at every step, so that the step can be a CUDA graph.

    Every row stays in the batch to the end (a finished row is fed padding and its output ignored); the step feeds
    each row's last token and a draft padded to `lookahead` tokens at the row's own next cache column (`col`), and
    attends to the whole buffer through a mask built inside the step from `col` and the prompt's columns. Between
    steps the host writes one small int tensor (columns and fed tokens) and reads the picked tokens; the
    picks, the end-of-turn rule and the cache entries are those of `_decode`, row by row, so the outputs are the
    same (sampling draws from the live rows' logits only, in the same order).
    """
    import torch

    device = mask_d.device
    B, m = len(prompts), lookahead
    capacity = layers[0].capacity
    lookups = [_Lookup(prompts[i]) for i in range(B)] if m else []
    ends = [rule.scanner() for _ in range(B)]
    dtype = next(model.parameters()).dtype
    with torch.inference_mode():
        # the step's inputs, fixed in place: [col, last token, draft...] per row; a row's position moves with its
        # column (both advance by the tokens it keeps), so it is the column plus the row's fixed offset
        ctl_host = np.zeros((B, 2 + m), dtype=np.int64)
        ctl = torch.zeros((B, 2 + m), dtype=torch.long, device=device)
        offset = pos_d[:, -1:] + 1 - width
        prompt_cols = torch.zeros((B, capacity), dtype=torch.bool, device=device)
        prompt_cols[:, :width] = mask_d.bool()
        j = torch.arange(1 + m, device=device)
        at_col = torch.arange(capacity, device=device).view(1, 1, 1, capacity)
        low = torch.finfo(dtype).min

        def step() -> Any:
            cols = ctl[:, :1] + j  # (B, 1 + m): where this step's tokens go
            write_at = cols.view(B, 1, 1 + m, 1)
            for layer in layers:
                layer.write_at = write_at
            # a row sees its prompt, its decoded columns [width, col) and the fed columns up to the query's own
            seen = prompt_cols.view(B, 1, 1, capacity) | ((at_col >= width) & (at_col <= write_at))
            mask = torch.zeros(seen.shape, dtype=dtype, device=device).masked_fill_(~seen, low)
            return model(input_ids=ctl[:, 1:], attention_mask=mask, position_ids=ctl[:, :1] + offset + j, cache=kv,
                         use_cache=True, logits_to_keep=1 + m).logits

        graph, replay_out = None, None
        capture = _capturable(device) and not _GRAPH_FAILURES  # a step that failed to capture is not retried
        col = [width] * B
        live = list(range(B))  # rows still decoding, in order
        drafts: list[list[int]] = [[] for _ in range(B)]
        first = True
        while True:
            rows = torch.tensor(live, device=device) if len(live) < B else None
            picked = logits if rows is None else logits.index_select(0, rows)
            if m:
                preds = picked.argmax(dim=-1).tolist()
                accepted = []
                for i, pr in zip(live, preds, strict=True):
                    d, n_ok = drafts[i], 0
                    while n_ok < len(d) and d[n_ok] == pr[n_ok]:
                        n_ok += 1
                    accepted.append(n_ok)
                stats.accepted_tokens += sum(accepted)
                new = [drafts[i][:n_ok] + [pr[n_ok]] for i, pr, n_ok in zip(live, preds, accepted, strict=True)]
            else:
                accepted = [0] * len(live)
                new = [[t] for t in _pick(picked[:, -1, :], temperature, top_p, generator).tolist()]
            still = []
            for i, got, n_ok in zip(live, new, accepted, strict=True):
                got = got[: max_new_tokens - len(outputs[i])]
                if not first:  # the row's fed token and its kept draft are now cached at col[i]...
                    col[i] += 1 + min(n_ok, len(got))
                outputs[i].extend(got)
                if lookups:
                    lookups[i].extend(got)
                if len(outputs[i]) >= max_new_tokens or ends[i].feed(got) is not None:
                    idx = torch.tensor([c for a, b in spans[i] for c in range(a, b)] + list(range(width, col[i])),
                                       device=device)
                    cache.put(prompts[i] + outputs[i][: col[i] - width],
                              [(layer.kbuf[i : i + 1].index_select(2, idx), layer.vbuf[i : i + 1].index_select(2, idx))
                               for layer in layers])
                else:
                    still.append(i)
            live, first = still, False
            if not live:
                break
            ctl_host[:, 1:] = pad_id  # finished rows: padding fed at their frozen column, never read
            for i in live:
                d = lookups[i].draft(min(m, max_new_tokens - len(outputs[i]) - 1)) if m else []
                drafts[i] = d
                stats.drafted_tokens += len(d)
                ctl_host[i, 1 : 2 + len(d)] = [outputs[i][-1], *d]
            ctl_host[:, 0] = col
            ctl.copy_(torch.from_numpy(ctl_host))  # one host-to-device copy a step
            if graph is None and capture:
                graph, replay_out = _capture(step)
                capture = graph is not None
            if graph is not None:
                graph.replay()  # refills replay_out
                logits = replay_out
                stats.graph_steps += 1
            else:
                logits = step()
            stats.forward_calls += 1
        for layer in layers:
            layer.write_at = None
        stats.decode_seconds += time.perf_counter() - t0
    return [rule.cut(out) for out in outputs]


def _capturable(device: Any) -> bool:
    """Whether `_decode_static` captures its step on `device` (CUDA graphs exist on CUDA only)."""
    return device.type == "cuda"


def _capture(step: Any) -> tuple[Any, Any]:
    """(graph, its output) of `step` captured as a CUDA graph, or (None, None) when it cannot be (warned once)."""
    import torch

    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up on a side stream, as capture asks; it writes what step 1 writes
            step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = step()
        return graph, out
    except Exception as exc:  # noqa: BLE001  (any failure: fall back to eager steps, same results)
        if not _GRAPH_FAILURES:
            warnings.warn(f"livesim: the decode step could not be captured as a CUDA graph ({type(exc).__name__}: "
                          f"{exc}); decoding eagerly (set {CUDA_GRAPHS_ENV}=0 to skip the attempt)", stacklevel=3)
        _GRAPH_FAILURES.append(f"{type(exc).__name__}: {exc}")
        return None, None


def _pick(logits: Any, temperature: float, top_p: float, generator: Any) -> Any:
    import torch

    if temperature <= 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits.float() / temperature, dim=-1)
    if top_p < 1.0:
        sorted_p, order = probs.sort(dim=-1, descending=True)
        drop = sorted_p.cumsum(-1) - sorted_p > top_p
        sorted_p = sorted_p.masked_fill(drop, 0.0)
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_p)
    return torch.multinomial(probs, 1, generator=generator).view(-1)
