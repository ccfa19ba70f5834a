"""Every Academy the host may set up plays to its end: any number of players the Academy takes (4 to
10), any `rounds` and `players per event` that `check_config` accepts, any preference lists (so any
number of participants in an event, none and one included) and any seed. A resolve that crashes
stops the game for every player, so a setting the events cannot play is refused up front instead."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.engine.play import bot_names, bot_states, default_settings
from sheets_host.festival.pregame import Preference
from sheets_host.festival.state import FestivalState, FestivalSubmission
from sheets_host.games import get_game
from sheets_host.kit.game import rng_for

GAME = get_game("academy-of-witchcraft-arts")
DEFAULTS = default_settings(GAME)
EVENTS = tuple(e.name for e in GAME.events)
LISTS = tuple(itertools.permutations(EVENTS, 2))  # the six ordered pairs a player may list


def placed(lists: list[tuple[str, str]], seed: int = 1, **settings: object) -> FestivalState:
    """The pregame resolved with one player a list (`lists`); settings named with _ for a space."""
    names = bot_names(len(lists))
    config = {**DEFAULTS["config"], **{k.replace("_", " "): v for k, v in settings.items()}}
    assert GAME.check_config(config, names) == []
    state = GAME.setup(names, seed, config, DEFAULTS["data"])
    typed = {p: FestivalSubmission(preference=Preference(*pair)) for p, pair in zip(names, lists)}
    return GAME.resolve(state, typed, rng_for(seed, GAME.round(state), "resolve")).state


def festival(lists: list[tuple[str, str]], seed: int = 1, **settings: object) -> FestivalState:
    """A whole festival, placed by `lists`, then played by bots, through what `simulate` and the
    books read of every state."""
    state = placed(lists, seed, **settings)
    names = list(state.players)
    for state in bot_states(GAME, names, seed, state.plan.config, DEFAULTS["data"], state):
        for p in names:
            GAME.how_to_submit(state, p)
    GAME.public_view(state)
    for p in names:
        GAME.private_view(state, p)
    GAME.summary(state), GAME.standings(state)
    return state


def test_a_lone_summoner_plays_no_round_and_ranks_first():
    """The defect: four players, one of them alone in Summoner's Dream, who had nobody to invade in
    round 6 (`simulate academy-of-witchcraft-arts --games 40 --players 4 --seed 26`)."""
    state = festival([("alchemy", "continuum")] * 3 + [("alchemy", "summoning")])
    summoning = state.events["summoning"]
    assert GAME.is_over(state) and state.assignment["summoning"] == ("Dmitri",)
    assert summoning.rounds_played == 0 and summoning.holdings["Dmitri"].treasures == 50
    assert [(p.player, p.place) for p in GAME.events[2].placements(summoning, state.plan.tiebreak)] == [("Dmitri", 1)]


def test_the_lone_summoner_is_told_the_event_plays_no_round():
    state = placed([("alchemy", "continuum")] * 3 + [("summoning", "alchemy")])
    blocks = {b.title: b.lines for b in GAME.how_to_submit(state, "Dmitri")}
    assert blocks["Summoner's Dream"] == ("This event plays no round: you are its only participant, so it ranks "
                                          "you 1st.",)


def test_an_event_nobody_plays_gives_simulate_no_numbers_of_it():
    state = festival([("alchemy", "continuum"), ("continuum", "alchemy")] * 2)
    assert state.assignment["summoning"] == ()
    summary = GAME.summary(state)
    assert not any(k.startswith("summoning ") for k in summary) and "alchemy gems mean" in summary


@pytest.mark.parametrize("by_hand, problems", [
    ("", ["config 'rounds': 7; Summoner's Dream is played over the rule text's 6 rounds at most (its data tabs "
          "hold no more): 1 to 6, or list Summoner's Dream in 'hosted by hand'"]),
    ("Summoner's Dream", []),
])
def test_more_rounds_than_summoner_s_dream_sells_for_are_refused_unless_it_is_hosted_by_hand(by_hand, problems):
    config = {**DEFAULTS["config"], "rounds": 7, "hosted by hand": by_hand}
    assert GAME.check_config(config, bot_names(7)) == problems


@settings(max_examples=30, deadline=None)
@given(lists=st.lists(st.sampled_from(LISTS), min_size=GAME.min_players, max_size=GAME.max_players),
       rounds=st.integers(1, 8), capacity=st.integers(1, 12), by_hand=st.sampled_from(("", "Summoner's Dream")),
       seed=st.integers(0, 2**16))
def test_every_festival_plays_to_its_end_or_its_settings_are_refused(lists, rounds, capacity, by_hand, seed):
    config = {**DEFAULTS["config"], "rounds": rounds, "players per event": capacity, "hosted by hand": by_hand}
    problems = GAME.check_config(config, bot_names(len(lists)))
    if problems:
        assert all(p.startswith(("config 'rounds': ", "config 'players per event': ")) for p in problems)
        return
    state = festival(lists, seed, rounds=rounds, players_per_event=capacity, hosted_by_hand=by_hand)
    assert GAME.is_over(state) and all(len(members) <= capacity for members in state.assignment.values())
    if by_hand:
        return
    summoning = state.events["summoning"]
    others = len(summoning.participants) - 1
    # each invades as many others as the rounds allow, never one twice
    assert summoning.rounds_played == max(0, min(rounds, others))
    assert all(len(set(h.invaded)) == len(h.invaded) for h in summoning.holdings.values())
