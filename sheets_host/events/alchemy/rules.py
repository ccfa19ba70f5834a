"""Alchemy's rules as pure functions over plain values (dicts and tuples; no pandas, no books).

A round, for every participant at once: (1) harvest, with the purchases of materials for coins
(they arrive with the harvest), (2) the machine bought, then every machine owned applied,
(3) constructs engineered, (4) constructs sold.

>>> harvest_yield(4, 0), harvest_yield(4, 1), harvest_yield(4, 3), harvest_yield(4, 6)
(4, 3, 1, 1)
>>> [str(sales_multiplier(n)) for n in (1, 2, 3, 4, 5, 7)]
['3/2', '5/4', '1', '3/4', '3/5', '3/5']
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from sheets_host.festival.event import Placement, place_by
from sheets_host.kit.game import generators
from .state import (GOLD, Alchemy, AlchemyState, AlchemySubmission, Attempt, Drop, Effect, Holdings, Report,
                    RoundResult, Sale, Turn)

MULTIPLIERS = {1: Fraction(3, 2), 2: Fraction(5, 4), 3: Fraction(1), 4: Fraction(3, 4)}
CROWDED = Fraction(3, 5)  # five or more sold in a set


def _owned(alchemy: Alchemy, machines: Sequence[str], effect: Effect):
    return (alchemy.machines[n] for n in machines if alchemy.machines[n].effect is effect)


def energy(alchemy: Alchemy, machines: Sequence[str]) -> int:
    """The energy of a round for a participant owning `machines` as it starts: energy machines
    count from the round after they are bought."""
    return alchemy.energy + sum(m.amount for m in _owned(alchemy, machines, Effect.ENERGY))


def recipes(alchemy: Alchemy, constructs: Iterable[str], machines: Sequence[str]) -> dict[str, dict[str, int]]:
    """What each of `constructs` needs from a participant owning `machines`: thrift machines lower
    a material's quantity, never below 0 (a material it needs none of is left out)."""
    thrift = Counter()
    for m in _owned(alchemy, machines, Effect.THRIFT):
        thrift[m.source] += m.amount
    return {c: {material: q - thrift[material] for material, q in alchemy.recipes[c].needs if q > thrift[material]}
            for c in constructs}


# ---- (1) harvest ---------------------------------------------------------------------------------


def harvest_yield(base: int, others: int) -> int:
    """How many of a material a harvest earns: base − the other participants harvesting at its
    location, at least 1."""
    return max(1, base - others)


def harvest_energy(alchemy: Alchemy, harvest: Sequence[str]) -> int:
    """The energy a harvest costs: the materials' energy, less x − 1 for x different materials
    harvested at the same location (never below 0)."""
    at = Counter(alchemy.materials[m].location for m in harvest)
    return max(0, sum(alchemy.materials[m].energy for m in harvest) - sum(x - 1 for x in at.values()))


def fewest_to_drop(alchemy: Alchemy, harvest: Sequence[str], energy: int) -> tuple[str, ...]:
    """The fewest materials whose removal brings the harvest within `energy`, the later rows when
    several choices are as few. Exact: keeping k materials at a location costs least with its k
    cheapest, so a knapsack over locations of how many to keep at each decides.

    >>> from sheets_host.events.alchemy import tabs
    >>> fewest_to_drop(tabs.alchemy({}, tabs.sample_data()), ["gold", "pearl", "kraken ink", "sea salt"], 12)
    ('kraken ink',)
    """
    row = {m: i for i, m in enumerate(harvest)}

    def rank(kept: tuple[str, ...]) -> tuple[int, list[int]]:  # more kept, then earlier rows kept
        return len(kept), [-i for i in sorted(row[m] for m in kept)]

    at: dict[str, list[str]] = {}
    for m in harvest:
        at.setdefault(alchemy.materials[m].location, []).append(m)
    best: dict[int, tuple[str, ...]] = {0: ()}  # cost -> the best materials kept for that cost
    for materials in at.values():
        cheapest = sorted(materials, key=lambda m: alchemy.materials[m].energy)
        options = [(sum(alchemy.materials[m].energy for m in cheapest[:k]) - max(0, k - 1), tuple(cheapest[:k]))
                   for k in range(len(cheapest) + 1)]
        grown: dict[int, tuple[str, ...]] = {}
        for cost, kept in best.items():
            for extra, more in options:
                total = cost + extra
                if total not in grown or rank(kept + more) > rank(grown[total]):
                    grown[total] = kept + more
        best = grown
    kept = max((k for c, k in best.items() if c <= energy), key=rank)
    return tuple(m for m in harvest if m not in kept)


