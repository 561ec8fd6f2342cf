"""The interface every rating family implements.

A family is the rating method (RULES.md: battle-empire, adlg, battletech, bga,
elo, or a community's own). It is pure: it receives a game and each player's
state just before the game, and returns each player's change together with the
values that explain it. It never reads or writes storage; the replay engine
(projections.replay) decides the order of effect and applies the changes.

A family instance is bound to one ruleset's parameters::

    family = EloFamily(EloFamily.parse_params({"k": "32"}))
    result = family.parse_result({"result": "a"}, n_sides=2)
    changes = family.rate(Game(...), [[state_a], [state_b]])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, ClassVar, Literal

import msgspec


class FamilyError(ValueError):
    """Bad parameters or a bad game result for a family.

    ``field`` names the parameter or result field at fault (``None`` when the
    error is about the game as a whole, such as its number of sides).
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class PlayerState(msgspec.Struct):
    """A player's standing in one ladder just before an entry takes effect.

    ``games`` counts rated games played before (AdlG counts rounds, which is
    one per game). ``rated_since`` is the date of the entry that first gave
    the player a rating; ``last_played`` the date of their last rated game.
    """

    rating: float
    games: int = 0
    last_played: date | None = None
    rated_since: date | None = None


class Game(msgspec.Struct, frozen=True):
    """One game as a family sees it.

    ``sides`` holds player ids per side, in recorded order (side A first).
    ``result`` is the family's own ``Result`` struct. ``attributes`` carries any
    extra numeric values recorded with the game (points scored, ...), and
    ``neutral`` is True when no side has the first-player (home) advantage.
    """

    id: str
    date: date
    sides: tuple[tuple[str, ...], ...]
    result: Any
    event: str | None = None
    round: int | None = None
    neutral: bool = False
    attributes: dict[str, float] = {}


class Change(msgspec.Struct):
    """One player's change from one game.

    ``delta`` is already rounded as the family rounds it; ``s``, ``p`` and
    ``k`` are the actual score, expected score (or win probability) and K the
    family used. ``detail`` is filled only when ``rate(..., explain=True)``:
    every input and intermediate value, in the order a person would check them.
    ``rated`` is False when the game does not count for this player (it is
    not added to their games played); ``note`` says why, in their history.
    """

    delta: float
    s: float
    p: float
    k: float
    detail: dict[str, Any] | None = None
    rated: bool = True
    note: str = ""


