"""The site's words (``--lang``), each looked up in the message catalogs
(``ledger.kernel.translation``); grades come from the family.

``WORDS`` names each text the pages use by a key (the templates write
``t.ladders``); ``words(translator)`` gives them in one language. Stored
codes (a result's ``a``, a margin's ``decisive``, a game's status, an audit
line's kind) are shown through ``label``, never translated in storage.
"""

from __future__ import annotations

from typing import Any

from ledger.kernel.translation import LANGS, N_, NC_, Translator
from projections.queries import PER_EVENT_NOTE, VOIDED_NOTE

__all__ = ["LANGS", "WORDS", "label", "words"]

WORDS: dict[str, str] = {
    # What follows a label before its value ("Rating: 1500"; French
    # typography puts a space before the colon).
    "colon": N_(": "),
    "ladders": N_("Ladders"),
    "ladder": N_("Ladder"),
    "family": N_("Family"),
    "players": N_("Players"),
    "rules_page": N_("Rules"),
    "games": N_("Games"),
    "last_result": N_("Last result"),
    "chain_head": N_("Published hash-chain head"),
    "verify_hint": N_(
        "Anyone holding a copy of the ledger can check that it still holds exactly what this site was built from:"
    ),
    "events_chained": N_("events chained"),
    "standings": N_("Standings"),
    "position": N_("#"),
    "name": N_("Name"),
    "rating": N_("Rating"),
    "grade": N_("Grade"),
    "last_played": N_("Last played"),
    "change": N_("Change"),
    "change_event": N_("Change at {event}"),
    "change_month": N_("Change since {day}"),
    "distribution": N_("Rating distribution"),
    "n_players": N_("Players"),
    "bar": N_("{low} to {high}: {n} players"),
    "rules": N_("Ruleset history"),
    "effective": N_("Effective"),
    "parameters": N_("Parameters"),
    "reason": N_("Reason"),
    "recorded": N_("Recorded"),
    "by": N_("By"),
    "seasons": N_("Season closes"),
    "season": N_("Season"),
    "from": N_("From"),
    "to": N_("To"),
    "none": N_("None."),
    "download": N_("Download"),
    "filter": N_("Filter"),
    "filter_hint": N_("Type to filter rows"),
    "home": N_("Home"),
    "history_chart": N_("Rating history"),
    "date": N_("Date"),
    "event": N_("Event"),
    "opponents": N_("Opponents"),
    "result": N_("Result"),
    "after": N_("Rating after"),
    "before": N_("Before"),
    "grade_history": N_("Grade history"),
    "kind": N_("Kind"),
    "won": N_("won"),
    "lost": N_("lost"),
    "draw": N_("draw"),
    "game": N_("Game"),
    "round": N_("Round"),
    "table": N_("Table"),
    "side": N_("Side"),
    "status": N_("Status"),
    "note": N_("Note"),
    "total_change": N_("Total change"),
    "events": N_("Events"),
    "audit": N_("Audit trail"),
    "when": N_("When"),
    "who": N_("Who"),
    "why": N_("Why"),
    "what": N_("What"),
    "source": N_("Source"),
    "explain_hint": N_(
        "Each game below shows the ratings before and after it and the K, P and S it was rated with; every intermediate value of a game's computation: "
    ),
    "legend_game": N_("rated game"),
    "legend_corrected": N_("corrected game"),
    "legend_other": N_("adjustment or season close"),
    "legend_event": N_("event"),
    "legend_uncertainty": N_("rating ± deviation"),
    "deviation": N_("±"),
    "provisional": N_("provisional"),
    "chart_desc": N_(
        "{n} entries from {first} ({r0}) to {last} ({r1}); lowest {lo}, highest {hi}."
    ),
    "as_of": N_("As of {day}"),
    "corrected": N_("corrected"),
    "voided": N_("voided"),
    "voided_note": VOIDED_NOTE,
    "per_event_note": PER_EVENT_NOTE,
    "sort_hint": N_("Column headings sort the table."),
    "games_of": N_("Games of {player}"),
    "player_in": N_("{player} in {ladder}"),
    "from_start": N_("from the start"),
    "adjust": N_("adjustment"),
    "season_close": N_("season close"),
    "event_close": N_("event close"),
    "rating_axis": N_("Rating"),
    "date_axis": N_("Date"),
    "totals": N_("Each player's total change"),
    "built_from": N_("Built from the ledger's views."),
    "months": N_("Games outside events, by month"),
    "month": N_("Month"),
    "month_games": N_("Games outside events, {month}"),
    "all_players": N_("Every game's players"),
    "all_audit": N_("Every game's audit trail"),
    # The evidence page (ledger evaluate / tune on the site).
    "ev_title": N_("{ladder}: how well the rules predicted"),
    "ev_link": N_("How well the rules predicted the games"),
    "ev_intro": N_(
        "Before each game the rules gave each side an expected score; after it, the side did better (1), the same (½) or worse (0). The lower the log-loss and the Brier score, the better the predictions: rules worth keeping beat both baselines."
    ),
    "ev_measures": N_("Predictions against outcomes"),
    "ev_rules": N_("Rules"),
    "ev_comparisons": N_("Comparisons"),
    "ev_log_loss": N_("Log-loss"),
    "ev_brier": N_("Brier score"),
    "ev_accuracy": N_("Accuracy (decisive games)"),
    "ev_in_force": N_("Rules in force"),
    "ev_always_half": N_("Always ½"),
    "ev_first_player": N_("First-player advantage alone"),
    "ev_calibration": N_("Calibration"),
    "ev_predicted": N_("Predicted probability"),
    "ev_calibration_table": N_("Calibration, bin by bin"),
    "ev_k_table": N_("Each K of the sweep"),
    "ev_observed": N_("Observed outcome"),
    "ev_bin": N_("Predictions from"),
    "ev_count": N_("Comparisons"),
    "ev_calibration_desc": N_(
        "{n} comparisons in {bins} bins of predicted probability; a well calibrated rule lies on the diagonal."
    ),
    "ev_dot": N_("{low} to {high}: predicted {p}, observed {o}, {n} comparisons"),
    "ev_k_curve": N_("Log-loss by K"),
    "ev_k_point": N_("K = {k}: log-loss {loss}"),
    "ev_k_desc": N_(
        "Log-loss with K from {first} to {last}, each replayed over the whole history: lowest at K = {best} ({loss}); K in force: {now}."
    ),
    "ev_k_now": N_("K in force"),
    "ev_k_best": N_("Lowest log-loss"),
    "ev_no_k": N_("These rules have no K to vary."),
    "ev_none": N_("No rated game to score yet."),
    "ev_try": N_("To score other rules on a copy of the ledger:"),
    "ev_measures_hint": N_(
        "Log-loss: binomial deviance, predictions clipped to [0.01, 0.99]. A game of more than two sides counts each pair of sides."
    ),
}

