"""The interface every rating family implements.

A family is the rating method (docs/rules/: battle-empire, adlg, battletech, bga,
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
import math
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any, ClassVar, Literal, NamedTuple

import msgspec

from ledger.families.params_doc import ParamDoc, describe_struct, render
from ledger.kernel.translation import N_, Message, Translator, translator


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
    ``extra`` holds the rest of the player's state for a family whose state
    is more than a rating (``Family.state_columns`` names its values); None
    for the others. A family never changes it in place: ``Change.state``
    gives the new values.
    """

    rating: float
    games: int = 0
    last_played: date | None = None
    rated_since: date | None = None
    extra: dict[str, float] | None = None


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
    ``state`` is the player's ``PlayerState.extra`` after the game, for a
    family with ``state_columns`` (None: unchanged).
    """

    delta: float
    s: float
    p: float
    k: float
    detail: dict[str, Any] | None = None
    rated: bool = True
    note: str = ""
    state: dict[str, float] | None = None


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


class FastPath(NamedTuple):
    """A family's fast path (``Family.fast_rater``): ``rate`` on plain values.

    ``rate(result, states, neutral, attributes)``: a game's stored result
    (plain data, before ``load_result``), its players' states per side,
    whether it is neutral and its attributes, to each player's
    ``(delta, s, p, k)`` per side; ``duel(result, a, b, neutral)``, when
    given, the same for a game of one player against one, as
    ``(delta_a, s_a, p_a, k_a, delta_b, s_b, p_b, k_b)``. Either returns
    None for a game it leaves to ``Family.rate``.
    """

    rate: Callable[
        [Mapping[str, Any], Sequence[Sequence[PlayerState]], bool, Mapping[str, float]],
        list[list[tuple[float, float, float, float]]] | None,
    ]
    duel: (
        Callable[
            [Mapping[str, Any], PlayerState, PlayerState, bool],
            tuple[float, float, float, float, float, float, float, float] | None,
        ]
        | None
    ) = None


class SidePlay(msgspec.Struct, frozen=True):
    """One side of a rated game as a replay played it: its players' states
    just before the game, and the means of the actual score S and expected
    score P the family gave its players (``Change.s``, ``Change.p``)."""

    states: tuple[PlayerState, ...]
    s: float
    p: float


class Comparison(msgspec.Struct, frozen=True):
    """One prediction a game puts to the test (``ledger evaluate``): side
    ``a`` against side ``b`` (numbered from 0 in recorded order), ``p`` the
    probability the rules gave before the game that ``a`` does better than
    ``b`` (a draw counting half), ``outcome`` what happened: 1 ``a`` did
    better, ½ neither, 0 ``b`` did."""

    a: int
    b: int
    p: float
    outcome: float


def played_in(state: PlayerState, season: Season) -> bool:
    """True when the player's last rated game falls inside the season.

    The engine applies a season close after every game up to its end date, so
    the last game played is never after ``season.end`` for a close in effect.
    """
    return state.last_played is not None and state.last_played >= season.start


def side_means(
    states: Sequence[Sequence[PlayerState]],
) -> list[float]:
    """A side's rating is the mean of its players' ratings (docs/rules/README.md)."""
    return [sum(s.rating for s in side) / len(side) for side in states]


def _refuse_non_finite(value: Any, field: str) -> None:
    """Refuse NaN or infinity anywhere in a parameter (a text too: strict
    conversion reads "nan" as a number)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _refuse_non_finite(item, f"{field}.{key}")
    elif isinstance(value, list | tuple):
        for item in value:
            _refuse_non_finite(item, field)
    elif isinstance(value, float | str) and not isinstance(value, bool):
        try:
            number = float(value)
        except ValueError:
            return
        if not math.isfinite(number):
            raise FamilyError(
                Message("{field}: {number} is not a finite number", field=field, number=number),
                field=field,
            )


