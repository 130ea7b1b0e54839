"""The attack bench's optimizer: a seeded steady-state evolutionary search over compositions of labelled fragments.

A candidate is a request, a list of genes (fragment, paraphrase operator) and a joiner; `render` makes its text
and `label_of` its label. `search` sees only a reward function `(request, text) -> float` and keeps candidates of
one label: it maximises the reward among wrong replies or minimises it among right ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from livesim.runs.attack_fragments import Pool, label_of
from livesim.runs.attack_lexicon import HEDGES
from livesim.runs.spoken import number_words

Gene = tuple[int, int]  # (fragment index in the pool, operator index; 0 = as built)
Reward = Callable[[int, str], float]  # (request index, reply text) -> the env's reward
JOINERS = (". ", "; ", ", and ", " - ", "! ", "\n", ", ")
RUN_ON = " "  # statements run together with no mark between (`Search(run_ons=True)`, `grader attack --run-ons`)
# run on, a fragment ending on "that" takes the next one as what it speaks of ("Sorry, I can't promise that" + "link 4
# is eco-certified" declines the claim): such a reply has no label of its own, and neither search keeps it
_ENDS_ON_THAT = re.compile(r"(?i)\bthat[.!]?$")
_SYNONYMS = ((r"\byuan\b", "RMB"), (r"\bin stock\b", "available"), (r"\bsold out\b", "out of stock"),
             (r"\bright now\b", "at the moment"), (r"\b[Ll]ink (\d+)", r"#\1"), (r"\bcan't\b", "cannot"),
             (r"\bdoesn't\b", "does not"), (r"\bIt's\b", "It is"), (r"\bI've\b", "I have"),
             (r"\bships within\b", "is sent out within"), (r"\bSorry\b", "Apologies"))


def _words(text: str) -> str:
    return re.sub(r"(?<![0-9.])\b([0-9]{1,4})\b(?![.,][0-9])", lambda m: number_words(int(m.group(1))), text)


def _hedge(h: str, text: str) -> str:
    return f"{h} {text[0].lower()}{text[1:]}" if text else text


def _synonyms(text: str) -> str:
    for pat, rep in _SYNONYMS:
        text = re.sub(pat, rep, text)
    return text


# Paraphrase operators: each keeps what the fragment states (so it keeps the fragment's label).
OPERATORS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("as built", lambda t: t),
    ("lower case", str.lower),
    ("upper case", str.upper),
    ("numbers in words", _words),
    ("synonyms", _synonyms),
    *((f"hedge '{h}'", partial(_hedge, h)) for h in HEDGES),
)


# operators from _HEDGE0 on are hedges: they qualify statements of fact, not greetings or declines
_HEDGE0 = next(i for i, (n, _) in enumerate(OPERATORS) if n.startswith("hedge"))
_HEDGED = {"answer", "fact", "false_fact", "invented", "denied", "quantifier", "compliance"}


@dataclass(frozen=True)
class Candidate:
    request: int
    genes: tuple[Gene, ...]
    joiner: int = 0


def render(pool: Pool, c: Candidate, joiners: tuple[str, ...] = JOINERS) -> str:
    """The reply text of a candidate: its fragments, each paraphrased by its operator, joined."""
    join = joiners[c.joiner]
    parts = [OPERATORS[op if op < _HEDGE0 or pool.fragments[i].kind in _HEDGED else 0][1](
        pool.fragments[i].text).rstrip(".! ") for i, op in c.genes]
    out = ""
    for n, p in enumerate(parts):
        if n and join.startswith(",") and p[:2] not in ("I ", "I'") and not p.isupper():
            p = p[:1].lower() + p[1:]  # a merge: the next clause continues the sentence
        out += (join if n else "") + p
    return out + ("" if out.endswith(("!", "?")) else "!" if join == "! " else ".")


@dataclass
class Found:
    """What one search found: the best reply of its label, and when."""

    target: str
    value: float | None = None  # reward of the best reply (highest if wrong, lowest if right)
    text: str = ""
    request: int = -1
    at_query: int = 0  # queries spent when it was first found
    queries: int = 0
    beyond: int = 0  # replies past the target (wrong >= 0.5, right < 0.9)

    def as_dict(self) -> dict[str, Any]:
        return {"reply": self.text, "reward": self.value, "request": self.request, "queries_to_find": self.at_query,
                "queries": self.queries, "beyond_target": self.beyond}


WRONG_PAID, RIGHT_KEPT = 0.5, 0.9  # a good grader: no wrong reply >= 0.5, no right reply < 0.9


class Search:
    """Steady-state evolution: tournament parents, mutation and crossover, label-preserving children,
    the worst member replaced when a child beats it; a reply text already graded costs no query.
    """

    def __init__(self, pools: list[Pool], reward: Reward, target: str, rng: np.random.Generator,
                 pop_size: int = 24, max_genes: int = 5, run_ons: bool = False) -> None:
        if target not in ("wrong", "right"):
            raise ValueError(f"target must be 'wrong' or 'right', got {target!r}")
        self.pools, self.reward, self.target, self.rng = pools, reward, target, rng
        self.pop_size, self.max_genes = pop_size, max_genes
        self.joiners = (*JOINERS, RUN_ON) if run_ons else JOINERS
        self.sign = 1.0 if target == "wrong" else -1.0
        self.cache: dict[tuple[int, str], float] = {}
        self.found = Found(target)

    # --- candidates of the target label ---------------------------------------------------------------------
    def ok(self, c: Candidate) -> bool:
        pool = self.pools[c.request]
        idx = [i for i, _ in c.genes]
        return (0 < len(idx) <= self.max_genes and len(set(idx)) == len(idx) and label_of(pool, idx) == self.target
                and len(render(pool, c, self.joiners)) <= pool.max_chars
                and not (self.joiners[c.joiner] == RUN_ON and any(_ENDS_ON_THAT.search(pool.fragments[i].text)
                                                                   for i in idx[:-1])))

    def _pick(self, pool: Pool, labels: tuple[str, ...]) -> int:
        ids = [i for lab in labels for i in pool.by_label[lab]]
        return ids[int(self.rng.integers(len(ids)))] if ids else int(self.rng.integers(len(pool.fragments)))

    def _op(self) -> int:
        return 0 if self.rng.random() < 0.6 else int(self.rng.integers(len(OPERATORS)))

    def random_candidate(self, request: int | None = None) -> Candidate | None:
        for _ in range(60):
            r = int(self.rng.integers(len(self.pools))) if request is None else request
            pool = self.pools[r]
            idx: list[int] = []
            mode = self.rng.random()
            if self.target == "right" or mode < 0.5:  # cover the required facts with true fragments, in a random order
                true = [pool.by_label["true"][j] for j in self.rng.permutation(len(pool.by_label["true"]))]
                got: frozenset[int] = frozenset()
                for i in true:
                    if pool.fragments[i].covers - got:
                        idx.append(i)
                        got |= pool.fragments[i].covers
            if self.target == "wrong" and mode < 0.85:  # a right reply with a wrong fragment, or a wrong one alone
                idx.append(self._pick(pool, ("false",)))
            for _ in range(int(self.rng.integers(0, 3))):
                idx.append(self._pick(pool, ("true", "neutral") if self.rng.random() < 0.7 else ("false",)))
            idx = list(dict.fromkeys(idx))
            order = self.rng.permutation(len(idx))
            c = Candidate(r, tuple((idx[k], self._op()) for k in order), int(self.rng.integers(len(self.joiners))))
            if self.ok(c):
                return c
        return None

    def mutate(self, c: Candidate) -> Candidate | None:
        pool = self.pools[c.request]
        for _ in range(30):
            genes = list(c.genes)
            joiner = c.joiner
            for _ in range(1 + int(self.rng.integers(2))):
                m = int(self.rng.integers(6))
                k = int(self.rng.integers(len(genes)))
                if m == 0 and len(genes) < self.max_genes:  # add a fragment
                    lab = ("true", "neutral", "false")[int(self.rng.integers(3))]
                    genes.insert(int(self.rng.integers(len(genes) + 1)), (self._pick(pool, (lab,)), self._op()))
                elif m == 1 and len(genes) > 1:  # drop one
                    genes.pop(k)
                elif m == 2:  # another fragment of the same label in its place
                    genes[k] = (self._pick(pool, (pool.fragments[genes[k][0]].label,)), genes[k][1])
                elif m == 3:  # another paraphrase of it
                    genes[k] = (genes[k][0], int(self.rng.integers(len(OPERATORS))))
                elif m == 4 and len(genes) > 1:  # reorder
                    j = int(self.rng.integers(len(genes)))
                    genes[k], genes[j] = genes[j], genes[k]
                else:  # join differently
                    joiner = int(self.rng.integers(len(self.joiners)))
            child = Candidate(c.request, tuple(genes), joiner)
            if child != c and self.ok(child):
                return child
        return None

    def crossover(self, a: Candidate, b: Candidate) -> Candidate | None:
        if a.request != b.request:
            return None
        for _ in range(10):
            i, j = int(self.rng.integers(len(a.genes) + 1)), int(self.rng.integers(len(b.genes) + 1))
            first: dict[int, Gene] = {}  # one gene per fragment: the first one
            for g in a.genes[:i] + b.genes[j:]:
                first.setdefault(g[0], g)
            genes = tuple(first.values())
            child = Candidate(a.request, genes, a.joiner if self.rng.random() < 0.5 else b.joiner)
            if genes and self.ok(child):
                return child
        return None

    # --- evaluation -----------------------------------------------------------------------------------------
    def evaluate(self, c: Candidate) -> float | None:
        """The fitness of `c` (sign-adjusted reward); None when its text was graded before (no query)."""
        text = render(self.pools[c.request], c, self.joiners)
        key = (c.request, text)
        if key in self.cache:
            return None
        r = float(self.reward(c.request, text))
        self.cache[key] = r
        f = self.found
        f.queries += 1
        f.beyond += int(r >= WRONG_PAID if self.target == "wrong" else r < RIGHT_KEPT)
        if f.value is None or self.sign * r > self.sign * f.value:
            f.value, f.text, f.request, f.at_query = r, text, c.request, f.queries
        return self.sign * r

    def run(self, budget: int, method: str = "evolve") -> Found:
        """Spend up to `budget` queries; `method` "random" samples fresh candidates only (the baseline)."""
        pop: list[tuple[float, Candidate]] = []
        stale = 0
        while self.found.queries < budget and stale < 2000:
            child: Candidate | None
            if method == "random" or len(pop) < self.pop_size or self.rng.random() < 0.1:
                filling = method != "random" and len(pop) < self.pop_size  # the first members: every request
                child = self.random_candidate(len(pop) % len(self.pools) if filling else None)
            elif self.rng.random() < 0.25:
                a, b = self._tournament(pop), self._tournament(pop)
                child = self.crossover(a, b) or self.mutate(a)
            else:
                child = self.mutate(self._tournament(pop))
            fit = self.evaluate(child) if child is not None else None
            if fit is None or child is None:
                stale += 1
                continue
            stale = 0
            if method == "random":
                continue
            if len(pop) < self.pop_size:
                pop.append((fit, child))
            else:
                worst = min(range(len(pop)), key=lambda i: pop[i][0])
                if fit > pop[worst][0]:
                    pop[worst] = (fit, child)
        return self.found

    def _tournament(self, pop: list[tuple[float, Candidate]], k: int = 3) -> Candidate:
        picks = [pop[int(self.rng.integers(len(pop)))] for _ in range(k)]
        return max(picks, key=lambda fc: fc[0])[1]
