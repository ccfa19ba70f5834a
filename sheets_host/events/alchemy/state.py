"""Alchemy's values: the rules data read from the data tabs, what a participant holds, what they
did in a round and what came of it, and the event's state.

The state is what happened: every round, every participant's `Turn` as played, with its `Report`
(what the rules refused, yields, machine effects, constructs made, sales and the holdings after).
The tabs store only the turns; `tabs.load` walks them again with the rules, so holdings can never
disagree with what was played.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction

GOLD = "gold"  # the material whose holding is scored in tiebreaks and garnets
ROUNDS = 6  # the Main Match's rounds (the text): the last one ends the event


class Effect(Enum):
    """What a machine does, every round from the round it is bought in (unless said otherwise)."""

    TRANSMUTE = "transmute"  # at the machine step, turns up to `amount` of `source` held into as many `target`
    YIELD = "yield"  # when its owner harvests `source`, `amount` more of it (at the machine step)
    THRIFT = "thrift"  # every recipe needs `amount` fewer `source` (never below 0)
    ENERGY = "energy"  # `amount` more energy a round, from the round after it is bought


@dataclass(frozen=True)
class Location:
    name: str
    description: str = ""


@dataclass(frozen=True)
class Material:
    name: str
    location: str
    energy: int  # what harvesting it costs
    price: int | None  # coins for one; None: it cannot be bought


@dataclass(frozen=True)
class Construct:
    name: str
    set: str
    value: Fraction  # market value in gems


@dataclass(frozen=True)
class Recipe:
    construct: str
    needs: tuple[tuple[str, int], ...]  # (material, quantity), in the tab's order


@dataclass(frozen=True)
class Machine:
    name: str
    coins: int
    material: str | None  # its material cost, if any
    material_quantity: int
    effect: Effect
    source: str | None  # the material it works on (the tab's `from`); None for an energy machine
    target: str | None  # what a transmuter makes (the tab's `to`)
    amount: int
    description: str = ""


@dataclass(frozen=True)
class Alchemy:
    """The rules data: the settings and the data tabs, read and checked (`tabs.alchemy`)."""

    starting_coins: int
    energy: int  # a round, before machines
    harvest_base: int  # a harvest's yield with nobody else at its location
    locations: tuple[Location, ...]
    materials: Mapping[str, Material]  # by name, in the tab's order
    constructs: Mapping[str, Construct]
    recipes: Mapping[str, Recipe]  # by construct
    machines: Mapping[str, Machine]

    @property
    def sets(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.set for c in self.constructs.values()))

    @property
    def buyable(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.materials.values() if m.price is not None)


# ---- a participant ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Holdings:
    """What a participant holds between rounds."""

    coins: int
    gems: Fraction = Fraction(0)
    materials: Mapping[str, int] = field(default_factory=dict)  # only materials held (count > 0)
    machines: tuple[str, ...] = ()  # in the order bought
    sold: frozenset[str] = frozenset()  # the different constructs sold so far (the first tiebreak)


@dataclass(frozen=True)
class Attempt:
    """An `engineer` row: `quantity` attempts at `construct`, tried by `priority` (1 first) if given."""

    construct: str
    quantity: int = 1
    priority: int | None = None


@dataclass(frozen=True)
class AlchemySubmission:
    """A participant's submit tab as read; `AlchemySubmission()` does nothing (the default)."""

    harvest: tuple[str, ...] = ()
    buy: tuple[tuple[str, int], ...] = ()  # (material, quantity), in row order
    machine: str | None = None
    engineer: tuple[Attempt, ...] = ()


@dataclass(frozen=True)
class Turn:
    """What a participant does in a round: a submission with its attempts in the order they are
    tried. The state records it as played; the rules decide what comes of it (`Report`)."""

    harvest: tuple[str, ...] = ()
    buy: tuple[tuple[str, int], ...] = ()
    machine: str | None = None
    engineer: tuple[str, ...] = ()  # one construct per attempt


@dataclass(frozen=True)
class Sale:
    construct: str
    set: str
    multiplier: Fraction
    gems: Fraction


@dataclass(frozen=True)
class Drop:
    """A part of a turn refused by the rules: `part` is harvest, buy or machine; `index` the
    purchase it concerns."""

    part: str
    value: str
    why: str
    index: int = 0


@dataclass(frozen=True)
class Report:
    """One participant's round: the turn as played and what came of it."""

    turn: Turn
    energy: int  # the round's energy
    cost: int  # what the harvest cost (0 when refused)
    harvested: Mapping[str, int]  # material -> received at the harvest
    bought: tuple[tuple[str, int], ...]  # the purchases paid
    machine: str | None  # the machine bought
    machined: Mapping[str, int]  # material -> change by machines (a transmuter's source is negative)
    made: tuple[str, ...]
    failed: tuple[str, ...]  # attempts that failed (nothing lost)
    sales: tuple[Sale, ...]
    dropped: tuple[Drop, ...]  # parts the rules refused
    after: Holdings


@dataclass(frozen=True)
class RoundResult:
    number: int  # the festival round
    reports: Mapping[str, Report]  # every participant, in order


@dataclass(frozen=True)
class AlchemyState:
    alchemy: Alchemy = field(compare=False, repr=False)
    participants: tuple[str, ...]
    history: tuple[RoundResult, ...] = ()

    @property
    def round(self) -> int:
        """The last round resolved (0 before the first)."""
        return self.history[-1].number if self.history else 0

    def holdings(self, player: str) -> Holdings:
        if self.history:
            return self.history[-1].reports[player].after
        return Holdings(self.alchemy.starting_coins)

    def can_buy_machine(self, player: str, machine: str) -> bool:
        """Each machine at most once per participant (a ruling); its cost is checked when bought."""
        return machine not in self.holdings(player).machines
