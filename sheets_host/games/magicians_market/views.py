"""What Magician's Market shows: how to submit and the submit tab's dropdowns, everyone the goods,
prices, sales and shows (and at the end the results), each player their own coins, bids and gifts,
the day's announcement, the host's log, and what `simulate` measures.

Coins and bids are private: nothing public names them, and a player's own view holds only what
their own bid came to (never whether another bid tied with it). Gifts received show no giver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import takewhile

import pandas as pd

from sheets_host.kit.game import Example, Fate, HowTo
from sheets_host.kit.result import GARNET, HOST, MAIN_MATCH, TOKEN, Change, GameResult, Owed
from . import rules, tabs
from .market import Good, MarketSubmission, Part, Player, Refusal, opening_market
from .read import ACTIONS, SUBMIT_TAB, gift_part, what_parts
from .state import MarketState
from .tastes import quantity_text, selector_text

STAGES = ("after market operations", "after shopping")


def how_to_submit(state: MarketState, player: Player) -> HowTo:
    s, now = state.settings, state.now
    if state.over:
        return HowTo(("The game is over: nothing to submit.",))
    coins, held = now.coins[player], [g for g in s.goods if now.goods[player][g]]
    lines = (f"Day {state.round} of {s.days}: one row per action.",
             f"generate: {s.goods_generated} different goods, in one row (comma-separated) or one row each; "
             "you receive one of each.",
             f"The goods you do not name rise in price by 1 (up to {s.highest_price}).",
             f"extra: one more good for {s.extra_cost} coins, once a day; you hold {coins} coins.",
             "gift: a good, the player in 'to', how many in 'amount' (blank is 1).",
             "You gift only what you hold after generating, never what you receive today.",
             "bid: a magician in 'to' and coins in 'amount', no good; one bid a day.",
             "A bid counts only if you hold its coins after the magicians shop.",
             f"Magicians: {', '.join(s.magician_names)}.")
    rows = [("generate", ", ".join(s.goods[:s.goods_generated]), "", "")]
    seat = state.players.index(player)
    neighbour = state.players[(seat + 1) % len(state.players)]  # the next player in seating order
    if held and neighbour != player:
        rows.append(("gift", held[0], neighbour, "1"))
    rows.append(("bid", "", s.magician_names[0], str(max(1, min(5, coins)))))
    return HowTo(lines, (Example(tuple(SUBMIT_TAB.header), tuple(rows)),), "no goods, no price changes, no bid")


def submit_choices(state: MarketState, player: Player) -> dict[str, list[str]]:
    s, now = state.settings, state.now
    if state.over:
        return {}
    actions = [a for a in ACTIONS if a != "extra" or now.affords_extra(player, s)]
    return {"action": actions, "good": list(s.goods),
            "to": [p for p in state.players if p != player] + list(s.magician_names)}


def public_view(state: MarketState) -> dict[str, pd.DataFrame]:
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
    shows = [{"day": d.number, "magician": m, "goods brought": stock_text(d.shopping.magicians[m]),
              "show": host or "no show: keeps its goods"}
             for d in reversed(state.history) for m, host in d.shows.items()]
    out = {
        "goods now": pd.DataFrame(now, columns=["player", *goods, "total"]),
        "prices": prices,
        "inventories": pd.DataFrame(inventories, columns=["day", "stage", "player", "generated", *goods]),
        "sales": pd.DataFrame(sales, columns=["day", "magician", "taste", "good", "market", "wanted", "sold",
                                              "price"]),
        "shows": pd.DataFrame(shows, columns=["day", "magician", "goods brought", "show"]),
        "magicians": pd.DataFrame([{"magician": m.name, "full name": m.full_name,
                                    "shops": "first, alone" if m.shops_first else "together",
                                    "carrying now": stock_text(state.now.magicians[m.name])}
                                   for m in s.magicians]),
        "tastes": pd.DataFrame([{"magician": t.magician, "taste": t.number, "good": t.good,
                                 "market": selector_text(t.market), "quantity": quantity_text(t.quantity)}
                                for t in s.tastes], columns=["magician", "taste", "good", "market", "quantity"]),
    }
    if state.over:
        out["results"] = pd.DataFrame([{k: v for k, v in r.items() if k != "coins"} for r in results(state)])
    return out


def private_view(state: MarketState, player: Player) -> dict[str, pd.DataFrame]:
    s, now = state.settings, state.now
    coins = now.coins[player]
    extra = (f"available for {s.extra_cost} coins" if now.affords_extra(player, s)
             else f"needs {s.extra_cost} coins (you hold {coins})")
    me = [("player", player), ("day to play", f"{state.round} of {s.days}" if not state.over else "game over"),
          ("coins", coins), ("goods", stock_text(now.goods[player])), ("extra good", extra)]
    if state.over:
        mine = next(r for r in results(state) if r["player"] == player)
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
                     "gifts received": stock_text(d.gifts_received(player)) if d.gifts_received(player) else None,
                     "gifts given": ", ".join(f"{g.good} ×{g.count} to {g.to}" for g in o.gifts) or None})
    columns = ["day", "coins at start", "extra good", "sales income", "coins after shopping", "bid", "bid result",
               "show income", "coins at end", "gifts received", "gifts given"]
    return {"private": pd.DataFrame(me, columns=["what", "value"], dtype=object),
            "my days": pd.DataFrame(list(reversed(days)), columns=columns)}


def announcement(title: str, before: MarketState, after: MarketState) -> str:
    s = after.settings
    d = after.history[-1]
    goods = list(s.goods)
    lines = [f"## {title}: day {d.number} of {s.days}", "",
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
    lines += [f"| {m} | {host or 'no show (keeps its goods)'} | {stock_text(d.shopping.magicians[m])} |"
              for m, host in d.shows.items()]
    if after.over:
        lines += ["", "### Results", "", "| rank | player | Tokens of Life | Elimination Candidate | garnets | notes |",
                  "|---:|---|---:|---:|---:|---|"]
        lines += [f"| {r['rank']} | {r['player']} | {r['Tokens of Life']} | {r['Elimination Candidate'] or ''} | "
                  f"{r['garnets']} | {r['result']} |" for r in results(after)]
    return "\n".join(lines) + "\n"


# A refused part of the day's facts as `parse` keys the part it refuses (a gift by its index).
_PART_KEYS = {Part.GENERATE: lambda i: "generate", Part.EXTRA: lambda i: "extra", Part.GIFT: gift_part}


def fates(after: MarketState, orders: Mapping[Player, MarketSubmission | None],
          refusals: Sequence[Refusal]) -> dict[Player, list[Fate]]:
    """What the day just played did with each part of each player's `orders`: a part the rules
    refused, and a bid whose coins were not held after the magicians shopped, did not count."""
    day, s = after.history[-1], after.settings
    refused = {(r.player, _PART_KEYS[r.part](r.index)): f"it must be {r.why}" for r in refusals
               if r.part in _PART_KEYS}
    out = {}
    for player in after.players:
        o = orders.get(player) or MarketSubmission()
        out[player] = [Fate(key, what, refused.get((player, key), "")) for key, what in what_parts(s, o)]
        if o.bid and not day.counted.get(player, False) and not refused.get((player, "bid")):
            out[player][-1] = Fate("bid", out[player][-1].what,
                                   f"you held {day.shopping.coins[player]} coins after the magicians shopped")
    return out


def log(after: MarketState, refusals: Sequence[Refusal]) -> list[str]:
    """The host's log of the day just played: what the rules refused, every sale, the shoppers'
    notes, the shows, and the host's end decisions set aside."""
    result = after.history[-1]
    lines = [f"{r.player}'s {r.part.value} refused: it must be {r.why}" for r in refusals]
    lines += [f"{x.magician} (taste {x.taste}) bought {x.sold} {x.good} of {x.wanted} wanted from {x.market} "
              f"at {result.operations.prices[x.good]}" for x in result.sales]
    lines += list(result.notes)
    for magician, host in result.shows.items():
        lines.append(f"{magician} performs at {host}'s show: {result.earned[magician]} coins" if host else
                     f"{magician} performs nowhere and keeps {stock_text(result.shopping.magicians[magician])}")
    lines += [f"config {e.column!r} set aside: {e.value!r} is not {e.expected}"
              for e in tabs.end_decisions(after)[2]]
    return lines + (host_decisions(after) if after.over else [])


