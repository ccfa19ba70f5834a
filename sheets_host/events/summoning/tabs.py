"""Summoner's Dream's state tabs, and the state read from them and written back.

`summoning offers` holds the four maps each participant is offered each round (drawn from the seed
at the start; the host may set them before a round). `summoning turns` holds one row per
participant per round: the turn as played, defaults applied (the target drawn, the slots filled).
`load` walks the turns again with the rules, battles included, so coins, units, Treasures and the
tie chain's counts never disagree with what was played, and `load` inverts `dump`. A host's edit
that the rules refuse (a Tower not owned, a map not offered) is named by tab, row and column.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence

from sheets_host.festival.event import rows_by_round
from sheets_host.kit import cells
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import Column, TabSchema
from . import rules
from .state import (COINS_PER_ROUND, PARTIES, ROUNDS, STARTING_COINS, Catalogue, Facing, Holdings, MapKind, Stand,
                    SummoningState, Turn, cell_name)

OFFERS_TAB = TabSchema("summoning offers", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("player", "player"),
    Column("maps", doc="the four maps offered, comma-separated: two Blessed Land, two Grotto-Heaven"),
), "The maps each participant may choose from each round (drawn at the start; the host may set them).")
TURNS_TAB = TabSchema("summoning turns", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("player", "player"),
    Column("buy", optional=True, doc="the kinds bought, in order, comma-separated"),
    Column("upgrade", optional=True, doc="the units upgraded one level each, in order, comma-separated"),
    Column("map", doc="the map chosen"),
    Column("towers", optional=True, doc="each Tower placed: unit, cell and facing, like `Yi 1 C4 N, Gan 1 D5 E`"),
    Column("slots", optional=True, doc="each Familiar's slot, like `1 Fox 1, 2 Fox 2, 4 Cat 1`"),
    Column("party A", doc="Party A's slots, like 1-6"), Column("party B", doc="Party B's slots, like 7-12"),
    Column("target", "player", optional=True, doc="whose territory was invaded"),
), "Every participant's round as played, one row each a round (the rules derive coins, units and Treasures).")
STATE_TABS = (OFFERS_TAB, TURNS_TAB)


def first_round(participants: int, last_round: int = ROUNDS) -> int:
    """"If there are 6 players participating in this Event, the game begins in Round 2. If there are
    7 players ..., Round 1": "over the course of the Main Match you will invade the territory of
    each player participating in this Event once", one a round, so the event ends with the festival's
    `last_round` and starts so that nobody has more rounds than others to invade (a ruling): later
    with fewer participants, and after the last round with one (nobody to invade: no round).

    >>> [first_round(n) for n in (7, 6, 5, 2, 1)], [first_round(n, 4) for n in (7, 5, 3)]
    ([1, 2, 3, 6, 7], [1, 1, 3])
    """
    return max(1, last_round + 2 - participants)


def setup(players: Sequence[str], catalogue: Catalogue, rng: random.Random, last_round: int = ROUNDS) -> SummoningState:
    """Before the first round: every participant with 50 Treasures and 200 coins (and round 1's 100
    when the event starts in round 2: "including Round 1"), and every round's offers drawn."""
    start, holdings = _start(players, last_round)
    pools = {kind: [m.name for m in catalogue.maps.values() if m.kind is kind] for kind in MapKind}
    offers = {r: {p: tuple(name for kind in MapKind for name in sorted(rng.sample(pools[kind], 2),
                                                                        key=pools[kind].index))
                  for p in players} for r in range(start, last_round + 1)}
    return SummoningState(tuple(players), catalogue, start, last_round, offers, holdings=holdings)


def _start(players: Sequence[str], last_round: int) -> tuple[int, dict[str, Holdings]]:
    start = first_round(len(players), last_round)
    return start, {p: Holdings(coins=STARTING_COINS + COINS_PER_ROUND * (start - 1)) for p in players}


def dump(state: SummoningState) -> dict[str, list[dict]]:
    offers = [{"round": r, "player": p, "maps": ", ".join(maps)}
              for r, by_player in sorted(state.offers.items()) for p, maps in by_player.items()]
    turns = [{"round": state.first_round + i, "player": p, **turn_record(t)}
             for i, by_player in enumerate(state.turns) for p, t in by_player.items()]
    return {OFFERS_TAB.name: offers, TURNS_TAB.name: turns}


