"""A game as a person writes it (names, dates and results as text), turned
into the facts an event stores (ids, dates, the family's normalised result).

Shared by ``ledger record``, ``ledger correct`` and result-sheet imports, so a
game is read and checked the same way whichever way it arrives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from functools import lru_cache
from typing import Any
from uuid import UUID

import msgspec

from ledger.families.base import Family
from ledger.families.registry import BUILT_IN_CLASSES
from ledger.kernel import bounds
from ledger.kernel import events as ev
from ledger.kernel.errors import Invalid
from ledger.kernel.identity import name_key, player_id
from ledger.kernel.matching import NameIndex
from ledger.kernel.names import clean_name
from ledger.kernel.translation import N_, Message
from ledger.write.application import LedgerApplication
from ledger.write.state import LadderState


class GameInput(msgspec.Struct):
    """One game in people's terms. ``sides`` holds player names per side;
    ``result`` the family's result fields (``result``, ``margin``, ``ranks``,
    ``quit``, ``bv``...) as given."""

    ladder: str
    date: str
    sides: list[list[str]]
    result: dict[str, Any]
    event: str | None = None
    round: str | int | None = None
    table: str | int | None = None
    neutral: bool = False
    attributes: dict[str, Any] = {}
    reference: str | None = None


def FieldError(field: str, message: str) -> Invalid:  # noqa: N802 - reads as a class
    """Bad input in one named field (a CLI option or a sheet column)."""
    return Invalid(message, field=field)


def parse_date(text: str | date, field: str = "date") -> date:
    """An ISO ``YYYY-MM-DD`` date, or a FieldError saying so."""
    if isinstance(text, date):
        return text
    try:
        return _iso_date(text)
    except ValueError:
        raise FieldError(
            field,
            Message(
                "{field}: {text!r} is not a date in ISO form YYYY-MM-DD", field=field, text=text
            ),
        ) from None


@lru_cache(maxsize=8192)
def _iso_date(text: str) -> date:
    """``text`` as a date (read once per text: an import's games share few
    dates); ValueError when it is not ``YYYY-MM-DD``."""
    if len(text.strip()) != 10:
        raise ValueError
    return date.fromisoformat(text.strip())


#: The longest game reference (``parse_reference``).
REFERENCE_LENGTH = 100


def parse_reference(text: str | None, field: str = "reference") -> str | None:
    """A game's reference (BGA's table number, a club's game number) as it
    identifies the game: trimmed, one line, at most ``REFERENCE_LENGTH``
    characters (blank: none)."""
    reference = (text or "").strip()
    if not reference:
        return None
    if "\n" in reference or "\r" in reference:
        raise FieldError(
            field,
            Message(
                "{field}: {reference!r} holds a line break; a reference is one line",
                field=field,
                reference=reference,
            ),
        )
    if len(reference) > REFERENCE_LENGTH:
        raise FieldError(
            field,
            Message(
                "{field}: {count} characters, at most {most} are read",
                field=field,
                count=len(reference),
                most=REFERENCE_LENGTH,
            ),
        )
    return reference


#: The largest round or table number, as text of plain digits is checked
#: against it without a float's detour (``parse_int``'s fast path).
_ORDER_HIGH = int(bounds.ORDER.high)


def parse_int(text: str | int | None, field: str) -> int | None:
    """A round or table number (empty: none), within ``bounds.ORDER``."""
    if text is None or text == "":
        return None
    if type(text) is str and text.isascii() and text.isdigit():
        # Plain digits (nearly every sheet cell): no sign, space or float.
        value = int(text)
        if value <= _ORDER_HIGH:
            return value
    plain = str(text).strip()
    if _WHOLE_WITH_ZEROS.fullmatch(plain):
        # "1.0": a spreadsheet's number shown as text; it means 1.
        plain = plain.partition(".")[0]
    try:
        value = int(plain)
    except ValueError:
        raise FieldError(
            field, Message("{field}: {text!r} is not a whole number", field=field, text=text)
        ) from None
    return bounds.ORDER.check(value, field)


#: A whole number written with a zero fraction (``1.0``, ``12.00``).
_WHOLE_WITH_ZEROS = re.compile(r"[+-]?\d+\.0+")


def parse_number(text: Any, field: str, bound: bounds.Range = bounds.ATTRIBUTE) -> float:
    """A finite number within ``bound`` (``nan``, ``inf`` and ``1e309`` are refused)."""
    try:
        value = float(str(text).strip())
    except ValueError:
        raise FieldError(
            field, Message("{field}: {text!r} is not a number", field=field, text=text)
        ) from None
    return bound.check(value, field)


class PlayerBook:
    """Name-to-id lookups against the write index, remembering players that
    an import or ``--add-players`` will register with the game."""

    #: Names as written remembered at most (beyond, forgotten and found again).
    LIMIT = 100_000

    def __init__(self, app: LedgerApplication, add_players: bool) -> None:
        self.app = app
        self.add_players = add_players
        self.new: dict[str, str] = {}  # name key -> name as first written
        self.first_row: dict[str, int] = {}  # name key -> sheet row that named them
        self.row = 0  # the sheet row being read, for new players' source
        self._cache: dict[str, UUID] = {}  # name key -> player id
        self._written: dict[str, UUID] = {}  # name as written -> player id

    def new_ids(self) -> dict[str, UUID]:
        """The id each new player will be registered under, by name key."""
        return {key: self._cache[key] for key in self.new}

    def resolve(self, name: str, field: str) -> UUID:
        found = self._written.get(name)
        if found is not None:
            return found
        key = name_key(name)
        if not key:
            raise FieldError(field, Message("{field}: empty player name", field=field))
        if key in self._cache:
            return self._remember(name, self._cache[key])
        pid = self.app.find_player(name)
        if pid is None:
            # A new name must be one a name may be (a known one is found as
            # it was stored, even from before these rules).
            name = clean_name(name, field)
            if not self.add_players:
                hint = self.app.player_hint(
                    name, N_("add them with 'ledger player add', or pass --add-players")
                )
                raise FieldError(
                    field,
                    Message(
                        "{field}: unknown player {name!r}{hint}", field=field, name=name, hint=hint
                    ),
                )
            self.new.setdefault(key, name)
            self.first_row.setdefault(key, self.row)
            pid = new_player_id(self.app, name)
        self._cache[key] = pid
        return self._remember(name, pid)

    def _remember(self, written: str, pid: UUID) -> UUID:
        """Find ``written`` (a name exactly as written) at once next time:
        a sheet names its players again and again."""
        if len(self._written) >= self.LIMIT:
            self._written.clear()
        self._written[written] = pid
        return pid


def close_to_known(app: LedgerApplication, new: Mapping[str, str]) -> dict[str, list[str]]:
    """The known names each new name (``new``: name key -> name) may be a
    typo of, or the same words swapped, or an initial for (best first; only
    the new names with any). Only the known names sharing a blocking key
    with a new one are read and compared (``LedgerApplication.names_near``),
    so a new name costs the same at 100 or 100,000 known players."""
    near = app.names_near(new.values()) if new else []
    if not near:
        return {}
    index = NameIndex(near)
    found = {key: index.similar(name) for key, name in new.items()}
    return {key: names for key, names in found.items() if names}


def typo_warning(name: str, close: Sequence[str]) -> str:
    """What a new player's name close to known ones earns."""
    return Message(
        "new player {name} is close to {known}: a typo?",
        name=repr(name),
        known=", ".join(repr(c) for c in close),
    )


