"""The site's words in each language (``--lang``); grades come from the family."""

from __future__ import annotations

LANGS = ("en", "fr")

_EN = {
    "ladders": "Ladders", "ladder": "Ladder", "family": "Family", "players": "Players",
    "rules_page": "Rules",
    "games": "Games", "last_result": "Last result", "chain_head": "Published hash-chain head",
    "verify_hint": "Anyone holding a copy of the ledger can check that it still holds "
    "exactly what this site was built from:", "events_chained": "events chained",
    "standings": "Standings", "position": "#", "name": "Name", "rating": "Rating",
    "grade": "Grade", "last_played": "Last played", "change": "Change",
    "change_event": "Change at {event}", "change_month": "Change since {day}",
    "distribution": "Rating distribution", "n_players": "Players",
    "bar": "{low} to {high}: {n} players", "rules": "Ruleset history",
    "effective": "Effective", "parameters": "Parameters", "reason": "Reason",
    "recorded": "Recorded", "by": "By", "seasons": "Season closes", "season": "Season",
    "from": "From", "to": "To", "none": "None.", "download": "Download",
    "filter": "Filter", "filter_hint": "Type to filter rows", "home": "Home",
    "history_chart": "Rating history", "date": "Date", "event": "Event",
    "opponents": "Opponents", "result": "Result", "after": "Rating after",
    "before": "Before", "grade_history": "Grade history", "kind": "Kind",
    "won": "won", "lost": "lost", "draw": "draw", "game": "Game", "round": "Round",
    "table": "Table", "side": "Side", "status": "Status", "note": "Note",
    "total_change": "Total change", "events": "Events", "audit": "Audit trail",
    "when": "When", "who": "Who", "why": "Why", "what": "What", "source": "Source",
    "explain_hint": "Each game below shows the ratings before and after it and the K, P "
    "and S it was rated with; every intermediate value of a game's computation: ",
    "legend_game": "rated game", "legend_corrected": "corrected game",
    "legend_other": "adjustment or season close", "legend_event": "event",
    "chart_desc": "{n} entries from {first} ({r0}) to {last} ({r1}); lowest {lo}, highest {hi}.",
    "as_of": "As of {day}", "corrected": "corrected", "voided": "voided",
    "sort_hint": "Column headings sort the table.", "games_of": "Games of {player}",
    "player_in": "{player} in {ladder}", "no_js": "",
    "from_start": "from the start", "adjust": "adjustment", "season_close": "season close",
    "event_close": "event close", "rating_axis": "Rating", "date_axis": "Date",
    "totals": "Each player's total change", "built_from": "Built from the ledger's views.",
    "months": "Games outside events, by month", "month": "Month",
    "month_games": "Games outside events, {month}",
    "all_players": "Every game's players", "all_audit": "Every game's audit trail",
}  # fmt: skip

_FR = {
    "ladders": "Classements", "ladder": "Classement", "family": "Famille", "rules_page": "Règles",
    "players": "Joueurs", "games": "Parties", "last_result": "Dernier résultat",
    "chain_head": "Tête de la chaîne de hachage publiée",
    "verify_hint": "Toute personne ayant une copie du registre peut vérifier qu'il "
    "contient exactement ce à partir de quoi ce site a été construit :",
    "events_chained": "événements chaînés", "standings": "Classement", "position": "#",
    "name": "Nom", "rating": "Cote", "grade": "Grade", "last_played": "Dernière partie",
    "change": "Évolution", "change_event": "Évolution à {event}",
    "change_month": "Évolution depuis le {day}", "distribution": "Répartition des cotes",
    "n_players": "Joueurs", "bar": "{low} à {high} : {n} joueurs",
    "rules": "Historique des règles", "effective": "En vigueur", "parameters": "Paramètres",
    "reason": "Motif", "recorded": "Enregistré", "by": "Par", "seasons": "Clôtures de saison",
    "season": "Saison", "from": "Du", "to": "Au", "none": "Aucune.",
    "download": "Télécharger", "filter": "Filtrer", "filter_hint": "Tapez pour filtrer",
    "home": "Accueil", "history_chart": "Historique de la cote", "date": "Date",
    "event": "Tournoi", "opponents": "Adversaires", "result": "Résultat",
    "after": "Cote après", "before": "Avant", "grade_history": "Historique des grades",
    "kind": "Type", "won": "gagné", "lost": "perdu", "draw": "nul", "game": "Partie",
    "round": "Ronde", "table": "Table", "side": "Camp", "status": "État", "note": "Note",
    "total_change": "Évolution totale", "events": "Tournois", "audit": "Journal d'audit",
    "when": "Quand", "who": "Qui", "why": "Pourquoi", "what": "Quoi", "source": "Source",
    "explain_hint": "Chaque partie ci-dessous montre les cotes avant et après, et les K, P "
    "et S de son calcul ; toutes les valeurs intermédiaires d'une partie : ",
    "legend_game": "partie classée", "legend_corrected": "partie corrigée",
    "legend_other": "ajustement ou clôture de saison", "legend_event": "tournoi",
    "chart_desc": "{n} entrées du {first} ({r0}) au {last} ({r1}) ; minimum {lo}, maximum {hi}.",
    "as_of": "Au {day}", "corrected": "corrigée", "voided": "annulée",
    "sort_hint": "Les en-têtes de colonne trient le tableau.",
    "games_of": "Parties de {player}", "player_in": "{player} dans {ladder}", "no_js": "",
    "from_start": "depuis le début", "adjust": "ajustement", "season_close": "clôture de saison",
    "event_close": "clôture de tournoi", "rating_axis": "Cote", "date_axis": "Date",
    "totals": "Évolution totale de chaque joueur",
    "built_from": "Construit à partir des vues du registre.",
    "months": "Parties hors tournoi, par mois", "month": "Mois",
    "month_games": "Parties hors tournoi, {month}",
    "all_players": "Les joueurs de chaque partie",
    "all_audit": "Le journal d'audit de chaque partie",
}  # fmt: skip