class Outcome(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The result of a two-sided game: which side won (``a`` is the first side
    recorded, ``b`` the second) or ``draw``, with the winner's margin where the
    family scores margins of victory."""

    result: Literal["a", "b", "draw"]
    margin: str | None = None


class Season(msgspec.Struct, frozen=True):
    """A season close: label and the dates it covers (both inclusive)."""

    label: str
    start: date
    end: date


class SeasonChange(msgspec.Struct):
    """A change a season close applies to one player, and why."""

    delta: float
    reason: str


def played_in(state: PlayerState, season: Season) -> bool:
    """True when the player's last rated game falls inside the season.

    The engine applies a season close after every game up to its end date, so
    the last game played is never after ``season.end`` for a close in effect.
    """
    return state.last_played is not None and state.last_played >= season.start


def side_means(
    states: Sequence[Sequence[PlayerState]],
) -> list[float]:
    """A side's rating is the mean of its players' ratings (RULES.md)."""
    return [sum(s.rating for s in side) / len(side) for side in states]


def parse_param_value(text: str) -> Any:
    """A ``--set KEY=VALUE`` value: JSON when it parses as JSON, else text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


class Family:
    """Base class of every rating family.

    Subclasses set ``name``, ``Params`` (a msgspec Struct with
    ``forbid_unknown_fields=True`` and a default for every field), ``Result``
    (the msgspec Struct a game's result converts to) and ``result_fields``
    (the result vocabulary accepted on the command line and in result sheets),
    and implement ``rate``. ``close_season`` and ``grade`` have neutral
    defaults.
    """

    name: ClassVar[str]
    Params: ClassVar[type[msgspec.Struct]]
    Result: ClassVar[type[msgspec.Struct]]
    result_fields: ClassVar[tuple[str, ...]]
    #: Smallest and largest number of sides a game may have.
    min_sides: ClassVar[int] = 2
    max_sides: ClassVar[int] = 2

    def __init__(self, params: Any) -> None:
        self.params = params

    # -- parameters ---------------------------------------------------------
    @classmethod
    def parse_params(cls, raw: Mapping[str, Any]) -> Any:
        """Validate raw parameters (strings from ``--set`` or stored values).

        Raises FamilyError naming the key and what is allowed.
        """
        values = {k: parse_param_value(v) if isinstance(v, str) else v for k, v in raw.items()}
        allowed = cls.Params.__struct_fields__
        for key in values:
            if key not in allowed:
                raise FamilyError(
                    f"unknown parameter {key!r} for family {cls.name} "
                    f"(allowed: {', '.join(allowed)})",
                    field=key,
                )
        try:
            return msgspec.convert(values, cls.Params, strict=False)
        except msgspec.ValidationError as exc:
            key = _path_key(str(exc))
            raise FamilyError(
                f"bad value for parameter {key!r} of family {cls.name}: {exc}", field=key
            ) from None

    @classmethod
    def default_params(cls) -> Any:
        return cls.Params()

    def params_dict(self) -> dict[str, Any]:
        """The full parameters as plain data (stored in a ruleset event)."""
        return msgspec.to_builtins(self.params)

    # -- game results -------------------------------------------------------
    def parse_result(self, raw: Mapping[str, Any], n_sides: int) -> Any:
        """Validate a game's result given in the family's vocabulary.

        ``raw`` maps result field names (``result_fields``) to values, as text
        or already typed. Raises FamilyError naming the field at fault.
        """
        if not self.min_sides <= n_sides <= self.max_sides:
            want = (
                str(self.min_sides)
                if self.min_sides == self.max_sides
                else f"{self.min_sides} to {self.max_sides}"
            )
            raise FamilyError(f"a {self.name} game has {want} sides, got {n_sides}")
        for key in raw:
            if key not in self.result_fields:
                raise FamilyError(
                    f"{key!r} does not belong to a {self.name} result "
                    f"(it takes: {', '.join(self.result_fields)})",
                    field=key,
                )
        try:
            result = msgspec.convert(dict(raw), self.Result, strict=False)
        except msgspec.ValidationError as exc:
            key = _path_key(str(exc))
            raise FamilyError(f"bad {self.name} result field {key!r}: {exc}", field=key) from None
        self.check_result(result, n_sides)
        return result

    def result_dict(self, result: Any) -> dict[str, Any]:
        """A Result as stored: plain data, fields left unset omitted (so the
        stored form parses again exactly as it was checked)."""
        return {k: v for k, v in msgspec.to_builtins(result).items() if v is not None}

    def check_result(self, result: Any, n_sides: int) -> None:
        """Cross-field checks a struct cannot express; raise FamilyError."""

    def load_result(self, stored: Any) -> Any:
        """Rebuild the Result struct from its stored plain form (trusted)."""
        return msgspec.convert(stored, self.Result)

    # -- rating -------------------------------------------------------------
    @property
    def integer_ratings(self) -> bool:
        """True when ratings are integers (each change rounded)."""
        return True

    @property
    def per_event(self) -> bool:
        """True when changes apply at the close of each real-world event
        (AdlG), rated from the states before the event began."""
        return False

    def initial_rating(self) -> float:
        return self.params.initial  # type: ignore[attr-defined]

    def rate(
        self,
        game: Game,
        states: Sequence[Sequence[PlayerState]],
        explain: bool = False,
    ) -> list[list[Change]]:
        """Each player's change from ``game``, per side, in recorded order."""
        raise NotImplementedError

    def close_season(
        self, season: Season, states: Mapping[str, PlayerState]
    ) -> dict[str, SeasonChange]:
        """Changes a season close applies, by player id (default: none)."""
        return {}

    def grade(self, state: PlayerState, lang: str = "en") -> str | None:
        """The grade, rank or level a state earns (default: none)."""
        return None


def _path_key(message: str) -> str | None:
    """The field named by a msgspec error path such as ``- at `$.k```."""
    marker = "at `$."
    if marker not in message:
        return None
    rest = message.split(marker, 1)[1]
    return rest.split("`", 1)[0].split("[", 1)[0].split(".", 1)[0]