def new_player_id(app: LedgerApplication, name: str) -> UUID:
    """An unused id for a new player named ``name`` (the first id of the
    name may belong to a player renamed since)."""
    attempt = 0
    while app.exists(player_id(name, attempt)):
        attempt += 1
    return player_id(name, attempt)


#: The field of each side, by its number (``side_a``...).
SIDE_FIELDS = tuple(f"side_{chr(ord('a') + n)}" for n in range(26))


def build_facts(
    ladder: LadderState,
    game: GameInput,
    book: PlayerBook,
) -> ev.GameFacts:
    """Read a game's fields into facts (names to ids, dates, numbers).

    Raises FieldError naming the field at fault. The result itself is checked
    by its family afterwards (``Commands.check_game``).
    """
    on = parse_date(game.date)
    if len(game.sides) < 2:
        raise FieldError("side", Message("a game needs at least two sides"))
    sides = []
    seen: dict[int, str] = {}  # player id (as a number) -> the name that named them first
    for number, side in enumerate(game.sides):
        field = SIDE_FIELDS[number] if number < len(SIDE_FIELDS) else f"side_{chr(97 + number)}"
        if not side:
            raise FieldError(field, Message("{field}: no player", field=field))
        ids = []
        for name in side:
            pid = book.resolve(name, field)
            if pid.int in seen:
                # The same name twice, or two names of one (merged) player.
                first = seen[pid.int]
                same = (
                    ""
                    if name_key(first) == name_key(name)
                    else Message(" (as {first!r})", first=first)
                )
                raise FieldError(
                    "side",
                    Message(
                        "player {name!r} appears twice in one game{same}", name=name, same=same
                    ),
                )
            seen[pid.int] = name
            ids.append(pid)
        sides.append(ids)
    result = dict(game.result)
    quit_value = result.get("quit")
    if isinstance(quit_value, str) and quit_value.strip() and not quit_value.strip().isdigit():
        # A quitter may be named: turn the name into the side's number.
        quitter = book.resolve(quit_value, "quit")
        numbers = [n for n, side in enumerate(sides, start=1) if quitter in side]
        if not numbers:
            raise FieldError(
                "quit",
                Message("quit: {quit_value!r} is not a player of this game", quit_value=quit_value),
            )
        result["quit"] = numbers[0]
    attributes = (
        {k: parse_number(v, k) for k, v in game.attributes.items()} if game.attributes else {}
    )
    return ev.GameFacts(
        ladder=ladder.id,
        date=on,
        sides=sides,
        result=result,
        event=(game.event or "").strip() or None,
        round=parse_int(game.round, "round"),
        table=parse_int(game.table, "table"),
        neutral=game.neutral,
        attributes=attributes,
        reference=parse_reference(game.reference),
    )


