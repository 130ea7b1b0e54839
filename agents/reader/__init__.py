"""`reader`: a non-privileged host that acts only on the observation (prompt, messages, tool schemas).

It finds tools, parameters and skills from what the presented harness says, explores skills whose index
entry says nothing, recovers from the environment's error and hook messages, and states only values that
tools returned. It is the HSA teacher of `livesim.hat.collect` and a baseline row of the suites.
"""

from __future__ import annotations

from livesim.agents.reader.policy import ReaderAgent

__all__ = ["ReaderAgent"]
