"""Bad numbers and seed lists are one line naming the option; the dashboard clock stops at the stream's length;
training threads follow the free cores."""

from __future__ import annotations

import random

import pytest

from livesim.cli import main
from livesim.cli.common import SeedsError, parse_seeds
from livesim.render.dashboard import DashboardState, render, shown_clock


def _malformed(rng: random.Random) -> str:
    """A seed list with one part that is not a seed or an ascending range."""
    a, b = rng.randint(0, 50), rng.randint(51, 99)
    bad = rng.choice([f"{a}..{b}", f"{b}-{a}", f"{a}:{b}", f"-{a}", f"{a}-", "x", f"{a}.5", f"{a} {b}", f"{a}-{b}-{b}",
                      f"{a}to{b}", f"{a}~{b}"])
    good = [str(rng.randint(0, 9)) for _ in range(rng.randint(0, 2))]
    parts = good + [bad]
    rng.shuffle(parts)
    return ",".join(parts)


@pytest.mark.parametrize("seed", range(40))
def test_a_malformed_seed_list_names_the_option_and_the_part(seed):
    text = _malformed(random.Random(seed))
    with pytest.raises(SeedsError) as e:
        parse_seeds(text)
    assert str(e.value).startswith(f"--seeds {text!r}") and "expected e.g. 0-49" in str(e.value)


@pytest.mark.parametrize("seed", range(20))
def test_a_well_formed_seed_list_parses_as_written(seed):
    rng = random.Random(seed)
    want, parts = [], []
    for _ in range(rng.randint(1, 4)):
        a = rng.randint(0, 30)
        if rng.random() < 0.5:
            b = a + rng.randint(0, 5)
            parts.append(f"{a}-{b}")
            want.extend(range(a, b + 1))
        else:
            parts.append(str(a))
            want.append(a)
    assert parse_seeds(", ".join(parts)) == want


@pytest.mark.parametrize("argv", [["compare", "--agent", "oracle", "--scenario", "flash-sale-rush"],
                                  ["hat", "ab", "--a", "memorizer", "--b", "oracle"]])
def test_commands_with_seeds_report_the_option(argv, capsys):
    try:
        code = main([*argv, "--seeds", "0..5"])
    except SystemExit as e:  # a command's refusal reaches a caller of `main` as BadInput (exit status 2)
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --seeds '0..5'") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv,flag", [(["view", "x.jsonl", "--speed"], "--speed"),
                                       (["run", "--dashboard", "--speed"], "--speed"),
                                       (["hat", "dev", "--model", "tiny", "--threads"], "--threads"),
                                       (["view", "x.jsonl", "--frames"], "--frames")])
@pytest.mark.parametrize("value", ["-1", "-0.5", "-1000", "nan", "0"])
def test_negative_or_nan_numbers_are_refused_before_anything_runs(argv, flag, value, capsys):
    if value == "0" and flag == "--speed":
        return  # --speed 0: no wait, a legal value
    if flag != "--speed" and value in ("-0.5", "nan"):
        return  # integer options: argparse refuses these itself
    assert main([*argv, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {flag} must be >= ") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("over", [0.0, 0.01, 3.0, 99.5])
def test_dashboard_clock_stops_at_the_streams_length(over):
    from io import StringIO

    from rich.console import Console

    state = DashboardState(title="t", duration_s=100.0, clock_s=100.0 + over)
    assert shown_clock(state) == 100.0
    out = StringIO()
    Console(file=out, width=120).print(render(state, width=120))
    assert "t 01:40/01:40" in out.getvalue()
    assert shown_clock(DashboardState(title="t", duration_s=100.0, clock_s=42.0)) == 42.0


@pytest.mark.parametrize("cpus", [1, 2, 4, 16])
@pytest.mark.parametrize("load", [0.0, 0.4, 0.6, 1.5, 3.0, 40.0])
def test_threads_follow_the_free_cores(cpus, load):
    from livesim.hat.common import pick_threads

    n, why = pick_threads(cpus=cpus, load=load)
    assert 1 <= n <= cpus
    assert n == max(1, min(cpus, int(cpus - load + 0.5)))
    assert why.startswith(f"{n} thread") and f"{cpus} CPUs" in why and f"load {load:.1f}" in why
    # more load never means more threads
    assert pick_threads(cpus=cpus, load=load + 1)[0] <= n
