"""Magician's Market (Main Match, 15 players, 7 days): the game as the engine sees it.

The state is what happened: each day's orders (generation, extra good, gifts, bid) and the
magicians' purchases. Goods, coins, prices, what magicians carry and where they performed are
derived from those by walking the days (`day.play_day`), so a host's correction cannot make them
disagree, and an edit of the tastes changes the days to come, never the past.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

import pandas as pd

from ... import cells
from ...cells import CellError, Problem, SubmitRow
from ...errors import SchemaError, SchemaErrors
from ...game import Game, Outcome, Parsed, Window
from ...table import Column, TabSchema
from . import rules
from .day import Bid, DayResult, Gift, Magician, Market, Orders, Refusal, Settings, opening_market, play_day
from .rules import Payouts, Sale, Taste
from .tastes import QUANTITY_HELP, quantity_text, read_quantity, read_selector, selector_help, selector_text

ACTIONS = ("generate", "extra", "gift", "bid")
ACTION_ALIASES = {"make": "generate", "produce": "generate", "extra good": "extra", "additional": "extra",
                  "buy": "extra", "give": "gift", "offer": "bid", "auction": "bid"}
SEPARATORS = re.compile(r"\s*(?:[,;&+/]|\band\b)\s*", re.IGNORECASE)
MOST = 10**6  # a bound for typed amounts, far above any reachable purse or stock
STAGES = ("after market operations", "after shopping")
_COINS = re.compile(r"\s*coins?$", re.IGNORECASE)  # "13 coins" as the rule text's example says it


@dataclass(frozen=True)
class Day:
    """One day's facts as recorded in the host book."""

    number: int
    orders: tuple[tuple[str, Orders], ...]  # every player, in seating order
    sales: tuple[Sale, ...]


@dataclass(frozen=True)
class MarketState:
    players: tuple[str, ...]
    days: tuple[Day, ...]
    settings: Settings = field(compare=False)

    @cached_property
    def walked(self) -> tuple[tuple[DayResult, ...], list[tuple[int, Refusal]]]:
        """Every day walked from the opening market, with what broke a rule on the way."""
        market, results, refusals = opening_market(self.players, self.settings), [], []
        for day in self.days:
            yesterday = results[-1].sales if results else ()
            result, refused = play_day(self.settings, market, day.number, dict(day.orders), yesterday, day.sales)
            results.append(result)
            refusals += [(day.number, r) for r in refused]
            market = result.end
        return tuple(results), refusals

    @property
    def history(self) -> tuple[DayResult, ...]:
        return self.walked[0]

    @property
    def now(self) -> Market:
        return self.history[-1].end if self.history else opening_market(self.players, self.settings)

    @property
    def round(self) -> int:
        return len(self.days) + 1

    @property
    def over(self) -> bool:
        return len(self.days) >= self.settings.days


# ---- tabs ----------------------------------------------------------------------------------------

GOODS_TAB = TabSchema("goods", (
    Column("good", doc="the name used in every tab"),
    Column("also called", optional=True, doc="other names players may type, comma-separated (the name + 's' "
                                             "is always understood)"),
), "The magic goods. Edit only before day 1.")
MAGICIANS_TAB = TabSchema("magicians", (
    Column("magician", doc="the name used in every tab and in bids"),
    Column("full name", optional=True),
    Column("also called", optional=True, doc="other names players may type, comma-separated"),
    Column("shops", "choice", ("first", "together"),
           doc="first: shops alone and leaves before the others arrive (The Strange)"),
), "The magicians, in the order named at the end of the rule text.")
TASTES_TAB = TabSchema("tastes", (
    Column("magician"), Column("taste", "int", lo=1, doc="its number: 1, 2, 3"),
    Column("good", doc="the good it buys"),
    Column("market", doc="which market it buys from: most, fewest, median, smallest unique, largest unique "
                         "[good], or sold [good] to <magician> yesterday"),
    Column("quantity", doc="a number, half / third / quarter / a fraction like 2/3 of the chosen market's "
                           "stock (rounded up), or all"),
    Column("note", optional=True),
), "What each magician buys every day, one row per taste. SAMPLE tastes: the text's own tastes were in a "
   "channel we do not have; these are made up to follow what the text says about them.")

ORDERS_TAB = TabSchema("orders", (
    Column("day", "int", lo=1), Column("player", "player"),
    Column("generate", optional=True, doc="the goods generated, comma-separated; blank: none"),
    Column("extra good", optional=True, doc="the good bought for coins; blank: none"),
    Column("bid on", optional=True, doc="the magician bid on; blank: no bid"),
    Column("bid", "int", lo=1, optional=True, doc="coins offered"),
), "Every player's market operations and bid: one row per player per day (blank cells: nothing).")
GIFTS_TAB = TabSchema("gifts", (
    Column("day", "int", lo=1), Column("from", "player"), Column("to", "player"), Column("good"),
    Column("count", "int", lo=1),
), "Every gift, with its giver (players see gifts received without the giver).")
SALES_TAB = TabSchema("sales", (
    Column("day", "int", lo=1), Column("magician"), Column("taste", "int", lo=1), Column("good"),
    Column("market", "player"), Column("wanted", "int", lo=1), Column("sold", "int", lo=1),
), "Every purchase by a magician: what its taste wanted and what the market had left to sell.")
SUBMIT_TAB = TabSchema("submit", (
    Column("action", doc="generate, extra, gift or bid; one row per action (generate may take one row per good)"),
    Column("good", doc="a good of the goods tab: generate: the goods you make, one a row or comma-separated; "
                       "extra, gift: one good; bid: blank"),
    Column("to", doc="gift: the player who receives it; bid: the magician you bid on; otherwise blank"),
    Column("amount", doc="gift: how many (blank is 1); bid: the coins you offer (a whole number from 1); "
                         "otherwise blank"),
), "Your market operations and your bid for the day, one row per action.")


