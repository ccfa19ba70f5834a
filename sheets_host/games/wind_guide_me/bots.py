"""Wind Guide Me's bot: a random legal submission, as the state says what is legal now."""

from __future__ import annotations

import random

from . import rules
from .rules import POSITIONS
from .state import Placement, Player, WindState, WindSubmission


def random_bot(state: WindState, player: Player, rng: random.Random) -> WindSubmission:
    """Stones from the hand at open sites, at random positions; now and then Power of Light on the
    first stone, and Power of Dark's fake at another of the player's sites."""
    open_sites = state.open_sites(player)
    sites = rng.sample(open_sites, min(state.settings.per_round, len(open_sites)))
    pool = list(state.hand(player).elements())
    rng.shuffle(pool)
    stones = [Placement(site, rng.randint(1, POSITIONS), pool[i], pool[i]) for i, site in enumerate(sites)
              if i < len(pool)]
    if stones and state.light_ready(player) and rng.random() < 0.3:
        s = stones[0]
        choices = [p for p in range(rules.MIN_POWER, rules.MAX_POWER + 1)
                   if p != s.from_hand and state.light_refusal(player, s.from_hand, p) is None]
        stones[0] = Placement(s.site, s.position, s.from_hand, rng.choice(choices))
    fake = None
    if stones and state.dark_ready(player) and rng.random() < 0.3:
        fake = Placement(rng.choice(state.fake_sites(player, sites)), rng.randint(1, POSITIONS), 0,
                         rng.randint(1, rules.MAX_POWER))
    return WindSubmission(tuple(stones), fake, missed=not stones)
