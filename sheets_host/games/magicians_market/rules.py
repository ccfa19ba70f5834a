"""Magician's Market's rules as pure functions over small values (no books, no pandas).

Goods are named by the `goods` tab; an amount of goods is a `Stock` (good -> count, every good
present). Markets are the players: a magician's taste picks one market and a quantity, then buys.

The text's worked example: Jackie brings 2 wands, 6 crystal balls and 1 cape to a show.

>>> jackie = {"cape": 1, "crystal ball": 6, "deck": 0, "rabbit": 0, "pigeon": 0, "wand": 2}
>>> performance(jackie, Payouts(per_kind=3, per_most=2, every_good=10))
21
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

Stock = Mapping[str, int]  # good -> count, every good of the game present

TOKENS_OF_LIFE = 4  # "the top four most coins"
ELIMINATION_CANDIDATES = 3  # "the three players with the fewest coins"
COINS_PER_GARNET = 100


class Pick(Enum):
    """How a taste picks its market from the amounts of a good the markets hold."""

    MOST = "most"
    FEWEST = "fewest"
    MEDIAN = "median"
    SMALLEST_UNIQUE = "smallest unique"
    LARGEST_UNIQUE = "largest unique"
    SOLD = "sold"  # the market that sold a good to a magician the day before (Taste 3, per the addendum)


def picked_amount(pick: Pick, amounts: Sequence[int]) -> int | None:
    """The amount a taste looks for among the markets' (non-zero) amounts; None when there is none.

    The median of an even count is the higher middle amount ("round up").

    >>> [picked_amount(p, [1, 2, 2, 5]) for p in (Pick.MOST, Pick.FEWEST, Pick.MEDIAN)]
    [5, 1, 2]
    >>> picked_amount(Pick.SMALLEST_UNIQUE, [1, 1, 2, 5]), picked_amount(Pick.LARGEST_UNIQUE, [1, 5, 5])
    (2, 1)
    >>> picked_amount(Pick.MOST, [])
    """
    if not amounts:
        return None
    if pick is Pick.MOST:
        return max(amounts)
    if pick is Pick.FEWEST:
        return min(amounts)
    if pick is Pick.MEDIAN:
        return sorted(amounts)[len(amounts) // 2]
    unique = [a for a, n in Counter(amounts).items() if n == 1]
    if not unique:
        return None
    return min(unique) if pick is Pick.SMALLEST_UNIQUE else max(unique)


@dataclass(frozen=True)
class Sale:
    """A magician's purchase: `sold` of `wanted` items of `good` from `market` (a player)."""

    magician: str
    taste: int
    good: str
    market: str
    wanted: int
    sold: int


@dataclass(frozen=True)
class Selector:
    """A taste's market: the one market holding the `pick` amount of `good` (None: the taste's own
    good), or for `Pick.SOLD` the one market that sold `good` to `magician` the day before."""

    pick: Pick
    good: str | None = None
    magician: str | None = None

    def choose(self, markets: Mapping[str, Stock], own_good: str, yesterday: Iterable[Sale]) -> str | None:
        """The chosen market, or None when no single market meets the taste (a tie, or nobody).

        Markets holding none of the good are ignored: they cannot be the most, fewest, median
        or unique amount of something they do not have.
        """
        good = self.good or own_good
        if self.pick is Pick.SOLD:
            sellers = {s.market for s in yesterday if s.magician == self.magician and s.good == good}
            return sellers.pop() if len(sellers) == 1 else None
        amounts = {player: stock[good] for player, stock in markets.items() if stock[good] > 0}
        target = picked_amount(self.pick, list(amounts.values()))
        holders = [player for player, amount in amounts.items() if amount == target]
        return holders[0] if len(holders) == 1 else None


@dataclass(frozen=True)
class Quantity:
    """How many a taste buys: a fixed number, or a share of the chosen market's stock, rounded up."""

    fixed: int = 0
    share: Fraction = Fraction(0)

    def wanted(self, stock: int) -> int:
        """
        >>> Quantity(3).wanted(1), Quantity(share=Fraction(1, 2)).wanted(5), Quantity(share=Fraction(1)).wanted(4)
        (3, 3, 4)
        """
        return self.fixed or math.ceil(stock * self.share)


@dataclass(frozen=True)
class Taste:
    """One of a magician's tastes: buy `quantity` of `good` from the market `market` picks."""

    magician: str
    number: int
    good: str
    market: Selector
    quantity: Quantity


