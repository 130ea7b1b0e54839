"""Harness-Aware Training: stages, suites and reproduction. The model zoo is `livesim.models.zoo`
(`livesim.hat.models` is kept as an attribute: `from livesim.hat import models`).
"""

from livesim.models import zoo as models

__all__ = ["models"]
