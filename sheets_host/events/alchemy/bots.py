"""Bots for Alchemy: function(state, player, rng) -> AlchemySubmission.

`random` is a random legal submission; `greedy` plans a harvest toward the constructs worth the
most gems per energy it can afford, buying what one harvest will not bring, and buys a machine
that helps that plan.
"""

from __future__ import annotations

import random
from collections import Counter

from . import rules
from .state import ROUNDS, Alchemy, AlchemyState, AlchemySubmission, Attempt, Effect, Holdings

COINS_PER_ENERGY = 20  # how greedy weighs coins against energy (500 coins last six rounds)
CLOSE = 0.85  # greedy picks at random among plans scoring this share of the best, so games differ
MOST_PLANNED = 8  # constructs planned a round: more than 17 energy and a share of the purse make


def random_bot(state: AlchemyState, player: str, rng: random.Random) -> AlchemySubmission:
    """A random harvest that fits the energy, a few purchases, now and then a machine, a few attempts."""
    a, held = state.alchemy, state.holdings(player)
    energy = rules.energy(a, held.machines)
    harvest: list[str] = []
    for m in rng.sample(list(a.materials), len(a.materials)):
        if rng.random() < 0.5 and rules.harvest_energy(a, harvest + [m]) <= energy:
            harvest.append(m)
    coins, buys = held.coins, []
    for _ in range(rng.randint(0, 2) if a.buyable else 0):  # the host's data may price no material
        m, n = rng.choice(a.buyable), rng.randint(1, 3)
        if a.materials[m].price * n <= coins:
            coins -= a.materials[m].price * n
            buys.append((m, n))
    machines = [m for m in a.machines if state.can_buy_machine(player, m) and a.machines[m].coins <= coins]
    machine = rng.choice(machines) if machines and rng.random() < 0.3 else None
    attempts = tuple(Attempt(rng.choice(list(a.constructs)), rng.randint(1, 2), rng.choice((None, rng.randint(1, 3))))
                     for _ in range(rng.randint(0, 4)))
    return AlchemySubmission(tuple(harvest), tuple(buys), machine, attempts)


def greedy(state: AlchemyState, player: str, rng: random.Random) -> AlchemySubmission:
    """Scores every construct by gems per energy from what it holds, then, best first (each score
    shaken by up to 1 − CLOSE so games differ), adds each to its plan as often as its harvest fits
    the energy and its purchases the coins it allows itself this round (an even share of its purse
    over the rounds left). A unit it holds costs nothing; one it harvests costs its material's
    energy over the yield it expects (the base less one: a guess of one other participant at each
    location); one it buys costs its price at COINS_PER_ENERGY. Then a machine, with the coins left."""
    a, held = state.alchemy, state.holdings(player)
    plan = _Plan(a, held, rules.energy(a, held.machines), held.coins // max(1, ROUNDS - state.round))
    scored = []
    for c in a.constructs:
        option = plan.option(c)
        if option:
            scored.append((float(a.constructs[c].value) / max(0.5, option[0]) * rng.uniform(CLOSE, 1), c))
    for _, c in sorted(scored, reverse=True):
        while len(plan.made) < MOST_PLANNED and plan.add(c):
            pass
    coins = held.coins - sum(a.materials[m].price * n for m, n in plan.buys.items())
    machine = _helpful_machine(state, player, plan.harvest, plan.made, coins, Counter(plan.have), rng)
    attempts = tuple(Attempt(c, 1, i) for i, c in enumerate(plan.made, 1))
    return AlchemySubmission(tuple(plan.harvest), tuple(plan.buys.items()), machine, attempts)


class _Plan:
    """The greedy bot's round as it grows: what it expects to hold, harvest, buy and make."""

    def __init__(self, a: Alchemy, held: Holdings, energy: int, budget: int):
        self.a, self.energy, self.budget = a, energy, budget
        self.expect = max(1, a.harvest_base - 1)
        self.needs = {c: tuple(n.items()) for c, n in rules.recipes(a, a.constructs, held.machines).items()}
        self.have, self.harvest, self.buys, self.made = dict(held.materials), [], Counter(), []
        self.cost, self.places = 0, set()

    def option(self, construct: str) -> tuple[float, list[str], dict[str, int], int, int] | None:
        """What making one more `construct` would cost (in energy, coins counted at COINS_PER_ENERGY),
        what it would harvest and buy, the coins and harvest energy it adds; None if it cannot fit.
        One pass over the recipe, as the bot weighs every construct several times a round."""
        mats, expect, have, harvest = self.a.materials, self.expect, self.have, self.harvest
        new, to_buy, locations = [], {}, set()
        spent = added = harvested = 0
        for m, q in self.needs[construct]:
            short = q - have.get(m, 0)
            if short <= 0:
                continue
            material = mats[m]
            buy = short
            if m not in harvest:
                new.append(m)
                locations.add(material.location)
                # a material at a location already harvested costs one energy less (the text's x − 1)
                added += material.energy - 1
                harvested += material.energy * min(short, expect)
                buy -= expect
            if buy > 0:
                if material.price is None:
                    return None
                to_buy[m] = buy
                spent += material.price * buy
        added += len(locations - self.places)
        if spent > self.budget or self.cost + added > self.energy:
            return None
        return spent / COINS_PER_ENERGY + harvested / expect, new, to_buy, spent, added

    def add(self, construct: str) -> bool:
        option = self.option(construct)
        if option is None:
            return False
        _, new, to_buy, spent, added = option
        self.harvest += new
        self.places.update(self.a.materials[m].location for m in new)
        self.cost += added
        for m, n in [(m, self.expect) for m in new] + list(to_buy.items()):
            self.have[m] = self.have.get(m, 0) + n
        for m, q in self.needs[construct]:
            self.have[m] -= q
        self.buys.update(to_buy)
        self.budget -= spent
        self.made.append(construct)
        return True


def _helpful_machine(state: AlchemyState, player: str, harvest: list[str], plan: list[str], coins: int,
                     have: Counter, rng: random.Random) -> str | None:
    """A machine it can pay that helps: energy with rounds to come, a yield on what it harvests, a
    thrift on what its plan needs, a transmuter turning what it has into what its plan needs or
    what cannot be bought."""
    a = state.alchemy
    needed = {m for c in plan for m, _ in a.recipes[c].needs}
    helpful = []
    for name, m in a.machines.items():
        if (not state.can_buy_machine(player, name) or m.coins > coins
                or (m.material and have[m.material] < m.material_quantity)):
            continue
        if ((m.effect is Effect.ENERGY and state.round + 1 < ROUNDS)  # it pays from the next round
                or (m.effect is Effect.YIELD and m.source in harvest)
                or (m.effect is Effect.THRIFT and m.source in needed)
                or (m.effect is Effect.TRANSMUTE and (m.target in needed or a.materials[m.target].price is None)
                    and (have[m.source] > 0 or m.source in harvest))):
            helpful.append(name)
    return rng.choice(helpful) if helpful else None
