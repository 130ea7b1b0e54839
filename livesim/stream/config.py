"""How a stream is generated: `StreamConfig` (world, traffic, script, patches, faults, latency) and its
running metrics. Scenarios (livesim.stream.scenario) compile to a `StreamConfig`.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from livesim.grading.latency import LatencyModel
from livesim.harness.faults import FaultConfig
from livesim.harness.patches import HarnessPatch
from livesim.parsing.safety import clean_text, lone_surrogate
from livesim.world.catalog import Catalog
from livesim.world.room import StrategyEvent

MAX_COMMENTS = 20_000
"""Most generated comments one stream may expect (duration_s x comments_per_min / 60): bounded work."""
MAX_SCRIPT = 5_000
"""Most scripted comments in one stream."""


class ScriptedComment(BaseModel):
    """A comment a scenario places at a fixed time (ground truth drawn from its intent and links)."""

    model_config = ConfigDict(extra="forbid")
    at_s: float = Field(ge=0, le=86_400, description="Arrival time in stream seconds.")
    intent: str = Field(description="One of livesim.world.phrasing.INTENTS.")
    links: list[int] = Field(default_factory=list, description="Links the comment is about, in order.")
    viewer: int | None = Field(None, ge=0, description="Viewer index (None: drawn).")
    text: str | None = Field(None, max_length=2000, description="Verbatim text (None: phrased from the intent).")


class StreamConfig(BaseModel):
    """How a stream is generated. Every field has a default; scenarios override some."""

    model_config = ConfigDict(extra="forbid")
    n_products: int = Field(8, ge=1, le=50, description="Products in a generated catalogue.")
    n_viewers: int = Field(60, ge=1, le=5000, description="Simulated commenting viewers.")
    duration_s: float = Field(600.0, gt=0, le=86_400, description="Stream length in simulated seconds.")
    comments_per_min: float = Field(6.0, gt=0, le=600, description="Mean comment arrival rate (at most 10 a second).")
    burst_p: float = Field(0.2, ge=0, le=1, description="Chance that a comment comes with others in a burst.")
    merge_window_s: float = Field(4.0, ge=0, le=600, description="Comments this close together form one request.")
    max_merge: int = Field(3, ge=1, le=10, description="Most comments merged into one request.")
    multi_intent_p: float = Field(0.12, ge=0, le=1, description="Chance a comment asks two things.")
    noise: float = Field(1.0, ge=0, le=3, description="Scale of slang, typos and emoji in comments.")
    intents: list[str] | None = Field(None, description="Restrict comment intents (None: persona-driven).")
    audience_per_viewer: int = Field(12, ge=1, le=1_000_000, description="Lurkers per commenting viewer "
                                     "(viewers online).")
    latency: LatencyModel = Field(default_factory=LatencyModel)
    catalog: Catalog | None = Field(None, description="Inline catalogue (None: generated from the seed).")
    strategy: list[StrategyEvent] | None = Field(None, description="Strategy timeline (None: generated).")
    script: list[ScriptedComment] = Field(default_factory=list, max_length=MAX_SCRIPT,
                                          description="Comments at fixed times.")
    scripted_only: bool = Field(False, description="Only the scripted comments arrive (no generated traffic).")
    patches: list[HarnessPatch] = Field(default_factory=list, description="Operator harness patches in time.")
    faults: FaultConfig | None = Field(None, description="Tool faults injected at set rates.")

    @model_validator(mode="before")
    @classmethod
    def _valid_unicode(cls, data: Any) -> Any:
        if (where := lone_surrogate(data)) is not None:  # observations and records must be valid UTF-8
            raise ValueError(f"{clean_text('.'.join(str(x) for x in where))}: not valid Unicode (a lone surrogate)")
        return data

    @model_validator(mode="after")
    def _bounded_work(self) -> StreamConfig:
        if (n := expected_comments(self.duration_s, self.comments_per_min)) > MAX_COMMENTS:
            raise ValueError(f"comments_per_min {self.comments_per_min:g} over duration_s {self.duration_s:g} "
                             f"means about {n:.0f} comments; at most {MAX_COMMENTS} per stream")
        return self


def percentiles(values: list[float], qs: tuple[float, ...], presorted: bool = False) -> list[float]:
    """`[float(x) for x in np.percentile(values, qs)]` (method "linear") for finite floats, with numpy's
    arithmetic step for step (index `(n - 1) * q / 100`, neighbours from the sorted values, numpy's two-sided
    lerp), so the figures are the same to the bit (checked against numpy in tests/livesim/stream).
    """
    s = values if presorted else sorted(values)
    n = len(s)
    out = []
    for q in qs:
        v = (n - 1) * (q / 100)
        if v >= n - 1:  # numpy takes the last value for both neighbours (and lerps all the same)
            a = b = s[-1]
            t = v + 1.0
        else:
            i = math.floor(v)
            a, b, t = s[i], s[i + 1], v - i
        d = b - a
        out.append(float(b - d * (1 - t) if t >= 0.5 else a + d * t))
    return out


def expected_comments(duration_s: float, comments_per_min: float) -> float:
    """The mean number of generated comments in a stream."""
    return duration_s * comments_per_min / 60.0


@dataclass
class Metrics:
    """Running business and quality metrics of a stream."""

    requests: int = 0
    reward_sum: float = 0.0
    accuracy_sum: float = 0.0
    effectiveness_sum: float = 0.0
    gmv: float = 0.0
    ipv: int = 0
    orders: int = 0
    churned: int = 0
    ignored: int = 0
    latencies: list[float] = field(default_factory=list)
    _sorted: list[float] = field(default_factory=list, repr=False, compare=False)  # `latencies`, kept sorted
    _sorted_of: list[float] | None = field(default=None, repr=False, compare=False)  # the list `_sorted` follows

    def summary(self, viewers_online: int) -> dict[str, Any]:
        n = max(self.requests, 1)
        lats = self.latencies or [0.0]
        # one value (every QA episode): its own percentiles; else numpy's arithmetic without numpy's per-call cost,
        # on the latencies kept sorted as they come (a stream's summary is built at every request)
        if len(lats) == 1:
            p50, p95 = lats[0], lats[0]
        else:
            srt = self._sorted  # follows `latencies` as the sim appends to it, one per request
            if self._sorted_of is not lats or len(srt) > len(lats):  # replaced or shortened: start again
                srt.clear()
                self._sorted_of = lats
            for x in lats[len(srt):]:
                bisect.insort(srt, x)
            p50, p95 = percentiles(srt, (50, 95), presorted=True)
        return {"requests": self.requests, "mean_reward": self.reward_sum / n, "accuracy": self.accuracy_sum / n,
                "effectiveness": self.effectiveness_sum / n, "gmv": round(self.gmv, 2), "ipv": self.ipv,
                "orders": self.orders, "churned": self.churned, "ignored": self.ignored,
                "viewers_online": viewers_online, "latency_p50": float(p50),
                "latency_p95": float(p95)}
