"""Fault injection: tool services that time out, return malformed output or deny permission, at set rates."""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field


class FaultConfig(BaseModel):
    """Per-call fault rates; `tools` limits faults to some canonical tool keys (empty: all but load_skill)."""

    model_config = ConfigDict(extra="forbid")
    timeout: float = Field(0.0, ge=0, le=1, description="Chance a call times out.")
    malformed: float = Field(0.0, ge=0, le=1, description="Chance a call returns truncated, malformed output.")
    denied: float = Field(0.0, ge=0, le=1, description="Chance a call is refused with a permission error.")
    tools: list[str] = Field(default_factory=list)

    def injector(self) -> FaultInjector:
        return FaultInjector(self)


class FaultInjector:
    """Callable `(tool_key, rng) -> fault kind | None`, drawing from the simulator's fault generator."""

    def __init__(self, config: FaultConfig) -> None:
        total = config.timeout + config.malformed + config.denied
        if total > 1:
            raise ValueError(f"fault rates sum to {total:g} > 1")
        self.config = config

    def __call__(self, key: str, rng: np.random.Generator) -> str | None:
        c = self.config
        if key == "load_skill" or (c.tools and key not in c.tools):
            return None
        u = float(rng.random())
        for kind, rate in (("timeout", c.timeout), ("malformed", c.malformed), ("denied", c.denied)):
            if u < rate:
                return kind
            u -= rate
        return None
