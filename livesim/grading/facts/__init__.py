"""Rule-based fact extraction from a live-stream host's free-text (English) reply.

`extract_facts` turns a reply into `ExtractedFacts` for the verifiable-rule grader. It never raises, and
every regex is compiled at import with bounded repeats only, so the scan is linear in the text length.
"""

from __future__ import annotations

from livesim.grading.facts.extract import _extract as _extract  # the unguarded core, exercised directly by tests
from livesim.grading.facts.extract import extract_facts, numbers_in
from livesim.grading.facts.patterns import _UNITS as _UNITS  # the unit table, read by tests
from livesim.grading.facts.types import ExtractedFacts, Quantity

__all__ = ["ExtractedFacts", "Quantity", "extract_facts", "numbers_in"]
