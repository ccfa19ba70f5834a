"""Elemental Continuum's bot: a random valid board in round 1 (`board.random_board`), then two
random bolts a round."""

from __future__ import annotations

import random

from .board import random_board
from .read import Submission
from .state import BOLTS_PER_ROUND, CELLS, ELEMENTS, Bolt, ContinuumState


def random_bot(state: ContinuumState, player: str, rng: random.Random) -> Submission:
    if state.rounds_played == 0:
        return Submission(board=random_board(rng))
    return Submission(bolts=tuple(Bolt(rng.choice(CELLS), rng.choice(ELEMENTS)) for _ in range(BOLTS_PER_ROUND)))