def parse_param_value(text: str) -> Any:
    """A ``--set KEY=VALUE`` value: JSON when it parses as JSON, else text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


#: How ``Family.parse_cell`` reads a result cell (see ``ResultColumn``).
CellKind = Literal["code", "integer", "number", "integers", "numbers", "json", "player", "auto"]

#: Cells that mean "nobody" in a ``player`` column (an empty cell too).
_NOBODY = ("", "-", "none")
#: Separators between the numbers of a list cell ("1,2,2,4", "5000 3000 ...").
_LIST_SEPARATORS = re.compile(r"[\s,;]+")


class ResultColumn(msgspec.Struct, frozen=True):
    """One column of a family's result vocabulary: a result-sheet column and
    the ``--field NAME=TEXT`` key of ``ledger record``.

    ``help`` is one line for people (what goes there, the allowed values);
    ``example`` a cell text for an example row; ``choices`` the allowed codes
    (matched ignoring case), or empty; ``required`` whether every game must
    give it. ``kind`` says how ``Family.parse_cell`` reads the text:

    - ``code``: one of ``choices`` (``"A"`` → ``"a"``);
    - ``integer`` / ``number``: one number;
    - ``integers`` / ``numbers``: numbers separated by commas, spaces or
      ``;`` (``"1,2,2,4"``), or a JSON list;
    - ``json``: JSON (unit lists, objectives);
    - ``player``: a player of the game by name (the caller turns the name
      into that player's side number), or the side number itself
      (1 = side_a); blank, ``-`` or ``none``: nobody;
    - ``auto``: JSON when the text parses as JSON, else the text.

    A help that depends on the ladder's parameters (elo's margins) also
    keeps its marked English ``help_template`` and ``help_values``, so that
    ``help_in`` says it in another language.
    """

    name: str
    help: str
    example: str = ""
    choices: tuple[str, ...] = ()
    required: bool = False
    kind: CellKind = "auto"
    help_template: str = ""
    help_values: dict[str, str] = {}

    def help_in(self, t: Translator) -> str:
        """``help`` in ``t``'s language."""
        if self.help_template:
            return t.gettext(self.help_template).format(**self.help_values)
        return t.gettext(self.help) if self.help else ""

    @property
    def text_cell(self) -> bool:
        """True when a spreadsheet must keep the cell as text (a list typed
        with commas must not become a decimal number, a name stays a name)."""
        return self.kind in ("integers", "numbers", "json", "player", "auto")


def listing(items: Sequence[str], empty: str = "none") -> str:
    """``items`` joined for a message, never an empty list after a colon."""
    return ", ".join(items) if items else empty


