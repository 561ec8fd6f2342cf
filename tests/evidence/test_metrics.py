"""Issue 27: the metric definitions against small hand-computed cases."""

from __future__ import annotations

import math

import pytest

from projections.evidence import metrics


def test_log_loss_is_the_capped_base_10_binomial_deviance() -> None:
    # -log10(0.8) = 0.0969100, -log10(0.7) = 0.1549020, a draw at 0.5: log10(2) = 0.3010300
    assert metrics.log_loss([0.8, 0.3, 0.5], [1, 0, 0.5]) == pytest.approx(
        (0.0969100130 + 0.1549019600 + 0.3010299957) / 3, abs=1e-9
    )


def test_predictions_are_clipped_to_one_in_a_hundred() -> None:
    # A certain loss costs -log10(0.01) = 2, never infinity.
    assert metrics.log_loss([1.0], [0]) == pytest.approx(2.0)
    assert metrics.log_loss([0.0], [0]) == pytest.approx(-math.log10(0.99))
    assert metrics.log_loss([0.995], [1]) == pytest.approx(-math.log10(0.99))


def test_brier_is_the_mean_squared_error() -> None:
    assert metrics.brier([0.8, 0.3, 0.5], [1, 0, 0.5]) == pytest.approx((0.04 + 0.09 + 0) / 3)


def test_accuracy_counts_decisive_games_only_and_half_for_a_coin_toss() -> None:
    # 0.5 on a win: half; 0.6 on a loss: wrong; 0.4 on a loss: right; the draw is left out.
    hit, decisive = metrics.accuracy([0.5, 0.6, 0.4, 0.9], [1, 0, 0, 0.5])
    assert (hit, decisive) == (pytest.approx(0.5), 3)
    assert metrics.accuracy([0.7], [0.5]) == (None, 0)


def test_calibration_puts_each_prediction_in_one_of_ten_bins() -> None:
    table = metrics.calibration([0.05, 0.15, 0.15, 0.95, 1.0, 0.1], [0, 1, 0, 1, 1, 1])
    assert len(table) == 10
    assert [b.count for b in table] == [1, 3, 0, 0, 0, 0, 0, 0, 0, 2]
    assert table[1].low == pytest.approx(0.1) and table[1].high == pytest.approx(0.2)
    assert table[1].predicted == pytest.approx((0.15 + 0.15 + 0.1) / 3)
    assert table[1].observed == pytest.approx(2 / 3)
    assert table[9].predicted == pytest.approx(0.975) and table[9].observed == 1.0
    assert table[5].predicted is None and table[5].observed is None


def test_measure_gathers_them_and_an_empty_set_has_none() -> None:
    m = metrics.measure([0.8, 0.3], [1, 0])
    assert (m.comparisons, m.decisive, m.accuracy) == (2, 2, 1.0)
    assert m.brier == pytest.approx((0.04 + 0.09) / 2)
    empty = metrics.measure([], [])
    assert (empty.comparisons, empty.log_loss, empty.brier, empty.accuracy) == (0, None, None, None)


def test_mismatched_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="2 predictions for 1 outcomes"):
        metrics.log_loss([0.5, 0.5], [1])
