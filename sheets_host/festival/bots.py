"""A festival's bots: a random list in the pregame, then each event's bot of the same strategy
(its random one where it has no such strategy)."""

from __future__ import annotations

import random

from .pregame import Preference
from .rules import playing, run_events
from .state import PREGAME, FestivalState, FestivalSubmission


def bot(state: FestivalState, player: str, rng: random.Random, strategy: str = "random") -> FestivalSubmission:
    if state.round == PREGAME:
        first, second = rng.sample([e.name for e in state.plan.events], 2)
        return FestivalSubmission(preference=Preference(first, second, rng.randint(0, state.garnets.get(player, 0))))
    subs = {}
    for e in run_events(state):
        if player in state.assignment[e.name] and playing(state, e):
            bots = e.bots()
            subs[e.name] = bots.get(strategy, bots["random"])(state.events[e.name], player, rng)
    return FestivalSubmission(events=subs)


def strategies(state_events) -> tuple[str, ...]:
    """Every strategy some event's bots have, "random" first."""
    names = {name for e in state_events for name in e.bots()}
    return ("random", *sorted(names - {"random"}))
