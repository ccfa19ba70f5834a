"""The submit tab (columns action, good, to, amount) read into a `MarketSubmission`, and a
submission typed back into it.

A cell that cannot be read as a good, a player, a magician or a number is a `CellError`, which
drops its row with a problem naming the row and column; what the market does not allow (the state's
`generation_problem`, `affords_extra`, `after_generation`) drops what it must with a problem of its
own. A cell never raises. Names are read in any case and spacing (`cells.as_choice`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from sheets_host.kit import cells
from sheets_host.kit.cells import Problem, RowRef, SubmitRow
from sheets_host.kit.game import Parsed
from sheets_host.kit.table import Column, TabSchema
from .market import Bid, Gift, Good, MarketSubmission, Player, Settings
from .state import MarketState

ACTIONS = ("generate", "extra", "gift", "bid")
ACTION_ALIASES = {"make": "generate", "produce": "generate", "extra good": "extra", "additional": "extra",
                  "buy": "extra", "give": "gift", "offer": "bid", "auction": "bid"}
SEPARATORS = re.compile(r"\s*(?:[,;&+/]|\band\b)\s*", re.IGNORECASE)
MOST = 10**6  # a bound for typed amounts, far above any reachable purse or stock
_COINS = re.compile(r"\s*coins?$", re.IGNORECASE)  # "13 coins" as the rule text's example says it

SUBMIT_TAB = TabSchema("submit", (
    Column("action", doc="generate, extra, gift or bid; one row per action (generate may take one row per good)"),
    Column("good", doc="a good of the goods tab: generate: the goods you make, one a row or comma-separated; "
                       "extra, gift: one good; bid: blank"),
    Column("to", doc="gift: the player who receives it; bid: the magician you bid on; otherwise blank"),
    Column("amount", doc="gift: how many (blank is 1); bid: the coins you offer (a whole number from 1); "
                         "otherwise blank"),
), "Your market operations and your bid for the day, one row per action.")


def goods_in(s: Settings, raw: object) -> list[Good]:
    """The goods named in a cell: one, or several separated by commas (or ; & + / and)."""
    parts = [p for p in SEPARATORS.split(cells.text(raw)) if p] or [cells.text(raw)]
    return [cells.as_choice(p, s.goods, "a good", s.good_aliases) for p in parts]


def parse(state: MarketState, player: Player, rows: Sequence[SubmitRow]) -> Parsed[MarketSubmission]:
    s, now = state.settings, state.now
    problems: list[Problem] = []
    named: list[Good] = []
    generating: list[SubmitRow] = []  # the rows the generation was read from
    extra = None
    parts: dict[str, tuple[RowRef, ...]] = {}
    later = []  # gifts and bids are read once the generation is known
    for row in rows:
        action = row.read("action", lambda v: cells.as_choice(v, ACTIONS, "an action", ACTION_ALIASES), problems)
        if action is None:
            continue
        if action in ("gift", "bid"):
            later.append((action, row))
            continue
        goods = row.read("good", lambda v: goods_in(s, v), problems)
        if goods is None:
            continue
        if not cells.is_blank(row.get("amount")):
            problems.append(row.problem("amount", f"ignored: {action} gives one of each good named"))
        if action == "extra":
            why = (("the extra good is one good; row dropped" if len(goods) != 1 else None)
                   or ("one extra good a day; row dropped" if extra else None)
                   or (f"the extra good costs {s.extra_cost} coins and you hold {now.coins[player]}; row dropped"
                       if not now.affords_extra(player, s) else None))
            if why:
                problems.append(row.problem("good", why))
            else:
                extra = goods[0]
                parts["extra"] = (row.ref,)
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
                generating += [row] if row not in generating else []
    if named and s.generation_problem(named):  # different goods, not too many: too few
        problems += [row.problem("good", f"you named {len(named)} good(s) ({', '.join(named)}); generation takes "
                                         f"{s.goods_generated} different goods: nothing is generated and no "
                                         "prices rise") for row in generating]
        named = []
    if named:
        parts["generate"] = tuple(row.ref for row in generating)
    held = now.after_generation(player, named, extra)
    gifts: list[Gift] = []
    given: Counter = Counter()
    bid = None
    for action, row in later:
        if action == "gift":
            gift = _gift_row(s, state.players, player, row, held, given, problems)
            if gift:
                given[gift.good] += gift.count
                gifts.append(gift)
                parts[gift_part(len(gifts) - 1)] = (row.ref,)
        elif bid:
            problems.append(row.problem("action", f"one bid a day (you bid {bid.coins} on {bid.magician}); "
                                                  "row dropped"))
        else:
            bid = _bid_row(s, row, problems)
            if bid:
                parts["bid"] = (row.ref,)
    orders = MarketSubmission(tuple(named), extra, tuple(gifts), bid)
    if orders == MarketSubmission():
        return Parsed(None, tuple(problems), "nothing")
    return Parsed(orders, tuple(problems), describe(state, player, orders), parts)


def gift_part(index: int) -> str:
    """The part a submission's gift is (its `index` in the submission's gifts): "gift 1" first."""
    return f"gift {index + 1}"


def _gift_row(s: Settings, players: Sequence[Player], player: Player, row: SubmitRow, held: dict[Good, int],
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


def describe(state: MarketState, player: Player, o: MarketSubmission) -> str:
    """One line saying what will count as read (before the day: a bid counts only if its coins are
    still held after the magicians shop)."""
    s = state.settings
    parts = ([] if o.generate else ["no goods generated"]) + [what for _, what in what_parts(s, o)]
    if o.bid:
        coins = state.now.coins[player] - (s.extra_cost if o.extra else 0)
        if o.bid.coins > coins:
            parts[-1] += (f" (it counts only if you hold {o.bid.coins} coins after the magicians shop: you hold "
                          f"{coins} before)")
    return "; ".join(parts)


def what_parts(s: Settings, o: MarketSubmission) -> list[tuple[str, str]]:
    """Each part of a submission, keyed as `parse` keys it, as the player reads it."""
    parts = [("generate", f"generate {', '.join(o.generate)}")] if o.generate else []
    if o.extra:
        parts.append(("extra", f"extra {o.extra} for {s.extra_cost} coins"))
    parts += [(gift_part(i), f"gift {g.good} ×{g.count} to {g.to}") for i, g in enumerate(o.gifts)]
    if o.bid:
        parts.append(("bid", f"bid {o.bid.coins} on {o.bid.magician}"))
    return parts


def submit_rows(o: MarketSubmission) -> list[dict]:
    """How a submission is typed into the submit tab (the inverse of `parse`)."""
    rows = [{"action": "generate", "good": ", ".join(o.generate)}] if o.generate else []
    if o.extra:
        rows.append({"action": "extra", "good": o.extra})
    rows += [{"action": "gift", "good": g.good, "to": g.to, "amount": g.count} for g in o.gifts]
    if o.bid:
        rows.append({"action": "bid", "to": o.bid.magician, "amount": o.bid.coins})
    return rows
