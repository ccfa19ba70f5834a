"""Spirit Chain's bot: function(state, player, rng) -> SpiritChainSubmission.

It chooses among what the state says is legal now (its lights, `upgrades_due`, `free`), which
`read` checks a typed row against (`bids_problem`, `upgrade_problem`, `slot_problem`).
"""

from __future__ import annotations

import random

from . import rules
from .rules import LOT, SLOTS
from .state import Phase, SpiritChainState, SpiritChainSubmission


def random_bot(state: SpiritChainState, player: str, rng: random.Random) -> SpiritChainSubmission:
    """A plausible player: bids a share of its lights, makes most upgrades, plays its
    strongest cards in a random order."""
    seat, book = state.seat(player), state.rules.cards
    if state.phase is Phase.AUCTION:
        budget = int(state.lights[seat] * rng.uniform(0.05, 0.3))
        shares = [rng.random() for _ in range(LOT)]
        return SpiritChainSubmission(Phase.AUCTION, bids=tuple(int(budget * s / sum(shares)) for s in shares))
    if state.phase is Phase.UPGRADES:
        free = state.free(seat)
        if not state.upgrades_due(seat) or rng.random() < 0.1:
            return SpiritChainSubmission(Phase.UPGRADES)
        made, fours = rules.forced_upgrades(book, free)
        while fours:
            made.append(rng.choice(fours))
            more, fours = rules.forced_upgrades(book, rules.apply_upgrades(book, free, made))
            made += more
        return SpiritChainSubmission(Phase.UPGRADES, upgrades=tuple(made))
    pool = list(state.free(seat).elements())
    rng.shuffle(pool)
    pool.sort(key=lambda t: -(book[t].rank or rng.choice((0, 2))))  # an action now and then
    chosen = pool[:SLOTS] + [None] * max(0, SLOTS - len(pool))
    rng.shuffle(chosen)
    return SpiritChainSubmission(Phase.SLOTS, slots=tuple(chosen))