def legal_harvest(alchemy: Alchemy, harvest: Sequence[str], energy: int) -> tuple[tuple[str, ...], list[Drop]]:
    """The harvest as it happens: a material named again is dropped (once a round); a harvest
    costing more than `energy` is invalid as a whole, so nothing is harvested."""
    kept = tuple(dict.fromkeys(harvest))
    drops = [Drop("harvest", m, f"{m} is harvested once a round") for m in Counter(harvest) - Counter(kept)]
    cost = harvest_energy(alchemy, kept)
    if cost > energy:
        drop = fewest_to_drop(alchemy, kept, energy)
        drops.append(Drop("harvest", ", ".join(kept), f"a harvest costing at most your {energy} energy (it costs "
                                                       f"{cost}; without {', '.join(drop)} it would fit): "
                                                       "nothing is harvested"))
        kept = ()
    return kept, drops


def harvest_yields(alchemy: Alchemy, harvests: Mapping[str, Sequence[str]]) -> dict[str, dict[str, int]]:
    """What each participant receives of each material harvested: others = the other
    participants harvesting anything at its location this round."""
    at: dict[str, set[str]] = {}
    for player, harvest in harvests.items():
        for m in harvest:
            at.setdefault(alchemy.materials[m].location, set()).add(player)
    return {player: {m: harvest_yield(alchemy.harvest_base, len(at[alchemy.materials[m].location]) - 1)
                     for m in harvest} for player, harvest in harvests.items()}


def buy(alchemy: Alchemy, coins: int, purchases: Sequence[tuple[str, int]]
        ) -> tuple[tuple[tuple[str, int], ...], list[Drop], int]:
    """Purchases in order, each paid from the coins left; one they cannot pay (or of a material
    without a price) is dropped and the later ones still considered. Returns the purchases
    kept, those dropped and the coins left."""
    kept, drops = [], []
    for i, (material, quantity) in enumerate(purchases):
        price = alchemy.materials[material].price
        if price is None:
            drops.append(Drop("buy", f"{material} ×{quantity}", f"a material with a price ({material} cannot "
                                                                  "be bought)", i))
        elif price * quantity > coins:
            drops.append(Drop("buy", f"{material} ×{quantity}", f"a purchase the coins left can pay ({quantity} "
                                                                  f"{material} cost {price * quantity}, "
                                                                  f"{coins} left)", i))
        else:
            coins -= price * quantity
            kept.append((material, quantity))
    return tuple(kept), drops, coins


# ---- (2) machines ----------------------------------------------------------------------------------


def machine_problem(alchemy: Alchemy, machine: str, coins: int, held: Mapping[str, int],
                    owned: Sequence[str]) -> str | None:
    """Why `machine` cannot be bought with the coins left after purchases and the materials held
    after the harvest, or None."""
    m = alchemy.machines[machine]
    if machine in owned:
        return f"a machine you do not own yet (each is bought once; {machine} is yours)"
    if m.coins > coins:
        return f"a machine you can pay ({machine} costs {m.coins} coins, {coins} left after purchases)"
    if m.material and held.get(m.material, 0) < m.material_quantity:
        return (f"a machine you can pay ({machine} also costs {m.material_quantity} {m.material}; you held "
                f"{held.get(m.material, 0)} after the harvest)")
    return None


def apply_machines(alchemy: Alchemy, held: Mapping[str, int], machines: Sequence[str],
                   harvested: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Every machine owned, in the order bought: yield machines add to what was harvested,
    transmuters turn what is held. Returns the materials held after and the changes."""
    held, changes = dict(held), Counter()
    for name in machines:
        m = alchemy.machines[name]
        if m.effect is Effect.YIELD and m.source in harvested:
            changes[m.source] += m.amount
            held[m.source] = held.get(m.source, 0) + m.amount
        elif m.effect is Effect.TRANSMUTE:
            turned = min(m.amount, held.get(m.source, 0))
            if turned:
                held[m.source] -= turned
                held[m.target] = held.get(m.target, 0) + turned
                changes[m.source] -= turned
                changes[m.target] += turned
    return held, {material: n for material, n in changes.items() if n}


# ---- (3) engineering -------------------------------------------------------------------------------


def engineering_order(attempts: Sequence[Attempt], rng: random.Random) -> tuple[str, ...]:
    """One construct per attempt: rows with a priority first, by priority (equal priorities in row
    order), then the other rows' attempts in a random order (the addendum)."""
    first = sorted((a for a in attempts if a.priority is not None), key=lambda a: a.priority)
    rest = [a.construct for a in attempts if a.priority is None for _ in range(a.quantity)]
    rng.shuffle(rest)
    return tuple(a.construct for a in first for _ in range(a.quantity)) + tuple(rest)


def engineer(held: Mapping[str, int], attempts: Sequence[str], needs: Mapping[str, Mapping[str, int]]
             ) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, int]]:
    """Attempts in order: one succeeds only if every material of its recipe is held at that moment;
    one that fails loses nothing. Returns the constructs made, the attempts failed, what is left."""
    held, made, failed = dict(held), [], []
    for construct in attempts:
        need = needs[construct]
        if all(held.get(m, 0) >= q for m, q in need.items()):
            for m, q in need.items():
                held[m] -= q
            made.append(construct)
        else:
            failed.append(construct)
    return tuple(made), tuple(failed), held