#: The stored codes a page shows, by context: marked here for extraction
#: (the catalog gives each its words; a code not listed is shown as stored).
CODES = (
    # a result's fields, by name
    NC_("result field", "result"), NC_("result field", "margin"), NC_("result field", "ranks"),
    NC_("result field", "quit"), NC_("result field", "bv"), NC_("result field", "units"),
    NC_("result field", "objectives"),
    # their values
    NC_("result", "a"), NC_("result", "b"), NC_("result", "draw"),
    NC_("margin", "marginal"), NC_("margin", "decisive"), NC_("margin", "overwhelming"),
    # a game's status
    NC_("status", "recorded"), NC_("status", "corrected"), NC_("status", "voided"),
    # an audit line's kind
    NC_("kind", "ladder opened"), NC_("kind", "ruleset adopted"),
    NC_("kind", "player registered"), NC_("kind", "player renamed"),
    NC_("kind", "player merged"), NC_("kind", "player unmerged"),
    NC_("kind", "game recorded"), NC_("kind", "game corrected"), NC_("kind", "game voided"),
    NC_("kind", "season closed"), NC_("kind", "rating adjusted"),
    NC_("kind", "season voided"), NC_("kind", "adjustment voided"),
    NC_("kind", "ruleset voided"),
)  # fmt: skip


def words(t: Translator) -> dict[str, str]:
    """Every key of ``WORDS`` -> its text in ``t``'s language."""
    return {key: t.gettext(text) for key, text in WORDS.items()}


def label(t: Translator, context: str, code: Any) -> str:
    """A stored code (``context`` among ``CODES``'s) as people read it in
    ``t``'s language; anything else (a number, a list, a name) as stored."""
    if type(code) is not str:
        return str(code)
    return t.pgettext(context, code)
