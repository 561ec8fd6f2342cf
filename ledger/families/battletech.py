"""The BattleTech family (docs/rules/battletech.md, seed 002).

Roger Burton West's Elo-style rating for BattleTech scores a game by the
Battle Value (BV) each side started and ended with::

    S_A = (B_s / A_s) × (A_e + B_s − B_e)
    E_A = (A_s + B_s + K_A + K*/2) / (1 + 10^((R_B − R_A) / 400))
    change_A = floor((S_A − E_A) / 20 + 0.5)

and side B symmetrically (S_B = (A_s / B_s) × (B_e + A_s − A_e), E_B with K_B
and R_A − R_B). Every player of a side gets the side's change; a side's rating
is the mean of its players' ratings.

A result gives either the four totals directly (``bv``) or the units of each
side (``units``) with the agreed ``objectives``. ``battle_totals`` turns either
form into the same numbers, so ``rate`` and its explanation share one path.

Objectives (**Decision**, from the seed's section 1.3 and its definition of K):

- ``protect`` (``side`` is the defender, ``survived`` says whether the location
  survived): the value is added to the defender's starting BV, and to its
  ending BV if it survived. It is already in the defender's starting BV, so it
  is not in K.
- ``guard`` (``side`` is the guard, ``holder`` the side holding the item at the
  end, or none when nobody holds it): the value is added to the guard's
  starting BV and to the holder's ending BV. Not in K, for the same reason.
- ``contested`` (``holder`` is the side that took it, or none): the value is
  in nobody's starting BV and adds to the taker's ending BV. Open to both sides
  (no ``side``) it counts in K*; with ``side`` set it is open only to that side
  ("objective points available only to that side and not already in A_s") and
  counts in that side's K, and only that side may take it.

The explicit ``k_a``, ``k_b`` and ``k_star`` are added to the K terms the
objectives give. **Decision:** ``objectives`` need the ``units`` form; with
``bv`` the totals are final (fold objective values into them by hand) and the
K terms come from ``k_a``/``k_b``/``k_star`` alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from ledger.families.base import (
    Change,
    Comparison,
    Family,
    FamilyError,
    Game,
    PlayerState,
    ResultColumn,
    SidePlay,
    example_sides,
    side_means,
)
from ledger.families.rounding import floor_half_up
from ledger.kernel.translation import N_, NC_, Message

UnitState = Literal["intact", "critical-damage", "crippled", "destroyed"]
#: ``explain``'s labels of a unit's state and an objective's kind (the codes
#: a sheet gives, shown through their label).
EXPLAINED_CODES = (
    NC_("explained", "intact"), NC_("explained", "critical-damage"),
    NC_("explained", "crippled"), NC_("explained", "destroyed"),
    NC_("explained", "protect"), NC_("explained", "guard"), NC_("explained", "contested"),
)  # fmt: skip
SideName = Literal["a", "b"]

#: Fraction of its BV a unit keeps at the end, as (numerator, denominator).
#: docs/rules/battletech.md: destroyed 0, crippled 1/3, lost any critical slots 2/3, else full.
DAMAGE_FRACTION: dict[str, tuple[int, int]] = {
    "intact": (1, 1),
    "critical-damage": (2, 3),
    "crippled": (1, 3),
    "destroyed": (0, 1),
}


#: ``explain``'s label of each side's units.
UNITS = {"A": NC_("explained", "units A"), "B": NC_("explained", "units B")}


class Unit(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One unit of a side: its name, starting BV, state at the end of the game,
    and whether it left by a friendly board edge (fled or accepted retreat)."""

    name: str
    bv: float
    state: UnitState = "intact"
    fled: bool = False