def shop(markets: Mapping[str, Stock], tastes: Sequence[Taste], yesterday: Sequence[Sale],
         listed: Mapping[str, int]) -> tuple[list[Sale], list[str]]:
    """One visit of the market by magicians who shop together; returns the sales and notes.

    Every taste picks its market and its quantity from the stock as the visit begins. When
    several buy the same good from the same market, the one buying fewer goes first, then the
    higher-numbered taste (the clarification's "bottom to top"), then the magician listed lower
    in the magicians tab (`listed`: magician -> position), continuing "bottom to top". A buyer
    takes what is left when the stock runs short; the quantity it attempts never changes.
    """
    requests, notes = [], []
    for taste in tastes:
        market = taste.market.choose(markets, taste.good, yesterday)
        if market is None:
            notes.append(f"{taste.magician} (taste {taste.number}) found no single market")
            continue
        requests.append((taste.quantity.wanted(markets[market][taste.good]), taste, market))
    requests.sort(key=lambda r: (r[0], -r[1].number, -listed[r[1].magician]))
    left: dict[tuple[str, str], int] = {}
    sales = []
    for wanted, taste, market in requests:
        key = (market, taste.good)
        stock = left.setdefault(key, markets[market][taste.good])
        sold = min(wanted, stock)
        left[key] = stock - sold
        if sold:
            sales.append(Sale(taste.magician, taste.number, taste.good, market, wanted, sold))
        else:
            notes.append(f"{taste.magician} (taste {taste.number}) wanted {wanted} {taste.good} from "
                         f"{market}, who had none left")
    return sales, notes


def take(stocks: Mapping[str, Stock], sales: Iterable[Sale]) -> dict[str, dict[str, int]]:
    """The markets' goods after `sales`."""
    out = {player: dict(stock) for player, stock in stocks.items()}
    for s in sales:
        out[s.market][s.good] -= s.sold
    return out


def raise_prices(prices: Stock, named: Iterable[Sequence[str]], highest: int) -> dict[str, int]:
    """Market operations: each good a generating player does not name rises by 1, up to `highest`.

    >>> raise_prices({"cape": 1, "wand": 14, "deck": 3}, [("cape",), ("cape", "deck")], 15)
    {'cape': 1, 'wand': 15, 'deck': 4}
    """
    out = dict(prices)
    for goods in named:
        for good in out:
            if good not in goods:
                out[good] += 1
    return {good: min(price, highest) for good, price in out.items()}


def lower_prices(prices: Stock, sales: Iterable[Sale], lowest: int) -> dict[str, int]:
    """After all sales: each transaction lowers its good's price by the number sold, down to `lowest`.

    >>> lower_prices({"cape": 5}, [Sale("Jackie", 1, "cape", "Ada", 9, 3), Sale("Pierre", 2, "cape", "Bo", 2, 2)], 1)
    {'cape': 1}
    """
    out = dict(prices)
    for s in sales:
        out[s.good] -= s.sold
    return {good: max(price, lowest) for good, price in out.items()}


def bid_counts(bid: int, coins: int) -> bool:
    """A bid counts (and is paid) only if the bidder holds that many coins when the auction comes."""
    return bid <= coins


def show_for(bids: Mapping[str, int]) -> str | None:
    """The player whose show a magician attends: the sole highest counted bid; None on a tie or
    with no bid.

    >>> show_for({"Ada": 5, "Bo": 7}), show_for({"Ada": 7, "Bo": 7}), show_for({})
    ('Bo', None, None)
    """
    if not bids:
        return None
    best = max(bids.values())
    top = [player for player, coins in bids.items() if coins == best]
    return top[0] if len(top) == 1 else None


@dataclass(frozen=True)
class Payouts:
    """What a show earns: per distinct good, per item of the most-carried good, for every good."""

    per_kind: int
    per_most: int
    every_good: int


def performance(goods: Stock, payouts: Payouts) -> int:
    """Coins a magician's show earns its host, from the goods it brings (all of them are used up)."""
    kinds = sum(1 for n in goods.values() if n > 0)
    bonus = payouts.every_good if kinds == len(goods) else 0
    return payouts.per_kind * kinds + payouts.per_most * max(goods.values(), default=0) + bonus


# ---- the end of the game -----------------------------------------------------------------------


