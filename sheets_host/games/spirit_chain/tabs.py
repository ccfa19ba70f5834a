"""Spirit Chain's tabs: the `cards` data tab, the state tabs (duel, lanterns, decks, auctions,
summonings), the settings, and reading and writing them.

Cards are stored by title (ELEMENT RANK, or an action's name); the host may type a name instead.
Host edits that break the state are refused naming tab, row and column: an unknown card, more
locked than held, an `open` result outside the open Auction, lot numbers not 1-5, a missing
summoning row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import Column, TabSchema
from .cards import LANTERN, Title, read_cards
from .rules import LOT, SLOTS
from .state import Lot, LotResult, Phase, Played, Rules, SpiritChainState
from .timing import TimeControls

CARDS_TAB = TabSchema("cards", (
    Column("name"), Column("element", "choice", ("earth", "water", "fire", "wind", "neutral")),
    Column("rank", "choice", ("I", "II", "III", "IV"), optional=True, doc="blank for a Neutral Action"),
    Column("effect", doc="clauses separated by ';': damage N, heal N, shield N, drain N, negate, destroy, "
                         "imprison, kept if failed, none"),
    Column("auction weight", "int", lo=0, doc="how often it appears in auctions; 0 for Rank II-IV spirits"),
    Column("note", optional=True),
), "Every Elemental Spirit and Neutral Action (the shipped set is a sample, marked in 'note').")
DATA_TABS = (CARDS_TAB,)

DUEL_TAB = TabSchema("duel", (Column("cycle", "int", lo=1),
                              Column("phase open", "choice", tuple(p.value for p in Phase))),
                     "The phase part to resolve next (one row).")
LANTERNS_TAB = TabSchema("lanterns", (
    Column("player", "player"), Column("lights", "int", hi=LANTERN),
    Column("reserve periods", "int", lo=0, doc="reserve time left, in periods")), "Each player's Ghost Lantern.")
DECKS_TAB = TabSchema("decks", (
    Column("player", "player"), Column("card", doc="ELEMENT RANK (e.g. EARTH I) or an action's name"),
    Column("count", "int", lo=1), Column("locked", "int", lo=0, doc="copies IMPRISONed for this summoning"),
), "Every player's cards (private to the player).")
AUCTIONS_TAB = TabSchema("auctions", (
    Column("cycle", "int", lo=1), Column("card no", "int", lo=1, hi=LOT), Column("card"),
    Column("result", "choice", tuple(r.value for r in LotResult)), Column("winner", "player", optional=True),
    Column("price", "int", lo=1, optional=True)), "Every auctioned card and who won it for how much.")
SUMMONINGS_TAB = TabSchema("summonings", (
    Column("cycle", "int", lo=1), Column("player", "player"),
    *(Column(f"slot {k}", optional=True) for k in range(1, SLOTS + 1)),
    Column("lights after", "int", hi=LANTERN)), "The cards each player played in each summoning.")
STATE_TABS = (DUEL_TAB, LANTERNS_TAB, DECKS_TAB, AUCTIONS_TAB, SUMMONINGS_TAB)

SETTINGS = (
    Column("death match opponent", "text", optional=True,
           doc="wins a tie at the end; blank: the second player"),
    Column("max cycles", "int", lo=1, doc="after this many summonings the duel ends (more lights wins)"),
    Column("time controls", "bool", doc="yes: windows and reserve time decide what counts; no: the last valid row"),
    Column("auction seconds", "int", lo=1, doc="the Auction's window"),
    Column("upgrade seconds", "int", lo=1, doc="Summoning part 1's window"),
    Column("slots seconds", "int", lo=1, doc="Summoning part 2's window"),
    Column("reserve periods", "int", lo=0, doc="each player's reserve time, in periods"),
    Column("period seconds", "int", lo=1, doc="the length of a reserve period"),
)
WINDOWS = {Phase.AUCTION: "auction seconds", Phase.UPGRADES: "upgrade seconds", Phase.SLOTS: "slots seconds"}


def duel_rules(config: Mapping[str, Any], data: Mapping[str, list[dict]], players: Sequence[str]) -> Rules:
    """The cards and the settings as the duel uses them."""
    opponent = config.get("death match opponent")
    seat = list(players).index(cells.as_choice(opponent, players, "a player")) if opponent else 1
    period = timedelta(seconds=config["period seconds"])
    clocks = {p: TimeControls(timedelta(seconds=config[key]) if config["time controls"] else None, period)
              for p, key in WINDOWS.items()}
    return Rules(read_cards(data["cards"]), config["max cycles"], seat, clocks, config["reserve periods"])


def check_config(config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
    opponent = config.get("death match opponent")
    if opponent:
        try:
            cells.as_choice(opponent, players, "a player")
        except CellError as e:
            return [f"config 'death match opponent': {e}"]
    return []


def load(r: Rules, players: Sequence[str], tabs: Mapping[str, list[dict]]) -> SpiritChainState:
    """The state tabs as the duel; raises SchemaErrors naming every bad tab, row and column."""
    errors: list[SchemaError] = []

    def card(tab: str, row: dict, column: str) -> Title | None:
        if cells.is_blank(row[column]):
            return None
        try:
            return r.cards.read(row[column]).title
        except CellError:
            errors.append(SchemaError(tab, row["_row"], column, row[column],
                                      "a card of the 'cards' tab (ELEMENT RANK such as EARTH I, or a name)"))
            return None

    duel = tabs["duel"]
    if len(duel) != 1:
        raise SchemaErrors([SchemaError("duel", None, None, f"{len(duel)} rows", "one row")])
    cycle, phase = duel[0]["cycle"], Phase(duel[0]["phase open"])
    seats = {p: k for k, p in enumerate(players)}
    lights, reserve = [None, None], [None, None]
    for row in tabs["lanterns"]:
        k = seats[row["player"]]
        if lights[k] is not None:
            errors.append(SchemaError("lanterns", row["_row"], "player", row["player"], "each player once"))
        if row["reserve periods"] > r.reserve:
            errors.append(SchemaError("lanterns", row["_row"], "reserve periods", row["reserve periods"],
                                      f"at most the configured {r.reserve}"))
        lights[k], reserve[k] = row["lights"], row["reserve periods"]
    for p, k in seats.items():
        if lights[k] is None:
            errors.append(SchemaError("lanterns", None, "player", p, "listed (every player needs a row)"))
    decks: tuple[Counter, Counter] = (Counter(), Counter())
    locked: tuple[Counter, Counter] = (Counter(), Counter())
    for row in tabs["decks"]:
        title = card("decks", row, "card")
        if title is None:
            continue
        k = seats[row["player"]]
        if title in decks[k]:
            errors.append(SchemaError("decks", row["_row"], "card", row["card"], f"listed once for {row['player']}"))
        if row["locked"] > row["count"]:
            errors.append(SchemaError("decks", row["_row"], "locked", row["locked"], f"at most the count ({row['count']})"))
        decks[k][title] += row["count"]
        if row["locked"]:
            locked[k][title] += row["locked"]
    lots = []
    for row in tabs["auctions"]:
        title = card("auctions", row, "card")
        winner = seats.get(row["winner"])
        result = LotResult(row["result"])
        if result is LotResult.WON and (winner is None or row["price"] is None):
            errors.append(SchemaError("auctions", row["_row"], "winner", row["winner"] or "",
                                      "a winner with a price for a card won"))
        if result is not LotResult.WON and (winner is not None or row["price"] is not None):
            errors.append(SchemaError("auctions", row["_row"], "winner", row["winner"] or "",
                                      f"blank with a blank price for a card {result.value}"))
        if row["cycle"] > cycle or (result is LotResult.OPEN) != (row["cycle"] == cycle and phase is Phase.AUCTION):
            errors.append(SchemaError("auctions", row["_row"], "result", row["result"],
                                      f"'open' exactly for the cards of the Auction open now (cycle {cycle})"))
        lots.append(Lot(row["cycle"], row["card no"], title, result, winner, row["price"]))
    played = []
    for row in tabs["summonings"]:
        slots = tuple(card("summonings", row, f"slot {k}") for k in range(1, SLOTS + 1))
        played.append(Played(row["cycle"], seats[row["player"]], slots, row["lights after"]))
    if errors:
        raise SchemaErrors(errors)
    state = SpiritChainState(tuple(players), cycle, phase, tuple(lights), tuple(reserve), tuple(+d for d in decks),
                             tuple(+lk for lk in locked), tuple(sorted(lots, key=lambda lot: (lot.cycle, lot.number))),
                             tuple(sorted(played, key=lambda p: (p.cycle, p.seat))), r)
    _check_history(state, tabs)
    return state


def _check_history(state: SpiritChainState, tabs: Mapping[str, list[dict]]) -> None:
    """Auction lots of five, an open Auction while the duel goes on, a summoning per past cycle."""
    errors = []
    by_cycle: dict[int, list[int]] = {}
    for lot in state.lots:
        by_cycle.setdefault(lot.cycle, []).append(lot.number)
    for c, numbers in by_cycle.items():
        if sorted(numbers) != list(range(1, LOT + 1)):
            errors.append(SchemaError("auctions", None, "card no", f"cycle {c}: {sorted(numbers)}",
                                      f"1 to {LOT}, each once, in every cycle"))
    if state.phase is Phase.AUCTION and not state.over and len(state.open_lot()) != LOT:
        errors.append(SchemaError("auctions", None, "result", f"{len(state.open_lot())} open cards",
                                  f"{LOT} open cards for the Auction of cycle {state.cycle}"))
    done = state.cycle - 1  # summonings resolved so far
    seen = Counter((p.cycle, p.seat) for p in state.played)
    for row in tabs["summonings"]:
        if row["cycle"] > done:
            errors.append(SchemaError("summonings", row["_row"], "cycle", row["cycle"],
                                      f"a summoning already played (1 to {done})"))
    for c in range(1, done + 1):
        for seat, player in enumerate(state.players):
            if seen[(c, seat)] != 1:
                errors.append(SchemaError("summonings", None, "player", f"{player} in cycle {c}",
                                          "one row per player per cycle"))
    if errors:
        raise SchemaErrors(errors)


def dump(state: SpiritChainState) -> dict[str, list[dict]]:
    """The duel as the state tabs' rows (the inverse of `load`)."""
    p, book = state.players, state.rules.cards
    return {
        "duel": [{"cycle": state.cycle, "phase open": state.phase.value}],
        "lanterns": [{"player": p[k], "lights": state.lights[k], "reserve periods": state.reserve[k]}
                     for k in (0, 1)],
        "decks": [{"player": p[k], "card": t, "count": n, "locked": state.locked[k].get(t, 0)}
                  for k in (0, 1) for t, n in book.in_order(state.decks[k])],
        "auctions": [{"cycle": lot.cycle, "card no": lot.number, "card": lot.card, "result": str(lot.result),
                      "winner": None if lot.winner is None else p[lot.winner], "price": lot.price}
                     for lot in state.lots],
        "summonings": [{"cycle": s.cycle, "player": p[s.seat],
                        **{f"slot {k}": t for k, t in enumerate(s.slots, 1)}, "lights after": s.lights}
                       for s in state.played],
    }
