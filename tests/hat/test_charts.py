"""Charts a reader understands: labelled axes, pipeline order, values on bars, "not measured" drawn apart from 0,
the preset in every title, runs distinguishable."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("matplotlib")

from livesim.hat import report  # noqa: E402


@pytest.fixture
def figures(monkeypatch):
    real = report._plt()
    captured = []

    class Plt:
        def __getattr__(self, name):
            return getattr(real, name)

        def close(self, fig):
            captured.append(fig)

    monkeypatch.setattr(report, "_plt", lambda: Plt())
    return captured


def _run(path, rows):
    path.mkdir()
    (path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_curves_in_pipeline_order_labelled_and_without_the_degenerate_rl_loss(tmp_path, figures):
    rl = [{"stage": "rl", "step": s, "loss": 1e-8 * s, "reward": 0.1 * s} for s in (1, 2, 3)]
    sft = [{"stage": "sft", "step": s, "loss": 3.0 / s} for s in (1, 2, 3)]
    a = _run(tmp_path / "a", rl + sft)
    b = _run(tmp_path / "b", [*rl[:2], {"stage": "rl", "step": 3, "reward": 0.9}, *sft])  # same SFT as a
    assert report.chart_curves({"A": a, "B": b}, tmp_path / "c.png", "tiny") is not None
    (fig,) = figures
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["tiny: sft loss", "tiny: rl reward"]
    assert all(ax.get_ylabel() for ax in fig.axes)
    sft_ax, rl_ax = fig.axes
    assert [ln.get_label() for ln in sft_ax.get_lines()] == ["a = b"]  # identical curves: one line, both names
    styles = {(ln.get_linestyle(), ln.get_marker()) for ln in rl_ax.get_lines()}
    assert len(styles) == 2


def test_suites_chart_marks_not_measured_apart_from_zero_and_prints_values(tmp_path, figures):
    def row(name, t1, t4):
        return {"row": name, "status": "ok",
                "suites": {"T1": {"scores": {"avg": t1}}, "T4": {"scores": {"prompt_strict": t4}}}}

    results = {"preset": "smollm2-135m", "rows": [row("base", 0.0, 0.25), row("HAT", 0.48, None)]}
    report.chart_suites(results, tmp_path / "s.png")
    (fig,) = figures
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "0" in texts and "48" in texts and "25" in texts
    # T1 pass, T2, T2 pass, T2-stress, T3 of both rows (no per-request rows, so no pass rates) and T4 of HAT
    assert texts.count("n/m") == 11
    assert any(p.get_hatch() for p in ax.patches) and "not measured (n/m)" in [t.get_text() for t in
                                                                              ax.get_legend().get_texts()]
    assert ax.get_title().startswith("smollm2-135m:") and ax.get_ylabel() == "score (%)"
