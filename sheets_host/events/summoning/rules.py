"""Summoner's Dream's rules as pure functions over the state's values (no pandas, no books).

A round, for every participant at once: they receive 100 coins; buy Towers and Familiars on sale
and upgrades, within the spending rule; pick one of their four maps and place their Towers on it;
assign their Familiars to slots 1-22 in two parties and invade one territory. Every invasion is a
battle of its own (`battle.battle`) on the defender's map; each Familiar reaching E steals one
Treasure. The state keeps the turns as played; `play_round` is the one place a turn takes effect.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from sheets_host.festival.event import Placement, place_by
from .battle import Defence, battle
from .state import (COINS_PER_ROUND, FAMILIAR_LEVELS, PARTIES, SLOTS, TOWER_LEVELS, Catalogue, Holdings, Invasion,
                    MapKind, Order, PlacedTower, SentFamiliar, Stand, SummoningState, SummoningSubmission, Turn, Unit,
                    cell_name)

TOWERS, FAMILIARS = "towers", "familiars"  # the two sides of the spending rule


def purse(h: Holdings) -> int:
    """What a participant may spend this round: what they kept, and the round's 100 coins."""
    return h.coins + COINS_PER_ROUND


def on_sale(state: SummoningState, round_number: int) -> tuple[str, ...]:
    """The kinds on sale in a round. An event that starts in round 2 also sells round 1's kinds in
    round 2, as its participants still receive round 1's coins (a ruling)."""
    rounds = range(1, round_number + 1) if round_number == state.first_round else (round_number,)
    return tuple(dict.fromkeys(k for r in rounds for k in state.catalogue.sales.get(r, ())))


def side(catalogue: Catalogue, kind: str) -> str:
    return TOWERS if kind in catalogue.towers else FAMILIARS


def within_spending_rule(towers: int, familiars: int) -> bool:
    """"Players may not spend twice as much coins on Towers as they do Familiars or vice versa":
    neither side above twice the other (exactly twice is allowed); a round spending on one side
    only breaks it, one spending nothing keeps it.

    >>> within_spending_rule(100, 50), within_spending_rule(101, 50), within_spending_rule(0, 0), within_spending_rule(0, 30)
    (True, False, True, False)
    """
    return towers <= 2 * familiars and familiars <= 2 * towers


def next_unit(units: Sequence[Unit], kind: str) -> Unit:
    """A newly bought unit of `kind`: numbered after those of its kind ("Fox 3" after "Fox 2")."""
    return Unit(kind, 1 + max((u.number for u in units if u.kind == kind), default=0))


def upgrade_price(catalogue: Catalogue, unit: Unit) -> int:
    """A Tower's upgrade to its next level costs that level's price; a Familiar's its base cost."""
    if unit.kind in catalogue.towers:
        return catalogue.towers[unit.kind].levels[unit.level].price
    return catalogue.familiars[unit.kind].cost


def upgrade_problem(catalogue: Catalogue, unit: Unit, round_number: int) -> str | None:
    """Why `unit` cannot go up one level in `round_number`, or None. Towers: two upgrades, any
    round. Familiars: level X from round X on, one level at a time (the clarification and amendment)."""
    if unit.kind in catalogue.towers:
        return f"{unit.name} is at level {TOWER_LEVELS} already, the highest" if unit.level >= TOWER_LEVELS else None
    if unit.level >= FAMILIAR_LEVELS:
        return f"{unit.name} is at level {FAMILIAR_LEVELS} already, the highest"
    if unit.level + 1 > round_number:
        return f"{unit.name} is at level {unit.level}: level {unit.level + 1} is for sale from round {unit.level + 1} on"
    return None


@dataclass(frozen=True)
class Shopping:
    """What came of a participant's orders: which were kept, why the others were not (by index),
    the coins spent on each side, and the units owned after."""

    kept: tuple[int, ...]
    refused: Mapping[int, str]
    spent: Mapping[str, int]
    towers: tuple[Unit, ...]
    familiars: tuple[Unit, ...]