#: The built-in family classes: their checks read a game's shape and result
#: only (never its date, players or ids), so one check stands for every game
#: alike. A community's own family (a subclass too) is checked game by game.
PURE_CHECKS = BUILT_IN_CLASSES


class GameChecks:
    """What checking many games (an import) learns once and reuses: the
    family in force on each date of each ladder, each result cell as its
    family reads it, and the normalised result of each game shape a built-in
    family has checked (the same sides, result and attributes give the same
    verdict). Each memo is forgotten past ``LIMIT`` entries, so memory stays
    bounded whatever the sheet."""

    LIMIT = 50_000

    def __init__(self) -> None:
        self._families: dict[tuple[int, date], Family] = {}
        self._cells: dict[tuple[int, str, str], Any] = {}
        # key -> (normalised result, whether it holds lists to copy)
        self._results: dict[tuple[Any, ...], tuple[dict[str, Any], bool]] = {}

    def family(self, ladder: LadderState, on: date) -> Family:
        """``ladder.family_on(on)``, found once per ladder and date."""
        key = (ladder.id.int, on)  # an int hashes in C, a UUID in Python
        found = self._families.get(key)
        if found is None:
            if len(self._families) >= self.LIMIT:
                self._families.clear()
            found = self._families[key] = ladder.family_on(on)
        return found

    def cell(self, family: Family, column: str, text: str) -> Any:
        """``family.parse_cell(column, text)``, read once per family and text
        (a list is copied for each game; an error is raised each time)."""
        key = (id(family), column, text)
        try:
            value = self._cells[key]
        except KeyError:
            value = family.parse_cell(column, text)
            if len(self._cells) >= self.LIMIT:
                self._cells.clear()
            self._cells[key] = value
        return list(value) if isinstance(value, list) else value

    def result_key(self, family: Family, facts: ev.GameFacts) -> tuple[Any, ...] | None:
        """What a built-in family's check of ``facts`` depends on (None: a
        family checked game by game, or a result that cannot be a key)."""
        if type(family) not in PURE_CHECKS:
            return None
        result = tuple(facts.result.items())
        for _, value in result:
            if type(value) is not str:
                # 1, 1.0 and True are equal keys but may not check alike.
                result = tuple((k, type(v), _frozen(v)) for k, v in result)
                break
        key = (
            id(family),
            tuple(map(len, facts.sides)),
            facts.neutral,
            result,
            tuple(facts.attributes.items()) if facts.attributes else (),
        )
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def checked(self, key: tuple[Any, ...] | None) -> dict[str, Any] | None:
        """The normalised result remembered for ``key`` (a copy), or None."""
        if key is None:
            return None
        found = self._results.get(key)
        if found is None:
            return None
        result, has_lists = found
        if not has_lists:
            return dict(result)
        return {k: list(v) if isinstance(v, list) else v for k, v in result.items()}

    def remember(self, key: tuple[Any, ...] | None, result: dict[str, Any]) -> None:
        """Remember the normalised result a check gave for ``key``."""
        if key is None:
            return
        if len(self._results) >= self.LIMIT:
            self._results.clear()
        kept = {k: list(v) if isinstance(v, list) else v for k, v in result.items()}
        self._results[key] = (kept, any(isinstance(v, list) for v in kept.values()))


def _frozen(value: Any) -> Any:
    """A result value as a dictionary key (lists as tuples of typed items)."""
    if isinstance(value, list):
        return tuple((type(v), _frozen(v)) for v in value)
    return value
