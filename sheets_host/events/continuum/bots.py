"""Elemental Continuum's bot: a random valid board in round 1 (`board.random_board`), then two
random bolts a round."""

from __future__ import annotations

import random

from .board import random_board
from .state import BOLTS_PER_ROUND, CELLS, ELEMENTS, Bolt, ContinuumState, ContinuumSubmission


def random_bot(state: ContinuumState, player: str, rng: random.Random) -> ContinuumSubmission:
    if state.rounds_played == 0:
        return ContinuumSubmission(board=random_board(rng))
    bolts = tuple(Bolt(rng.choice(CELLS), rng.choice(ELEMENTS)) for _ in range(BOLTS_PER_ROUND))
    return ContinuumSubmission(bolts=bolts)