def shop(state: SummoningState, player: str, orders: Sequence[Order], round_number: int) -> Shopping:
    """The orders in the order typed, each kept while it is for sale and affordable with what is
    left; then, while one side is above twice the other, the last kept order of the larger side
    is dropped and the orders walked again (an upgrade of a unit bought by a dropped order goes too)."""
    dropped: dict[int, str] = {}
    sale = set(on_sale(state, round_number))
    while True:
        walk = _walk(state, player, orders, round_number, sale, dropped)
        if within_spending_rule(walk.spent[TOWERS], walk.spent[FAMILIARS]):
            return replace(walk, refused={**walk.refused, **dropped})
        larger = TOWERS if walk.spent[TOWERS] > walk.spent[FAMILIARS] else FAMILIARS
        last = max(i for i in walk.kept if side(state.catalogue, _kind(orders[i])) == larger)
        other = FAMILIARS if larger == TOWERS else TOWERS
        dropped[last] = (f"the spending rule: {walk.spent[larger]} coins on {larger} would be more than twice "
                         f"the {walk.spent[other]} on {other}")


def _kind(order: Order) -> str:
    return order[1] if order[0] == "buy" else order[1].rsplit(" ", 1)[0]


def _walk(state: SummoningState, player: str, orders: Sequence[Order], round_number: int, sale: set[str],
          dropped: Mapping[int, str]) -> Shopping:
    catalogue, h = state.catalogue, state.holdings[player]
    coins, units = purse(h), {TOWERS: list(h.towers), FAMILIARS: list(h.familiars)}
    kept, refused, spent = [], {}, {TOWERS: 0, FAMILIARS: 0}
    for i, (what, name) in enumerate(orders):
        if i in dropped:
            continue
        if what == "buy":
            tower = catalogue.towers.get(name)
            mine = units[FAMILIARS if tower is None else TOWERS]
            price = catalogue.familiars[name].cost if tower is None else tower.cost
            if name not in sale:
                refused[i] = f"{name} is not on sale in round {round_number}"
                continue
            if tower is None and len(mine) >= SLOTS:
                refused[i] = f"{SLOTS} Familiars at most: every Familiar is sent, one a slot"
                continue
            at, change = len(mine), next_unit(mine, name)
        else:
            mine = units[side(catalogue, _kind((what, name)))]
            at = next((k for k, u in enumerate(mine) if u.name == name), None)
            if at is None:
                refused[i] = f"you have no {name}"
                continue
            unit = mine[at]
            problem = upgrade_problem(catalogue, unit, round_number)
            if problem:
                refused[i] = problem
                continue
            price, change = upgrade_price(catalogue, unit), replace(unit, level=unit.level + 1)
        if price > coins:
            refused[i] = f"costs {price} coins; {coins} left"
            continue
        coins -= price
        spent[side(catalogue, change.kind)] += price
        mine[at:at + 1] = [change]  # a purchase goes at the end, an upgrade in its unit's place
        kept.append(i)
    return Shopping(tuple(kept), refused, spent, tuple(units[TOWERS]), tuple(units[FAMILIARS]))


# ---- defence ---------------------------------------------------------------------------------------


def stand_problem(state: SummoningState, map_name: str, towers: Sequence[Unit], stand: Stand,
                  taken: Mapping[tuple[int, int], str]) -> str | None:
    """Why a Tower cannot stand where placed, or None: a Tower the participant owns, placed once,
    on a free tile of its ground (land of the map's kind; Gan on road; never on E nor scenery)."""
    game_map = state.catalogue.maps[map_name]
    unit = next((u for u in towers if u.name == stand.tower), None)
    if unit is None:
        return f"you have no {stand.tower}"
    if stand.tower in taken.values():
        return f"{stand.tower} is placed already"
    if stand.cell in taken:
        return f"{cell_name(stand.cell)} holds {taken[stand.cell]} already"
    kind = state.catalogue.towers[unit.kind]
    if not game_map.may_stand(kind.ground, stand.cell):
        where = "road tiles" if kind.ground.value == "road" else (
            "Blessed Land (L)" if game_map.kind is MapKind.BLESSED_LAND else "Grotto-Heaven (H)")
        return f"{unit.kind} stands only on {where}; {cell_name(stand.cell)} of {map_name} is not one"
    return None


