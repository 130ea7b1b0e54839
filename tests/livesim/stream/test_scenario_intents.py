"""A scripted intent the room cannot serve is an error in `run` and a warning in `scenarios --check`, never a
silent change of intent; drawn intents still fall back to a price question."""

from __future__ import annotations

import pytest

from livesim.cli import main
from livesim.stream.scenario import bundled_scenarios, load_scenario

SCRIPT = """name: no-coupon
purpose: a coupon question in a room without coupons
seed: 2
duration_s: 40
traffic: {n_viewers: 5, comments_per_min: 2, scripted_only: true}
script:
  - {at_s: 5, intent: coupon}
strategy:
  - {at_s: 0, kind: permissions, params: {issue_coupons: false}}
"""


def test_an_unservable_scripted_intent_is_refused_by_run_and_warned_by_check(tmp_path, capsys):
    path = tmp_path / "sc.yaml"
    path.write_text(SCRIPT)
    record = tmp_path / "r.jsonl"
    assert main(["run", "--scenario", str(path), "--record", str(record)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no-coupon: the scripted 'coupon' comment at 5s cannot be served") and \
        err.count("\n") == 1 and not record.exists()
    assert main(["scenarios", "--check", str(path)]) == 0
    captured = capsys.readouterr()
    assert "warning: no-coupon: the scripted 'coupon' comment" in captured.err
    assert "ok (no-coupon), with the warning above" in captured.out


@pytest.mark.parametrize("name", bundled_scenarios())
def test_every_bundled_scenario_serves_its_script(name):
    from livesim.cli.scenarios import unservable

    assert unservable(load_scenario(name)) is None