@dataclass(frozen=True)
class Ending:
    """The end as the rules decide it from the final coins and the host's decisions that fit them:
    the one home of the public results, the host's to-do and the season's `result`."""

    coins: Mapping[Player, int]
    numbered: Mapping[Player, int]  # Elimination Candidate -> number (1 picks first)
    ties: Sequence[rules.Tie]  # tied for Elimination Candidate: the host decides
    winners: Sequence[Player]  # a Token of Life each: the top four of those not candidates
    edge: rules.Tie | None  # tied across the last token: none for them
    richest: Sequence[Player]
    extra: Player | None  # the richest player's one more Token of Life, once the host typed it
    may_receive: Sequence[Player]  # whom it may go to

    def tokens(self, player: Player) -> int:
        return (player in self.winners) + (player == self.extra)


def ending(state: MarketState) -> Ending:
    coins = state.now.coins
    chosen, extra, _ = tabs.end_decisions(state)
    numbered, ties = rules.elimination_candidates(coins, chosen)
    pending = {p for t in ties for p in t.players}
    winners, edge = rules.tokens_of_life({p: c for p, c in coins.items() if p not in numbered and p not in pending})
    return Ending(coins, numbered, ties, winners, edge, [p for p in state.players if coins[p] == max(coins.values())],
                  extra, rules.may_receive_extra_token(coins, numbered, ties))