def legal_stands(state: SummoningState, map_name: str, towers: Sequence[Unit],
                 stands: Sequence[Stand]) -> tuple[tuple[Stand, ...], list[tuple[int, str]]]:
    """The stands kept (in order) and the others with why (by index)."""
    taken: dict[tuple[int, int], str] = {}
    kept, refused = [], []
    for i, stand in enumerate(stands):
        problem = stand_problem(state, map_name, towers, stand, taken)
        if problem:
            refused.append((i, problem))
        else:
            taken[stand.cell] = stand.tower
            kept.append(stand)
    return tuple(kept), refused


# ---- attack ----------------------------------------------------------------------------------------


def party_problem(slots: Mapping[int, str], parties: Mapping[str, tuple[int, int]]) -> str | None:
    """Why slots and parties break the text's rules, or None: each party one consecutive range of
    slots 1-22, apart from the other; every Familiar in one of them; each party at least half the
    other's Familiars, rounded down.

    >>> party_problem({1: "Fox 1", 2: "Fox 2", 6: "Cat 1"}, {"A": (1, 2), "B": (3, 6)})
    >>> party_problem({1: "Fox 1", 2: "Fox 2", 3: "Fox 3", 4: "Cat 1", 5: "Cat 2"}, {"A": (1, 1), "B": (2, 5)})
    "Party A has 1 Familiar: at least half of Party B's 4, rounded down (2)"
    """
    for name, (first, last) in parties.items():
        if not 1 <= first <= last <= SLOTS:
            return f"Party {name} is slots {first}-{last}: a range within 1-{SLOTS}"
    (a0, a1), (b0, b1) = parties["A"], parties["B"]
    if a0 <= b1 and b0 <= a1:
        return f"Party A (slots {a0}-{a1}) and Party B (slots {b0}-{b1}) overlap"
    outside = [s for s in sorted(slots) if not (a0 <= s <= a1 or b0 <= s <= b1)]
    if outside:
        return f"{slots[outside[0]]} in slot {outside[0]} is in neither party"
    counts = {p: sum(first <= s <= last for s in slots) for p, (first, last) in parties.items()}
    for p, q in (("A", "B"), ("B", "A")):
        if counts[p] < counts[q] // 2:
            return (f"Party {p} has {counts[p]} Familiar{'s' * (counts[p] != 1)}: at least half of Party {q}'s "
                    f"{counts[q]}, rounded down ({counts[q] // 2})")
    return None


def even_parties(slots: Mapping[int, str]) -> dict[str, tuple[int, int]]:
    """Parties split at the middle Familiar, each from its first Familiar's slot to its last's:
    Party A the first half (the larger, if odd), Party B the rest.

    >>> even_parties({3: "Fox 1", 4: "Fox 2", 9: "Cat 1"})
    {'A': (3, 4), 'B': (9, 9)}
    """
    taken = sorted(slots)
    if len(taken) < 2:  # one Familiar (or none): Party A alone, Party B an empty slot beside it
        only = taken[0] if taken else 1
        return {"A": (only, only), "B": (only + 1, only + 1) if only < SLOTS else (only - 1, only - 1)}
    half = (len(taken) + 1) // 2
    return {"A": (taken[0], taken[half - 1]), "B": (taken[half], taken[-1])}


def fill_slots(slots: Mapping[int, str], parties: Mapping[str, tuple[int, int]], familiars: Sequence[Unit],
               rng: random.Random) -> tuple[dict[int, str], dict[str, tuple[int, int]], str | None]:
    """The text's default ("the Familiar configuration used in your previous round will be used with
    newly-bought Familiars randomized into unassigned Slots"): Familiars without a slot go, one by
    one, to an empty slot drawn at random among those inside a party or just beside one (so none
    waits behind a long gap), and that party's range grows to it (beside both: the smaller party,
    then A). With no configuration at all, the Familiars take slots 1, 2, ... in random order.
    Parties that break the half rule are split again at the middle: the third value says why
    `parties` were not kept (None: they were, grown)."""
    owned = {u.name for u in familiars}
    out = {s: u for s, u in slots.items() if u in owned}
    missing = [u.name for u in familiars if u.name not in out.values()]
    if not out:
        rng.shuffle(missing)
        out = {slot: name for slot, name in enumerate(missing, 1)}
        return out, even_parties(out), "no Familiar was in a slot of them" if parties else None
    parties = dict(parties) if set(parties) == set(PARTIES) else even_parties(out)
    for name in missing:
        def reach(slot: int) -> tuple[int, int, str]:
            """How far `slot` is from each party's range: (distance, Familiars in it, party), nearest first."""
            return min(((first - slot if slot < first else max(0, slot - last)),
                        sum(first <= s <= last for s in out), p) for p, (first, last) in parties.items())
        empty = [s for s in range(1, SLOTS + 1) if s not in out]
        near = [s for s in empty if reach(s)[0] <= 1] or empty
        slot = near[rng.randrange(len(near))]
        out[slot] = name
        _, _, party = reach(slot)
        first, last = parties[party]
        parties[party] = (min(first, slot), max(last, slot))
    split = party_problem(out, parties)
    return dict(sorted(out.items())), even_parties(out) if split else parties, split


