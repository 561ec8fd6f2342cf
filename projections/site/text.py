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
    "legend_uncertainty": "rating ± deviation",
    "deviation": "±", "provisional": "provisional",
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
    "legend_uncertainty": "cote ± écart",
    "deviation": "±", "provisional": "provisoire",
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

WORDS = {"en": _EN, "fr": _FR}