def host_decisions(state: MarketState) -> list[str]:
    """What the host still has to decide at the end, and where to write it: the host's log says
    it, the public results only say that the host decides (players read no config keys)."""
    end = ending(state)
    lines = [f"to decide: {', '.join(t.players)} tie for Elimination Candidate {' or '.join(map(str, t.places))}: "
             "write the order in config 'elimination candidates'" for t in end.ties]
    if not end.extra:
        who = (end.richest[0] if len(end.richest) == 1
               else f"one of {', '.join(end.richest)} (tied richest, the host decides who)")
        lines.append(f"to decide: {who} may grant one more Token of Life to a player who is not an Elimination "
                     "Candidate: write that player in config 'extra token of life'")
    return lines


def results(state: MarketState) -> list[dict]:
    """Each player's end result, richest first: rank, coins, Tokens of Life, Elimination Candidate
    number, garnets, and notes on ties and decisions left to the host."""
    end = ending(state)
    coins, richest = end.coins, end.richest
    notes: dict[Player, list[str]] = {p: [] for p in state.players}
    for tie in end.ties:
        for p in tie.players:
            notes[p].append(f"tied with {_others(tie.players, p)} for Elimination Candidate "
                            f"{' or '.join(map(str, tie.places))}: the host decides")
    if end.edge:
        for p in end.edge.players:
            notes[p].append(f"tied with {_others(end.edge.players, p)} for Token of Life "
                            f"{' or '.join(map(str, end.edge.places))}: the tied players get none")
    if end.extra:
        notes[end.extra].append("one more Token of Life, granted by the richest player")
    elif len(richest) == 1:
        notes[richest[0]].append("richest: may grant one more Token of Life to a player who is not an "
                                 "Elimination Candidate (tell the host)")
    else:
        for p in richest:
            notes[p].append(f"tied richest with {_others(richest, p)}: the host decides who grants one more "
                            "Token of Life")
    out = []
    for player in sorted(state.players, key=lambda p: -coins[p]):
        out.append({"rank": 1 + sum(1 for q in state.players if coins[q] > coins[player]), "player": player,
                    "coins": coins[player], "Tokens of Life": end.tokens(player),
                    "Elimination Candidate": end.numbered.get(player, ""), "garnets": rules.garnets(coins[player]),
                    "result": "; ".join(notes[player])})
    return out


def result(state: MarketState) -> GameResult | None:
    """What the market gives the season: a Token of Life to each of the top four (the richest's one
    more once the host typed whom), the Elimination Candidates by number, a garnet per 100 coins.
    `candidates` holds the numbers decided from 1 up to the first a tie leaves open, so that each
    stands at its pick; the whole order is owed to the host meanwhile. Coins stay out of every
    `why`: they are private."""
    if not state.over:
        return None
    end = ending(state)
    changes = [Change(p, TOKEN, 1, "among the top four most coins at the end") for p in end.winners]
    if end.extra:
        changes.append(Change(end.extra, TOKEN, 1, "one more Token of Life, granted by the player with the most coins"))
    changes += [Change(p, GARNET, n, "1 garnet for every 100 coins at the end of the match")
                for p in state.players if (n := rules.garnets(end.coins[p]))]
    by_number = {n: p for p, n in end.numbered.items()}
    candidates = tuple(takewhile(bool, (by_number.get(n) for n in range(1, rules.ELIMINATION_CANDIDATES + 1))))
    owed = []
    if end.ties:
        owed.append(Owed((HOST,), "the Elimination Candidates' numbers", tuple(p for t in end.ties for p in t.players),
                         "elimination candidates"))
    if not end.extra and end.may_receive:
        owed.append(Owed(tuple(end.richest) if len(end.richest) == 1 else (HOST,), "one more Token of Life",
                         tuple(end.may_receive), "extra token of life"))
    return GameResult(MAIN_MATCH, tuple(state.players), tuple(end.richest), tuple(changes), candidates,
                      owed=tuple(owed))


def standings(state: MarketState) -> pd.DataFrame:
    return pd.DataFrame(results(state))


def summary(state: MarketState) -> dict[str, float]:
    h, n = state.history, max(len(state.history), 1)
    coins = state.now.coins.values()
    numbered, ties = rules.elimination_candidates(state.now.coins)
    ranked = results(state)
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
        "Tokens of Life handed out": sum(r["Tokens of Life"] for r in ranked),
    }


# ---- text ----------------------------------------------------------------------------------------


def stock_text(stock: Mapping[Good, int]) -> str:
    return ", ".join(f"{g} ×{n}" for g, n in stock.items() if n) or "nothing"


def _generated(o: MarketSubmission) -> str:
    text = ", ".join(o.generate) or "nothing"
    return text + (f" + extra {o.extra}" if o.extra else "")


def _change(before: int, after: int) -> str:
    return str(before) if before == after else f"{before} → {after}"


def _others(players: Sequence[Player], player: Player) -> str:
    return ", ".join(p for p in players if p != player)
