"""The bot for Magician's Market: function(state, player, rng) -> MarketSubmission, legal by the
state's own checks (`affords_extra`, `after_generation`)."""

from __future__ import annotations

import random
from collections import Counter

from .market import Bid, Gift, MarketSubmission, Player
from .state import MarketState


def random_bot(state: MarketState, player: Player, rng: random.Random) -> MarketSubmission:
    """Random legal orders: three goods, sometimes the extra good, sometimes a gift, usually a
    bid of part of the purse, now and then more than it holds (counted only if sales cover it)."""
    s, now = state.settings, state.now
    coins = now.coins[player]
    chosen = set(rng.sample(s.goods, s.goods_generated))
    named = tuple(g for g in s.goods if g in chosen)
    extra = rng.choice(s.goods) if now.affords_extra(player, s) and rng.random() < 0.3 else None
    held = Counter(now.after_generation(player, named, extra))
    gifts = ()
    if rng.random() < 0.4:
        good = rng.choice(sorted(held.elements()))
        to = rng.choice([p for p in state.players if p != player])
        gifts = (Gift(to, good, rng.randint(1, held[good])),)
    bid = None
    if rng.random() < 0.9:
        purse = coins - (s.extra_cost if extra else 0)
        amount = rng.randint(1, max(1, purse // 3)) if rng.random() < 0.9 else purse + rng.randint(1, 10)
        bid = Bid(rng.choice(s.magician_names), amount)
    return MarketSubmission(named, extra, gifts, bid)
