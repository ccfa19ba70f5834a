"""Pyramid Superiority's words and settings: who plays in which meadow, the rounds and days, and
what a guest and a player submit at their stage (`Proposal`, `Construction`). The ledger
(`ledger.py`) is accounted from them and the state (`state.py`) builds on both, so the imports go
one way: meadows <- ledger <- state <- day.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from .rules import Corner, Position

Name = str  # a participant: a player or a guest
Player = str  # a participant of the Blue Meadow
Guest = str  # a participant of the Red or Green Meadow
Round = int  # 1 to 14: its proposal stage on day `round`, its construction stage the day after
Day = int  # 1 to 15: one engine round

ROUNDS = 14
DAYS = ROUNDS + 1


class Meadow(Enum):
    BLUE = "blue"  # the players
    RED = "red"  # guests: eliminated players
    GREEN = "green"  # guests: spectators

    @property
    def title(self) -> str:
        return f"{self.value.title()} Meadow"


GUEST_MEADOWS = (Meadow.RED, Meadow.GREEN)
# The host decision of each guest meadow's winner: the finalist they give their extra cosmos to, or
# NO_ONE ("the winners may elect not to use them").
COSMOS_KEYS = {m: f"{m.value} meadow cosmos" for m in GUEST_MEADOWS}
NO_ONE = "no one"


@dataclass(frozen=True)
class Settings:
    meadows: Mapping[Meadow, tuple[Name, ...]]  # three names each
    player_chips: int = 50
    guest_chips: int = 20
    garnets: Mapping[Player, int] = field(default_factory=dict)  # players' garnets, host-set
    tie_winner: Player | None = None  # who wins if all three players tie (the host's record)
    elimination_candidate: Player | None = None  # the tie winner's choice, if all three tie
    cosmos_to: Mapping[Meadow, Player] = field(default_factory=dict)  # a guest meadow's winner's gift, once typed

    @property
    def players(self) -> tuple[Player, ...]:
        return self.meadows[Meadow.BLUE]

    @property
    def guests(self) -> tuple[Guest, ...]:
        return self.meadows[Meadow.RED] + self.meadows[Meadow.GREEN]

    def meadow_of(self, name: Name) -> Meadow:
        return next(m for m, names in self.meadows.items() if name in names)


@dataclass(frozen=True)
class Proposal:
    """A guest's proposal-stage submission: a bid, a star attempt on the piece as proposed, and a
    clockwise rotation in quarter turns (paid only if this guest's piece is proposed)."""

    bid: int
    star: Corner
    rotation: int = 0


@dataclass(frozen=True)
class Transfer:
    guest: Guest
    chips: int


@dataclass(frozen=True)
class Construction:
    """A player's construction-stage submission: a bid, which meadow's piece, a clockwise rotation
    (paid only by the winner), a position (None: the default) and chips sent to guests."""

    bid: int = 0
    meadow: Meadow = Meadow.RED
    rotation: int = 0
    position: Position | None = None
    transfers: tuple[Transfer, ...] = ()
