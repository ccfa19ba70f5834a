"""Pyramid Superiority's bot: random submissions that the resolver takes whole, chosen with the
state's own checks (what the participant holds, whether a rotation is paid, the chips left to send,
where a piece may be built), so what it types parses back with no message."""

from __future__ import annotations

import random

from . import rules
from .meadows import GUEST_MEADOWS, Construction, Name, Proposal, Transfer
from .rules import ROTATION_COST, Corner
from .state import PyramidState, PyramidSubmission


def random_bot(state: PyramidState, player: Name, rng: random.Random) -> PyramidSubmission | None:
    if not state.submits(player):
        return None
    holds = state.holds(player)
    if state.is_guest(player):
        bid = rng.randint(0, min(holds, 6))
        turns = rng.randint(1, 3) if state.rotation_paid(player, bid) and rng.random() < 0.2 else 0
        mine = state.pieces[(state.day, player)].rotated(turns)
        star = rng.choice([c for c in Corner if mine.cell(c) is state.types[player]] if rng.random() < 0.7
                          else list(Corner))
        return Proposal(bid, star, turns)
    bid = rng.randint(0, min(holds, 8))
    turns = rng.randint(1, 3) if state.rotation_paid(player, bid) and rng.random() < 0.3 else 0
    places = rules.buildable(state.ledger.pyramid)
    position = rng.choice(places) if rng.random() < 0.8 else None
    transfers = ()
    left = state.chips_left(player, bid) - ROTATION_COST  # enough even after a rotation, should the bot win
    if state.transfers_open and left >= 3 and rng.random() < 0.2:
        transfers = (Transfer(rng.choice(state.settings.guests), rng.randint(1, 3)),)
    return Construction(bid, rng.choice(GUEST_MEADOWS), turns, position, transfers)
