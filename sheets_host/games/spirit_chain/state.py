"""Spirit Chain's values: the phase parts, the settings fixed for a game, an auctioned card, one
side of a summoning, the duel's state and a player's submission.

The state is the cycle and open phase, each Ghost Lantern (lights, reserve periods), each deck
(with the spirits an IMPRISON locked), every auctioned card with its result, and every summoning's
played cards with the lights after it. What each summoning did to each card is not stored: it
follows from the cards played. What a player may do now is asked of the state (`free`,
`open_lot`, `upgrades_due`, `must_answer`, `bids_problem`, `slot_problem`), by `read`, `views`
and `bots` alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum

from . import rules
from .cards import CardBook, Title
from .rules import LOT, SLOTS, DuelEnd, Seat, Upgrade
from .timing import TimeControls

Deck = Mapping[Title, int]  # card title -> copies
RESERVE_TIME = "reserve time"  # the part of a submission that is the reserve periods it costs


class Phase(Enum):
    AUCTION = "auction"
    UPGRADES = "upgrades"
    SLOTS = "slots"

    @property
    def label(self) -> str:
        return {"auction": "Auction", "upgrades": "Summoning part 1 (upgrades)",
                "slots": "Summoning part 2 (slots)"}[self.value]

    @property
    def columns(self) -> tuple[str, ...]:
        """The submit-tab columns this phase reads."""
        return {"auction": tuple(f"bid {k}" for k in range(1, LOT + 1)), "upgrades": ("upgrade",),
                "slots": tuple(f"slot {k}" for k in range(1, SLOTS + 1))}[self.value]


PHASES = tuple(Phase)


class LotResult(StrEnum):
    """An auctioned card's result, in the `auctions` tab's words (a str, so the word compares equal)."""

    OPEN = "open"  # in the Auction open now
    WON = "won"
    TIE = "tie"  # tied bids: nobody wins it


@dataclass(frozen=True)
class Rules:
    """The cards and the settings, fixed for a game."""

    cards: CardBook
    max_cycles: int
    opponent: Seat  # the Death Match Opponent's seat
    clocks: Mapping[Phase, TimeControls]
    reserve: int


@dataclass(frozen=True)
class Lot:
    """An auctioned card. `winner` is a seat; an open lot has no result yet."""

    cycle: int
    number: int
    card: Title
    result: LotResult = LotResult.OPEN
    winner: Seat | None = None
    price: int | None = None


@dataclass(frozen=True)
class Played:
    """One side of a summoning: the three slots (card titles, None for empty) and the lights after."""

    cycle: int
    seat: Seat
    slots: tuple[Title | None, ...]
    lights: int


@dataclass(frozen=True)
class SpiritChainState:
    """The duel before the phase part open now (`phase` of `cycle`) is resolved."""

    players: tuple[str, str]
    cycle: int
    phase: Phase
    lights: tuple[int, int]
    reserve: tuple[int, int]
    decks: tuple[Deck, Deck]
    locked: tuple[Deck, Deck]  # copies locked for this (next) summoning
    lots: tuple[Lot, ...]
    played: tuple[Played, ...]
    rules: Rules = field(compare=False)

    @property
    def round(self) -> int:
        return 3 * (self.cycle - 1) + PHASES.index(self.phase) + 1

    @property
    def over(self) -> bool:
        return self.phase is Phase.AUCTION and self.cycle > 1 and (
            min(self.lights) <= 0 or self.cycle > self.rules.max_cycles)

    @property
    def clock(self) -> TimeControls:
        """The open phase part's time controls."""
        return self.rules.clocks[self.phase]

    def seat(self, player: str) -> Seat:
        return self.players.index(player)

    def free(self, seat: Seat) -> Counter:
        """The cards a player may play or upgrade this summoning: the deck less the locked."""
        return Counter(self.decks[seat]) - Counter(self.locked[seat])

    def open_lot(self) -> list[Lot]:
        return [lot for lot in self.lots if lot.result == LotResult.OPEN]

    def last_summoning(self) -> tuple[Played, Played] | None:
        if len(self.played) < 2:
            return None
        a, b = self.played[-2:]
        return (a, b) if a.seat == 0 else (b, a)

    def end(self) -> DuelEnd | None:
        """How the duel ended; None while it goes on."""
        if not self.over:
            return None
        return rules.death_match_end(self.lights, self.rules.opponent, self.cycle > self.rules.max_cycles)

    def winner(self) -> tuple[Seat | None, str]:
        if not self.over:
            return None, ""
        return rules.death_match_winner(self.lights, self.rules.opponent, self.cycle > self.rules.max_cycles)

    # ---- what is legal now -------------------------------------------------------------------

    def upgrades_due(self, seat: Seat) -> list[Upgrade]:
        """The upgrades a player could make now: with any, the player must say yes or no."""
        if self.phase is not Phase.UPGRADES:
            return []
        return rules.available_upgrades(self.rules.cards, self.free(seat))

    def must_answer(self, seat: Seat) -> bool:
        """Whether the player has a choice to make, so that silence spends reserve time: always in
        the Auction; in part 1 with an available upgrade; in part 2 with a card to play."""
        if self.phase is Phase.UPGRADES:
            return bool(self.upgrades_due(seat))
        return self.phase is Phase.AUCTION or bool(+self.free(seat))

    def bids_problem(self, seat: Seat, bids: tuple[int, ...]) -> str | None:
        """Why these bids on the open lot are not allowed (None when they are): they may total at
        most the bidder's lights."""
        if sum(bids) > self.lights[seat]:
            return f"bids total {sum(bids)}, more than your {self.lights[seat]} lights"
        return None

    def slot_problem(self, seat: Seat, title: Title, used: Mapping[Title, int]) -> str | None:
        """Why `title` cannot fill one more slot besides the cards `used` in the others (None when
        it can): it must be a free card of the player's deck, a copy per slot."""
        if used.get(title, 0) < self.free(seat)[title]:
            return None
        have, locked = self.decks[seat].get(title, 0), self.locked[seat].get(title, 0)
        return (f"you have no {title}" if not have else
                f"your {title} is imprisoned this summoning" if used.get(title, 0) >= have - locked and locked else
                f"you have {have} {title}, already in another slot")


