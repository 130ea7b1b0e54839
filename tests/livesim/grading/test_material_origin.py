"""Natural or synthetic follows the world's own lists (`livesim.world.answers.NATURAL` / `SYNTHETIC`, what its answers
to "real or synthetic?" turn on): "Link 8 is bamboo, a natural material" is supported for bamboo, "a synthetic
material" is not, and the other way round for polyester.

Generated over spec_material requests of many seeds and every product whose record names a material of either list.
"""

from __future__ import annotations

from livesim.runs.calibration import build_request, grade_text
from livesim.world.answers import NATURAL, SYNTHETIC


def _err(g, word: str) -> bool:
    return any(word in e and "unsupported property" in e for e in g.errors)


def test_natural_and_synthetic_follow_the_worlds_lists():
    seen = set()
    for seed in range(9900, 10200):
        sim = build_request(seed, "spec_material")
        for p in sim.catalog.products:
            mat = str(p.attributes.get("material", "")).lower()
            natural, synthetic = mat in NATURAL, mat in SYNTHETIC
            if not (natural or synthetic):
                continue
            seen.add(mat)
            for origin in ("natural", "synthetic"):
                g = grade_text(sim, f"Link {p.link} is {mat}, a {origin} material.")
                wrong = (origin == "natural") != natural  # said natural of a synthetic, or synthetic of a natural
                assert _err(g, origin) == wrong, (mat, origin, g.errors)
    assert {"bamboo", "fleece", "memory foam"} <= seen and len(seen) >= 5, seen