def sent(state: SummoningState, turn: Turn, familiars: Sequence[Unit]) -> dict[str, list[SentFamiliar | None]]:
    """Each party as it enters the track: its range's slots in order, None for an empty slot."""
    units = {u.name: u for u in familiars}
    out = {}
    for party, (first, last) in turn.parties.items():
        line: list[SentFamiliar | None] = []
        for slot in range(first, last + 1):
            unit = units.get(turn.slots.get(slot, ""))
            line.append(None if unit is None else
                        SentFamiliar(slot, unit.name, state.catalogue.familiars[unit.kind], unit.level))
        while line and line[-1] is None:  # trailing empty slots delay nobody
            line.pop()
        out[party] = line
    return out


def not_yet_invaded(state: SummoningState, player: str) -> list[str]:
    invaded = state.holdings[player].invaded
    return [p for p in state.participants if p != player and p not in invaded]


def last_turn(state: SummoningState, player: str) -> Turn | None:
    return state.turns[-1][player] if state.turns else None


def default_map(state: SummoningState, player: str) -> str:
    """Without a map named: last round's, if offered again, else the first of the four offered."""
    offered = state.offers[state.round][player]
    last = last_turn(state, player)
    return last.map if last and last.map in offered else offered[0]


NO_SLOTS = "no Familiar is typed in a slot of the 'summoning attack' tab for them"  # parties go with slots


@dataclass(frozen=True)
class Played:
    """A participant's turn as played, with what the rules did not play of their submission: the
    orders refused (by index, why) and why the parties typed were split again, if they were."""

    turn: Turn
    refused: Mapping[int, str]
    split: str | None = None


def turn_of(state: SummoningState, player: str, sub: SummoningSubmission, rng: random.Random) -> Played:
    """The turn as played from what was typed and kept (`read.parse`), with the defaults: the map
    above; last round's Towers where they still stand on it; last round's slots and parties with
    the Familiars not in them put in empty slots at random; a target drawn among those left."""
    orders = list(sub.orders)
    bought = shop(state, player, orders, state.round)
    kept = [orders[i] for i in bought.kept]
    game_map = sub.map or default_map(state, player)
    last = last_turn(state, player)
    stands = sub.stands if sub.stands is not None else legal_stands(
        state, game_map, bought.towers, last.stands if last else ())[0]
    if sub.slots is not None:
        slots, parties = sub.slots, sub.parties or even_parties(sub.slots)
    else:
        slots, parties = (last.slots, last.parties) if last else ({}, {})
    target = sub.target if sub.target in not_yet_invaded(state, player) else None
    if target is None:
        left = not_yet_invaded(state, player)
        target = left[rng.randrange(len(left))]
    slots, parties, split = fill_slots(slots, parties, bought.familiars, rng)
    if sub.parties and sub.slots is None:
        split = NO_SLOTS
    return Played(Turn(tuple(k for w, k in kept if w == "buy"), tuple(u for w, u in kept if w == "upgrade"),
                       game_map, tuple(stands), slots, parties, target), bought.refused,
                  split if sub.parties else None)


# ---- a round ---------------------------------------------------------------------------------------