@dataclass(frozen=True)
class SpiritChainSubmission:
    """What counts for a player in one phase part, and the reserve periods it costs.

    Auction: five bids. Upgrades: the upgrades, in order (none: 'no'). Slots: three card titles
    (None: empty). A blank submission is the phase's submission with nothing in it.
    """

    phase: Phase
    bids: tuple[int, ...] = ()
    upgrades: tuple[Upgrade, ...] = ()
    slots: tuple[Title | None, ...] = ()
    reserve_used: int = 0

    def parts(self) -> list[tuple[str, object]]:
        """Each part, keyed as the parser names the row it came from and the resolver tells what
        it did with it, and its value: each bid (its column, "bid 1": lights), each upgrade in
        order ("upgrade 1", or "no upgrade"), each slot ("slot 1": a title, None for empty), and
        the reserve periods it costs ("reserve time")."""
        if self.phase is Phase.AUCTION:
            out: list[tuple[str, object]] = list(zip(Phase.AUCTION.columns, self.bids))
        elif self.phase is Phase.UPGRADES:
            out = [(f"upgrade {k}", u) for k, u in enumerate(self.upgrades, 1)] or [("no upgrade", None)]
        else:
            out = list(zip(Phase.SLOTS.columns, self.slots))
        return out + ([(RESERVE_TIME, self.reserve_used)] if self.reserve_used else [])


def blank(phase: Phase, reserve_used: int = 0) -> SpiritChainSubmission:
    return SpiritChainSubmission(phase, bids=(0,) * LOT if phase is Phase.AUCTION else (),
                                 slots=(None,) * SLOTS if phase is Phase.SLOTS else (), reserve_used=reserve_used)
