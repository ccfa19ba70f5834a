"""A day at the market: market operations, the magicians' shopping, the auction and the shows.

`play_day` walks one day from the market at its start. The resolver calls it with the day's
submissions (`MarketState.next_day`) and lets the magicians' tastes decide the sales; `load` calls
it with the sales recorded in the host book (`walk`), so a host who edits the tastes mid-game
changes the days to come, not the past. Parts that break a rule are refused (and reported), never
applied. A day is played on the market's values (`market.py`) and the state builds on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from . import rules
from .market import Day, DayResult, Market, MarketSubmission, Part, Player, Refusal, Settings, opening_market
from .rules import Sale


def walk(players: Sequence[Player], settings: Settings,
         days: Sequence[Day]) -> tuple[tuple[DayResult, ...], list[tuple[int, Refusal]]]:
    """Every day walked from the opening market, with what broke a rule on the way."""
    market, results, refusals = opening_market(players, settings), [], []
    for day in days:
        yesterday = results[-1].sales if results else ()
        result, refused = play_day(settings, market, day.number, dict(day.orders), yesterday, day.sales)
        results.append(result)
        refusals += [(day.number, r) for r in refused]
        market = result.end
    return tuple(results), refusals


def play_day(settings: Settings, start: Market, number: int, orders: Mapping[Player, MarketSubmission],
             yesterday: Sequence[Sale], sales: Sequence[Sale] | None = None) -> tuple[DayResult, list[Refusal]]:
    """One day from `start`. With `sales` None the magicians shop by their tastes; otherwise the
    recorded sales are checked against the stock and applied."""
    refusals: list[Refusal] = []
    applied = {p: _market_operations(settings, start, p, orders.get(p, MarketSubmission()), refusals)
               for p in start.goods}
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


def _market_operations(settings: Settings, start: Market, player: Player, o: MarketSubmission,
                       refusals: list[Refusal]) -> MarketSubmission:
    """The player's orders with any part that breaks a rule refused (gifts are checked later,
    once every generation is known)."""
    generate, extra = o.generate, o.extra
    if generate and settings.generation_problem(generate):
        refusals.append(Refusal(Part.GENERATE, player, ", ".join(generate), settings.generation_problem(generate)))
        generate = ()
    if extra is not None and not start.affords_extra(player, settings):
        refusals.append(Refusal(Part.EXTRA, player, extra, f"a good bought for {settings.extra_cost} coins "
                                                           f"({player} held {start.coins[player]})"))
        extra = None
    return MarketSubmission(generate, extra, o.gifts, o.bid)


def _after_operations(settings: Settings, start: Market, applied: dict[Player, MarketSubmission],
                      refusals: list[Refusal]) -> Market:
    """Generation, then gifts: simultaneous, each only from what its giver held after generation."""
    held = {p: start.after_generation(p, o.generate, o.extra) for p, o in applied.items()}
    coins = dict(start.coins)
    for player, o in applied.items():
        if o.extra:
            coins[player] -= settings.extra_cost
    goods = {p: dict(stock) for p, stock in held.items()}
    for player, o in applied.items():
        given = settings.nothing()
        kept = []
        for i, g in enumerate(o.gifts):
            if g.to == player:
                refusals.append(Refusal(Part.GIFT, player, g.count, "a gift to another player", i))
                continue
            if given[g.good] + g.count > held[player][g.good]:
                refusals.append(Refusal(Part.GIFT, player, g.count, f"a gift from what {player} held after "
                                                               f"generation ({held[player][g.good]} {g.good})", i))
                continue
            given[g.good] += g.count
            goods[player][g.good] -= g.count
            goods[g.to][g.good] += g.count
            kept.append(g)
        if len(kept) != len(o.gifts):
            applied[player] = MarketSubmission(o.generate, o.extra, tuple(kept), o.bid)
    prices = rules.raise_prices(start.prices, [o.generate for o in applied.values() if o.generate],
                                settings.highest_price)
    return Market(goods, coins, prices, start.magicians)


def _checked_sales(operations: Market, sales: Sequence[Sale], refusals: list[Refusal]) -> list[Sale]:
    left = {p: dict(stock) for p, stock in operations.goods.items()}
    kept = []
    for i, s in enumerate(sales):
        if s.sold > s.wanted:
            refusals.append(Refusal(Part.SALE, s.market, s.sold, f"at most the {s.wanted} wanted", i))
        elif left[s.market][s.good] < s.sold:
            refusals.append(Refusal(Part.SALE, s.market, s.sold, f"a sale from the market's stock ({s.market} "
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