# The evidence page (issue 27), kept together so the words can move as one.
_EN_EVIDENCE = {
    "ev_title": "{ladder}: how well the rules predicted",
    "ev_link": "How well the rules predicted the games",
    "ev_intro": "Before each game the rules gave each side an expected score; after it, the "
    "side did better (1), the same (½) or worse (0). The lower the log-loss and the Brier "
    "score, the better the predictions: rules worth keeping beat both baselines.",
    "ev_measures": "Predictions against outcomes", "ev_rules": "Rules",
    "ev_comparisons": "Comparisons", "ev_log_loss": "Log-loss", "ev_brier": "Brier score",
    "ev_accuracy": "Accuracy (decisive games)",
    "ev_in_force": "Rules in force", "ev_always_half": "Always ½",
    "ev_first_player": "First-player advantage alone",
    "ev_calibration": "Calibration", "ev_predicted": "Predicted probability",
    "ev_calibration_table": "Calibration, bin by bin", "ev_k_table": "Each K of the sweep",
    "ev_observed": "Observed outcome", "ev_bin": "Predictions from", "ev_count": "Comparisons",
    "ev_calibration_desc": "{n} comparisons in {bins} bins of predicted probability; a well "
    "calibrated rule lies on the diagonal.",
    "ev_dot": "{low} to {high}: predicted {p}, observed {o}, {n} comparisons",
    "ev_k_curve": "Log-loss by K", "ev_k_point": "K = {k}: log-loss {loss}",
    "ev_k_desc": "Log-loss with K from {first} to {last}, each replayed over the whole "
    "history: lowest at K = {best} ({loss}); K in force: {now}.",
    "ev_k_now": "K in force", "ev_k_best": "Lowest log-loss",
    "ev_no_k": "These rules have no K to vary.",
    "ev_none": "No rated game to score yet.",
    "ev_try": "To score other rules on a copy of the ledger:",
    "ev_measures_hint": "Log-loss: binomial deviance, predictions clipped to [0.01, 0.99]. "
    "A game of more than two sides counts each pair of sides.",
}  # fmt: skip

_FR_EVIDENCE = {
    "ev_title": "{ladder} : les règles ont-elles bien prédit ?",
    "ev_link": "Les règles ont-elles bien prédit les parties ?",
    "ev_intro": "Avant chaque partie, les règles donnent à chaque camp un score attendu ; "
    "après, le camp a fait mieux (1), autant (½) ou moins bien (0). Plus la perte "
    "logarithmique et le score de Brier sont bas, meilleures sont les prédictions : des "
    "règles qui valent d'être gardées font mieux que les deux références.",
    "ev_measures": "Prédictions et résultats", "ev_rules": "Règles",
    "ev_comparisons": "Comparaisons", "ev_log_loss": "Perte logarithmique",
    "ev_brier": "Score de Brier", "ev_accuracy": "Justesse (parties décisives)",
    "ev_in_force": "Règles en vigueur", "ev_always_half": "Toujours ½",
    "ev_first_player": "Avantage du premier joueur seul",
    "ev_calibration": "Calibration", "ev_predicted": "Probabilité prédite",
    "ev_calibration_table": "Calibration, tranche par tranche",
    "ev_k_table": "Chaque K essayé",
    "ev_observed": "Résultat observé", "ev_bin": "Prédictions de", "ev_count": "Comparaisons",
    "ev_calibration_desc": "{n} comparaisons en {bins} tranches de probabilité prédite ; des "
    "règles bien calibrées suivent la diagonale.",
    "ev_dot": "{low} à {high} : prédit {p}, observé {o}, {n} comparaisons",
    "ev_k_curve": "Perte logarithmique selon K", "ev_k_point": "K = {k} : perte {loss}",
    "ev_k_desc": "Perte logarithmique pour K de {first} à {last}, chaque valeur rejouée sur "
    "tout l'historique : la plus basse à K = {best} ({loss}) ; K en vigueur : {now}.",
    "ev_k_now": "K en vigueur", "ev_k_best": "Perte la plus basse",
    "ev_no_k": "Ces règles n'ont pas de K à faire varier.",
    "ev_none": "Aucune partie classée à évaluer pour l'instant.",
    "ev_try": "Pour évaluer d'autres règles sur une copie du registre :",
    "ev_measures_hint": "Perte logarithmique : déviance binomiale, prédictions bornées à "
    "[0,01 ; 0,99]. Une partie à plus de deux camps compte chaque paire de camps.",
}  # fmt: skip
_EN.update(_EN_EVIDENCE)
_FR.update(_FR_EVIDENCE)

WORDS = {"en": _EN, "fr": _FR}
