"""``ledger evaluate``: how well a ladder's rules predicted its games, beside
other rules replayed in memory (as ``ledger whatif`` replays them) and two
baselines: always ½, and the first-player advantage alone."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec

from projections.db import Database
from projections.evidence import metrics
from projections.evidence.scoring import COIN, Predictions, Scorer
from projections.replay import Duel, Entry
from projections.whatif import LadderHistory, RowSink, Unrated, history_of, replay_under

#: The names of the lines an evaluation reports.
IN_FORCE = "rules in force"
ALWAYS_HALF = "always ½"
FIRST_PLAYER = "first-player advantage alone"


class Line(msgspec.Struct, frozen=True):
    """One set of predictions and its measures (``metrics.Metrics``)."""

    rules: str
    games: int
    comparisons: int
    log_loss: float | None
    brier: float | None
    accuracy: float | None
    decisive: int


class CalibrationRow(msgspec.Struct, frozen=True):
    """One bin of one set of predictions' calibration table."""

    rules: str
    low: float
    high: float
    predicted: float | None
    observed: float | None
    count: int


class Evaluation(msgspec.Struct):
    """``ledger evaluate``'s report: the window scored, each line's
    measures, the calibration of the rules (and of the rules tried), and
    the games the rules tried could not rate."""

    ladder: str
    start: date | None
    end: date | None
    lines: list[Line]
    calibration: list[CalibrationRow]
    unrated: list[Unrated]


def tried_label(overrides: dict[str, Any], family: str | None) -> str:
    """How the rules tried are named: ``k=32``, ``adlg``, ``adlg k=20``."""
    from projections.rule_changes import value_text

    sets = [f"{key}={value_text(value)}" for key, value in overrides.items()]
    return " ".join([family, *sets] if family else sets)


def line(rules: str, scored: Predictions, p: Any) -> Line:
    """The measures of predictions ``p`` of the comparisons ``scored``."""
    m = metrics.measure(p, scored.outcome)
    return Line(rules, scored.games, m.comparisons, m.log_loss, m.brier, m.accuracy, m.decisive)


def calibration_rows(rules: str, scored: Predictions) -> list[CalibrationRow]:
    return [
        CalibrationRow(rules, b.low, b.high, b.predicted, b.observed, b.count)
        for b in metrics.calibration(scored.p, scored.outcome)
    ]


class Scored(msgspec.Struct):
    """The predictions some rules made, and the games they could not rate."""

    predictions: Predictions
    unrated: list[Unrated]


def scored_under(
    history: LadderHistory,
    overrides: dict[str, Any],
    family: str | None,
    start: date | None,
    end: date | None,
) -> Scored:
    """The predictions of the games from ``start`` to ``end`` made by the
    ladder's rules with ``overrides`` (none: the rules in force), replayed
    over its whole history."""
    scorers: list[Scorer] = []

    def sink(entries: list[Entry | Duel]) -> RowSink:
        scorers.append(Scorer(entries, start, end))  # one per attempt: the last one stands
        return scorers[-1].feed

    tried = replay_under(history, history.ladder, overrides, family, sink=sink)
    return Scored(scorers[-1].result(), tried.unrated)


def evaluate(
    conn: Database | LadderHistory,
    ladder: str,
    start: date | None = None,
    end: date | None = None,
    overrides: dict[str, Any] | None = None,
    family: str | None = None,
) -> Evaluation:
    """Score the rules in force on the games from ``start`` to ``end``
    (and, given ``overrides`` or ``family``, those rules too), with the
    baselines. ``conn``: the ledger's views, or the ladder's history
    already read (``whatif.history_of``). Records nothing."""
    history = conn if isinstance(conn, LadderHistory) else history_of(conn, ladder)
    scored = scored_under(history, {}, None, start, end).predictions
    lines = [line(IN_FORCE, scored, scored.p), line(ALWAYS_HALF, scored, [COIN] * scored.p.size)]
    if scored.first_player:
        lines.append(line(FIRST_PLAYER, scored, scored.first))
    calibration = calibration_rows(IN_FORCE, scored)
    unrated: list[Unrated] = []
    if overrides or family is not None:
        label = tried_label(overrides or {}, family)
        tried = scored_under(history, overrides or {}, family, start, end)
        other, unrated = tried.predictions, tried.unrated
        lines.insert(1, line(label, other, other.p))
        calibration += calibration_rows(label, other)
    return Evaluation(history.ladder, start, end, lines, calibration, unrated)
