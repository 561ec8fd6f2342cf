"""How well predictions matched outcomes: pure functions on arrays.

A prediction is the probability ``p`` a side was given of doing better than
its opponent (a draw counting half); its outcome is 1, ½ or 0. The measures
are those the rating literature scores systems with:

- log-loss: the binomial deviance with predictions clipped to [0.01, 0.99],
  base-10 logarithms, as the Kaggle chess-rating contests and R's
  PlayerRatings ``metrics()`` cap it: −mean(o·log10 p + (1−o)·log10(1−p));
- the Brier score: mean (p − o)²;
- accuracy on decisive games (outcome 0 or 1): the share the prediction
  called right, a prediction of exactly ½ counting half;
- a calibration table: ten bins of predicted probability, each with its
  mean prediction, observed mean outcome and count.
"""

from __future__ import annotations

import msgspec
import numpy as np
from numpy.typing import ArrayLike, NDArray

#: Predictions are clipped to this range before the logarithm.
CLIP_LOW, CLIP_HIGH = 0.01, 0.99
#: Bins of the calibration table.
BINS = 10


class CalibrationBin(msgspec.Struct, frozen=True):
    """Predictions from ``low`` to ``high`` (the last bin includes 1): their
    mean, the mean outcome observed, and how many."""

    low: float
    high: float
    predicted: float | None
    observed: float | None
    count: int


class Metrics(msgspec.Struct, frozen=True):
    """The measures of one set of predictions: ``comparisons`` scored,
    ``decisive`` of them won or lost (accuracy is over those; None when
    none was)."""

    comparisons: int
    log_loss: float | None
    brier: float | None
    accuracy: float | None
    decisive: int


def _arrays(p: ArrayLike, outcome: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    ps = np.asarray(p, dtype=np.float64)
    os = np.asarray(outcome, dtype=np.float64)
    if ps.shape != os.shape:
        raise ValueError(f"{ps.shape[0]} predictions for {os.shape[0]} outcomes")
    return ps, os


def log_losses(p: ArrayLike, outcome: ArrayLike) -> NDArray[np.float64]:
    """Each prediction's binomial deviance, ``p`` clipped to [0.01, 0.99]."""
    ps, os = _arrays(p, outcome)
    ps = np.clip(ps, CLIP_LOW, CLIP_HIGH)
    return -(os * np.log10(ps) + (1.0 - os) * np.log10(1.0 - ps))


def log_loss(p: ArrayLike, outcome: ArrayLike) -> float | None:
    """The mean binomial deviance (None for no prediction)."""
    losses = log_losses(p, outcome)
    return float(losses.mean()) if losses.size else None


def brier(p: ArrayLike, outcome: ArrayLike) -> float | None:
    """The mean squared difference between prediction and outcome."""
    ps, os = _arrays(p, outcome)
    return float(((ps - os) ** 2).mean()) if ps.size else None


def accuracy(p: ArrayLike, outcome: ArrayLike) -> tuple[float | None, int]:
    """(share called right, number of decisive games): over the decisive
    outcomes only, a prediction of exactly ½ counting half."""
    ps, os = _arrays(p, outcome)
    decisive = (os == 0.0) | (os == 1.0)
    n = int(decisive.sum())
    if not n:
        return None, 0
    ps, os = ps[decisive], os[decisive]
    right = np.where(ps == 0.5, 0.5, ((ps > 0.5) == (os == 1.0)).astype(np.float64))
    return float(right.mean()), n


def calibration(p: ArrayLike, outcome: ArrayLike, bins: int = BINS) -> list[CalibrationBin]:
    """``bins`` equal bins of predicted probability from 0 to 1, each
    holding the predictions at or above its low edge and below its high
    one (the last one also holds 1)."""
    ps, os = _arrays(p, outcome)
    index = np.minimum((ps * bins).astype(np.int64), bins - 1)
    counts = np.bincount(index, minlength=bins)
    predicted = np.bincount(index, weights=ps, minlength=bins)
    observed = np.bincount(index, weights=os, minlength=bins)
    out = []
    for i in range(bins):
        n = int(counts[i])
        out.append(
            CalibrationBin(
                low=i / bins,
                high=(i + 1) / bins,
                predicted=float(predicted[i] / n) if n else None,
                observed=float(observed[i] / n) if n else None,
                count=n,
            )
        )
    return out


def measure(p: ArrayLike, outcome: ArrayLike) -> Metrics:
    """Every measure of one set of predictions."""
    ps, os = _arrays(p, outcome)
    hit, decisive = accuracy(ps, os)
    return Metrics(
        comparisons=int(ps.size),
        log_loss=log_loss(ps, os),
        brier=brier(ps, os),
        accuracy=hit,
        decisive=decisive,
    )
