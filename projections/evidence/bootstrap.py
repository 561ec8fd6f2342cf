"""How sure a gain is: a bootstrap over clusters (a ladder's real-world
events; a game outside any event is a cluster of its own), seeded so the
same ledger gives the same interval every time.

Games of one tournament share their players' form, so they are resampled
together: an interval over single games would claim more certainty than
the ledger holds (a referee must not adopt noise).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np
from numpy.typing import ArrayLike

#: Resamples drawn, the interval's level, and the seed used unless told.
RESAMPLES = 1000
LEVEL = 0.95
SEED = 27
#: Resamples drawn at once (memory: this many times the clusters).
_CHUNK = 50


class Interval(msgspec.Struct, frozen=True):
    """A gain's ``low`` and ``high`` bounds at ``level``, from
    ``resamples`` resamples of the clusters drawn with ``seed``."""

    low: float
    high: float
    level: float
    resamples: int
    seed: int


def gain_interval(
    baseline: ArrayLike,
    baseline_clusters: Sequence[str],
    tried: ArrayLike,
    tried_clusters: Sequence[str],
    seed: int = SEED,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
) -> Interval:
    """The interval of ``mean(baseline) − mean(tried)`` (each a loss per
    comparison, labelled with its cluster): a percentile bootstrap drawing
    the clusters with replacement. Clusters are numbered in sorted order,
    so the interval depends on the games, never on the order they came in.
    """
    labels = sorted(set(baseline_clusters) | set(tried_clusters))
    if not labels:
        raise ValueError("no comparison to resample")
    number = {label: i for i, label in enumerate(labels)}
    size = len(labels)

    def sums(losses: ArrayLike, clusters: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        index = np.fromiter((number[c] for c in clusters), dtype=np.int64, count=len(clusters))
        values = np.asarray(losses, dtype=np.float64)
        return (
            np.bincount(index, weights=values, minlength=size),
            np.bincount(index, minlength=size).astype(np.float64),
        )

    sum_a, n_a = sums(baseline, baseline_clusters)
    sum_b, n_b = sums(tried, tried_clusters)
    rng = np.random.default_rng(seed)
    gains = []
    for done in range(0, resamples, _CHUNK):
        draws = min(_CHUNK, resamples - done)
        picks = rng.integers(0, size, size=(draws, size))
        weights = np.stack([np.bincount(row, minlength=size) for row in picks]).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            gains.append(weights @ sum_a / (weights @ n_a) - weights @ sum_b / (weights @ n_b))
    every = np.concatenate(gains)
    every = every[np.isfinite(every)]  # a resample that drew no comparison of one side
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(every, [tail, 1.0 - tail])
    return Interval(float(low), float(high), level, resamples, seed)
