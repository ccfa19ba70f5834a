"""Summoner's Dream's bots: legal submissions drawn from a seeded generator, for the demo and
`simulate`. Each buys about as much on either side (the spending rule), places every Tower beside
a track, sends every Familiar in two even parties, and invades someone not yet invaded.

`random`: buys at random among what is on sale and upgrades at random. `greedy`: upgrades every
unit it can before buying more, to compare with `random`.
"""

from __future__ import annotations

import random

from . import rules
from .state import SLOTS, Facing, Order, Stand, SummoningState, SummoningSubmission, Unit


def _orders(state: SummoningState, player: str, rng: random.Random,
            upgrade_first: bool) -> tuple[list[Order], rules.Shopping]:
    """Orders the shop keeps, and what they buy: upgrades, then a Tower and Familiars in turn."""
    number = state.round
    sale = rules.on_sale(state, number)
    towers = [k for k in sale if k in state.catalogue.towers]
    familiars = [k for k in sale if k in state.catalogue.familiars]
    h = state.holdings[player]
    wish: list[Order] = []
    mine: list[Unit] = [*h.towers, *h.familiars]
    if upgrade_first:  # every unit it can, up to half its coins; the rest for new units
        spent = 0
        for u in mine:
            price = rules.upgrade_price(state.catalogue, u) if not rules.upgrade_problem(state.catalogue, u, number) \
                else None
            if price is not None and spent + price <= rules.purse(h) // 2:
                wish.append(("upgrade", u.name))
                spent += price
    else:
        wish += [("upgrade", u.name) for u in rng.sample(mine, min(len(mine), rng.randint(0, 2)))]
    for _ in range(rng.randint(1, 3)):
        if towers:
            wish.append(("buy", rng.choice(towers)))
        wish += [("buy", rng.choice(familiars)) for _ in range(rng.randint(1, 3)) if familiars]
    bought = rules.shop(state, player, wish, number)
    return [wish[i] for i in bought.kept], bought


def _stands(state: SummoningState, map_name: str, towers: list[Unit], rng: random.Random) -> tuple[Stand, ...]:
    game_map = state.catalogue.maps[map_name]
    taken: set[tuple[int, int]] = set()
    stands = []
    for unit in towers:
        ground = state.catalogue.towers[unit.kind].ground
        free = [c for c in game_map.beside_tracks[ground] if c not in taken]
        if free:
            cell = free[rng.randrange(len(free))]
            taken.add(cell)
            stands.append(Stand(unit.name, cell, rng.choice(list(Facing))))
    return tuple(stands)


def _bot(state: SummoningState, player: str, rng: random.Random, upgrade_first: bool) -> SummoningSubmission:
    orders, bought = _orders(state, player, rng, upgrade_first)
    map_name = rng.choice(state.offers[state.round][player])
    familiars = [u.name for u in bought.familiars][:SLOTS]
    rng.shuffle(familiars)
    slots = {slot: name for slot, name in enumerate(familiars, 1)}
    left = rules.not_yet_invaded(state, player)
    # Nothing to place or send is typed as nothing (blank tabs), as a person would leave them
    return SummoningSubmission(tuple(orders), map_name, _stands(state, map_name, list(bought.towers), rng) or None,
                      slots or None, rules.even_parties(slots) if slots else None, rng.choice(left) if left else None)


def random_bot(state: SummoningState, player: str, rng: random.Random) -> SummoningSubmission:
    return _bot(state, player, rng, upgrade_first=False)


def greedy(state: SummoningState, player: str, rng: random.Random) -> SummoningSubmission:
    return _bot(state, player, rng, upgrade_first=True)
