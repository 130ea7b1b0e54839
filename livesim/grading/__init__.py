"""Grading: the reward terms (`terms`), the latency model, and claim extraction (`facts`).

The package re-exports `livesim.grading.terms`, so `from livesim.grading import grade` works.
"""

from livesim.grading.terms import (
    FORBIDDEN_TOOLS,
    WEIGHTS,
    Grade,
    ToolCallRecord,
    Trace,
    fact_met,
    grade,
    truth_numbers,
)

__all__ = ["FORBIDDEN_TOOLS", "WEIGHTS", "Grade", "ToolCallRecord", "Trace", "fact_met", "grade", "truth_numbers"]