def turn_record(t: Turn) -> dict:
    return {"buy": ", ".join(t.buys) or None, "upgrade": ", ".join(t.upgrades) or None, "map": t.map,
            "towers": ", ".join(f"{s.tower} {cell_name(s.cell)} {s.facing.value}" for s in t.stands) or None,
            "slots": ", ".join(f"{slot} {name}" for slot, name in sorted(t.slots.items())) or None,
            **{f"party {p}": f"{a}-{b}" for p, (a, b) in t.parties.items()}, "target": t.target or None}


_STAND = re.compile(r"(.+?)\s+([A-Za-z])(\d{1,2})\s+([NESWnesw])")
_SLOT = re.compile(r"(\d{1,2})\s+(.+)")
_RANGE = re.compile(r"(\d{1,2})\s*-\s*(\d{1,2})")


def _list(raw: object) -> list[str]:
    return [part.strip() for part in cells.text(raw).split(",") if part.strip()]


def _turn(r: dict) -> Turn:
    """A turns row read (names as typed; the rules judge them); CellError on what cannot be read."""
    stands = []
    for part in _list(r["towers"]):
        m = _STAND.fullmatch(part)
        if not m:
            raise CellError(f"towers: {cells.quote(part)} is not a unit, a cell and a facing (like Yi 1 C4 N)")
        stands.append(Stand(m.group(1), (int(m.group(3)) - 1, ord(m.group(2).upper()) - ord("A")),
                            Facing(m.group(4).upper())))
    slots = {}
    for part in _list(r["slots"]):
        m = _SLOT.fullmatch(part)
        if not m:
            raise CellError(f"slots: {cells.quote(part)} is not a slot and a Familiar (like 1 Fox 1)")
        slots[int(m.group(1))] = m.group(2)
    parties = {}
    for p in PARTIES:
        m = _RANGE.fullmatch(cells.text(r[f"party {p}"]))
        if not m:
            raise CellError(f"party {p}: {cells.quote(r[f'party {p}'])} is not a range of slots (like 1-6)")
        parties[p] = (int(m.group(1)), int(m.group(2)))
    return Turn(tuple(_list(r["buy"])), tuple(_list(r["upgrade"])), cells.text(r["map"]), tuple(stands), slots,
                parties, r["target"] or "")


def load(players: Sequence[str], catalogue: Catalogue, tabs: Mapping[str, list[dict]],
         last_round: int = ROUNDS) -> SummoningState:
    """The state from its tabs, the turns walked with the rules; SchemaErrors name what is wrong."""
    errors: list[SchemaError] = []
    start, holdings = _start(players, last_round)
    offers: dict[int, dict[str, tuple[str, ...]]] = {}
    for r in tabs[OFFERS_TAB.name]:
        maps = tuple(_list(r["maps"]))
        kinds = sorted(catalogue.maps[m].kind.value for m in maps if m in catalogue.maps)
        if len(kinds) != 4 or kinds != sorted([k.value for k in MapKind] * 2):
            errors.append(SchemaError(OFFERS_TAB.name, r.get("_row"), "maps", r["maps"],
                                      "four maps of the maps tab: two Blessed Land and two Grotto-Heaven"))
        offers.setdefault(r["round"], {})[r["player"]] = maps
    expected = {(n, p) for n in range(start, last_round + 1) for p in players}
    if {(n, p) for n, by in offers.items() for p in by} != expected:
        errors.append(SchemaError(OFFERS_TAB.name, None, "round", ", ".join(map(str, sorted(offers))),
                                  f"one row per participant for each round from {start} to {last_round}"))
    def read(r: dict) -> Turn | None:
        try:
            return _turn(r)
        except CellError as e:
            errors.append(SchemaError(TURNS_TAB.name, r.get("_row"), None, r["player"], f"a row the rules can read ({e})"))
            return None

    rounds = rows_by_round(TURNS_TAB.name, tabs[TURNS_TAB.name], players, start, read, errors)
    numbers = list(rounds)
    if errors:
        raise SchemaErrors(errors)
    state = SummoningState(tuple(players), catalogue, start, last_round, offers, holdings=holdings)
    for number in numbers:
        turns = {p: rounds[number][p][0] for p in players}
        for p in players:
            for problem in rules.turn_problems(state, p, turns[p]):
                errors.append(SchemaError(TURNS_TAB.name, rounds[number][p][1], None, p,
                                          f"a turn the rules allow ({problem})"))
        if errors:
            raise SchemaErrors(errors)
        state = rules.play_round(state, turns)
    return state