def play_round(state: SummoningState, turns: Mapping[str, Turn]) -> SummoningState:
    """The round with every participant's turn as played (legal, defaults applied): shopping, then
    every invasion in seating order of the invaders, each a separate battle."""
    number = state.round
    holdings, towers = {}, {}
    for p in state.participants:
        t, h = turns[p], state.holdings[p]
        orders = [("buy", k) for k in t.buys] + [("upgrade", u) for u in t.upgrades]
        bought = shop(state, p, orders, number)
        holdings[p] = replace(h, coins=purse(h) - sum(bought.spent.values()), towers=bought.towers,
                              familiars=bought.familiars, built=h.built + len(t.stands),
                              spent_on_towers=h.spent_on_towers + bought.spent[TOWERS],
                              spent_on_familiars=h.spent_on_familiars + bought.spent[FAMILIARS])
        towers[p] = {u.name: u for u in bought.towers}
    stood: dict[str, Defence] = {}  # prepared for a defender when first invaded, then shared

    def defence(p: str) -> Defence:
        if p not in stood:
            levels = towers[p]
            stood[p] = Defence(state.catalogue.maps[turns[p].map], [
                PlacedTower(s.tower, state.catalogue.towers[levels[s.tower].kind], levels[s.tower].level, s.cell,
                            s.facing) for s in turns[p].stands])
        return stood[p]

    invasions = []
    stolen = {p: 0 for p in state.participants}
    kills = {p: 0 for p in state.participants}
    for p in state.participants:
        t = turns[p]
        fates = battle(defence(t.target), sent(state, t, holdings[p].familiars))
        invasions.append(Invasion(number, p, t.target, turns[t.target].map, fates))
        got = sum(f.reached for f in fates)
        stolen[p] += got
        stolen[t.target] -= got
        kills[t.target] += sum(f.killer is not None for f in fates)
        holdings[p] = replace(holdings[p], sent=holdings[p].sent + len(fates),
                              invaded=holdings[p].invaded + (t.target,))
    holdings = {p: replace(h, treasures=h.treasures + stolen[p], kills=h.kills + kills[p]) for p, h in holdings.items()}
    return replace(state, rounds_played=state.rounds_played + 1, holdings=holdings,
                   turns=state.turns + (dict(turns),), invasions=state.invasions + tuple(invasions))


def turn_problems(state: SummoningState, player: str, turn: Turn) -> list[str]:
    """Why a turn as played (a host's edit of the turns tab) is not legal, for `load`."""
    problems = []
    orders = [("buy", k) for k in turn.buys] + [("upgrade", u) for u in turn.upgrades]
    bought = shop(state, player, orders, state.round)
    problems += [f"{orders[i][0]} {orders[i][1]}: {why}" for i, why in sorted(bought.refused.items())]
    if turn.map not in state.offers.get(state.round, {}).get(player, ()):
        problems.append(f"map {turn.map!r} is not one of the four offered")
    else:
        _, refused = legal_stands(state, turn.map, bought.towers, turn.stands)
        problems += [f"{turn.stands[i].tower}: {why}" for i, why in refused]
    owned = {u.name for u in bought.familiars}
    if sorted(turn.slots.values()) != sorted(owned):
        problems.append("every Familiar in one slot: " + ", ".join(sorted(owned)))
    problem = party_problem(turn.slots, turn.parties) if set(turn.parties) == set(PARTIES) else "both parties"
    if problem:
        problems.append(problem)
    if turn.target not in not_yet_invaded(state, player):
        problems.append(f"target {turn.target!r}: one not yet invaded: {', '.join(not_yet_invaded(state, player))}")
    return problems


# ---- the end ---------------------------------------------------------------------------------------


def tie_chain(state: SummoningState, player: str) -> tuple[int, int, int, int]:
    """Treasures, then the text's tiebreakers: Familiars sent, Familiars killed by their Towers and
    Towers built, each cumulative."""
    h = state.holdings[player]
    return h.treasures, h.sent, h.kills, h.built


def placements(state: SummoningState, tiebreak: Sequence[str]) -> list[Placement]:
    key = {p: tie_chain(state, p) for p in state.participants}
    order = place_by(state.participants, key, tiebreak)
    return [Placement(p, place, key[p][0], {"familiars sent": key[p][1], "familiars killed": key[p][2],
                                            "towers built": key[p][3]})
            for place, p in enumerate(order, 1)]

