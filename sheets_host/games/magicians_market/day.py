"""A day at the market: market operations, the magicians' shopping, the auction and the shows.

`play_day` walks one day from the market at its start. The resolver calls it with the day's
orders and lets the magicians' tastes decide the sales; `load` calls it with the sales recorded
in the host book, so a host who edits the tastes mid-game changes the days to come, not the past.
Parts that break a rule are refused (and reported), never applied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from . import rules
from .rules import Payouts, Sale, Stock, Taste


@dataclass(frozen=True)
class Gift:
    to: str
    good: str
    count: int


@dataclass(frozen=True)
class Bid:
    magician: str
    coins: int


@dataclass(frozen=True)
class Orders:
    """A player's submission for a day. `Orders()` is a missing submission: no goods, no price
    changes, no bid."""

    generate: tuple[str, ...] = ()  # the three different goods named, or () for no generation
    extra: str | None = None  # the extra good bought for coins
    gifts: tuple[Gift, ...] = ()
    bid: Bid | None = None


@dataclass(frozen=True)
class Magician:
    name: str  # as used in tabs and bids
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
    goods: tuple[str, ...]
    good_aliases: Mapping[str, str] = field(compare=False)  # other names players type -> good
    magicians: tuple[Magician, ...] = ()
    magician_aliases: Mapping[str, str] = field(compare=False, default_factory=dict)
    tastes: tuple[Taste, ...] = ()
    extra_token: str | None = None  # the richest player's extra Token of Life: its recipient
    chosen_candidates: tuple[str, ...] = ()  # the host's order of tied Elimination Candidates

    @cached_property
    def magician_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.magicians)

    @cached_property
    def listed(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.magician_names)}

    @cached_property
    def waves(self) -> tuple[tuple[Taste, ...], ...]:
        """Who shops together: the magicians who shop first, then the others."""
        first = {m.name for m in self.magicians if m.shops_first}
        return tuple(w for w in (tuple(t for t in self.tastes if t.magician in first),
                                 tuple(t for t in self.tastes if t.magician not in first)) if w)

    def nothing(self) -> dict[str, int]:
        return {good: 0 for good in self.goods}


@dataclass(frozen=True)
class Market:
    """Everything at one moment of a day: who holds which goods and coins, prices, what each
    magician carries."""

    goods: Mapping[str, Stock]
    coins: Mapping[str, int]
    prices: Stock
    magicians: Mapping[str, Stock]


def opening_market(players: Sequence[str], settings: Settings) -> Market:
    """The market before day 1: one of each good and the starting coins each, every price at its start."""
    return Market({p: {g: settings.starting_goods for g in settings.goods} for p in players},
                  {p: settings.starting_coins for p in players},
                  {g: settings.starting_price for g in settings.goods},
                  {m: settings.nothing() for m in settings.magician_names})


@dataclass(frozen=True)
class Refusal:
    """A part of a day's facts that breaks a rule: `index` is the gift of the player's or the sale
    of the day it concerns."""

    part: str  # "generate", "extra good", "gift" or "sale"
    player: str
    value: object  # what was refused, for the message
    why: str
    index: int = 0


@dataclass(frozen=True)
class DayResult:
    number: int
    orders: Mapping[str, Orders]  # as applied (refused parts removed)
    start: Market
    operations: Market  # after generation and gifts
    sales: tuple[Sale, ...]
    shopping: Market  # after the sales: prices lowered, sellers paid, magicians carrying
    counted: Mapping[str, bool]  # bidder -> whether the bid counted (and was paid)
    shows: Mapping[str, str | None]  # magician -> the player whose show it attended, or None
    earned: Mapping[str, int]  # magician -> what its show earned its host
    end: Market
    notes: tuple[str, ...] = ()  # for the host's log

    def gifts_received(self, player: str) -> dict[str, int]:
        received: dict[str, int] = {}
        for orders in self.orders.values():
            for g in orders.gifts:
                if g.to == player:
                    received[g.good] = received.get(g.good, 0) + g.count
        return received

    def income(self, player: str) -> int:
        return sum(s.sold * self.operations.prices[s.good] for s in self.sales if s.market == player)


def play_day(settings: Settings, start: Market, number: int, orders: Mapping[str, Orders],
             yesterday: Sequence[Sale], sales: Sequence[Sale] | None = None) -> tuple[DayResult, list[Refusal]]:
    """One day from `start`. With `sales` None the magicians shop by their tastes; otherwise the
    recorded sales are checked against the stock and applied."""
    refusals: list[Refusal] = []
    applied = {p: _market_operations(settings, start, p, orders.get(p, Orders()), refusals) for p in start.goods}
    operations = _after_operations(settings, start, applied, refusals)

    notes: list[str] = []
    if sales is None:
        sales, markets = [], operations.goods
        for wave in settings.waves:
            bought, wave_notes = rules.shop(markets, wave, yesterday, settings.listed)
            sales += bought
            notes += wave_notes
            markets = rules.take(markets, bought)
    else:
        sales = _checked_sales(operations, sales, refusals)
    shopping = _after_shopping(settings, operations, sales)

    coins = dict(shopping.coins)
    counted, offers = {}, {m: {} for m in settings.magician_names}
    for player, o in applied.items():
        if o.bid:
            counted[player] = rules.bid_counts(o.bid.coins, coins[player])
            if counted[player]:
                coins[player] -= o.bid.coins
                offers[o.bid.magician][player] = o.bid.coins
            else:
                notes.append(f"{player}'s bid of {o.bid.coins} on {o.bid.magician} is not counted: "
                             f"{player} holds {coins[player]} coins")
    shows = {m: rules.show_for(offers[m]) for m in settings.magician_names}
    magicians, earned = dict(shopping.magicians), {}
    for m, host in shows.items():
        if host is not None:
            earned[m] = rules.performance(magicians[m], settings.payouts)
            coins[host] += earned[m]
            magicians[m] = settings.nothing()
    end = Market(shopping.goods, coins, shopping.prices, magicians)
    return DayResult(number, applied, start, operations, tuple(sales), shopping, counted, shows, earned, end,
                     tuple(notes)), refusals


def generation_problem(settings: Settings, goods: Sequence[str]) -> str | None:
    if len(goods) != settings.goods_generated or len(set(goods)) != len(goods) or not set(goods) <= set(settings.goods):
        return f"{settings.goods_generated} different goods (of {', '.join(settings.goods)})"
    return None


def _market_operations(settings: Settings, start: Market, player: str, o: Orders,
                       refusals: list[Refusal]) -> Orders:
    """The player's orders with any part that breaks a rule refused (gifts are checked later,
    once every generation is known)."""
    generate, extra = o.generate, o.extra
    if generate and generation_problem(settings, generate):
        refusals.append(Refusal("generate", player, ", ".join(generate), generation_problem(settings, generate)))
        generate = ()
    if extra is not None and start.coins[player] < settings.extra_cost:
        refusals.append(Refusal("extra good", player, extra, f"a good bought for {settings.extra_cost} coins "
                                                             f"({player} held {start.coins[player]})"))
        extra = None
    return Orders(generate, extra, o.gifts, o.bid)


def _after_operations(settings: Settings, start: Market, applied: dict[str, Orders],
                      refusals: list[Refusal]) -> Market:
    """Generation, then gifts: simultaneous, each only from what its giver held after generation."""
    held = {p: dict(stock) for p, stock in start.goods.items()}
    coins = dict(start.coins)
    for player, o in applied.items():
        for good in o.generate:
            held[player][good] += 1
        if o.extra:
            held[player][o.extra] += 1
            coins[player] -= settings.extra_cost
    goods = {p: dict(stock) for p, stock in held.items()}
    for player, o in applied.items():
        given = settings.nothing()
        kept = []
        for i, g in enumerate(o.gifts):
            if g.to == player:
                refusals.append(Refusal("gift", player, g.count, "a gift to another player", i))
                continue
            if given[g.good] + g.count > held[player][g.good]:
                refusals.append(Refusal("gift", player, g.count, f"a gift from what {player} held after "
                                                                 f"generation ({held[player][g.good]} {g.good})", i))
                continue
            given[g.good] += g.count
            goods[player][g.good] -= g.count
            goods[g.to][g.good] += g.count
            kept.append(g)
        if len(kept) != len(o.gifts):
            applied[player] = Orders(o.generate, o.extra, tuple(kept), o.bid)
    prices = rules.raise_prices(start.prices, [o.generate for o in applied.values() if o.generate],
                                settings.highest_price)
    return Market(goods, coins, prices, start.magicians)


def _checked_sales(operations: Market, sales: Sequence[Sale], refusals: list[Refusal]) -> list[Sale]:
    left = {p: dict(stock) for p, stock in operations.goods.items()}
    kept = []
    for i, s in enumerate(sales):
        if s.sold > s.wanted:
            refusals.append(Refusal("sale", s.market, s.sold, f"at most the {s.wanted} wanted", i))
        elif left[s.market][s.good] < s.sold:
            refusals.append(Refusal("sale", s.market, s.sold, f"a sale from the market's stock ({s.market} "
                                                              f"had {left[s.market][s.good]} {s.good} left)", i))
        else:
            left[s.market][s.good] -= s.sold
            kept.append(s)
    return kept


def _after_shopping(settings: Settings, operations: Market, sales: Sequence[Sale]) -> Market:
    """Sellers are paid the prices at the start of shopping; then each sale lowers its good's price."""
    coins = dict(operations.coins)
    magicians = {m: dict(stock) for m, stock in operations.magicians.items()}
    for s in sales:
        coins[s.market] += s.sold * operations.prices[s.good]
        magicians[s.magician][s.good] += s.sold
    return Market(rules.take(operations.goods, sales), coins,
                  rules.lower_prices(operations.prices, sales, settings.lowest_price), magicians)