class Objective(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A BV-valued objective agreed before play (see the module docstring).

    ``side``: the defender (``protect``), the guard (``guard``), or for
    ``contested`` the only side it is open to (none: open to both).
    ``survived``: ``protect`` only, whether the location survived.
    ``holder``: ``guard`` and ``contested``, the side holding or having taken
    it at the end (none: nobody).
    """

    kind: Literal["protect", "guard", "contested"]
    value: float
    side: SideName | None = None
    survived: bool | None = None
    holder: SideName | None = None
    name: str = ""


class BattleTechParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``initial`` rating, the ``divisor`` of the rating difference (400) and
    the ``scale`` the score difference is divided by (20)."""

    initial: Annotated[
        int, msgspec.Meta(ge=0, description=N_("The rating a new player starts at."))
    ] = 1000
    divisor: Annotated[
        float,
        msgspec.Meta(gt=0, description=N_("E = (...) / (1 + 10^((R_B - R_A) / divisor)).")),
    ] = 400
    scale: Annotated[
        float,
        msgspec.Meta(gt=0, description=N_("The change is (S - E) / scale, rounded half up.")),
    ] = 20


class BattleTechResult(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Either ``bv`` = [A_s, A_e, B_s, B_e] or ``units`` (one list per side,
    side A first) with ``objectives``; ``k_a``, ``k_b``, ``k_star`` are extra
    objective points for K_A, K_B and K* with either form."""

    bv: list[float] | None = None
    units: list[list[Unit]] | None = None
    objectives: list[Objective] = []
    k_a: float = 0.0
    k_b: float = 0.0
    k_star: float = 0.0


class UnitLine(msgspec.Struct, frozen=True):
    """A unit's contribution to its side's totals."""

    unit: Unit
    fraction: str
    ending_bv: float


class ObjectiveLine(msgspec.Struct, frozen=True):
    """The terms one objective adds, keyed by total name (``A_s``, ``K*``...)."""

    objective: Objective
    adds: dict[str, float]


class BattleTotals(msgspec.Struct, frozen=True):
    """The totals of one game and the lines they are summed from."""

    a_s: float
    a_e: float
    b_s: float
    b_e: float
    k_a: float
    k_b: float
    k_star: float
    units: tuple[tuple[UnitLine, ...], ...] = ()
    objectives: tuple[ObjectiveLine, ...] = ()


def unit_fraction(unit: Unit) -> tuple[int, int]:
    """The fraction of its BV a unit ends with, as (numerator, denominator).

    **Decision:** fleeing halves after the damage fraction (crippled and
    fled: 1/6).
    """
    num, den = DAMAGE_FRACTION[unit.state]
    if unit.fled:
        den *= 2
    if num == 0:
        return (0, 1)
    g = math.gcd(num, den)
    return (num // g, den // g)


def ending_bv(unit: Unit) -> float:
    """A unit's BV at the end of the game (docs/rules/battletech.md, "How a game is recorded")."""
    num, den = unit_fraction(unit)
    # Multiply before dividing so that whole thirds and sixths stay exact.
    return unit.bv * num / den


def _fraction_text(num: int, den: int) -> str:
    return str(num) if den == 1 else f"{num}/{den}"


def _objective_adds(obj: Objective) -> dict[str, float]:
    """The totals one objective adds to, in the order a person checks them."""
    adds: dict[str, float] = {}
    if obj.kind in ("protect", "guard"):
        if obj.side is None:
            raise FamilyError(
                Message("a {kind} objective needs 'side'", kind=obj.kind), "objectives"
            )
        adds[f"{obj.side.upper()}_s"] = obj.value
        if obj.kind == "protect" and obj.survived:
            adds[f"{obj.side.upper()}_e"] = obj.value
        if obj.kind == "guard" and obj.holder is not None:
            adds[f"{obj.holder.upper()}_e"] = obj.value
    else:  # contested
        adds["K*" if obj.side is None else f"K_{obj.side.upper()}"] = obj.value
        if obj.holder is not None:
            adds[f"{obj.holder.upper()}_e"] = obj.value
    return adds


def battle_totals(result: BattleTechResult) -> BattleTotals:
    """A_s, A_e, B_s, B_e, K_A, K_B and K* of a result, in either form."""
    if result.bv is not None:
        a_s, a_e, b_s, b_e = result.bv
        return BattleTotals(
            a_s=a_s,
            a_e=a_e,
            b_s=b_s,
            b_e=b_e,
            k_a=result.k_a,
            k_b=result.k_b,
            k_star=result.k_star,
        )
    units = result.units or [[], []]
    lines = tuple(
        tuple(UnitLine(u, _fraction_text(*unit_fraction(u)), ending_bv(u)) for u in side)
        for side in units
    )
    obj_lines = tuple(ObjectiveLine(o, _objective_adds(o)) for o in result.objectives)
    terms: dict[str, list[float]] = {
        "A_s": [u.bv for u in units[0]],
        "A_e": [line.ending_bv for line in lines[0]],
        "B_s": [u.bv for u in units[1]],
        "B_e": [line.ending_bv for line in lines[1]],
        "K_A": [result.k_a],
        "K_B": [result.k_b],
        "K*": [result.k_star],
    }
    for line in obj_lines:
        for key, value in line.adds.items():
            terms[key].append(value)
    # fsum is correctly rounded, so the totals do not depend on recorded order.
    sums = {key: math.fsum(values) for key, values in terms.items()}
    return BattleTotals(
        a_s=sums["A_s"],
        a_e=sums["A_e"],
        b_s=sums["B_s"],
        b_e=sums["B_e"],
        k_a=sums["K_A"],
        k_b=sums["K_B"],
        k_star=sums["K*"],
        units=lines,
        objectives=obj_lines,
    )


def score(own_s: float, own_e: float, opp_s: float, opp_e: float) -> float:
    """S = (opp_s / own_s) × (own_e + opp_s − opp_e).

    Multiplied before dividing so whole-number BVs give exact scores (the
    change rounds halves upward, so an exact .5 must stay exact).
    """
    return opp_s * (own_e + opp_s - opp_e) / own_s


def expected_score(
    own_s: float,
    opp_s: float,
    k_own: float,
    k_star: float,
    r_own: float,
    r_opp: float,
    divisor: float = 400,
) -> float:
    """E = (own_s + opp_s + K_own + K*/2) / (1 + 10^((R_opp − R_own)/divisor))."""
    return (own_s + opp_s + k_own + k_star / 2) / (1 + 10 ** ((r_opp - r_own) / divisor))


def _check_number(value: float, what: str, field: str) -> None:
    if not math.isfinite(value) or value < 0:
        raise FamilyError(
            Message("{what} must be a non-negative number, got {value!r}", what=what, value=value),
            field=field,
        )


def _check_objective(i: int, obj: Objective) -> None:
    where = f"objectives[{i}] ({obj.kind})"
    _check_number(obj.value, f"{where} value", "objectives")
    if obj.kind in ("protect", "guard") and obj.side is None:
        role = Message("defender") if obj.kind == "protect" else Message("guard")
        raise FamilyError(
            Message("{where} needs 'side': the {role}, 'a' or 'b'", where=where, role=role),
            field="objectives",
        )
    if obj.kind == "protect":
        if obj.survived is None:
            raise FamilyError(
                Message("{where} needs 'survived': true or false", where=where), field="objectives"
            )
        if obj.holder is not None:
            raise FamilyError(
                Message("{where} takes no 'holder' (use 'survived')", where=where),
                field="objectives",
            )
    elif obj.survived is not None:
        raise FamilyError(
            Message(
                "{where} takes no 'survived' (use 'holder': the side holding it at the "
                "end, or none)",
                where=where,
            ),
            field="objectives",
        )
    if obj.kind == "contested" and obj.side is not None and obj.holder not in (None, obj.side):
        raise FamilyError(
            Message(
                "{where} is open only to side {side!r}, so side {holder!r} cannot hold it",
                where=where,
                side=obj.side,
                holder=obj.holder,
            ),
            field="objectives",
        )


def _check_bv_growth(result: BattleTechResult) -> None:
    """BV never grows in play: refuse totals whose ending BV is above what a
    side can end with.

    Given as totals, a side ends with at most its starting BV plus the
    objective points it can still take, which are not in its starting BV: its
    own K term and K*. With no K terms that is its starting BV. (Unit lists
    meet this by construction: a unit ends with at most its BV, and an
    objective adds to the ending BV only of a side that may hold it.)
    """
    a_s, a_e, b_s, b_e = result.bv
    for label, start, end, k_own, k_key in (
        ("A", a_s, a_e, result.k_a, "k_a"),
        ("B", b_s, b_e, result.k_b, "k_b"),
    ):
        k_open = k_own + result.k_star
        if end <= start + k_open:
            continue
        if k_open:
            limit = (
                f"its starting BV {label}_s ({_number(start)}) plus the objective points "
                f"it can take ({k_key} + k_star = {_number(k_open)})"
            )
        else:
            limit = f"its starting BV {label}_s ({_number(start)})"
        raise FamilyError(
            Message(
                "BV never grows in play: side {label}'s ending BV {label}_e ({end}) is "
                "more than {limit}",
                label=label,
                end=_number(end),
                limit=limit,
            ),
            field="bv",
        )


def _number(value: float) -> str:
    """A BV as a person typed it: 1000, not 1000.0."""
    return str(int(value)) if float(value).is_integer() else str(value)


class BattleTechFamily(Family):
    """Roger Burton West's BattleTech rating (docs/rules/battletech.md)."""

    name: ClassVar[str] = "battletech"
    version: ClassVar[int] = 1
    rules_doc: ClassVar[str | None] = "docs/rules/battletech.md"
    Params: ClassVar[type[msgspec.Struct]] = BattleTechParams
    Result: ClassVar[type[msgspec.Struct]] = BattleTechResult
    min_sides: ClassVar[int] = 2
    max_sides: ClassVar[int] = 2

    params: BattleTechParams

    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        """``bv`` (the four totals) or ``units`` with ``objectives``; the
        extra K terms ``k_a``, ``k_b``, ``k_star`` with either."""
        return (
            ResultColumn(
                name="bv",
                help=N_(
                    "Four Battle Value totals separated by commas: side A at the start, "
                    "side A at the end, side B at the start, side B at the end, e.g. "
                    "6000,3200,6000,1800. Give either bv or units, not both."
                ),
                example="6000,3200,6000,1800",
                kind="numbers",
            ),
            ResultColumn(
                name="units",
                help=N_(
                    "Instead of bv: the units of each side as JSON, one list per side, "
                    'side A first: [[{"name":"Atlas AS7-D","bv":1897,"state":"crippled"}], '
                    '[{"name":"Marauder MAD-3R","bv":1363,"state":"destroyed","fled":false}]]. '
                    "state is intact, critical-damage, crippled or destroyed; "
                    '"fled": true for a unit that left by a friendly edge.'
                ),
                kind="json",
            ),
            ResultColumn(
                name="objectives",
                help=N_(
                    "Optional, with units only: the objectives agreed before play as JSON, "
                    'e.g. [{"kind":"protect","value":600,"side":"a","survived":false,'
                    '"name":"Comms relay"}]. kind is protect (side = defender, survived '
                    "true/false), guard (side = guard, holder = side holding it at the end) "
                    "or contested (holder = side that took it)."
                ),
                kind="json",
            ),
            ResultColumn(
                name="k_a",
                help=N_("Optional: extra objective points counted in side A's K."),
                kind="number",
            ),
            ResultColumn(
                name="k_b",
                help=N_("Optional: extra objective points counted in side B's K."),
                kind="number",
            ),
            ResultColumn(
                name="k_star",
                help=N_("Optional: extra objective points open to both sides (K*)."),
                kind="number",
            ),
        )

    @classmethod
    def example_rows(cls, n_sides: int | None = None) -> list[dict[str, str]]:
        """A game given as BV totals, then one given as unit lists."""
        base = {"ladder": "BattleTech League", "date": "2025-01-18", "event": "BTL-2025",
                "round": "1"}  # fmt: skip
        units = (
            '[[{"name":"Atlas AS7-D","bv":1897,"state":"crippled"}],'
            '[{"name":"Marauder MAD-3R","bv":1363,"state":"destroyed"}]]'
        )
        return [
            {**base, "table": "1", **example_sides(["Dan Morrison", "Priya Natarajan"], n_sides or 2),
             "bv": "6000,3200,6000,1800"},
            {**base, "table": "2", **example_sides(["Klaus Schmidt", "Yuki Nakamura"], n_sides or 2),
             "units": units},
        ]  # fmt: skip

    def check_result(self, result: Any, n_sides: int) -> None:
        """Exactly one of ``bv`` / ``units``; sane numbers; objectives
        coherent; given as totals, no side ends with more BV than it can."""
        if result.bv is None and result.units is None:
            raise FamilyError(
                Message(
                    "a battletech result needs either 'bv' (four totals A_s, A_e, B_s, B_e) "
                    "or 'units' (one list of units per side)"
                ),
                field="bv",
            )
        if result.bv is not None and result.units is not None:
            raise FamilyError(
                Message("give either 'bv' (four totals) or 'units' (unit lists), not both"),
                field="units",
            )
        for key in ("k_a", "k_b", "k_star"):
            _check_number(getattr(result, key), repr(key), key)
        if result.bv is not None:
            if len(result.bv) != 4:
                raise FamilyError(
                    Message(
                        "'bv' takes four numbers A_s, A_e, B_s, B_e, got {count}",
                        count=len(result.bv),
                    ),
                    field="bv",
                )
            for label, value in zip(("A_s", "A_e", "B_s", "B_e"), result.bv, strict=True):
                _check_number(value, f"'bv' {label}", "bv")
            if result.objectives:
                raise FamilyError(
                    Message(
                        "'objectives' need the 'units' form; with 'bv' include the objective "
                        "values in the totals and give K terms as 'k_a', 'k_b', 'k_star'"
                    ),
                    field="objectives",
                )
            for label, value in (("A_s", result.bv[0]), ("B_s", result.bv[2])):
                if value <= 0:
                    raise FamilyError(
                        Message(
                            "'bv' {label} (a side's starting BV) must be more than 0", label=label
                        ),
                        field="bv",
                    )
            _check_bv_growth(result)
            return
        if len(result.units) != n_sides:
            raise FamilyError(
                Message(
                    "'units' takes one list of units per side ({n_sides} lists, side A "
                    "first), got {count}",
                    n_sides=n_sides,
                    count=len(result.units),
                ),
                field="units",
            )
        for s, side in enumerate(result.units):
            if not side:
                raise FamilyError(
                    Message(
                        "'units' of side {side} is empty: list at least one unit", side="AB"[s]
                    ),
                    field="units",
                )
            for i, unit in enumerate(side):
                if not unit.name.strip():
                    raise FamilyError(
                        Message(
                            "'units' side {side} unit {unit} needs a name",
                            side="AB"[s],
                            unit=i + 1,
                        ),
                        field="units",
                    )
                _check_number(unit.bv, f"'units' {unit.name!r} bv", "units")
        for i, obj in enumerate(result.objectives):
            _check_objective(i, obj)
        totals = battle_totals(result)
        for label, value in (("A", totals.a_s), ("B", totals.b_s)):
            if value <= 0:
                raise FamilyError(
                    Message(
                        "side {label}'s starting BV (its units' BV plus protect and guard "
                        "objectives) must be more than 0",
                        label=label,
                    ),
                    field="units",
                )

    def pairwise_expected(self, own: Sequence[PlayerState], other: Sequence[PlayerState]) -> float:
        """The rating part of E: 1 / (1 + 10^((R_B − R_A) / divisor)), a
        probability (E itself is in Battle Value)."""
        own_mean, other_mean = side_means([own, other])
        return 1 / (1 + 10 ** ((other_mean - own_mean) / self.params.divisor))

    def comparisons(self, sides: Sequence[SidePlay], neutral: bool) -> list[Comparison]:
        """E is an expected Battle Value score, not a probability: a game
        is scored with ``pairwise_expected``, the side with the higher S
        winning."""
        a, b = sides
        return [
            Comparison(0, 1, self.pairwise_expected(a.states, b.states), self.outcome(a.s, b.s))
        ]

    def rate(
        self,
        game: Game,
        states: Sequence[Sequence[PlayerState]],
        explain: bool = False,
    ) -> list[list[Change]]:
        """Each player's change: the side's rounded (S − E) / scale."""
        if len(states) != 2 or not all(states):
            raise FamilyError(Message("a battletech game has 2 sides, each with players"))
        t = battle_totals(game.result)
        if t.a_s <= 0 or t.b_s <= 0:
            raise FamilyError(Message("a side's starting BV must be more than 0"))
        r_a, r_b = side_means(states)
        p = self.params
        s_a = score(t.a_s, t.a_e, t.b_s, t.b_e)
        s_b = score(t.b_s, t.b_e, t.a_s, t.a_e)
        e_a = expected_score(t.a_s, t.b_s, t.k_a, t.k_star, r_a, r_b, p.divisor)
        e_b = expected_score(t.b_s, t.a_s, t.k_b, t.k_star, r_b, r_a, p.divisor)
        out: list[list[Change]] = []
        for side, (s, e) in enumerate(((s_a, e_a), (s_b, e_b))):
            raw = (s - e) / p.scale
            change = floor_half_up(raw)
            detail = (
                self._detail(side, game.result, states, t, r_a, r_b, s, e, raw, change)
                if explain
                else None
            )
            # Team rule for this family: every player gets the side's change.
            out.append(
                [
                    Change(delta=float(change), s=s, p=e, k=p.scale, detail=detail)
                    for _ in states[side]
                ]
            )
        return out

    def _detail(
        self,
        side: int,
        result: BattleTechResult,
        states: Sequence[Sequence[PlayerState]],
        t: BattleTotals,
        r_a: float,
        r_b: float,
        s: float,
        e: float,
        raw: float,
        change: int,
    ) -> dict[str, Any]:
        """Every input and intermediate value, in the order one checks them."""
        detail: dict[str, Any] = {NC_("explained", "side"): "AB"[side]}
        # No unit lines when the game was given as BV totals.
        for label, lines in zip("AB", t.units, strict=False):
            detail[UNITS[label]] = [
                {
                    NC_("explained", "name"): line.unit.name,
                    NC_("explained", "bv"): line.unit.bv,
                    NC_("explained", "state"): line.unit.state,
                    NC_("explained", "fled"): line.unit.fled,
                    NC_("explained", "fraction"): line.fraction,
                    NC_("explained", "ending_bv"): line.ending_bv,
                }
                for line in lines
            ]
        if t.objectives:
            detail[NC_("explained", "objectives")] = [
                {
                    NC_("explained", "kind"): line.objective.kind,
                    NC_("explained", "name"): line.objective.name,
                    NC_("explained", "value"): line.objective.value,
                    NC_("explained", "side"): line.objective.side,
                    NC_("explained", "survived"): line.objective.survived,
                    NC_("explained", "holder"): line.objective.holder,
                    NC_("explained", "adds"): dict(line.adds),
                }
                for line in t.objectives
            ]
        if t.units:
            # The K terms given outright, on top of the objectives' terms.
            detail[NC_("explained", "k_a")] = result.k_a
            detail[NC_("explained", "k_b")] = result.k_b
            detail[NC_("explained", "k_star")] = result.k_star
        detail.update(
            {
                NC_("explained", "A_s"): t.a_s,
                NC_("explained", "A_e"): t.a_e,
                NC_("explained", "B_s"): t.b_s,
                NC_("explained", "B_e"): t.b_e,
                NC_("explained", "K_A"): t.k_a,
                NC_("explained", "K_B"): t.k_b,
                NC_("explained", "K*"): t.k_star,
                NC_("explained", "ratings A"): [st.rating for st in states[0]],
                NC_("explained", "R_A"): r_a,
                NC_("explained", "ratings B"): [st.rating for st in states[1]],
                NC_("explained", "R_B"): r_b,
                NC_("explained", "divisor"): self.params.divisor,
                NC_("explained", "S"): s,
                NC_("explained", "E"): e,
                NC_("explained", "scale"): self.params.scale,
                NC_("explained", "(S-E)/scale"): raw,
                NC_("explained", "change"): change,
            }
        )
        return detail
