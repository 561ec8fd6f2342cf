"""``ledger tune``: a grid over numeric parameters of a ladder's rules, each
point scored by its log-loss on the games after a training period, the best
point's gain over the rules in force with a bootstrap interval, and the
command that would adopt it.

Each grid point is the ladder replayed in memory under the rules in force
with the point's values set (``ledger whatif``'s replay, one per point).
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

import msgspec

from ledger.families.base import Family
from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message
from projections.db import Database
from projections.evidence import bootstrap, metrics
from projections.evidence.evaluate import scored_under, tried_label
from projections.evidence.scoring import Predictions, Scorer
from projections.replay import Duel, Entry
from projections.rule_changes import value_text
from projections.whatif import LadderHistory, RowSink, history_of, in_force_point, replay_grid

#: The most grid points one ``tune`` tries.
MAX_POINTS = 2_000
_VARY = re.compile(r"^\s*([A-Za-z_][\w]*)\s*=\s*([^:]+)(?::([^:]+):([^:]+))?\s*$")


class Vary(msgspec.Struct, frozen=True):
    """One ``--vary NAME=START:STOP:STEP`` (STOP included), or ``NAME=VALUE``."""

    name: str
    values: list[float | int]


class GridPoint(msgspec.Struct, frozen=True):
    """One point of the grid: the values set (``k=26 scale=400``), each
    by name in ``values``, and their measures on the games scored."""

    point: str
    values: dict[str, float | int]
    log_loss: float | None
    brier: float | None
    accuracy: float | None
    comparisons: int


class Tuning(msgspec.Struct):
    """``ledger tune``'s report.

    ``in_force`` is the rules' log-loss on the games scored (those dated
    from ``train_until`` and inside ``start``..``end``); ``best`` the grid
    point with the lowest log-loss (the first in grid order on a tie);
    ``gain`` the rules in force's log-loss minus the best's (above 0: the
    best predicted better) with its bootstrap ``interval``; ``adopt`` the
    command that would adopt the best point. ``at_once``: every grid point
    was rated in one replay (the family's maths on arrays), else one
    replay per point."""

    ladder: str
    train_until: date | None
    start: date | None
    end: date | None
    games: int
    in_force: float | None
    grid: list[GridPoint]
    best: GridPoint
    gain: float | None
    interval: bootstrap.Interval | None
    adopt: str
    at_once: bool


def _number(text: str, spec: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise Invalid(
            Message(
                "--vary {spec!r}: {value!r} is not a number (expected "
                "NAME=START:STOP:STEP, e.g. k=10:40:2)",
                spec=spec,
                value=text.strip(),
            ),
            field="vary",
        ) from None
    return int(value) if value.is_integer() else value


def parse_vary(spec: str) -> Vary:
    """``k=10:40:2`` → k = 10, 12, ..., 40; ``k=24`` → one value."""
    match = _VARY.match(spec)
    if match is None:
        raise Invalid(
            Message(
                "--vary {spec!r}: expected NAME=START:STOP:STEP (e.g. k=10:40:2) or NAME=VALUE",
                spec=spec,
            ),
            field="vary",
        )
    name, first = match[1], _number(match[2], spec)
    if match[3] is None:
        return Vary(name, [first])
    stop, step = _number(match[3], spec), _number(match[4], spec)
    if step <= 0:
        raise Invalid(
            Message("--vary {spec!r}: the step must be more than 0", spec=spec), field="vary"
        )
    if stop < first:
        raise Invalid(
            Message("--vary {spec!r}: the stop is below the start", spec=spec), field="vary"
        )
    count = int((stop - first) / step + 1e-9) + 1
    if count > MAX_POINTS:
        raise Invalid(
            Message(
                "--vary {spec!r}: {count} values, more than {most}",
                spec=spec,
                count=count,
                most=MAX_POINTS,
            ),
            field="vary",
        )
    # Each value from the start (no drift from adding a step again and again).
    values = [round(first + i * step, 10) for i in range(count)]
    return Vary(name, [int(v) if float(v).is_integer() else v for v in values])


def grid(varies: list[Vary]) -> list[dict[str, float | int]]:
    """Every combination of the values, the first ``--vary`` slowest."""
    names = [v.name for v in varies]
    if len(set(names)) != len(names):
        raise Invalid(
            Message("--vary names a parameter twice ({names})", names=", ".join(names)),
            field="vary",
        )
    points = [dict(zip(names, combo, strict=True)) for combo in itertools.product(
        *(v.values for v in varies))]  # fmt: skip
    if len(points) > MAX_POINTS:
        raise Invalid(
            Message(
                "the grid has {count} points, more than {most}",
                count=len(points),
                most=MAX_POINTS,
            ),
            field="vary",
        )
    return points


def adopt_command(ladder: str, values: dict[str, Any], effective: date, reason: str) -> str:
    """The ``ledger ladder rules`` command that adopts ``values`` from
    ``effective`` on, quoted for a POSIX shell."""
    words = ["ledger", "ladder", "rules", ladder]
    for key, value in values.items():
        words += ["--set", f"{key}={value_text(value)}"]
    words += ["--effective", effective.isoformat(), "--reason", reason]
    return shlex.join(words)


def _point(values: dict[str, Any], scored: Predictions) -> GridPoint:
    m = metrics.measure(scored.p, scored.outcome)
    return GridPoint(tried_label(values, None), values, m.log_loss, m.brier, m.accuracy,
                     m.comparisons)  # fmt: skip


def _at_once(
    history: LadderHistory, points: list[dict[str, Any]], low: date | None, end: date | None
) -> list[Predictions] | None:
    """Every grid point's predictions from one replay (``replay_grid``), or
    None when the family's maths cannot take arrays."""
    if len(points) < 2:
        return None
    scorers: list[Scorer] = []

    def sink(
        entries: list[Entry | Duel], load: Callable[[str, Mapping[str, Any]], Family]
    ) -> RowSink:
        scorers.append(Scorer(entries, low, end, load, len(points)))
        return scorers[-1].feed

    if replay_grid(history, points, sink) is None:
        return None
    scored = scorers[-1].result()
    return [
        Predictions(
            scored.p[:, i],
            scored.outcome,
            scored.first[:, i],
            scored.cluster,
            scored.games,
            scored.first_player,
        )  # fmt: skip
        for i in range(len(points))
    ]


class Grid(msgspec.Struct):
    """Every grid point's measures and predictions, and whether one replay
    rated them all (``at_once``) or one replay each."""

    points: list[GridPoint]
    predictions: list[Predictions]
    at_once: bool


#: ``progress(points done, points)``, told after each replay of one grid point.
Progress = Callable[[int, int], None]


def score_grid(
    history: LadderHistory,
    points: list[dict[str, Any]],
    start: date | None = None,
    end: date | None = None,
    progress: Progress | None = None,
) -> Grid:
    """Each grid point's predictions of the games from ``start`` to ``end``
    (the ladder replayed over its whole history under the rules in force
    with the point's values): in one replay when the family's maths takes
    arrays, else one replay per point (each told to ``progress``)."""
    at_once = _at_once(history, points, start, end)
    each = at_once or _one_by_one(history, points, start, end, progress)
    return Grid(
        [_point(values, scored) for values, scored in zip(points, each, strict=True)],
        each,
        at_once is not None,
    )


def _one_by_one(
    history: LadderHistory,
    points: list[dict[str, Any]],
    start: date | None,
    end: date | None,
    progress: Progress | None,
) -> list[Predictions]:
    """Each grid point's predictions, from a replay of its own."""
    each = []
    for done, values in enumerate(points, start=1):
        each.append(scored_under(history, values, None, start, end).predictions)
        if progress is not None:
            progress(done, len(points))
    return each


def tune(
    conn: Database,
    ladder: str,
    varies: list[Vary],
    effective: date,
    train_until: date | None = None,
    start: date | None = None,
    end: date | None = None,
    seed: int = bootstrap.SEED,
    progress: Progress | None = None,
) -> Tuning:
    """Score every grid point on the games from ``train_until`` (and inside
    ``start``..``end``); the games before only warm the ratings. Records
    nothing. ``progress`` hears of each point replayed on its own (a
    family whose maths takes no arrays: a replay per point)."""
    points = grid(varies)
    history = history_of(conn, ladder)
    low = max(d for d in (start, train_until) if d) if start or train_until else None
    scores = score_grid(history, points, low, end, progress)
    # The rules in force are most often a point of the grid (K 20 in
    # 10:40:2): their predictions are that point's, not a replay more (a
    # third of ``tune`` at 1M games).
    same = in_force_point(history, points)
    in_force = (
        scores.predictions[same]
        if same is not None
        else scored_under(history, {}, None, low, end).predictions
    )
    results = list(zip(scores.points, scores.predictions, strict=True))
    ranked = [r for r in results if r[0].log_loss is not None]
    if not ranked:
        window = (f" from {low}" if low else "") + (f" to {end}" if end else "")
        raise Invalid(
            f"no game of {ladder!r} to score{window}: move --train-until, --from or --to"
            if window
            else f"no rated game of {ladder!r} to score yet"
        )
    best, best_scored = min(ranked, key=lambda r: r[0].log_loss)  # first of equals
    in_force_loss = metrics.log_loss(in_force.p, in_force.outcome)
    gain = interval = None
    if in_force_loss is not None and best.log_loss is not None:
        gain = in_force_loss - best.log_loss
        interval = bootstrap.gain_interval(
            metrics.log_losses(in_force.p, in_force.outcome), in_force.cluster,
            metrics.log_losses(best_scored.p, best_scored.outcome), best_scored.cluster,
            seed=seed,
        )  # fmt: skip
    reason = f"ledger tune: log-loss {best.log_loss:.4f}" + (
        f" against {in_force_loss:.4f}" if in_force_loss is not None else ""
    )
    return Tuning(
        ladder=history.ladder,
        train_until=train_until,
        start=start,
        end=end,
        games=in_force.games,
        in_force=in_force_loss,
        grid=[r[0] for r in results],
        best=best,
        gain=gain,
        interval=interval,
        adopt=adopt_command(history.ladder, best.values, effective, reason),
        at_once=scores.at_once,
    )
