"""Magician's Market's tabs: the rules data the host fills in (goods, magicians, tastes), the
settings, the state tabs (orders, gifts, sales), and reading them.

The state tabs hold what happened: one orders row per player per day, every gift, every purchase
by a magician. `load` reads them and walks the days again with the rules, refusing, naming tab,
row and column, anything that breaks a rule (a gift of goods not held, a sale beyond the market's
stock, an extra good without the coins, a day missing a player) and the host's end-of-game
decisions that do not fit the coins; `load` inverts `dump` exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import Column, TabSchema
from . import rules
from .market import Bid, Day, Gift, Good, Magician, MarketSubmission, Part, Player, Settings
from .read import SEPARATORS, goods_in
from .rules import Payouts, Sale, Taste
from .state import MarketState
from .tastes import QUANTITY_HELP, read_quantity, read_selector, selector_help

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

SETTINGS = (
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

DATA_TABS = (GOODS_TAB, MAGICIANS_TAB, TASTES_TAB)
STATE_TABS = (ORDERS_TAB, GIFTS_TAB, SALES_TAB)


def read_settings(config: Mapping[str, Any], data: Mapping[str, list[dict]], players: Sequence[Player]) -> Settings:
    """The settings and rules data as read (SchemaErrors naming every problem of the data tabs)."""
    goods, good_aliases, magicians, magician_aliases, tastes = _rules_data(data, config["goods generated"])

    def players_in(key: str) -> tuple[Player, ...]:
        return tuple(cells.as_choice(n, players, "a player") for n in _split(config.get(key)))

    extra = players_in("extra token of life")
    return Settings(config["days"], config["starting coins"], config["starting goods"], config["starting price"],
                    config["lowest price"], config["highest price"], config["goods generated"],
                    config["extra good cost"],
                    Payouts(config["show coins per kind"], config["show coins per most carried"],
                            config["show bonus for every good"]),
                    goods, good_aliases, magicians, magician_aliases, tastes, extra[0] if extra else None,
                    players_in("elimination candidates"))


def check_config(config: Mapping[str, Any], players: Sequence[Player]) -> list[str]:
    """Problems of the settings that no column sees: the prices' order, the host's end decisions."""
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


def load(players: Sequence[Player], tabs: Mapping[str, list[dict]], config: Mapping[str, Any],
         data: Mapping[str, list[dict]]) -> MarketState:
    """The state from the state tabs, the days walked with the rules; SchemaErrors name what is wrong."""
    settings = read_settings(config, data, players)
    errors: list[SchemaError] = []
    rows: dict[tuple, int] = {}  # (tab, day, player or index[, index]) -> sheet row, for messages
    orders: dict[int, dict[Player, MarketSubmission]] = {}
    for r in tabs["orders"]:
        where = ("orders", r["day"], r["player"])
        if where in rows:
            errors.append(SchemaError("orders", r.get("_row"), "player", r["player"],
                                      f"one row a day (day {r['day']} again)"))
            continue
        rows[where] = r.get("_row")
        orders.setdefault(r["day"], {})[r["player"]] = _order_row(settings, r, errors)
    days = sorted(orders)
    if days != list(range(1, len(days) + 1)):
        errors.append(SchemaError("orders", None, "day", ", ".join(map(str, days)), "days 1, 2, 3... in turn"))
    for number, by_player in orders.items():
        if len(by_player) != len(players):
            missing = [p for p in players if p not in by_player]
            errors.append(SchemaError("orders", None, "player", f"day {number}: no row for {', '.join(missing)}",
                                      "one row for every player every day"))
    gifts: dict[tuple[int, Player], list[Gift]] = {}
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
        if r.part is Part.SALE:
            where = ("sales", rows[("sales", number, r.index)], "sold")
        elif r.part is Part.GIFT:
            where = ("gifts", rows[("gifts", number, r.player, r.index)], "count")
        else:
            where = ("orders", rows[("orders", number, r.player)], r.part.value)
        errors.append(SchemaError(*where, r.value, r.why))
    if state.over:
        errors += end_decisions(state)[2]
    if errors:
        raise SchemaErrors(errors)
    return state


def _order_row(settings: Settings, r: dict, errors: list[SchemaError]) -> MarketSubmission:
    try:
        generate = tuple(goods_in(settings, r["generate"])) if r["generate"] else ()
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
    return MarketSubmission(generate, extra, (), bid)


def _good(s: Settings, r: dict, tab: str, column: str, errors: list[SchemaError]) -> Good | None:
    try:
        return cells.as_choice(r[column], s.goods, "a good", s.good_aliases)
    except CellError as e:
        errors.append(SchemaError(tab, r.get("_row"), column, r[column], str(e)))
        return None


def _with_gifts(o: MarketSubmission, gifts: list[Gift]) -> MarketSubmission:
    return MarketSubmission(o.generate, o.extra, tuple(gifts), o.bid)


def end_decisions(state: MarketState) -> tuple[tuple[Player, ...], Player | None, list[SchemaError]]:
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
        if extra not in rules.may_receive_extra_token(coins, *rules.elimination_candidates(coins, chosen)):
            errors.append(SchemaError("config", None, "extra token of life", extra,
                                      "a player other than the richest who is not an Elimination Candidate "
                                      "(decide tied Elimination Candidates first)"))
            extra = None
    return chosen, extra, errors


def dump(state: MarketState) -> dict[str, list[dict]]:
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


# ---- the rules data: goods, magicians, tastes -------------------------------------------------------

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
