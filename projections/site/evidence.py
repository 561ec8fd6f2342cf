"""A ladder's evidence page: how well its rules predicted its games
(``ledger evaluate``: the measures beside the baselines, the calibration)
and how the log-loss moves with K (a default sweep, as ``ledger tune``
scores it)."""

from __future__ import annotations

from datetime import date

import msgspec

from ledger.families.registry import family_class
from ledger.kernel.errors import LedgerError
from projections.db import Database
from projections.evidence import metrics
from projections.evidence.evaluate import (
    ALWAYS_HALF,
    FIRST_PLAYER,
    IN_FORCE,
    CalibrationRow,
    Line,
    evaluate,
)
from projections.evidence.tune import GridPoint, score_grid
from projections.site import charts
from projections.whatif import history_of

#: The K values every evidence page sweeps.
K_SWEEP = tuple(range(8, 65, 4))
#: The parameter the sweep varies: K, as RULES.md names it.
K = "k"


class LadderEvidence(msgspec.Struct):
    """What an evidence page shows: the measures (``evaluate``'s lines),
    the rules' calibration, the K curve (empty when the rules have no K)
    and the K in force."""

    lines: list[Line]
    calibration: list[metrics.CalibrationBin]
    curve: list[GridPoint]
    k_now: float | None


def ladder_evidence(conn: Database, ladder: str, until: date | None) -> LadderEvidence:
    """``ladder``'s evidence, from its games up to ``until`` (None: all)."""
    history = history_of(conn, ladder)
    report = evaluate(history, ladder, None, until)
    rulesets = [e for e in history.entries if e.kind == "ruleset"]
    last = rulesets[-1].data if rulesets else {}
    curve: list[GridPoint] = []
    k_now = None
    if last and K in family_class(last["family"]).Params.__struct_fields__:
        k_now = last["params"].get(K)
        try:
            curve = score_grid(history, [{K: k} for k in K_SWEEP], None, until).points
        except LedgerError:  # rules that cannot take every K of the sweep: no curve
            curve = []
    return LadderEvidence(
        report.lines, _bins(report.calibration), [g for g in curve if g.log_loss is not None], k_now
    )


def _bins(rows: list[CalibrationRow]) -> list[metrics.CalibrationBin]:
    return [
        metrics.CalibrationBin(r.low, r.high, r.predicted, r.observed, r.count)
        for r in rows
        if r.rules == IN_FORCE
    ]


def rules_label(rules: str, t: dict[str, str]) -> str:
    """A line's name in the page's language."""
    return {IN_FORCE: t["ev_in_force"], ALWAYS_HALF: t["ev_always_half"],
            FIRST_PLAYER: t["ev_first_player"]}.get(rules, rules)  # fmt: skip


def calibration_chart(evidence: LadderEvidence, t: dict[str, str]) -> charts.Chart | None:
    """Observed against predicted, a dot per bin sized by its count."""
    shown = [b for b in evidence.calibration if b.count]
    if not shown:
        return None
    bins = [
        (b.predicted or 0.0, b.observed or 0.0, b.count,
         t["ev_dot"].format(low=f"{b.low:g}", high=f"{b.high:g}", p=f"{b.predicted:.3f}",
                            o=f"{b.observed:.3f}", n=b.count))
        for b in shown
    ]  # fmt: skip
    description = (
        t["ev_calibration_desc"].format(n=sum(b.count for b in shown), bins=len(shown))
        + " "
        + "; ".join(label for *_, label in bins)
    )
    return charts.calibration(t["ev_calibration"], description, bins, t["ev_predicted"],
                              t["ev_observed"])  # fmt: skip


def k_chart(evidence: LadderEvidence, t: dict[str, str]) -> charts.Chart | None:
    """Log-loss against K; the K in force and the lowest log-loss marked."""
    if not evidence.curve:
        return None
    best = min(evidence.curve, key=lambda g: g.log_loss or 0.0)
    points = []
    for g in evidence.curve:
        k = g.values[K]
        kind = "best" if g is best else "now" if k == evidence.k_now else "point"
        points.append((float(k), g.log_loss or 0.0, kind,
                       t["ev_k_point"].format(k=f"{k:g}", loss=f"{g.log_loss:.4f}")))  # fmt: skip
    description = t["ev_k_desc"].format(
        first=f"{K_SWEEP[0]:g}", last=f"{K_SWEEP[-1]:g}", best=f"{best.values[K]:g}",
        loss=f"{best.log_loss:.4f}",
        now="-" if evidence.k_now is None else f"{evidence.k_now:g}",
    )  # fmt: skip
    return charts.curve(t["ev_k_curve"], description, points, "K", t["ev_log_loss"])