# ---- (4) the market --------------------------------------------------------------------------------


def sales_multiplier(sold_in_set: int) -> Fraction:
    """The multiplier for constructs of a set of which `sold_in_set` were sold this round, by everyone."""
    return MULTIPLIERS.get(sold_in_set, CROWDED)


def sell(alchemy: Alchemy, made: Mapping[str, Sequence[str]]) -> dict[str, tuple[Sale, ...]]:
    """Every construct made is sold this round for its market value × its set's multiplier, in gems."""
    in_set = Counter(alchemy.constructs[c].set for constructs in made.values() for c in constructs)
    out = {}
    for player, constructs in made.items():
        sales = []
        for name in constructs:
            c = alchemy.constructs[name]
            multiplier = sales_multiplier(in_set[c.set])
            sales.append(Sale(name, c.set, multiplier, c.value * multiplier))
        out[player] = tuple(sales)
    return out


# ---- a round -------------------------------------------------------------------------------------


def plan(submission: AlchemySubmission, rng: random.Random) -> Turn:
    return Turn(submission.harvest, submission.buy, submission.machine,
                engineering_order(submission.engineer, rng))


def resolve_round(alchemy: Alchemy, number: int, start: Mapping[str, Holdings], turns: Mapping[str, Turn]
                  ) -> RoundResult:
    """One round for every participant at once, from the turns as played. Refused parts are
    reported, never applied."""
    energies = {p: energy(alchemy, h.machines) for p, h in start.items()}
    harvests, drops = {}, {}
    for p in start:
        harvests[p], drops[p] = legal_harvest(alchemy, turns[p].harvest, energies[p])
    yields = harvest_yields(alchemy, harvests)
    steps = {}
    for p, h in start.items():
        turn = turns[p]
        held = dict(h.materials)
        for m, n in yields[p].items():
            held[m] = held.get(m, 0) + n
        bought, refused, coins = buy(alchemy, h.coins, turn.buy)
        drops[p] += refused
        for m, n in bought:
            held[m] = held.get(m, 0) + n
        machines, machine = h.machines, turn.machine
        why = machine and machine_problem(alchemy, machine, coins, held, machines)
        if why:
            drops[p].append(Drop("machine", machine, why))
            machine = None
        elif machine:
            m = alchemy.machines[machine]
            coins -= m.coins
            if m.material:
                held[m.material] -= m.material_quantity
            machines += (machine,)
        held, machined = apply_machines(alchemy, held, machines, yields[p])
        needs = recipes(alchemy, set(turn.engineer), machines)
        made, failed, held = engineer(held, turn.engineer, needs)
        steps[p] = (bought, coins, machine, machines, machined, made, failed, held)
    sales = sell(alchemy, {p: step[5] for p, step in steps.items()})
    reports = {}
    for p, (bought, coins, machine, machines, machined, made, failed, held) in steps.items():
        h = start[p]
        after = Holdings(coins, h.gems + sum(s.gems for s in sales[p]), {m: n for m, n in held.items() if n},
                         machines, h.sold | {s.construct for s in sales[p]})
        reports[p] = Report(turns[p], energies[p], harvest_energy(alchemy, harvests[p]), yields[p], bought, machine,
                            machined, made, failed, sales[p], tuple(drops[p]), after)
    return RoundResult(number, reports)


def resolve(state: AlchemyState, submissions: Mapping[str, AlchemySubmission | None], number: int,
            rng: random.Random) -> AlchemyState:
    """The state after festival round `number`; a missing submission does nothing. Each
    participant's attempts are ordered by a generator of their own (`generators`), so what another
    types never changes their order."""
    draw = generators(rng)
    turns = {p: plan(submissions.get(p) or AlchemySubmission(), draw(p)) for p in state.participants}
    start = {p: state.holdings(p) for p in state.participants}
    return AlchemyState(state.alchemy, state.participants,
                        state.history + (resolve_round(state.alchemy, number, start, turns),))


# ---- the end ---------------------------------------------------------------------------------------


def tie_chain(holdings: Holdings) -> tuple[Fraction, int, int]:
    """Gems, then the addendum's tiebreaks: different constructs sold, gold held at the end."""
    return holdings.gems, len(holdings.sold), holdings.materials.get(GOLD, 0)


def placements(state: AlchemyState, tiebreak: Sequence[str]) -> list[Placement]:
    """By gems; ties by different constructs sold, then gold held, then the Gamewide Tiebreak."""
    key = {p: tie_chain(state.holdings(p)) for p in state.participants}
    order = place_by(state.participants, key, tiebreak)
    return [Placement(p, place, key[p][0], {"unique constructs sold": key[p][1], "gold held": key[p][2]})
            for place, p in enumerate(order, 1)]
