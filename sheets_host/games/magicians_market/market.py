"""Magician's Market's values: the settings and rules data as read, a player's submission for a
day, the market at a moment of a day, and what a day came to. A day (`day.py`) is played on them
and the state (`state.py`) builds on them, so the imports go one way: market <- day <- state.

What a player may do depends on the market they stand in: `Settings.generation_problem`,
`Market.affords_extra` and `Market.after_generation` (what may be gifted) are the one legality
check that the submit tab's reader, the bot and the day's rules share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from .rules import Payouts, Sale, Stock, Taste

Player = str  # a player's name; every player is also a market the magicians buy from
Good = str  # a good of the goods tab, as named there
MagicianName = str  # a magician of the magicians tab, as named there (in tabs and bids)


@dataclass(frozen=True)
class Gift:
    """Goods a player gives another from what they hold after generating."""

    to: Player
    good: Good
    count: int


@dataclass(frozen=True)
class Bid:
    """Coins offered for a magician's show; paid only if it counts."""

    magician: MagicianName
    coins: int


@dataclass(frozen=True)
class MarketSubmission:
    """A player's submission for a day. `MarketSubmission()` is a missing submission: no goods, no
    price changes, no bid."""

    generate: tuple[Good, ...] = ()  # the three different goods named, or () for no generation
    extra: Good | None = None  # the extra good bought for coins
    gifts: tuple[Gift, ...] = ()
    bid: Bid | None = None


@dataclass(frozen=True)
class Magician:
    name: MagicianName  # as used in tabs and bids
    full_name: str
    shops_first: bool  # The Strange: shops alone before the others arrive


@dataclass(frozen=True)
class Settings:
    """The game's numbers (config) and rules data (goods, magicians, tastes), as read."""

    days: int
    starting_coins: int
    starting_goods: int
    starting_price: int
    lowest_price: int
    highest_price: int
    goods_generated: int
    extra_cost: int
    payouts: Payouts
    goods: tuple[Good, ...]
    good_aliases: Mapping[str, Good] = field(compare=False)  # other names players type -> good
    magicians: tuple[Magician, ...] = ()
    magician_aliases: Mapping[str, MagicianName] = field(compare=False, default_factory=dict)
    tastes: tuple[Taste, ...] = ()
    extra_token: Player | None = None  # the richest player's extra Token of Life: its recipient
    chosen_candidates: tuple[Player, ...] = ()  # the host's order of tied Elimination Candidates

    @cached_property
    def magician_names(self) -> tuple[MagicianName, ...]:
        return tuple(m.name for m in self.magicians)

    @cached_property
    def listed(self) -> dict[MagicianName, int]:
        return {name: i for i, name in enumerate(self.magician_names)}

    @cached_property
    def waves(self) -> tuple[tuple[Taste, ...], ...]:
        """Who shops together: the magicians who shop first, then the others."""
        first = {m.name for m in self.magicians if m.shops_first}
        return tuple(w for w in (tuple(t for t in self.tastes if t.magician in first),
                                 tuple(t for t in self.tastes if t.magician not in first)) if w)

    def nothing(self) -> dict[Good, int]:
        return {good: 0 for good in self.goods}

    def generation_problem(self, goods: Sequence[Good]) -> str | None:
        """What a generation must be, when `goods` is not one: as many different goods as the
        settings say, each of the goods tab."""
        if len(goods) != self.goods_generated or len(set(goods)) != len(goods) or not set(goods) <= set(self.goods):
            return f"{self.goods_generated} different goods (of {', '.join(self.goods)})"
        return None


@dataclass(frozen=True)
class Market:
    """Everything at one moment of a day: who holds which goods and coins, prices, what each
    magician carries."""

    goods: Mapping[Player, Stock]
    coins: Mapping[Player, int]
    prices: Stock
    magicians: Mapping[MagicianName, Stock]

    def affords_extra(self, player: Player, settings: Settings) -> bool:
        """Whether `player` may buy the extra good: it is paid from the coins held as the day begins."""
        return self.coins[player] >= settings.extra_cost

    def after_generation(self, player: Player, generate: Sequence[Good], extra: Good | None) -> dict[Good, int]:
        """What `player` holds once their generation and extra good are in: all they may gift that
        day (never what they receive the same day)."""
        held = dict(self.goods[player])
        for good in generate:
            held[good] += 1
        if extra:
            held[extra] += 1
        return held


def opening_market(players: Sequence[Player], settings: Settings) -> Market:
    """The market before day 1: one of each good and the starting coins each, every price at its start."""
    return Market({p: {g: settings.starting_goods for g in settings.goods} for p in players},
                  {p: settings.starting_coins for p in players},
                  {g: settings.starting_price for g in settings.goods},
                  {m: settings.nothing() for m in settings.magician_names})


class Part(Enum):
    """The part of a day's facts a refusal concerns; a submission's parts are named as the orders
    tab's columns name them."""

    GENERATE = "generate"
    EXTRA = "extra good"
    GIFT = "gift"
    SALE = "sale"


@dataclass(frozen=True)
class Refusal:
    """A part of a day's facts that breaks a rule: `index` is the gift of the player's or the sale
    of the day it concerns."""

    part: Part
    player: Player
    value: object  # what was refused, for the message
    why: str
    index: int = 0


@dataclass(frozen=True)
class DayResult:
    number: int
    orders: Mapping[Player, MarketSubmission]  # as applied (refused parts removed)
    start: Market
    operations: Market  # after generation and gifts
    sales: tuple[Sale, ...]
    shopping: Market  # after the sales: prices lowered, sellers paid, magicians carrying
    counted: Mapping[Player, bool]  # bidder -> whether the bid counted (and was paid)
    shows: Mapping[MagicianName, Player | None]  # magician -> the player whose show it attended, or None
    earned: Mapping[MagicianName, int]  # magician -> what its show earned its host
    end: Market
    notes: tuple[str, ...] = ()  # for the host's log

    def gifts_received(self, player: Player) -> dict[Good, int]:
        received: dict[Good, int] = {}
        for orders in self.orders.values():
            for g in orders.gifts:
                if g.to == player:
                    received[g.good] = received.get(g.good, 0) + g.count
        return received

    def income(self, player: Player) -> int:
        return sum(s.sold * self.operations.prices[s.good] for s in self.sales if s.market == player)


@dataclass(frozen=True)
class Day:
    """One day's facts as recorded in the host book."""

    number: int
    orders: tuple[tuple[Player, MarketSubmission], ...]  # every player, in seating order
    sales: tuple[Sale, ...]