def format_number(value: float) -> str:
    """A number as a person types it: ``5000.0`` → ``5000``, ``2.5`` → ``2.5``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class _ResultFieldNames:
    """``Family.result_fields``: the names of ``result_columns()``, kept for
    callers that only need the column names."""

    def __get__(self, obj: Any, owner: type[Family]) -> tuple[str, ...]:
        return tuple(column.name for column in owner.result_columns())


class Family:
    """Base class of every rating family.

    Subclasses set ``name``, ``version``, ``Params`` (a msgspec Struct with
    ``forbid_unknown_fields=True``, a default for every field and each
    field's help as ``Annotated[type, msgspec.Meta(description=...)]``),
    ``Result`` (the msgspec Struct a game's result converts to), override
    ``result_columns`` (the result vocabulary: sheet columns and ``--field``
    keys, with help, examples and allowed codes) and implement ``rate``.
    ``check_result``, ``check_game``, ``example_rows``, ``close_season`` and
    ``grade`` have neutral defaults.

    The vocabulary API, which every caller (importer, CLI, templates, the
    sheet generator) reads instead of restating a family's columns:

    - ``result_columns(params)``: the ``ResultColumn``s, in sheet order;
    - ``parse_cell(column, text)``: a cell's text as the value the result
      takes; ``format_cell(column, value)`` the reverse;
    - ``example_rows(n_sides)``: cells of example rows (template, README);
    - ``describe_params()`` and ``params_dict``: the parameters;
    - ``version``: the version of the family's maths (recorded with a
      ruleset, so a replay can tell which maths rated a game).
    """

    name: ClassVar[str]
    #: The version of the family's maths: raised whenever a rule change makes
    #: the same games give other ratings.
    version: ClassVar[int] = 1
    #: The page stating the family's rules, every decided ambiguity included:
    #: a path from the project's root (``docs/rules/elo.md``), shown by
    #: ``--help``, ``ladder show`` and the site. None for a family documented
    #: elsewhere (a plugin's own docs).
    rules_doc: ClassVar[str | None] = None
    Params: ClassVar[type[msgspec.Struct]]
    Result: ClassVar[type[msgspec.Struct]]
    #: The result column names (derived from ``result_columns()``). A family
    #: written before ``result_columns`` existed may still set a plain tuple
    #: here: its columns are then read with ``kind="auto"``.
    result_fields: ClassVar[tuple[str, ...]] = _ResultFieldNames()  # type: ignore[assignment]
    #: Smallest and largest number of sides a game may have.
    min_sides: ClassVar[int] = 2
    max_sides: ClassVar[int] = 2

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass rates by rules of its own: it names its own page, or none,
        # never its parent's (a plugin built on EloFamily is not the elo family).
        if "rules_doc" not in cls.__dict__:
            cls.rules_doc = None

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
                if not allowed:
                    raise FamilyError(
                        Message(
                            "family {name} takes no parameters (got {key!r})",
                            name=cls.name,
                            key=key,
                        ),
                        field=key,
                    )
                raise FamilyError(
                    Message(
                        "unknown parameter {key!r} for family {name} (allowed: {allowed})",
                        key=key,
                        name=cls.name,
                        allowed=", ".join(allowed),
                    ),
                    field=key,
                )
        try:
            return msgspec.convert(values, cls.Params, strict=False)
        except msgspec.ValidationError as exc:
            # "nan" fails a bound too; say what is wrong with it first.
            for key, value in values.items():
                _refuse_non_finite(value, key)
            key = _path_key(str(exc))
            doc = next((d for d in cls.describe_params() if d.name == key), None)
            if doc is not None and doc.choices and str(values.get(key)) not in doc.choices:
                raise FamilyError(
                    Message(
                        "bad value for parameter {key!r} of family {name}: {value!r} is not one "
                        "of {choices}",
                        key=key,
                        name=cls.name,
                        value=values.get(key),
                        choices=", ".join(doc.choices),
                    ),
                    field=key,
                ) from None
            fields = (
                f" (each takes: {', '.join(f.name for f in doc.fields)})"
                if doc and doc.fields
                else ""
            )
            raise FamilyError(
                Message(
                    "bad value for parameter {key!r} of family {name}: {value}{fields}",
                    key=key,
                    name=cls.name,
                    value=readable_error(str(exc), values.get(key)),
                    fields=fields,
                ),
                field=key,
            ) from None

    @classmethod
    def describe_params(cls) -> list[ParamDoc]:
        """Every parameter: name, type, default, help, allowed values and, for
        structured parameters, their sub-fields (read from ``Params``)."""
        return describe_struct(cls.Params)

    @classmethod
    def params_help(cls, t: Translator | None = None) -> str:
        """Every parameter, its type, default, allowed values, help and
        sub-fields, as plain text (for ``--help``, ``ladder show``, README),
        in ``t``'s language (English by default)."""
        t = t or translator()
        docs = cls.describe_params()
        if not docs:
            return t.gettext("{family} has no parameters: its rules are fixed.").format(
                family=cls.name
            )
        head = t.gettext("{family} parameters (--set KEY=VALUE; lists and tables as JSON):").format(
            family=cls.name
        )
        return "\n".join([head, *render(docs, indent=2, t=t)])

    @classmethod
    def default_params(cls) -> Any:
        return cls.Params()

    def params_dict(self) -> dict[str, Any]:
        """The full parameters as plain data (stored in a ruleset event)."""
        return msgspec.to_builtins(self.params)

    # -- result vocabulary --------------------------------------------------
    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        """The result columns (sheet columns, ``--field`` keys), in sheet order.

        ``params`` are a ladder's parameters (None: the defaults); they may
        change a column's choices and help (an elo ladder's margins), never
        the column names. The default reads a legacy ``result_fields`` tuple.
        """
        return tuple(
            ResultColumn(
                name=name,
                help=_LEGACY_HELP.format(family=cls.name, name=name),
                kind="auto",
                help_template=_LEGACY_HELP,
                help_values={"family": cls.name, "name": name},
            )
            for name in _legacy_result_fields(cls)
        )

    def columns(self) -> tuple[ResultColumn, ...]:
        """``result_columns`` under this family's own parameters."""
        return self.result_columns(self.params)

    def column(self, name: str) -> ResultColumn:
        """The result column ``name``; FamilyError when the family has none."""
        for column in self.columns():
            if column.name == name:
                return column
        names = [c.name for c in self.columns()]
        takes = f"it takes: {', '.join(names)}" if names else "it takes no result fields"
        raise FamilyError(
            Message(
                "{name!r} does not belong to a {family} result ({takes})",
                name=name,
                family=self.name,
                takes=takes,
            ),
            name,
        )

    def parse_cell(self, column: str, text: str) -> Any:
        """A cell's text (a sheet cell, a ``--field`` value) as the value of
        result column ``column``; None when the cell is blank (not given).

        Codes match ignoring case (``"A"`` → ``"a"``, ``"Draw"`` →
        ``"draw"``); lists are numbers separated by commas (``"1,2,2,4"`` →
        ``[1, 2, 2, 4]``) or JSON. Raises FamilyError naming the column and
        what was expected (with the allowed codes).
        """
        col = self.column(column)
        text = text.strip()
        if not text or (col.kind == "player" and text.casefold() in _NOBODY):
            return None
        kind = col.kind
        try:
            if kind == "code":
                for choice in col.choices:
                    if choice.casefold() == text.casefold():
                        return choice
                raise FamilyError(
                    Message(
                        "{column}: {text!r} is not one of {choices}",
                        column=column,
                        text=text,
                        choices=listing(col.choices),
                    ),
                    column,
                )
            if kind == "integer":
                return int(text)
            if kind == "number":
                return float(text)
            if kind in ("integers", "numbers"):
                parts = json.loads(text) if text.startswith("[") else _LIST_SEPARATORS.split(text)
                convert = int if kind == "integers" else float
                return [convert(part) for part in parts if part != ""]
            if kind == "json":
                return json.loads(text)
            if kind == "player":
                return int(text) if text.isdigit() else text
            return parse_param_value(text)
        except FamilyError:
            raise
        except (ValueError, TypeError):
            expected = {
                "integer": "a whole number",
                "number": "a number",
                "integers": "whole numbers separated by commas",
                "numbers": "numbers separated by commas",
                "json": "JSON",
            }.get(kind, "a value")
            example = f", e.g. {col.example}" if col.example else ""
            raise FamilyError(
                Message(
                    "{column}: expected {expected}{example}; got {text!r}",
                    column=column,
                    expected=expected,
                    example=example,
                    text=text,
                ),
                column,
            ) from None

    def format_cell(self, column: str, value: Any) -> str:
        """The cell text of a value of ``column`` (the reverse of ``parse_cell``)."""
        col = self.column(column)
        if value is None:
            return ""
        if col.kind in ("integers", "numbers") and isinstance(value, list):
            return ",".join(format_number(v) for v in value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return format_number(value)
        if isinstance(value, str):
            return value
        return msgspec.json.encode(value).decode()

    @classmethod
    def example_rows(cls, n_sides: int | None = None) -> list[dict[str, str]]:
        """Cells of example rows of a result sheet (the template's example,
        the README, the sheet generator): one or two games with ``n_sides``
        sides (None: the family's typical game), every result column its
        family's example. Families override it with games in their own words;
        row 1 is the simplest typical game, row 2 shows other values."""
        row = {
            "ladder": "My Ladder",
            "date": "2025-03-02",
            **example_sides(["Anne Martin", "Paul Roy", "Léa Vidal", "Ben Okafor"], n_sides or 2),
        }
        row.update({c.name: c.example for c in cls.result_columns() if c.example})
        return [row]

    # -- game results -------------------------------------------------------
    def parse_result(self, raw: Mapping[str, Any], n_sides: int) -> Any:
        """Validate a game's result given in the family's vocabulary.

        ``raw`` maps result column names (``result_columns``) to values, as
        text (read with ``parse_cell``; blank text counts as not given) or
        already typed. Raises FamilyError naming the field at fault.
        """
        if not self.min_sides <= n_sides <= self.max_sides:
            want = (
                str(self.min_sides)
                if self.min_sides == self.max_sides
                else f"{self.min_sides} to {self.max_sides}"
            )
            raise FamilyError(
                Message(
                    "a {name} game has {want} sides, got {n_sides}",
                    name=self.name,
                    want=want,
                    n_sides=n_sides,
                )
            )
        values: dict[str, Any] = {}
        for key, value in raw.items():
            self.column(key)  # a key outside the vocabulary is an error
            if isinstance(value, str):
                value = self.parse_cell(key, value)
            if value is not None:
                values[key] = value
        for col in self.columns():
            if col.required and col.name not in values:
                raise FamilyError(
                    Message(
                        "a {family} result needs {column}: {help}",
                        family=self.name,
                        column=col.name,
                        help=col.help,
                    ),
                    col.name,
                )
        try:
            result = msgspec.convert(values, self.Result, strict=False)
        except msgspec.ValidationError as exc:
            key = _path_key(str(exc))
            raise FamilyError(
                Message("bad {name} result field {key!r}: {exc}", name=self.name, key=key, exc=exc),
                field=key,
            ) from None
        self.check_result(result, n_sides or 2)
        return result

    def result_dict(self, result: Any) -> dict[str, Any]:
        """A Result as stored: plain data, fields left unset omitted (so the
        stored form parses again exactly as it was checked)."""
        return {k: v for k, v in msgspec.to_builtins(result).items() if v is not None}

    def check_result(self, result: Any, n_sides: int) -> None:
        """Cross-field checks a struct cannot express; raise FamilyError."""

    def check_game(self, game: Game) -> None:
        """Check a whole game before it is stored; raise FamilyError.

        ``parse_result`` has already checked the result; override this for
        what a family needs beyond it: attributes it rates from (points
        scored...), a number of players per side. Called with the game as it
        will be stored (players as ids), so a game ``rate`` would refuse is
        refused when recorded, never at replay. Default: nothing more.
        """

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

    # -- state beyond a rating (uncertainty) --------------------------------
    #: The names of the values a player's state holds besides the rating
    #: (``PlayerState.extra``), in the order they are shown; () for a family
    #: whose state is its rating. The replay carries them, the history keeps
    #: them per row, exports and ``explain`` show them under these names.
    state_columns: ClassVar[tuple[str, ...]] = ()

    def initial_state(self) -> dict[str, float] | None:
        """A new player's ``PlayerState.extra`` (default: None, no state)."""
        return None

    def deviation(self, state: PlayerState) -> float | None:
        """How uncertain a rating is, on the rating's own scale, shown as
        rating ± deviation (default: None, a rating without uncertainty)."""
        return None

    def provisional_threshold(self) -> float | None:
        """The deviation above which a rating is shown as provisional (a
        ladder parameter); default: None, never provisional."""
        return None

    def conservative_rating(self, state: PlayerState) -> float | None:
        """A rating the player is very likely above (rating − 2 RD, μ − 3σ),
        or None (the default: a family without uncertainty)."""
        return None

    def ranks_conservatively(self) -> bool:
        """True when the ladder ranks by ``conservative_rating`` (a ladder
        parameter); default: False."""
        return False

    def provisional(self, state: PlayerState) -> bool:
        """True when the rating's deviation is above the ladder's threshold."""
        threshold = self.provisional_threshold()
        deviation = self.deviation(state)
        return threshold is not None and deviation is not None and deviation > threshold

    def ranking_value(self, state: PlayerState) -> float:
        """What a ranking orders players by (highest first): the rating, or
        the conservative rating when the ladder ranks by it."""
        if self.ranks_conservatively():
            conservative = self.conservative_rating(state)
            if conservative is not None:
                return conservative
        return state.rating

    #: The state values a rating adjustment may set (``ledger adjust
    #: --state NAME=VALUE``); the others are the family's own bookkeeping.
    settable_state: ClassVar[tuple[str, ...]] = ()

    def adjust_state(
        self, extra: dict[str, float] | None, values: Mapping[str, float]
    ) -> dict[str, float]:
        """A player's ``extra`` once an adjustment set ``values`` (names of
        ``settable_state``); default: those values replaced."""
        return {**(extra or self.initial_state() or {}), **values}

    def rate(
        self,
        game: Game,
        states: Sequence[Sequence[PlayerState]],
        explain: bool = False,
    ) -> list[list[Change]]:
        """Each player's change from ``game``, per side, in recorded order."""
        raise NotImplementedError

    def fast_rater(self) -> FastPath | None:
        """The replay's fast path, or None (the default: every game goes
        through ``rate``).

        A replay of many games spends most of its time building a ``Game``,
        a ``Result`` and ``Change`` structs around the maths, so a family may
        offer the same maths on plain values (``FastPath``): exactly what
        ``rate`` gives, every player rated and no note, for the games it
        takes. The built-in Elo families offer one; a subclass that
        overrides their maths gets none (tests compare both on random games).
        """
        return None

    # -- evidence (``ledger evaluate``, ``ledger tune``) ---------------------
    def outcome(self, own: float, other: float) -> float:
        """The observed outcome of a side whose actual score is ``own``
        against one whose actual score is ``other``: 1 when it scored more,
        ½ the same, 0 less (a margin of victory or a Battle Value score is
        still a win)."""
        return 1.0 if own > other else 0.5 if own == other else 0.0

    def pairwise_expected(self, own: Sequence[PlayerState], other: Sequence[PlayerState]) -> float:
        """The probability, before a game, that a side of ``own`` players
        does better than a side of ``other`` (a draw counting half): what a
        game of more than two sides is scored with, one pair at a time.

        The default is the Elo curve on the side means, divisor 400, no
        first-player advantage; a family whose expectation differs (a
        clamp, another divisor, a rating deviation) overrides it."""
        own_mean = sum(s.rating for s in own) / len(own)
        other_mean = sum(s.rating for s in other) / len(other)
        return 1.0 / (1.0 + 10.0 ** ((other_mean - own_mean) / 400.0))

    def comparisons(self, sides: Sequence[SidePlay], neutral: bool) -> list[Comparison]:
        """The predictions one rated game puts to the test.

        Two sides: one comparison, the first side's P as the family gave it
        in the replay (``Change.p``, first-player advantage included) against
        the outcome read from both sides' S. More sides: every pair of
        sides, with ``pairwise_expected``. A family whose P is not a
        probability (BattleTech's expected Battle Value) overrides this."""
        if len(sides) == 2:
            a, b = sides
            return [Comparison(0, 1, a.p, self.outcome(a.s, b.s))]
        return [
            Comparison(
                i,
                j,
                self.pairwise_expected(sides[i].states, sides[j].states),
                self.outcome(sides[i].s, sides[j].s),
            )  # fmt: skip
            for i in range(len(sides))
            for j in range(i + 1, len(sides))
        ]

    def with_values(self, values: Mapping[str, Any]) -> Family | None:
        """This family with the parameters in ``values`` holding arrays of
        values (numpy, one per grid point of ``ledger tune``), rating every
        grid point in one replay: ratings, P and changes then come out as
        arrays. The values are not checked here (each grid point's are,
        as scalars, before).

        None (the default) when the family's maths serves plain numbers
        only: ``ledger tune`` then replays once per grid point. A family
        opts in when its maths (the same code for scalars and arrays)
        raises on anything an array cannot do (``if`` on a comparison),
        never giving a silently different answer."""
        return None

    def first_player_expected(self) -> float | None:
        """The first side's expected score between equal ratings in a game
        that is not neutral: the first-player (home) advantage alone, the
        baseline ``ledger evaluate`` sets beside the rules. None (the
        default) when the family gives the first player no advantage."""
        return None

    def close_season(
        self, season: Season, states: Mapping[str, PlayerState]
    ) -> dict[str, SeasonChange]:
        """Changes a season close applies, by player id (default: none)."""
        return {}

    def grade(self, state: PlayerState, lang: str = "en") -> str | None:
        """The grade, rank or level a state earns (default: none)."""
        return None


def example_sides(names: Sequence[str], n_sides: int) -> dict[str, str]:
    """``side_a``, ``side_b``, ... cells: one player of ``names`` per side
    (names run out: "Player 5", ...)."""
    return {
        f"side_{chr(ord('a') + i)}": names[i] if i < len(names) else f"Player {i + 1}"
        for i in range(n_sides)
    }


#: The help of a result field a family gives no help of its own for.
_LEGACY_HELP = N_("The {family} result field '{name}'.")


def _legacy_result_fields(cls: type) -> tuple[str, ...]:
    """A plain ``result_fields`` tuple set by a family class, or ()."""
    for klass in cls.__mro__:
        value = vars(klass).get("result_fields")
        if isinstance(value, tuple):
            return value
        if value is not None:
            return ()
    return ()


def _path_key(message: str) -> str | None:
    """The field named by a msgspec error path such as ``- at `$.k```."""
    marker = "at `$."
    if marker not in message:
        return None
    rest = message.split(marker, 1)[1]
    return rest.split("`", 1)[0].split("[", 1)[0].split(".", 1)[0]


#: msgspec's type names, as people say them.
_TYPE_WORDS = {
    "float": N_("a number"), "int": N_("a whole number"), "str": N_("text"),
    "bool": N_("true or false"), "array": N_("a list"), "object": N_("a table"), "null": N_("none"),
}  # fmt: skip


def _type_words(kind: str) -> object:
    return Message(_TYPE_WORDS[kind]) if kind in _TYPE_WORDS else kind


def readable_error(message: str, value: Any) -> str:
    """A msgspec validation message for people: no ``$.k`` path, types
    in words, the value given, and where in a list or table it sits
    ("Expected `float` >= 0.0 - at `$.k`" reads "must be ≥ 0, got -5");
    a ``Message``, but for a message msgspec words otherwise."""
    import re

    text, _, path = message.partition(" - at `$")
    path = path.rstrip("`")
    where: object = ""
    item = re.search(r"\[(\d+)\]", path)
    inner = re.findall(r"\.(\w+)", path)
    if item:
        where = (
            Message(" (item {item}, field {field!r})", item=int(item.group(1)) + 1, field=inner[-1])
            if len(inner) > 1
            else Message(" (item {item})", item=int(item.group(1)) + 1)
        )
    elif "[...]" in path:
        where = Message(" (in a value of the table)")
    said: object
    bound = re.fullmatch(r"Expected `(\w+)` (>=|>|<=|<) (-?[\d.e+]+)", text)
    typed = re.fullmatch(r"Expected `(\w+)(?: \| (\w+))?`, got `(\w+)`", text)
    if bound:
        kind, sign, limit = bound.groups()
        number = float(limit)
        shown_limit = str(int(number)) if number.is_integer() else limit
        sign = {">=": "≥", "<=": "≤"}.get(sign, sign)
        said = Message(
            "must be {kind} {sign} {limit}", kind=_type_words(kind), sign=sign, limit=shown_limit
        )
    elif typed:
        first, second, got = typed.groups()
        wanted = (
            Message("{first} or {second}", first=_type_words(first), second=_type_words(second))
            if second
            else _type_words(first)
        )
        said = Message("must be {wanted}, not {got}", wanted=wanted, got=_type_words(got))
    else:
        said = (text[:1].lower() + text[1:]).replace("`", "'")
    if not item and "[...]" not in path and not isinstance(value, (list, dict)):
        shown = repr(value) if isinstance(value, str) else value
        said = Message("{said} (got {value})", said=said, value=shown)
    return Message("{said}{where}", said=said, where=where)
