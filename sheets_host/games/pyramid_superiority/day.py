"""Pyramid Superiority's days as rules on the whole state: the start (types drawn, round 1's
pieces dealt) and a day resolved. What the days add up to is accounted in `ledger.py`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from . import rules
from .ledger import account
from .meadows import ROUNDS, Construction, Meadow, Name, Proposal, Settings
from .rules import Type
from .state import PyramidState, PyramidSubmission


def setup(players: Sequence[Name], settings: Settings, rng: random.Random) -> PyramidState:
    """Each meadow's types drawn (one of each), then round 1's pieces dealt to the guests."""
    types = {}
    for meadow in Meadow:
        kinds = list(Type)
        rng.shuffle(kinds)
        types.update(zip(settings.meadows[meadow], kinds))
    pieces = {(1, g): rules.deal_piece(types[g], rng.shuffle) for g in settings.guests}
    return PyramidState(tuple(players), settings, types, pieces, {}, {})


def resolve(state: PyramidState, submissions: Mapping[Name, PyramidSubmission | None],
            rng: random.Random) -> PyramidState:
    """The day: today's submissions (the default for anyone silent) added to the history, and the
    next proposal stage's pieces dealt."""
    day, s = state.day, state.settings
    proposals, constructions, pieces = dict(state.proposals), dict(state.constructions), dict(state.pieces)
    if day <= ROUNDS:
        for g in s.guests:
            sub = submissions.get(g)
            proposals[(day, g)] = sub if isinstance(sub, Proposal) else state.default(g)
    if day >= 2:
        for p in s.players:
            sub = submissions.get(p)
            constructions[(day - 1, p)] = sub if isinstance(sub, Construction) else state.default(p)
    if day < ROUNDS:  # the next proposal stage's pieces
        for g in s.guests:
            pieces[(day + 1, g)] = rules.deal_piece(state.types[g], rng.shuffle)
    after = replace(state, pieces=pieces, proposals=proposals, constructions=constructions)
    # Seed the new state's ledger from this one's plus today: what replaying every day would
    # give (test_a_resolved_state_accounts_like_a_full_replay), at a fifteenth of the cost.
    after.__dict__["ledger"] = account(s, state.types, pieces, proposals, constructions, day, state.ledger)
    return after
