"""Issue 26, "French all the way": ``--help`` in French. With ``ledger --lang
fr``, ``LEDGER_LANG=fr`` or a command's own ``--lang fr`` (even after
``--help``), every command's and option's help and click's own words
("Usage:", "Commands", "Show this message and exit.") are French.

Before, every help was English whatever the language asked for.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ledger.cli import main
from tests.conftest import Cli

ENV = {"LEDGER_LANG": None, "LEDGER_DB": None}


def _help(*args: str, env: dict[str, str | None] | None = None) -> str:
    result = CliRunner().invoke(main, list(args), env={**ENV, **(env or {})}, prog_name="ledger")
    assert result.exit_code == 0, result.output
    return result.output


def _commands() -> list[list[str]]:
    """Every command and group's path under ``ledger``."""
    ctx = click.Context(main)
    paths: list[list[str]] = []

    def walk(group: click.Group, path: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            paths.append([*path, name])
            if isinstance(command, click.Group):
                walk(command, [*path, name])

    walk(main, [])
    return paths


def _words(text: str) -> str:
    return " ".join(text.split())


def test_the_top_level_help_is_french_with_ledger_lang() -> None:
    out = _help("--lang", "fr", "--help")
    assert out.startswith("Usage : ledger [OPTIONS] COMMANDE [ARGS]...")
    assert "\nCommandes:\n" in out
    assert "Afficher ce message et quitter." in out
    assert "Afficher la version et quitter." in out
    assert "  record     Enregistrer une partie de LADDER." in out
    assert "[défaut : en]" in out
    for english in ("Usage:", "Commands:", "Show this message", "Record one game"):
        assert english not in out
    # English stays the default.
    english = _help("--help")
    assert english.startswith("Usage: ledger [OPTIONS] COMMAND [ARGS]...")
    assert "  record     Record one game of LADDER." in english


def test_the_environment_and_a_command_s_own_lang_give_the_language() -> None:
    out = _help("record", "--help", env={"LEDGER_LANG": "fr"})
    assert out.startswith("Usage : ledger record [OPTIONS] LADDER")
    assert "Date de la partie.  [obligatoire]" in out
    assert "Ronde dans le tournoi. [0 à 1,000,000]" in out
    assert "Champs de résultat par famille" in out
    # --lang after --help, on the command itself: still French.
    out = _help("ladder", "open", "--help", "--lang", "fr")
    assert "Ouvrir le classement NAME" in out
    assert "Les règles de chaque famille, chaque ambiguïté tranchée comprise :" in out
    # A command's own --lang wins over the environment's.
    out = _help("player", "add", "--lang", "en", "--help", env={"LEDGER_LANG": "fr"})
    assert "Register one or more players" in out


@pytest.mark.parametrize("path", _commands(), ids=" ".join)
def test_every_command_and_option_help_is_french(path: list[str]) -> None:
    french = _words(_help("--lang", "fr", *path, "--help"))
    ctx = click.Context(main)
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        command = command.get_command(ctx, name)  # type: ignore[assignment]
    texts = [command.help, command.epilog if isinstance(command.epilog, str) else None]
    texts += [p.help for p in command.params if isinstance(p, click.Option)]
    english = [_words(inspect.cleandoc(t)) for t in texts if t]
    assert english, path
    # Each English text is gone (it would show whole, or its first words).
    assert [e for e in english if e[:40] in french] == []


def test_the_families_parameters_and_result_fields_are_french(tmp_path: Path) -> None:
    """The parameter docs and result fields the families write
    (``family_help``, ``ladder show``) follow the language too."""
    out = _help("--lang", "fr", "ladder", "open", "--help")
    assert "Paramètres de la famille elo (--set CLÉ=VALEUR ; listes et tables en JSON) :" in out
    assert "initial (nombre ≥ 0; défaut 1500)" in out
    assert "La cote de départ d'un nouveau joueur." in out
    assert "k_rules (liste d'objets; défaut empty)" in out
    assert "The rating a new player starts at." not in out
    out = _help("--lang", "fr", "record", "--help")
    assert "Qui a gagné : a = le camp A (side_a) a gagné" in out
    assert "Who won:" not in out
    # A help made from the ladder's parameters (elo's margins) too.
    assert "Pour une victoire, son ampleur : marginal, decisive, overwhelming." in out
    assert "how large it was" not in out
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "G", "--family", "glicko2")
    cli.ok("ladder", "open", "A", "--family", "adlg")
    shown = cli.ok("ladder", "show", "G", "--lang", "fr")
    assert "      La cote de départ d'un nouveau joueur." in shown
    shown = cli.ok("ladder", "show", "A", "--lang", "fr")
    assert "  aucun : les règles de adlg sont fixes (docs/rules/adlg.md)." in shown
    assert "Elles classent comme la famille elo avec initial=1000" in shown