class MagiciansMarket(Game[MarketState, Orders]):
    name = "magicians-market"
    title = "Magician's Market"
    min_players, max_players = 4, 20
    default_players = 15  # as in the rule text
    data_tabs = (GOODS_TAB, MAGICIANS_TAB, TASTES_TAB)
    state_tabs = (ORDERS_TAB, GIFTS_TAB, SALES_TAB)
    submit_tab = SUBMIT_TAB
    settings = (
        Column("days", "int", lo=1, hi=30, doc="days in the game (one submission each)"),
        Column("starting coins", "int", lo=0, doc="each player's coins before day 1"),
        Column("starting goods", "int", lo=0, doc="how many of each good each player holds before day 1"),
        Column("starting price", "int", lo=1, doc="every good's price before day 1"),
        Column("lowest price", "int", lo=1, doc="sales never lower a price below this"),
        Column("highest price", "int", lo=1, doc="generation never raises a price above this"),
        Column("goods generated", "int", lo=1, doc="different goods each player names and receives a day"),
        Column("extra good cost", "int", lo=0, doc="coins for the once-a-day extra good"),
        Column("show coins per kind", "int", lo=0, doc="a show earns this per distinct good the magician brings"),
        Column("show coins per most carried", "int", lo=0,
               doc="and this per item of the good it carries the most of"),
        Column("show bonus for every good", "int", lo=0, doc="and this when it brings every good"),
        Column("extra token of life", optional=True,
               doc="host decision at the end: whom the richest player grants one more Token of Life "
                   "(not an Elimination Candidate)"),
        Column("elimination candidates", optional=True,
               doc="host decision at the end when coins tie: the three Elimination Candidates in order, "
                   "number 1 (most coins of the three, first pick) first, comma-separated"),
    )
    round_word = "day"

    def how_to_submit(self, state: MarketState, player: str) -> list[str]:
        s, now = state.settings, state.now
        if state.over:
            return ["The game is over: nothing to submit."]
        coins, held = now.coins[player], [g for g in s.goods if now.goods[player][g]]
        named = ", ".join(s.goods[:s.goods_generated])
        lines = [f"Day {state.round} of {s.days}: one row per action, columns action | good | to | amount.",
                 f"generate: {s.goods_generated} different goods, one row each or comma-separated in one row; "
                 "you receive one of each.",
                 f"The goods you do not name rise in price by 1 (up to {s.highest_price}).",
                 f"extra: one more good for {s.extra_cost} coins, once a day; you hold {coins} coins.",
                 "gift: a good, the player in 'to', how many in 'amount' (blank is 1).",
                 "You gift only what you hold after generating, never what you receive today.",
                 "bid: a magician in 'to' and coins in 'amount'; one bid a day.",
                 "A bid counts only if you hold its coins after the magicians shop.",
                 f"Magicians: {', '.join(s.magician_names)}.",
                 f"Example: a row `generate | {named}`."]
        seat = state.players.index(player)
        neighbour = state.players[(seat + 1) % len(state.players)]  # the next player in seating order
        if held and neighbour != player:
            lines.append(f"Example: a row `gift | {held[0]} | {neighbour} | 1`.")
        lines.append(f"Example: a row `bid | | {s.magician_names[0]} | {max(1, min(5, coins))}` (no good on a bid).")
        lines.append("Nothing valid by the deadline: no goods, no price changes, no bid.")
        return lines

    def submit_choices(self, state: MarketState, player: str, tab: str = "submit") -> dict[str, list[str]]:
        s, now = state.settings, state.now
        if state.over:
            return {}
        actions = [a for a in ACTIONS if a != "extra" or now.coins[player] >= s.extra_cost]
        return {"action": actions, "good": list(s.goods),
                "to": [p for p in state.players if p != player] + list(s.magician_names)}

    def palette(self) -> dict[str, str]:
        """Nothing: the market has no picture, so no colours for its cells to repeat."""
        return {}

    # ---- setup and state tabs ------------------------------------------------------------------

    def _settings(self, config: Mapping[str, Any], data: Mapping[str, list[dict]],
                  players: Sequence[str]) -> Settings:
        goods, good_aliases, magicians, magician_aliases, tastes = _rules_data(data, config["goods generated"])

        def players_in(key: str) -> tuple[str, ...]:
            return tuple(cells.as_choice(n, players, "a player") for n in _split(config.get(key)))

        extra = players_in("extra token of life")
        return Settings(config["days"], config["starting coins"], config["starting goods"], config["starting price"],
                        config["lowest price"], config["highest price"], config["goods generated"],
                        config["extra good cost"],
                        Payouts(config["show coins per kind"], config["show coins per most carried"],
                                config["show bonus for every good"]),
                        goods, good_aliases, magicians, magician_aliases, tastes, extra[0] if extra else None,
                        players_in("elimination candidates"))

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        problems = []
        if not config["lowest price"] <= config["starting price"] <= config["highest price"]:
            problems.append("config: 'lowest price' <= 'starting price' <= 'highest price' must hold; got "
                            f"{config['lowest price']}, {config['starting price']}, {config['highest price']}")
        for key, count in (("extra token of life", 1), ("elimination candidates", rules.ELIMINATION_CANDIDATES)):
            names = _split(config.get(key))
            for name in names:
                try:
                    cells.as_choice(name, players, "a player")
                except CellError as e:
                    problems.append(f"config {key!r}: {e}")
            if names and len({n.casefold() for n in names}) != count:
                problems.append(f"config {key!r}: {count} different player(s), comma-separated; got {len(names)}")
        return problems

    def setup(self, players, seed, config, data) -> MarketState:
        return MarketState(tuple(players), (), self._settings(config, data, players))

    def load(self, players, tabs, config, data) -> MarketState:
        settings = self._settings(config, data, players)
        errors: list[SchemaError] = []
        rows: dict[tuple, int] = {}  # (tab, day, player or index[, index]) -> sheet row, for messages
        orders: dict[int, dict[str, Orders]] = {}
        for r in tabs["orders"]:
            where = ("orders", r["day"], r["player"])
            if where in rows:
                errors.append(SchemaError("orders", r.get("_row"), "player", r["player"],
                                          f"one row a day (day {r['day']} again)"))
                continue
            rows[where] = r.get("_row")
            orders.setdefault(r["day"], {})[r["player"]] = self._order_row(settings, r, errors)
        days = sorted(orders)
        if days != list(range(1, len(days) + 1)):
            errors.append(SchemaError("orders", None, "day", ", ".join(map(str, days)), "days 1, 2, 3... in turn"))
        for number, by_player in orders.items():
            if len(by_player) != len(players):
                missing = [p for p in players if p not in by_player]
                errors.append(SchemaError("orders", None, "player", f"day {number}: no row for {', '.join(missing)}",
                                          "one row for every player every day"))
        gifts: dict[tuple[int, str], list[Gift]] = {}
        for r in tabs["gifts"]:
            good = _good(settings, r, "gifts", "good", errors)
            if r["day"] not in orders:
                errors.append(SchemaError("gifts", r.get("_row"), "day", r["day"], "a day in the orders tab"))
            elif good:
                given = gifts.setdefault((r["day"], r["from"]), [])
                rows[("gifts", r["day"], r["from"], len(given))] = r.get("_row")
                given.append(Gift(r["to"], good, r["count"]))
        sales: dict[int, list[Sale]] = {}
        for r in tabs["sales"]:
            good = _good(settings, r, "sales", "good", errors)
            if r["day"] not in orders:
                errors.append(SchemaError("sales", r.get("_row"), "day", r["day"], "a day in the orders tab"))
            elif r["magician"] not in settings.listed:
                errors.append(SchemaError("sales", r.get("_row"), "magician", r["magician"],
                                          "one of: " + ", ".join(settings.magician_names)))
            elif good:
                day_sales = sales.setdefault(r["day"], [])
                rows[("sales", r["day"], len(day_sales))] = r.get("_row")
                day_sales.append(Sale(r["magician"], r["taste"], good, r["market"], r["wanted"], r["sold"]))
        if errors:
            raise SchemaErrors(errors)
        state = MarketState(tuple(players), tuple(
            Day(n, tuple((p, _with_gifts(orders[n][p], gifts.get((n, p), []))) for p in players),
                tuple(sales.get(n, []))) for n in days), settings)
        for number, r in state.walked[1]:
            if r.part == "sale":
                where = ("sales", rows[("sales", number, r.index)], "sold")
            elif r.part == "gift":
                where = ("gifts", rows[("gifts", number, r.player, r.index)], "count")
            else:
                where = ("orders", rows[("orders", number, r.player)], r.part)
            errors.append(SchemaError(*where, r.value, r.why))
        if state.over:
            errors += self._end_decisions(state)[2]
        if errors:
            raise SchemaErrors(errors)
        return state

    def _order_row(self, settings: Settings, r: dict, errors: list[SchemaError]) -> Orders:
        try:
            generate = tuple(_goods_in(settings, r["generate"])) if r["generate"] else ()
        except CellError as e:
            errors.append(SchemaError("orders", r.get("_row"), "generate", r["generate"], str(e)))
            generate = ()
        extra = _good(settings, r, "orders", "extra good", errors) if r["extra good"] else None
        bid = None
        if (r["bid on"] is None) != (r["bid"] is None):
            errors.append(SchemaError("orders", r.get("_row"), "bid", r["bid"], "given together with 'bid on'"))
        elif r["bid on"]:
            try:
                bid = Bid(cells.as_choice(r["bid on"], settings.magician_names, "a magician",
                                          settings.magician_aliases), r["bid"])
            except CellError as e:
                errors.append(SchemaError("orders", r.get("_row"), "bid on", r["bid on"], str(e)))
        return Orders(generate, extra, (), bid)

    def _end_decisions(self, state: MarketState) -> tuple[tuple[str, ...], str | None, list[SchemaError]]:
        """The host's end-of-game decisions that fit the final coins (the Elimination Candidates'
        order, the extra Token of Life's recipient), and an error for each that does not: `load`
        refuses those, while the day that ends the game sets them aside (a host may have filled the
        config before a redo changed the coins) and logs why."""
        s, coins = state.settings, state.now.coins
        if not state.over:
            return (), None, []
        errors = []
        chosen, extra = s.chosen_candidates, s.extra_token
        if chosen:
            problem = rules.candidates_problem(coins, chosen)
            if problem:
                errors.append(SchemaError("config", None, "elimination candidates", ", ".join(chosen), problem))
                return (), None, errors  # whom the extra token may go to depends on the candidates
        if extra:
            numbered, ties = rules.elimination_candidates(coins, chosen)
            richest = [p for p in state.players if coins[p] == max(coins.values())]
            if extra in numbered or any(extra in t.players for t in ties) or richest == [extra]:
                errors.append(SchemaError("config", None, "extra token of life", extra,
                                          "a player other than the richest who is not an Elimination Candidate "
                                          "(decide tied Elimination Candidates first)"))
                extra = None
        return chosen, extra, errors

    def dump(self, state: MarketState) -> dict[str, list[dict]]:
        orders, gifts, sales = [], [], []
        for day in state.days:
            for player, o in day.orders:
                orders.append({"day": day.number, "player": player, "generate": ", ".join(o.generate) or None,
                               "extra good": o.extra, "bid on": o.bid.magician if o.bid else None,
                               "bid": o.bid.coins if o.bid else None})
                gifts += [{"day": day.number, "from": player, "to": g.to, "good": g.good, "count": g.count}
                          for g in o.gifts]
            sales += [{"day": day.number, "magician": s.magician, "taste": s.taste, "good": s.good,
                       "market": s.market, "wanted": s.wanted, "sold": s.sold} for s in day.sales]
        return {"orders": orders, "gifts": gifts, "sales": sales}

    def players(self, state: MarketState) -> list[str]:
        return list(state.players)

    def round(self, state: MarketState) -> int:
        return state.round

    def is_over(self, state: MarketState) -> bool:
        return state.over

    # ---- submissions ------------------------------------------------------------------------

    def parse(self, state: MarketState, player: str, rows: Sequence[SubmitRow],
              window: Window = Window()) -> Parsed[Orders]:
        s, now = state.settings, state.now
        problems: list[Problem] = []
        named: list[str] = []
        extra = None
        later = []  # gifts and bids are read once the generation is known
        for row in rows:
            action = row.read("action", lambda v: cells.as_choice(v, ACTIONS, "an action", ACTION_ALIASES), problems)
            if action is None:
                continue
            if action in ("gift", "bid"):
                later.append((action, row))
                continue
            goods = row.read("good", lambda v: _goods_in(s, v), problems)
            if goods is None:
                continue
            if not cells.is_blank(row.get("amount")):
                problems.append(row.problem("amount", f"ignored: {action} gives one of each good named"))
            if action == "extra":
                why = (("the extra good is one good; row dropped" if len(goods) != 1 else None)
                       or ("one extra good a day; row dropped" if extra else None)
                       or (f"the extra good costs {s.extra_cost} coins and you hold {now.coins[player]}; row dropped"
                           if now.coins[player] < s.extra_cost else None))
                if why:
                    problems.append(row.problem("good", why))
                else:
                    extra = goods[0]
                continue
            for good in goods:
                if good in named:
                    problems.append(row.problem("good", f"{good} is named twice; you generate "
                                                        f"{s.goods_generated} different goods"))
                elif len(named) == s.goods_generated:
                    problems.append(row.problem("good", f"{good} dropped: you generate {s.goods_generated} "
                                                        f"different goods ({', '.join(named)})"))
                else:
                    named.append(good)
        if named and len(named) < s.goods_generated:
            problems.append(Problem(player, f"you named {len(named)} good(s) ({', '.join(named)}); generation takes "
                                            f"{s.goods_generated} different goods: nothing is generated and no "
                                            "prices rise"))
            named = []
        held = Counter(now.goods[player]) + Counter(named) + Counter([extra] if extra else [])
        gifts: list[Gift] = []
        given: Counter = Counter()
        bid = None
        for action, row in later:
            if action == "gift":
                gift = self._gift_row(s, state.players, player, row, held, given, problems)
                if gift:
                    given[gift.good] += gift.count
                    gifts.append(gift)
            elif bid:
                problems.append(row.problem("action", f"one bid a day (you bid {bid.coins} on {bid.magician}); "
                                                      "row dropped"))
            else:
                bid = _bid_row(s, row, problems)
        orders = Orders(tuple(named), extra, tuple(gifts), bid)
        if orders == Orders():
            return Parsed(None, tuple(problems), "nothing")
        return Parsed(orders, tuple(problems), self.describe(state, player, orders))

    def _gift_row(self, s: Settings, players: Sequence[str], player: str, row: SubmitRow, held: Counter,
                  given: Counter, problems: list[Problem]) -> Gift | None:
        good = row.read("good", lambda v: cells.as_choice(v, s.goods, "a good", s.good_aliases), problems)
        if good is None:
            return None
        to = row.read("to", lambda v: cells.as_choice(v, players, "a player"), problems)
        if to is None:
            return None
        count = row.read("amount", lambda v: 1 if cells.is_blank(v) else cells.as_int(v, 1, MOST, "how many"),
                         problems)
        if count is None:
            return None
        if to == player:
            problems.append(row.problem("to", "you cannot gift to yourself; row dropped"))
            return None
        if given[good] + count > held[good]:
            gifted = f" and have already gifted {given[good]}" if given[good] else ""
            problems.append(row.problem("amount", f"you will hold {held[good]} {good} after generating{gifted}: "
                                                  "you gift only what you hold after generating (never what "
                                                  "you receive); row dropped"))
            return None
        return Gift(to, good, count)

    def describe(self, state: MarketState, player: str, o: Orders) -> str:
        s = state.settings
        parts = [f"generate {', '.join(o.generate)}" if o.generate else "no goods generated"]
        if o.extra:
            parts.append(f"extra {o.extra} for {s.extra_cost} coins")
        parts += [f"gift {g.good} ×{g.count} to {g.to}" for g in o.gifts]
        if o.bid:
            coins = state.now.coins[player] - (s.extra_cost if o.extra else 0)
            note = (f" (it counts only if you hold {o.bid.coins} coins after the magicians shop: you hold "
                    f"{coins} before)") if o.bid.coins > coins else ""
            parts.append(f"bid {o.bid.coins} on {o.bid.magician}{note}")
        return "; ".join(parts)

    def default(self, state: MarketState, player: str) -> Orders:
        return Orders()

    def submit_rows(self, submission: Orders) -> list[dict]:
        o = submission
        rows = [{"action": "generate", "good": ", ".join(o.generate)}] if o.generate else []
        if o.extra:
            rows.append({"action": "extra", "good": o.extra})
        rows += [{"action": "gift", "good": g.good, "to": g.to, "amount": g.count} for g in o.gifts]
        if o.bid:
            rows.append({"action": "bid", "to": o.bid.magician, "amount": o.bid.coins})
        return rows

    def bot(self, state: MarketState, player: str, rng: random.Random) -> Orders:
        """Random legal orders: three goods, sometimes the extra good, sometimes a gift, usually a
        bid of part of the purse, now and then more than it holds (counted only if sales cover it)."""
        s, now = state.settings, state.now
        coins = now.coins[player]
        chosen = set(rng.sample(s.goods, s.goods_generated))
        named = tuple(g for g in s.goods if g in chosen)
        extra = rng.choice(s.goods) if coins >= s.extra_cost and rng.random() < 0.3 else None
        held = Counter(now.goods[player]) + Counter(named) + Counter([extra] if extra else [])
        gifts = ()
        if rng.random() < 0.4:
            good = rng.choice(sorted(held.elements()))
            to = rng.choice([p for p in state.players if p != player])
            gifts = (Gift(to, good, rng.randint(1, held[good])),)
        bid = None
        if rng.random() < 0.9:
            purse = coins - (s.extra_cost if extra else 0)
            amount = rng.randint(1, max(1, purse // 3)) if rng.random() < 0.9 else purse + rng.randint(1, 10)
            bid = Bid(rng.choice(s.magician_names), amount)
        return Orders(named, extra, gifts, bid)

    # ---- the day ------------------------------------------------------------------------------

    def resolve(self, state: MarketState, submissions: Mapping[str, Orders | None], rng: random.Random) -> Outcome:
        s, number = state.settings, state.round
        orders = {p: submissions.get(p) or self.default(state, p) for p in state.players}
        yesterday = state.history[-1].sales if state.history else ()
        result, refusals = play_day(s, state.now, number, orders, yesterday)
        log = [f"{r.player}'s {r.part} refused: it must be {r.why}" for r in refusals]
        log += [f"{x.magician} (taste {x.taste}) bought {x.sold} {x.good} of {x.wanted} wanted from {x.market} "
                f"at {result.operations.prices[x.good]}" for x in result.sales]
        log += list(result.notes)
        for magician, host in result.shows.items():
            log.append(f"{magician} performs at {host}'s show: {result.earned[magician]} coins" if host else
                       f"{magician} performs nowhere and keeps {_stock_text(result.shopping.magicians[magician])}")
        day = Day(number, tuple((p, result.orders[p]) for p in state.players), result.sales)
        after = MarketState(state.players, state.days + (day,), s)
        after.__dict__["walked"] = (state.history + (result,), [])  # the day just walked: no need to walk again
        log += [f"config {e.column!r} set aside: {e.value!r} is not {e.expected}"
                for e in self._end_decisions(after)[2]]
        return Outcome(self, after, log)

    # ---- the end --------------------------------------------------------------------------------

    def results(self, state: MarketState) -> list[dict]:
        """Each player's end result, richest first: rank, coins, Tokens of Life, Elimination Candidate
        number, garnets, and notes on ties and decisions left to the host."""
        coins = state.now.coins
        chosen, extra, _ = self._end_decisions(state)
        numbered, ties = rules.elimination_candidates(coins, chosen)
        pending = {p for t in ties for p in t.players}
        eligible = {p: c for p, c in coins.items() if p not in numbered and p not in pending}
        winners, edge = rules.tokens_of_life(eligible)
        richest = [p for p in state.players if coins[p] == max(coins.values())]
        notes: dict[str, list[str]] = {p: [] for p in state.players}
        for tie in ties:
            for p in tie.players:
                notes[p].append(f"tied with {_others(tie.players, p)} for Elimination Candidate "
                                f"{' or '.join(map(str, tie.places))}: the host decides (config "
                                "'elimination candidates')")
        if edge:
            for p in edge.players:
                notes[p].append(f"tied with {_others(edge.players, p)} for Token of Life "
                                f"{' or '.join(map(str, edge.places))}: the tied players get none")
        if extra:
            notes[extra].append("one more Token of Life, granted by the richest player")
        elif len(richest) == 1:
            notes[richest[0]].append("richest: may grant one more Token of Life to a player who is not an "
                                     "Elimination Candidate (host: config 'extra token of life')")
        else:
            for p in richest:
                notes[p].append(f"tied richest with {_others(richest, p)}: the host decides who grants one more "
                                "Token of Life (config 'extra token of life')")
        out = []
        for player in sorted(state.players, key=lambda p: -coins[p]):
            tokens = (player in winners) + (player == extra)
            out.append({"rank": 1 + sum(1 for q in state.players if coins[q] > coins[player]), "player": player,
                        "coins": coins[player], "Tokens of Life": tokens,
                        "Elimination Candidate": numbered.get(player, ""), "garnets": rules.garnets(coins[player]),
                        "result": "; ".join(notes[player])})
        return out

    def standings(self, state: MarketState) -> pd.DataFrame:
        return pd.DataFrame(self.results(state))

    def summary(self, state: MarketState) -> dict[str, float]:
        h, n = state.history, max(len(state.history), 1)
        coins = state.now.coins.values()
        numbered, ties = rules.elimination_candidates(state.now.coins)
        results = self.results(state)
        return {
            "sales a day": sum(len(d.sales) for d in h) / n,
            "goods sold a day": sum(x.sold for d in h for x in d.sales) / n,
            "magicians buying a day": sum(len({x.magician for x in d.sales}) for d in h) / n,
            "shows a day": sum(1 for d in h for host in d.shows.values() if host) / n,
            "tied auctions a day": sum(1 for d in h for m, host in d.shows.items()
                                       if not host and any(o.bid and o.bid.magician == m and d.counted[p]
                                                           for p, o in d.orders.items())) / n,
            "bids not counted a day": sum(1 for d in h for ok in d.counted.values() if not ok) / n,
            "show earnings": sum(sum(d.earned.values()) for d in h) / max(1, sum(len(d.earned) for d in h)),
            "richest coins": max(coins), "poorest coins": min(coins), "mean coins": sum(coins) / len(coins),
            "mean price at the end": sum(state.now.prices.values()) / len(state.now.prices),
            "tied elimination candidates": float(bool(ties)),
            "Tokens of Life handed out": sum(r["Tokens of Life"] for r in results),
        }

    # ---- views ----------------------------------------------------------------------------------

    def public_view(self, state: MarketState) -> dict[str, pd.DataFrame]:
        s = state.settings
        goods = list(s.goods)
        now = [{"player": p, **state.now.goods[p], "total": sum(state.now.goods[p].values())} for p in state.players]
        prices = pd.DataFrame([{"good": g, "price now": state.now.prices[g],
                                **{f"paid day {d.number}": d.operations.prices[g] for d in state.history}}
                               for g in goods])
        inventories = []
        for d in reversed(state.history):
            for stage, market in zip(STAGES, (d.operations, d.shopping)):
                for p in state.players:
                    inventories.append({"day": d.number, "stage": stage, "player": p,
                                        "generated": _generated(d.orders[p]) if stage == STAGES[0] else None,
                                        **market.goods[p]})
        for p in state.players:
            inventories.append({"day": 0, "stage": "start", "player": p, "generated": None,
                                **opening_market(state.players, s).goods[p]})
        sales = [{"day": d.number, "magician": x.magician, "taste": x.taste, "good": x.good, "market": x.market,
                  "wanted": x.wanted, "sold": x.sold, "price": d.operations.prices[x.good]}
                 for d in reversed(state.history) for x in d.sales]
        shows = [{"day": d.number, "magician": m, "goods brought": _stock_text(d.shopping.magicians[m]),
                  "show": host or "no show: keeps its goods"}
                 for d in reversed(state.history) for m, host in d.shows.items()]
        tabs = {
            "goods now": pd.DataFrame(now, columns=["player", *goods, "total"]),
            "prices": prices,
            "inventories": pd.DataFrame(inventories, columns=["day", "stage", "player", "generated", *goods]),
            "sales": pd.DataFrame(sales, columns=["day", "magician", "taste", "good", "market", "wanted", "sold",
                                                  "price"]),
            "shows": pd.DataFrame(shows, columns=["day", "magician", "goods brought", "show"]),
            "magicians": pd.DataFrame([{"magician": m.name, "full name": m.full_name,
                                        "shops": "first, alone" if m.shops_first else "together",
                                        "carrying now": _stock_text(state.now.magicians[m.name])}
                                       for m in s.magicians]),
            "tastes": pd.DataFrame([{"magician": t.magician, "taste": t.number, "good": t.good,
                                     "market": selector_text(t.market), "quantity": quantity_text(t.quantity)}
                                    for t in s.tastes], columns=["magician", "taste", "good", "market", "quantity"]),
        }
        if state.over:
            tabs["results"] = pd.DataFrame([{k: v for k, v in r.items() if k != "coins"} for r in self.results(state)])
        return tabs

    def private_view(self, state: MarketState, player: str) -> dict[str, pd.DataFrame]:
        s, now = state.settings, state.now
        coins = now.coins[player]
        extra = (f"available for {s.extra_cost} coins" if coins >= s.extra_cost
                 else f"needs {s.extra_cost} coins (you hold {coins})")
        me = [("player", player), ("day to play", f"{state.round} of {s.days}" if not state.over else "game over"),
              ("coins", coins), ("goods", _stock_text(now.goods[player])), ("extra good", extra)]
        if state.over:
            mine = next(r for r in self.results(state) if r["player"] == player)
            me += [("rank", mine["rank"]), ("Tokens of Life", mine["Tokens of Life"]),
                   ("Elimination Candidate", mine["Elimination Candidate"] or "no"), ("garnets", mine["garnets"])]
        days = []
        for d in state.history:
            o = d.orders[player]
            bid = result = None
            if o.bid:
                bid = f"{o.bid.coins} on {o.bid.magician}"
                host = d.shows[o.bid.magician]
                result = ("not counted: you held " f"{d.shopping.coins[player]} coins" if not d.counted[player]
                          else "counted: the show is yours" if host == player
                          # not "you tied": whether this bid was among the highest would tell others' bids
                          else f"counted: {host}'s show" if host else "counted: the highest bids tied, no show")
            mine_shows = [m for m, host in d.shows.items() if host == player]
            days.append({"day": d.number, "coins at start": d.start.coins[player],
                         "extra good": f"{o.extra} (-{s.extra_cost})" if o.extra else None,
                         "sales income": d.income(player), "coins after shopping": d.shopping.coins[player],
                         "bid": bid, "bid result": result,
                         "show income": sum(d.earned[m] for m in mine_shows), "coins at end": d.end.coins[player],
                         "gifts received": _stock_text(d.gifts_received(player)) if d.gifts_received(player) else None,
                         "gifts given": ", ".join(f"{g.good} ×{g.count} to {g.to}" for g in o.gifts) or None})
        columns = ["day", "coins at start", "extra good", "sales income", "coins after shopping", "bid", "bid result",
                   "show income", "coins at end", "gifts received", "gifts given"]
        return {"private": pd.DataFrame(me, columns=["what", "value"], dtype=object),
                "my days": pd.DataFrame(list(reversed(days)), columns=columns)}

    def announcement(self, before: MarketState, after: MarketState) -> str:
        s = after.settings
        d = after.history[-1]
        goods = list(s.goods)
        lines = [f"## {self.title}: day {d.number} of {s.days}", "",
                 "### Prices", "", "| good | paid today | now |", "|---|---:|---:|"]
        lines += [f"| {g} | {d.operations.prices[g]} | {d.shopping.prices[g]} |" for g in goods]
        lines += ["", "### Market operations and goods",
                  "", "Goods after market operations → after the magicians shopped.", "",
                  "| player | generated | " + " | ".join(goods) + " |", "|---|---|" + "---:|" * len(goods)]
        for p in after.players:
            cells_ = [_change(d.operations.goods[p][g], d.shopping.goods[p][g]) for g in goods]
            lines.append(f"| {p} | {_generated(d.orders[p])} | " + " | ".join(cells_) + " |")
        lines += ["", "### The magicians shopped", ""]
        if d.sales:
            lines += ["| magician | taste | bought | from | price |", "|---|---:|---|---|---:|"]
            lines += [f"| {x.magician} | {x.taste} | {x.good} ×{x.sold}" + (f" (wanted {x.wanted})" if x.sold < x.wanted
                                                                          else "")
                      + f" | {x.market} | {d.operations.prices[x.good]} |" for x in d.sales]
        else:
            lines.append("No magician found a market to buy from.")
        lines += ["", "### Shows", "", "| magician | performed at | goods brought |", "|---|---|---|"]
        lines += [f"| {m} | {host or 'no show (keeps its goods)'} | {_stock_text(d.shopping.magicians[m])} |"
                  for m, host in d.shows.items()]
        if after.over:
            lines += ["", "### Results", "", "| rank | player | Tokens of Life | Elimination Candidate | garnets | notes |",
                      "|---:|---|---:|---:|---:|---|"]
            lines += [f"| {r['rank']} | {r['player']} | {r['Tokens of Life']} | {r['Elimination Candidate'] or ''} | "
                      f"{r['garnets']} | {r['result']} |" for r in self.results(after)]
        return "\n".join(lines) + "\n"


# ---- reading names and rows ------------------------------------------------------------------------


RulesData = tuple[tuple[str, ...], dict[str, str], tuple[Magician, ...], dict[str, str], tuple[Taste, ...]]


def _rules_data(data: Mapping[str, list[dict]], goods_generated: int) -> RulesData:
    """The goods, magicians and tastes of the rules data, validated (SchemaErrors naming every
    problem). The same data is validated once: `simulate` sets up hundreds of games from one
    template, and every engine command reads the same tabs again. Data that cannot be a cache key
    (a cell holding a list) is validated every time."""
    try:
        key = tuple(tuple(tuple(r.items()) for r in data[tab]) for tab in ("goods", "magicians", "tastes"))
        hash(key)
    except TypeError:
        return _validate_rules_data(data, goods_generated)
    goods, good_aliases, magicians, magician_aliases, tastes = _validated(key, goods_generated)
    return goods, dict(good_aliases), magicians, dict(magician_aliases), tastes  # copies: the cache stays as read


@lru_cache(maxsize=32)
def _validated(key: tuple, goods_generated: int) -> RulesData:
    goods, magicians, tastes = ([dict(r) for r in rows] for rows in key)
    return _validate_rules_data({"goods": goods, "magicians": magicians, "tastes": tastes}, goods_generated)


def _validate_rules_data(data: Mapping[str, list[dict]], goods_generated: int) -> RulesData:
    errors: list[SchemaError] = []
    goods, good_aliases = _names("goods", "good", data["goods"], errors, plural=True)
    if len(goods) < goods_generated:
        errors.append(SchemaError("goods", None, "good", len(goods),
                                  f"at least {goods_generated} goods (config 'goods generated')"))
    names, magician_aliases = _names("magicians", "magician", data["magicians"], errors, ("full name",))
    magicians = tuple(Magician(r["magician"], r["full name"] or r["magician"], r["shops"] == "first")
                      for r in data["magicians"])
    tastes = _tastes(data["tastes"], goods, good_aliases, names, magician_aliases, errors)
    if errors:
        raise SchemaErrors(errors)
    return goods, good_aliases, magicians, magician_aliases, tastes


def _split(raw: object) -> tuple[str, ...]:
    return tuple(part.strip() for part in cells.text(raw).split(",") if part.strip())


def _names(tab: str, column: str, rows: list[dict], errors: list[SchemaError], other_columns: Sequence[str] = (),
           plural: bool = False) -> tuple[tuple[str, ...], dict[str, str]]:
    """The names in a data tab, and every other name for them (other columns, 'also called', and
    for goods the name + 's'); a name that would lead to two rows is an error."""
    names: list[str] = []
    aliases: dict[str, str] = {}
    others_of = []
    for r in rows:
        name = r[column]
        if name in names:
            errors.append(SchemaError(tab, r.get("_row"), column, name, "a name no other row uses"))
        names.append(name)
        others = [r[c] for c in other_columns if r[c]] + list(_split(r["also called"])) + ([name + "s"] if plural else [])
        others_of.append((r, others))
        aliases.update({a: name for a in others if a != name})
    for r, others in others_of:
        for alias in (r[column], *others):
            if tab == "goods" and SEPARATORS.search(alias):
                errors.append(SchemaError(tab, r.get("_row"), column, alias, "a name without , ; & + / or the word 'and'"))
            elif cells.as_choice(alias, names, column, aliases) != r[column]:
                errors.append(SchemaError(tab, r.get("_row"), "also called", alias, "a name no other row uses"))
    if not names:
        errors.append(SchemaError(tab, None, column, "", f"at least one {column}"))
    return tuple(names), aliases


def _tastes(rows: list[dict], goods: Sequence[str], good_aliases: Mapping[str, str], magicians: Sequence[str],
            magician_aliases: Mapping[str, str], errors: list[SchemaError]) -> tuple[Taste, ...]:
    tastes, seen = [], set()
    for r in rows:
        row_errors = len(errors)
        try:
            magician = cells.as_choice(r["magician"], magicians, "a magician", magician_aliases)
        except CellError as e:
            errors.append(SchemaError("tastes", r.get("_row"), "magician", r["magician"], str(e)))
        try:
            good = cells.as_choice(r["good"], goods, "a good", good_aliases)
        except CellError as e:
            errors.append(SchemaError("tastes", r.get("_row"), "good", r["good"], str(e)))
        try:
            market = read_selector(r["market"], goods, good_aliases, magicians, magician_aliases)
        except ValueError as e:
            why = f" ({e})" if isinstance(e, CellError) else ""
            errors.append(SchemaError("tastes", r.get("_row"), "market", r["market"], selector_help(goods, magicians) + why))
        try:
            quantity = read_quantity(r["quantity"])
        except ValueError:
            errors.append(SchemaError("tastes", r.get("_row"), "quantity", r["quantity"], QUANTITY_HELP))
        if len(errors) > row_errors:
            continue
        if (magician, r["taste"]) in seen:
            errors.append(SchemaError("tastes", r.get("_row"), "taste", r["taste"], f"a taste number {magician} has "
                                                                                "not used"))
            continue
        seen.add((magician, r["taste"]))
        tastes.append(Taste(magician, r["taste"], good, market, quantity))
    return tuple(tastes)


def _goods_in(s: Settings, raw: object) -> list[str]:
    """The goods named in a cell: one, or several separated by commas (or ; & + / and)."""
    parts = [p for p in SEPARATORS.split(cells.text(raw)) if p] or [cells.text(raw)]
    return [cells.as_choice(p, s.goods, "a good", s.good_aliases) for p in parts]


def _good(s: Settings, r: dict, tab: str, column: str, errors: list[SchemaError]) -> str | None:
    try:
        return cells.as_choice(r[column], s.goods, "a good", s.good_aliases)
    except CellError as e:
        errors.append(SchemaError(tab, r.get("_row"), column, r[column], str(e)))
        return None


def _bid_row(s: Settings, row: SubmitRow, problems: list[Problem]) -> Bid | None:
    magician = row.read("to", lambda v: cells.as_choice(v, s.magician_names, "a magician", s.magician_aliases),
                        problems, "bid dropped")
    if magician is None:
        return None
    coins = row.read("amount", lambda v: cells.as_int(_COINS.sub("", cells.text(v)) or v, 1, MOST, "coins to bid"),
                     problems, "bid dropped")
    if coins is None:
        return None
    return Bid(magician, coins)


def _with_gifts(o: Orders, gifts: list[Gift]) -> Orders:
    return Orders(o.generate, o.extra, tuple(gifts), o.bid)


# ---- text ----------------------------------------------------------------------------------------


def _stock_text(stock: Mapping[str, int]) -> str:
    return ", ".join(f"{g} ×{n}" for g, n in stock.items() if n) or "nothing"


def _generated(o: Orders) -> str:
    text = ", ".join(o.generate) or "nothing"
    return text + (f" + extra {o.extra}" if o.extra else "")


def _change(before: int, after: int) -> str:
    return str(before) if before == after else f"{before} → {after}"


def _others(players: Sequence[str], player: str) -> str:
    return ", ".join(p for p in players if p != player)


GAME = MagiciansMarket()