def groups(coins: Mapping[str, int], richest_first: bool) -> list[tuple[int, tuple[str, ...]]]:
    """Players grouped by equal coins, richest (or poorest) group first; seating order inside.

    >>> groups({"Ada": 3, "Bo": 9, "Cy": 3}, richest_first=True)
    [(9, ('Bo',)), (3, ('Ada', 'Cy'))]
    """
    by_coins: dict[int, list[str]] = {}
    for player, c in coins.items():
        by_coins.setdefault(c, []).append(player)
    return [(c, tuple(by_coins[c])) for c in sorted(by_coins, reverse=richest_first)]


@dataclass(frozen=True)
class Tie:
    """Players tied on coins across the places being handed out: the host decides."""

    players: tuple[str, ...]
    places: tuple[int, ...]


def elimination_candidates(coins: Mapping[str, int], chosen: Sequence[str] = (),
                           count: int = ELIMINATION_CANDIDATES) -> tuple[dict[str, int], list[Tie]]:
    """The `count` poorest players, numbered by coins: Elimination Candidate 1 has the most coins of
    them (first pick), the poorest has the last number. Ties that leave a number or a place open
    are returned for the host, who records an order in `chosen` (number 1 first).

    >>> elimination_candidates({"Ada": 1, "Bo": 5, "Cy": 5, "Di": 5, "Ed": 9})
    ({'Ada': 3}, [Tie(players=('Bo', 'Cy', 'Di'), places=(2, 1))])
    >>> elimination_candidates({"Ada": 1, "Bo": 5, "Cy": 5, "Di": 5, "Ed": 9}, ["Di", "Bo", "Ada"])
    ({'Di': 1, 'Bo': 2, 'Ada': 3}, [])
    """
    if chosen:
        problem = candidates_problem(coins, chosen, count)
        if problem:
            raise ValueError(problem)
        return {player: n for n, player in enumerate(chosen, 1)}, []
    numbered, ties, passed = {}, [], 0
    for _, players in groups(coins, richest_first=False):
        places = tuple(count - passed - i for i in range(min(len(players), count - passed)))
        if not places:
            break
        if len(players) == 1:
            numbered[players[0]] = places[0]
        else:
            ties.append(Tie(players, places))
        passed += len(players)
    return numbered, ties


def candidates_problem(coins: Mapping[str, int], chosen: Sequence[str], count: int = ELIMINATION_CANDIDATES) -> str | None:
    """Why a host's order of Elimination Candidates (number 1 first) does not follow the coins."""
    if len(chosen) != count or len(set(chosen)) != count:
        return f"{count} different players, Elimination Candidate 1 first"
    ordered = [coins[p] for p in reversed(chosen)]  # poorest first
    others = [c for p, c in coins.items() if p not in chosen]
    if ordered != sorted(ordered) or (others and min(others) < ordered[-1]):
        return "an order that follows the coins (the poorest players, Elimination Candidate 1 the richest of them)"
    return None


def tokens_of_life(coins: Mapping[str, int], count: int = TOKENS_OF_LIFE) -> tuple[list[str], Tie | None]:
    """The players who earn Tokens of Life: the `count` richest of those given (the Elimination
    Candidates are left out before). A tie across the last place gives none to that group, so
    fewer are handed out; it is returned too.

    >>> tokens_of_life({"Ada": 50, "Bo": 40, "Cy": 30, "Di": 30, "Ed": 30})
    (['Ada', 'Bo'], Tie(players=('Cy', 'Di', 'Ed'), places=(3, 4)))
    """
    winners: list[str] = []
    for _, players in groups(coins, richest_first=True):
        if len(winners) + len(players) > count:
            return winners, (Tie(players, tuple(range(len(winners) + 1, count + 1)))
                             if len(winners) < count else None)
        winners += players
    return winners, None


def may_receive_extra_token(coins: Mapping[str, int], numbered: Mapping[str, int], ties: Sequence[Tie]) -> list[str]:
    """Whom the player with the most coins may grant one more Token of Life: a player who is not
    an Elimination Candidate (nor tied for one: candidates are decided first), and not the sole
    richest themself.

    >>> may_receive_extra_token({"Ada": 9, "Bo": 5, "Cy": 1}, {"Cy": 3}, [])
    ['Bo']
    """
    pending = {p for t in ties for p in t.players}
    richest = [p for p, c in coins.items() if c == max(coins.values())]
    return [p for p in coins if p not in numbered and p not in pending and richest != [p]]


def garnets(coins: int) -> int:
    """One garnet for every 100 coins."""
    return coins // COINS_PER_GARNET
